"""The characterize mode (issue 25): the shipped profile covers the course set, the sweep runs reads, then the
sustained write, then writes and mixes (labelled as on a preconditioned target), and the heatmaps show the cells
its searches did not measure as "not measured by the search: ...", never as numbers.  One tiny real-fio run."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import characterize_phase_table, grid, search_plateaus, search_steps, search_table
from helpers.errors import LabError
from helpers.figures import heatmap_figure, search_figure
from helpers.ingest import ingest_paths, ingest_run, manifest_facts
from helpers.run import sweep
from helpers.run.profiles import Point, load_profile, parse_profile
from helpers.run.runner import run_point
from helpers.run.sweep import characterize_phases
from realfio import still_target
from sweep_helpers import write_profile


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def test_shipped_profile_searches_the_course_set_and_orders_reads_cliff_writes():
    p = load_profile("characterize")
    course = load_profile("course")
    assert p.mode == "characterize" and p.adaptive is not None
    assert {(s.rw, s.bs_bytes) for s in p.series} == {(c.rw, c.bs_bytes) for c in course.points}
    assert len(p.series) == 24 and all(s.iodepth == 1 and s.settle_windows == 3 for s in p.series)
    fixed = [x for x in p.points if x.point_id not in p.searched]
    assert {x.group for x in fixed} == {"qd1", "blocksize", "mix", "sustained"}
    assert all(x.settle_windows == 0 for x in fixed)  # listed points run their full runtime
    phases = characterize_phases(p)
    assert [x.group for x in phases["sustained"]] == ["sustained"] and phases["sustained"][0].volume >= 1
    assert all(not x.writes for x in phases["reads"]) and all(x.writes for x in phases["writes"])
    assert {x.rw for x in phases["reads"] if x.point_id in p.searched} == {"read", "randread"}
    assert {x.rw for x in phases["writes"] if x.point_id in p.searched} == {"write", "randwrite", "rw", "randrw"}
    assert "min of fio" in p.estimate_text(1 << 30)


def test_write_series_without_a_sustained_write_are_refused():
    doc = {"mode": "characterize", "points": [{"group": "qd", "rw": ["randread", "randwrite"], "bs": "4k"}]}
    with pytest.raises(LabError, match="sustained write"):
        parse_profile(doc, "c")
    with pytest.raises(LabError, match="at least one QD series"):
        parse_profile({"mode": "characterize", "points": [{"rw": "read", "bs": "4k", "iodepth": 1}]}, "c")


def _results(rows: list[tuple[str, int, int, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"rw": rw, "bs_bytes": bs, "iodepth": q, "numjobs": 1, "rwmixread_pct": math.nan,
                          "direction": "read", "iops": v, "bw_bytes_per_s": v * bs, "lat_mean_us": q * 1e6 / v,
                          "p99_us": 3 * q * 1e6 / v, "flag_reasons": ""} for rw, bs, q, v in rows])


def test_unmeasured_cells_say_not_measured_with_the_plateau_never_a_number():
    """A randread 4k search that measured QD 1..32 and stopped on a plateau of 48,000 IOPS, with a refine step at
    QD 11 (so QD 2..32 below its last depth were all measured) and a 16k series still rising at QD 8 (no
    plateau): in the QD-held heatmap, QD 64..1024 of the 4k series read "not measured by the search: past its plateau"
    with no value; the 16k series past QD 8 "the search stopped before this depth", at the 4k series' refine
    depth too (a column of the heatmap)."""
    q4 = [1, 2, 4, 8, 16, 32, 11]
    df = _results([("randread", 4096, q, min(q, 8) * 6000.0) for q in q4] +
                  [("randread", 16384, q, q * 3000.0) for q in (1, 2, 4, 8)])
    plateaus = pd.DataFrame([
        {"rw": "randread", "bs_bytes": 4096, "rwmixread_pct": None, "numjobs": 1, "measured_qds": sorted(q4),
         "last_qd": 32, "max_qd": 1024, "plateau_iops": 48000.0, "target_state": None},
        {"rw": "randread", "bs_bytes": 16384, "rwmixread_pct": None, "numjobs": 1, "measured_qds": [1, 2, 4, 8],
         "last_qd": 8, "max_qd": 1024, "plateau_iops": math.nan, "target_state": None}])
    g = grid(df, "bs_bytes", "iodepth", plateaus)
    cell = g.set_index(["held", "x"])
    for q in (64, 128, 256, 512, 1024):
        assert cell.loc[(q, 4096), "note"] == "not measured by the search: past its plateau ≈ 48,000 IOPS, the median of its probes"
        assert pd.isna(cell.loc[(q, 4096), "iops"]) and cell.loc[(q, 4096), "n_points"] == 0
    assert cell.loc[(16, 16384), "note"] == "not measured by the search: it stopped before this depth"
    assert cell.loc[(32, 4096), "iops"] == 48000.0 and cell.loc[(32, 4096), "note"] == ""  # measured: a number
    assert (g[g["note"] != ""]["iops"].isna()).all()
    assert cell.loc[(11, 16384), "note"] == "not measured by the search: it stopped before this depth"  # 4k's refine
    fig = heatmap_figure(g)
    at = list(dict.fromkeys(g["held"])).index(1024)
    trace = fig.data[at]
    assert list(trace.x) == ["4k", "16k"]
    # the cell says n/m, the hover the sentence (a sentence in every cell shrank the labels to dashes, issue 34.6)
    assert trace.text[0][0] == "n/m" and (trace.z[0][0] is None or math.isnan(trace.z[0][0]))
    assert trace.customdata[0][0] == "not measured by the search: past its plateau ≈ 48,000 IOPS, the median of its probes"
    # a plateau check jumped QD 32 -> 128 (helpers.run.adaptive.check_due): QD 64 lies on the plateau between probes
    q32 = [1, 2, 4, 8, 16, 32, 128, 11]
    df32 = pd.concat([df, _results([("randread", 32768, q, min(q, 8) * 5000.0) for q in q32])], ignore_index=True)
    checked = pd.concat([plateaus, pd.DataFrame([
        {"rw": "randread", "bs_bytes": 32768, "rwmixread_pct": None, "numjobs": 1, "measured_qds": sorted(q32),
         "last_qd": 128, "max_qd": 1024, "plateau_iops": 40000.0, "plateau_from_qd": 8, "target_state": None}])],
        ignore_index=True)
    c32 = grid(df32, "bs_bytes", "iodepth", checked).set_index(["held", "x"])
    assert c32.loc[(64, 32768), "note"] == ("not measured by the search: on its plateau ≈ 40,000 IOPS, the median of "
                                            "its probes, measured on either side") and pd.isna(c32.loc[(64, 32768), "iops"])
    assert c32.loc[(256, 32768), "note"] == "not measured by the search: past its plateau ≈ 40,000 IOPS, the median " \
        "of its probes"
    assert c32.loc[(128, 32768), "iops"] == 40000.0
    # a QD on the x axis: the same cells
    gx = grid(df, "iodepth", "bs_bytes", plateaus).set_index(["held", "x"])
    assert gx.loc[(4096, 1024), "note"] == "not measured by the search: past its plateau ≈ 48,000 IOPS, the median of its probes"
    # with its probes' range (a run's search_plateaus): a measured cell above the median is inside it
    ranged = plateaus.assign(plateau_low_iops=[45000.0, math.nan], plateau_high_iops=[49000.0, math.nan])
    note = grid(df, "bs_bytes", "iodepth", ranged).set_index(["held", "x"]).loc[(64, 4096), "note"]
    assert note == "not measured by the search: past its plateau ≈ 48,000 IOPS, the median of its probes (45,000–49,000)"
    # without plateaus (a grid run): no such rows
    assert (grid(df, "bs_bytes", "iodepth")["note"] == "").all()


def test_real_tiny_characterize_run(tmp_path, scratch_dir):
    """Two searched series (4k random read and write, QD 1..4), a QD1 read, the sustained write of 1 x a 16 MiB
    target and a mix point: about 5 s of fio.  Reads run first, the sustained write next, then the write series
    and the mix, labelled as on the preconditioned target; every searched depth is a measured point, and the
    plateau cells past the searches' last depth are notes."""
    settings = {"ioengine": "libaio", "runtime_s": 0.3, "ramp_s": 0, "log_avg_msec": 0, "log_hist_msec": 0}
    prof = write_profile(tmp_path, "ch", [
        {"group": "qd", "rw": ["randread", "randwrite"], "bs": "4k"},
        {"group": "qd1", "rw": "randread", "bs": "4k", "iodepth": 1, "runtime_s": 0.5},
        {"group": "mix", "rw": "randrw", "bs": "4k", "iodepth": 4, "rwmixread": 70},
        {"group": "sustained", "rw": "write", "bs": "128k", "iodepth": 8, "volume": 1, "runtime_s": 30}],
        mode="characterize", adaptive={"max_qd": 4, "gain_pct": 10}, settings=settings)
    m = sweep.sweep(scratch_dir / "characterize.bin", prof, "ch", None, "16m", tmp_path / "raw", progress=False)
    assert m["status"] == "complete" and m["profile_mode"] == "characterize"
    pts = m["points"]
    phase_of = {k: v["characterize"]["phase"] for k, v in pts.items()}
    order = list(phase_of.values())  # the manifest records points in the order they started
    assert order == sorted(order, key=["reads", "sustained", "writes"].index), order
    assert phase_of["sustained-write-bs128k-qd8-nj1-vol1x"] == "sustained"
    assert phase_of["mix-randrw-bs4k-qd4-nj1-mix70"] == "writes"
    for sid, info in m["adaptive"].items():
        want = "writes" if "randwrite" in sid else "reads"
        assert info["characterize"]["phase"] == want and info["steps"], sid
        assert ("preconditioned" in info["characterize"]["target_state"]) == (want == "writes")
        for s in info["steps"]:  # every searched depth is a measured point with a settle check
            assert any(e.get("adaptive", {}).get("series") == sid and e["parameters"]["iodepth"] == s["qd"]
                       and any(a.startswith("--status-interval") for a in e["argv"]) for e in pts.values())
    assert not any(a.startswith("--status-interval") for a in pts["qd1-randread-bs4k-qd1-nj1"]["argv"])
    # the sweep-modes page: every search with its phase and target state, each phase of the run, every probe drawn
    table = search_table({"ch": m}).set_index("series")
    assert list(table.index) == ["randread 4k", "randwrite 4k"] and (table["seeded"] == "QD 1, 2, 4, ... (not seeded)").all()
    assert table.loc["randwrite 4k", "phase"] == "writes" and "preconditioned" in table.loc["randwrite 4k", "target_state"]
    assert table["probes"].tolist() == [len(v["steps"]) for v in m["adaptive"].values()]
    phases = characterize_phase_table({"ch": m})
    assert phases["phase"].tolist() == ["reads", "sustained", "writes"]
    assert phases["series_searched"].tolist() == [1, 0, 1] and phases["points_listed"].tolist() == [1, 1, 1]
    assert phases["device_s"].sum() == pytest.approx(m["device_seconds"], abs=0.05)
    steps = search_steps({"ch": m})
    fig = search_figure(steps)
    drawn = sum(len(t.x) for t in fig.data if t.mode == "lines+markers")
    assert drawn == len(steps) and {t.name for t in fig.data if t.mode == "lines+markers"} == set(table.index)
    # the SLO capacity (queue-depth page, device card) from the searches' own probes: p99 per measured depth
    from helpers.analysis import slo_card_sentence, slo_table
    from helpers.ingest import core as ingest
    from helpers.notebook import runs

    ingest.ingest("ch", raw_dir=tmp_path / "raw", processed_dir=tmp_path / "processed")
    results = runs.load_results("ch", tmp_path / "processed", tmp_path / "raw").results
    # issue 34.1 on real probes: the card's 4k random-read peak is the level the search concluded (its plateau's
    # median, or without a plateau the median of its three best probes), inside the range of those probes, never
    # the luckiest probe alone (unless only one probe stands behind it)
    from helpers.analysis import device_card
    from helpers.analysis.card import levels
    from helpers.analysis.points import with_units
    d = with_units(results)
    rr = d[(d["rw"] == "randread") & (d["bs_bytes"] == 4096) & (d["direction"] == "read")]
    info = m["adaptive"]["qd-randread-bs4k-qd1-nj1"]
    probes = sorted((s["iops"] for s in info["steps"] if s["kind"] != "confirm"), reverse=True)
    (search,) = levels(rr, "iops", m).query("kind != 'point'").itertuples()
    level = info["plateau_iops"] if info.get("plateau_iops") is not None else float(np.median(probes[:3]))
    assert search.value == pytest.approx(level) and search.low <= search.value <= search.high, (search, probes)
    assert search.value < probes[0] or len(set(probes[:min(3, len(probes))])) == 1 or search.n == 1
    peak = device_card(results, manifest=m).metric("Peak 4k random read IOPS")
    assert peak.value in set(levels(rr, "iops", m)["value"]) and peak.spread[0] <= peak.value <= peak.spread[1]
    slo = slo_table(results, 1_000_000.0).set_index("series")  # an SLO every probe meets: at least the best probe
    assert slo.loc["randread 4k (read)", "limited_by"] == "range" and slo.loc["randread 4k (read)", "max_iops"] > 0
    assert "randwrite 4k (write)" in slo.index
    assert slo_card_sentence(results, 1_000_000.0).startswith("Max 4k random-read IOPS with p99 total latency")
    pl = search_plateaus(m)
    assert sorted(pl["rw"]) == ["randread", "randwrite"] and (pl["max_qd"] == 4).all()
    assert all(info["max_qd"] == 4 for info in m["adaptive"].values())  # each series records its ladder's end
    older = {**m, "adaptive": {k: {x: y for x, y in v.items() if x != "max_qd"} for k, v in m["adaptive"].items()}}
    assert (search_plateaus(older)["max_qd"] == 4).all()  # runs before that: the profile the manifest holds
    assert (pl["last_qd"] <= 4).all() and all(1 in q for q in pl["measured_qds"])
    # every point of the run (all under 3 s) is flagged short exactly when no settle ended it
    rows = ingest_run(tmp_path / "raw" / "ch").results
    settled = rows["point_id"].map({k: v.get("settled_after_s") for k, v in pts.items()}).astype("float64")
    assert rows["settled_after_s"].equals(settled.rename("settled_after_s"))
    assert (rows["flag_short_run"] == rows["settled_after_s"].isna()).all()
    # a steady (rate-limited) probe with 250 ms windows and a 0.1 s ramp settles early: at its third window, about
    # 0.85 s in, on a quiet machine (its first window counts: the known-answer test below); runtime 2 s, since under
    # load fio's status objects come late (a 1 s probe ran to its end beside one busy loop in a fresh-clone make
    # test); on a target that holds still (realfio.still_target: on the shared disk beside five test workers it
    # settled at 1.626 s)
    p = Point(group="fw", rw="randread", bs_bytes=4096, iodepth=1, runtime_s=2.0, ramp_s=0.1, settle_windows=3,
              settle_pct=10.0, settle_window_ms=250, rate_iops=2000, rate_process="linear", log_avg_msec=0,
              log_hist_msec=0)
    with still_target(scratch_dir / "characterize-settle.bin", 16 << 20) as target:
        r = run_point(p, target, 16 << 20, tmp_path)
    load = os.getloadavg()[0]
    if r.settled_s is None and load > (os.cpu_count() or 1):  # fio's status objects came too late to settle on
        pytest.skip(f"machine busy (load average {load:.1f} > {os.cpu_count()} CPUs): the steady probe ran its "
                    f"{r.device_s:.1f} s without fio's status objects showing it settled")
    assert r.status == "ok" and r.settled_s is not None and r.settled_s < 1.6, (r.settled_s, r.device_s)
    # ingested with its manifest entry, that probe carries its settle time and is not flagged too short
    probe = ingest_paths([tmp_path / f"{p.point_id}.json"], "probe", facts=manifest_facts(
        {"points": {p.point_id: {"parameters": p.as_dict(), "settled_after_s": r.settled_s}}})).results
    assert (probe["settled_after_s"] == r.settled_s).all() and not probe["flag_short_run"].any()
    assert not probe["flag_reasons"].str.contains("too short").any()


def test_a_first_status_object_one_whole_window_in_starts_its_window_from_nothing(tmp_path):
    """fio 3.33 with a 0.1 s ramp and 250 ms windows wrote its first status object at 250 ms of runtime (measured
    2026-11-26; 45 ms with 150 ms windows).  That first window counts: a steady probe settles at its third object,
    0.1 + 0.75 s in, instead of needing a fourth at 1.0 s, the end of a 1 s probe (where it counted as 'ran in
    full', unsettled, and never flat).  An object well past one window still starts nothing."""
    from helpers.run import runner

    def status(ios: int, ms: int) -> str:
        return json.dumps({"jobs": [{"elapsed": 1, "read": {"total_ios": ios, "runtime": ms}}]})

    out = tmp_path / "status.json"
    out.write_text("\n".join([status(7_700, 250), status(15_300, 500), status(23_100, 751)]))
    m = runner.SettleMonitor(out, windows=3, pct=10.0, ramp_s=0.1, window_ms=250)
    assert m() is True and m.iops == pytest.approx([30_800.0, 30_400.0, 31_075.7], rel=1e-4)
    assert m.settled_s == pytest.approx(0.851)
    late = tmp_path / "late.json"  # 1.2 windows in: its start is unknown (earlier objects may have been dropped)
    late.write_text("\n".join([status(9_000, 300), status(16_500, 550), status(24_000, 800)]))
    m = runner.SettleMonitor(late, windows=3, pct=10.0, ramp_s=0.1, window_ms=250)
    assert m() is False and len(m.iops) == 2


def test_series_seed_the_next_of_their_operation_real_fio_with_a_known_curve(tmp_path, scratch_dir, fio_path,
                                                                             monkeypatch):
    """``seed: true``: randread 4k, then 16k, each searched with real fio (0.1 s probes on a 16 MiB file) but judged
    on a known device curve (the ladder's numbers read through ``point_metrics``: 4k saturates at QD 16, 16k at QD 4).
    The 4k search plateaus from QD 16, so the 16k series measures QD 1, then 8, 16, 32 and refines in the depths it
    skipped (at 3).  The seed is recorded in the series summary, the cells the seeded ladder skipped are "not measured
    (...)" and name the seed, and a resumed sweep re-derives the seed from the raw files and measures nothing again."""
    from helpers.run import adaptive as adaptive_mod
    from sweep_helpers import fio_recorder

    knees = {4096: 16, 16384: 4}

    def known(raw):
        p = json.loads(open(raw).read())["jobs"][0]["job options"]
        bs, qd = int(p["bs"]), int(p["iodepth"])
        return {"iops": min(qd, knees[bs]) * 1000.0, "lat_mean_us": 100.0 * qd}

    monkeypatch.setattr(adaptive_mod, "point_metrics", known)
    settings = {"ioengine": "libaio", "runtime_s": 0.1, "ramp_s": 0, "log_avg_msec": 0, "log_hist_msec": 0,
                "settle_windows": 0}
    prof = write_profile(tmp_path, "seeded", [{"group": "qd", "rw": "randread", "bs": ["4k", "16k"]}],
                         mode="characterize", adaptive={"max_qd": 64, "seed": True}, settings=settings)
    raw = tmp_path / "raw"
    m = sweep.sweep(scratch_dir / "seeded.bin", prof, "seeded", None, "16m", raw, progress=False)
    assert m["status"] == "complete"
    s4, s16 = (m["adaptive"][f"qd-randread-bs{b}-qd1-nj1"] for b in ("4k", "16k"))
    assert [s["qd"] for s in s4["steps"]] == [1, 2, 4, 8, 16, 32, 64, 23] and s4["seed"] is None
    assert s16["seed"] == {"seeded_from": "qd-randread-bs4k-qd1-nj1", "expected_plateau_qd": 16, "start_qd": 8,
                           "skipped_qds": [2, 4]}
    assert [(s["qd"], s["kind"]) for s in s16["steps"]] == [(1, "ladder"), (8, "ladder"), (16, "ladder"),
                                                           (32, "ladder"), (3, "refine")]
    assert s16["plateau_iops"] == 4000.0  # its own probes' median, not the seeding series'
    assert sorted(s["qd"] for s in s16["steps"]) == sorted(  # every step is a measured point of its own series
        e["parameters"]["iodepth"] for e in m["points"].values() if e["adaptive"]["series"] == "qd-randread-bs16k-qd1-nj1")
    pl = search_plateaus(m).set_index("bs_bytes")
    assert pl.loc[16384, "seeded_from"] == "randread 4k" and pd.isna(pl.loc[4096, "seeded_from"])
    assert pl.loc[4096, "plateau_from_qd"] == 16 and pl.loc[16384, "plateau_from_qd"] == 8  # the plateaus' depths
    df = _results([("randread", b, s["qd"], s["iops"]) for b, info in ((4096, s4), (16384, s16))
                   for s in info["steps"]])
    cell = grid(df, "bs_bytes", "iodepth", search_plateaus(m)).set_index(["held", "x"])
    assert cell.loc[(4, 16384), "note"] == "not measured by the search: skipped below its seeded start (seeded by " \
        "randread 4k)"
    assert pd.isna(cell.loc[(4, 16384), "iops"])
    seeded = search_table({"s": m}).set_index("series")["seeded"]
    assert seeded["randread 16k"] == "QD 1, then from QD 8 (seeded by randread 4k, plateau from QD 16; QD 2, 4 skipped)"
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    m2 = sweep.sweep(scratch_dir / "seeded.bin", prof, "seeded", None, "16m", raw, progress=False)
    assert m2["adaptive"] == m["adaptive"]
    assert "--name=qd-" not in (log.read_text() if log.exists() else "")  # nothing measured twice
