"""SNIA PTS report analysis (helpers.analysis.pts): known answers on a hand-made manifest and results -- the
conformance statement (conformant only when every condition holds, each deviation named), the window averages
of the IOPS, TP and LAT tables (rounds outside the measurement window never count), the five-nines mark."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import pts
from helpers.run.profiles import PTS_IOPS_BS, PTS_IOPS_MIXES, PTS_LAT_BS, PTS_LAT_MIXES, PTS_TP_BS

FULL = {"tests": ["iops", "tp", "lat", "wsat"], "pts_class": "client", "numjobs": 2, "iodepth": 16,
        "active_range_pct": 75.0, "round_s": 60.0, "window": 5, "max_rounds": 25, "max_range_pct": 20.0,
        "max_excursion_pct": 10.0, "precondition_volume": 2.0, "precondition_bs": "128k",
        "iops_bs": list(PTS_IOPS_BS), "iops_mixes": list(PTS_IOPS_MIXES), "tp_bs": list(PTS_TP_BS),
        "lat_bs": list(PTS_LAT_BS), "lat_mixes": list(PTS_LAT_MIXES), "wsat_volume": 4.0, "wsat_max_s": 86400,
        "wsat_window_s": 60}
PURGED = {"method": "nvme-format", "purged": True}


def steady(first, last):
    return {"steady": True, "first_round": first, "last_round": last, "rounds": last, "reason": "steady"}


def conformant_manifest() -> dict:
    tests = {t: {"status": "done", "purge": PURGED, "result": steady(2, 6)} for t in ("iops", "tp-128k", "tp-1024k", "lat")}
    tests["wsat"] = {"status": "done", "purge": PURGED, "point": "pts-wsat"}
    return {"status": "complete", "target_kind": "block", "pts": {"settings": FULL, "tests": tests}}


def test_conformant_only_when_every_condition_holds():
    c = pts.conformance(pts.PtsRun("r", conformant_manifest()))
    assert c.conformant and c.deviations == []
    assert c.statement.startswith("Run r: SNIA PTS 2.0.2 conformant for the tests run") and "DIRTH, XSR, HIR, CBW not run." in c.statement


@pytest.mark.parametrize("change, deviation", [
    (lambda m: m.update(target_kind="file"), "file target (not a block device)"),
    (lambda m: m["pts"]["tests"]["lat"].update(purge={"purged": False, "note": "no purge: the profile sets purge: false"}),
     "no purge: the profile sets purge: false before LAT"),
    (lambda m: m["pts"]["settings"].update(precondition_volume=1.0), "preconditioning 1 x the capacity (PTS: 2 x)"),
    (lambda m: m["pts"]["settings"].update(round_s=5.0), "5 s per point per round (PTS: 1 minute)"),
    (lambda m: m["pts"]["settings"].update(window=3), "steady-state rule window 3 rounds"),
    (lambda m: m["pts"]["settings"].update(iops_bs=["4k", "64k", "1024k"]),
     "reduced matrix: IOPS block sizes without 128k, 32k, 16k, 8k, 512"),
    (lambda m: m["pts"]["settings"].update(lat_mixes=[100, 0]), "reduced matrix: LAT mixes without 65/35"),
    (lambda m: m["pts"]["settings"].update(tests=["iops", "tp", "lat"]), "reduced matrix: tests without WSAT"),
    (lambda m: m["pts"]["settings"].update(active_range_pct=100.0), "ActiveRange 100 % (the client class: 75 %)"),
    (lambda m: m["pts"]["settings"].update(pts_class="enterprise", active_range_pct=100.0),
     "the drive's write cache was not disabled by the lab"),
    (lambda m: m["pts"]["settings"].update(wsat_volume=1.0), "WSAT writes 1 x the capacity"),
    (lambda m: (m["pts"]["settings"].update(wsat_max_s=3600), m.update(points={"pts-wsat": {"device_s": 3600.0}})),
     "WSAT stopped at its 3600 s time limit before writing its volume"),
    (lambda m: m["pts"]["settings"].update(wsat_max_s=3600), "WSAT stopped at its 3600 s"),  # run time unknown
    (lambda m: m["pts"]["settings"].update(precondition_bs="1m"), "preconditioning in 1m sequential writes"),
    (lambda m: m["pts"]["tests"]["iops"].update(result={"steady": False, "reason": "not steady after 25 rounds: x"}),
     "IOPS: not steady after 25 rounds: x"),
    (lambda m: m.update(status="interrupted"), "the run is interrupted"),
    (lambda m: m["pts"]["settings"].update(max_rounds=5), "at most 5 rounds per test (PTS: 25)"),
    (lambda m: m["pts"]["settings"].update(test_limit_s=30.0), "a time limit of 30 s per test (test_limit_s)"),
])
def test_each_deviation_alone_makes_it_not_conformant(change, deviation):
    m = copy.deepcopy(conformant_manifest())
    change(m)
    c = pts.conformance(pts.PtsRun("r", m))
    assert not c.conformant and c.statement.startswith("Run r: PTS-inspired, not conformant to SNIA PTS 2.0.2: 1 deviation ")
    assert len(c.deviations) == 1 and c.deviations[0].startswith(deviation)


def test_wsat_done_by_volume_within_a_shorter_time_limit_conforms():
    m = conformant_manifest()
    m["pts"]["settings"].update(wsat_max_s=3600, precondition_bs="128K")
    m["points"] = {"pts-wsat": {"device_s": 1800.0}}  # 4 x the capacity written in half the cap
    assert pts.conformance(pts.PtsRun("r", m)).conformant
    m["points"]["pts-wsat"]["device_s"] = 3599.9  # fio stopped it at the cap (runtime in ms)
    assert pts.conformance(pts.PtsRun("r", m)).deviations[0].startswith("WSAT stopped at its 3600 s time limit")


def test_header_names_the_procedure_and_the_temperature_per_round():
    m = conformant_manifest()
    m["pts"]["tests"]["iops"]["rounds"] = [{"round": 1, "health": {"temperature_c": 41.0}},
                                           {"round": 2, "health": {"temperature_c": 47.0}}, {"round": 3}]
    m["pts"].update(device={"model": "Drive X", "firmware": "1.0", "interface": "NVMe"}, capacity_bytes=1024**3,
                    active_range_bytes=1024**3)
    rows = dict(pts.header(pts.PtsRun("r", m)).itertuples(index=False))
    assert rows["device model"] == "Drive X" and rows["firmware"] == "1.0" and rows["interface"] == "NVMe"
    assert rows["device temperature per round"] == "41-47 °C over 2 rounds"
    assert rows["IOPS"] == "steady state after 6 rounds; measurement window rounds 2-6"
    assert rows["purge method"] == "nvme-format" and rows["class"] == "client"
    m["health"] = {"note": "no SMART/health data: /dev/vda is a virtual device."}
    del m["pts"]["tests"]["iops"]["rounds"]
    rows = dict(pts.header(pts.PtsRun("r", m)).itertuples(index=False))
    assert rows["device temperature per round"] == "not recorded: no SMART/health data: /dev/vda is a virtual device."
    assert "purge and preconditioning redone" not in rows
    m["pts"]["tests"]["lat"]["repeated_preparations"] = [{"purge": {}, "reason": "interrupted"}]
    rows = dict(pts.header(pts.PtsRun("r", m)).itertuples(index=False))
    assert rows["purge and preconditioning redone"].endswith(": LAT (1x) (the earlier attempts are in the manifest)")


def test_no_pts_run():
    run = pts.pts_run({"a": {"status": "complete"}})
    assert run.run_id is None and run.empty_note.startswith("Run a has no PTS tests")  # the page names the run
    assert pts.PtsRun().empty_note.startswith("This run has no PTS tests")
    assert pts.header(run).empty and pts.convergence(run).empty and pts.steady_windows(run) == []
    assert not pts.conformance(run).conformant


def window_run() -> tuple[pts.PtsRun, pd.DataFrame]:
    """IOPS test, 3 rounds, window rounds 2-3 of 4k at mixes 100 and 0; LAT 4k 0/100 rounds 1-2 (window 1-2)."""
    points, rows = {}, []
    for r, (iops_read, iops_write) in enumerate([(1000.0, 10.0), (200.0, 300.0), (400.0, 500.0)], start=1):
        for mix, iops in ((100, iops_read), (0, iops_write)):
            pid = f"pts-iops-randrw-bs4k-qd32-nj4-mix{mix}-round{r}"
            points[pid] = {"status": "ok", "pts": {"test": "iops", "round": r},
                           "parameters": {"rw": "randrw", "bs_bytes": 4096, "rwmixread": mix}}
            rows.append({"run_id": "r", "point_id": pid, "direction": "read" if mix else "write", "iops": iops,
                         "bw_bytes_per_s": iops * 4096, "lat_mean_us": 100.0, "lat_max_us": 1000.0 * r,
                         "total_ios": 60 * int(iops)})
    for r, (rd, wr) in enumerate([((100.0, 10.0), (300.0, 30.0)), ((100.0, 20.0), (100.0, 60.0))], start=1):
        pid = f"pts-lat-randrw-bs4k-qd1-nj1-mix65-round{r}"
        points[pid] = {"status": "ok", "pts": {"test": "lat", "round": r},
                       "parameters": {"rw": "randrw", "bs_bytes": 4096, "rwmixread": 65}}
        for direction, (iops, lat) in (("read", rd), ("write", wr)):
            rows.append({"run_id": "r", "point_id": pid, "direction": direction, "iops": iops,
                         "bw_bytes_per_s": iops * 4096, "lat_mean_us": lat, "lat_max_us": 500.0 * r,
                         "total_ios": 60_000})
    tests = {"iops": {"result": steady(2, 3), "rounds": []}, "lat": {"result": steady(1, 2), "rounds": []}}
    m = {"status": "complete", "points": points, "pts": {"settings": FULL, "tests": tests}}
    return pts.PtsRun("r", m), pd.DataFrame(rows)


def test_iops_table_averages_only_the_window_rounds():
    run, results = window_run()
    table = pts.iops_table(results, run)
    # round 1 (1000 and 10 IOPS) is outside the window 2-3: (200 + 400) / 2 and (300 + 500) / 2
    assert table.to_dict("records") == [{"block size": "4k", "R/W 100/0 IOPS": 300.0, "R/W 0/100 IOPS": 400.0,
                                         "window": "rounds 2–3 (steady)"}]
    assert pts.iops_long(results, run)["rounds"].tolist() == [2, 2]


def test_lat_table_weights_directions_and_marks_few_ios():
    run, results = window_run()
    bins = np.array([1000, 2000, 3000])
    hist = pd.DataFrame([{"run_id": "r", "point_id": "pts-lat-randrw-bs4k-qd1-nj1-mix65-round1", "latency": "lat",
                          "bin_ns": b, "count": c, "direction": "read"} for b, c in zip(bins, [99_998, 1, 1])])
    (row,) = pts.lat_table(results, hist, run).to_dict("records")
    # round 1: (100 x 10 + 300 x 30) / 400 = 25; round 2: (100 x 20 + 100 x 60) / 200 = 40; IOPS-weighted 30
    assert row["avg latency (µs)"] == pytest.approx((25 * 400 + 40 * 200) / 600)
    assert row["max latency (µs)"] == 1000.0 and row["I/Os"] == 240_000 and row["note"] == ""
    assert row["99.999 % latency (µs)"] == pytest.approx(2.0)  # 99,999th of 100,000 I/Os: the 2,000 ns bin
    results["total_ios"] = 1000
    (row,) = pts.lat_table(results, hist, run).to_dict("records")
    assert row["note"].startswith("too few I/Os for a 99.999 % latency (4,000 < 100,000)")


def test_mix_labels_and_titles():
    assert pts.mix_label(65) == "65/35" and pts.mix_label(None) == ""
    assert pts.test_title("tp-1024k") == "TP 1024k" and pts.test_title("wsat") == "WSAT"


def wsat_run(device_s=0.97) -> pts.PtsRun:
    m = conformant_manifest()
    m["pts"]["tests"]["wsat"].update(window_s=1.0)
    m["points"] = {"pts-wsat": {"status": "ok", "device_s": device_s}}
    return pts.PtsRun("r", m)


def wsat_rows(rows) -> pd.DataFrame:
    """One job's write log entries: (window end s, iops or None, log)."""
    return pd.DataFrame([{"run_id": "r", "point_id": "pts-wsat", "source_file": "pts-wsat.json", "direction": "write",
                          "log_job": 1, "log": log, "window_start_s": end - 1.0, "window_end_s": end, "iops": iops,
                          "bytes_per_s": None if iops is None else iops * 4096.0} for end, iops, log in rows])


def test_wsat_series_keeps_only_windows_with_iops_and_says_why_it_is_empty():
    run = wsat_run()
    ts = wsat_rows([(1.0, 1000.0, "iops,bw"), (1.0, None, "lat"), (2.0, 500.0, "iops,bw")])
    s = pts.wsat_series(ts, run)
    assert s["t_s"].tolist() == [1.0, 2.0] and s["iops"].tolist() == [1000.0, 500.0]
    assert s["gb_written"].tolist() == pytest.approx([1000 * 4096 / 1e9, 1500 * 4096 / 1e9])
    # a WSAT shorter than its log window: fio wrote a latency entry and no IOPS entry -> no rows, and the sentence
    assert pts.wsat_series(wsat_rows([(0.97, None, "lat,clat,slat")]), run).empty
    assert pts.wsat_note(run) == ("Run r's WSAT logged no IOPS window: it ran 0.97 s, one window is 1.0 s (a profile "
                                  "with a larger wsat_volume or a shorter wsat_window_s draws its curve).")
    del run.manifest["pts"]["tests"]["wsat"]
    assert pts.wsat_note(run) == "Run r has no WSAT test."
    assert pts.wsat_note(pts.PtsRun()).startswith("This run has no PTS tests")


def test_wsat_window_tail_known_answer():
    """Two jobs' histogram-log windows (their ends a few ms apart): I/Os summed, the 99.999 % and the maximum the
    largest job's, a window sound only when every job has >= 100,000 I/Os; the sentence counts the others."""
    from helpers.analysis import pts_wsat

    def row(job, end, ios, p5, mx):
        return {"run_id": "r", "point_id": "pts-wsat", "source_file": "pts-wsat.json", "direction": "write",
                "log_job": job, "log": "clat_hist", "interval_s": 1.0, "window_start_s": end - 1.0,
                "window_end_s": end, "hist_ios": ios, "clat_p99_999_us": p5, "clat_max_us": mx}

    ts = pd.DataFrame([row(1, 1.0, 150_000, 900.0, 1000.0), row(2, 1.003, 120_000, 1200.0, 1500.0),
                       row(1, 2.0, 150_000, 800.0, 850.0), row(2, 1.998, 90_000, 700.0, 5000.0),
                       {**row(1, 2.0, 0, 0.0, 0.0), "log": "lat", "clat_max_us": np.nan}])  # another log: left out
    tail = pts_wsat.wsat_window_tail(ts, wsat_run())
    assert tail["t_s"].tolist() == [1.0, 2.0] and tail["ios"].tolist() == [270_000, 240_000]
    assert tail["p99_999_us"].tolist() == [1200.0, 800.0] and tail["max_us"].tolist() == [1500.0, 5000.0]
    assert tail["reliable"].tolist() == [True, False] and tail["jobs"].tolist() == [2, 2]
    note = pts_wsat.wsat_tail_note(tail)
    assert note.startswith("1 of 2 windows have fewer than 100,000 I/Os per job") and "largest of the jobs'" in note
    assert pts_wsat.wsat_window_tail(ts.drop(columns="clat_max_us"), wsat_run()).empty  # runs before the columns
