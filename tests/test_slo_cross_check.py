"""The SLO search's cross-check against fio's own latency_target mode (issue 13 point 7): the agreement
rule on synthetic inputs, and one real fio run (16 MiB file, a two-step search and a latency_target point
of at most 1 s) from the raw file through the one reader, the manifest, the ingest and the analysis."""

from __future__ import annotations

import json
import math

import pytest

from helpers import analysis
from helpers.analysis.slo import cross_check_verdict
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import read_result
from helpers.ingest.core import ingest_run
from helpers.run import slo_search, sweep
from helpers.run.adaptive import device_seconds
from helpers.run.profiles import load_profile, parse_profile
from helpers.run.runner import point_options
from sweep_helpers import write_profile


def search(lo=45_255, hi=49_780, achieved=45_100.0, lat=950.0, kind="lat", slo=1000.0):
    """A series' manifest 'slo' entry: a bracket (lo met, hi failed) found by the search."""
    steps = [{"rate": 16_000, "achieved_iops": 15_990.0, "latency_us": 300.0, "meets": True, "kind": "ladder",
              "latency": kind}]
    if lo is not None:
        steps.append({"rate": lo, "achieved_iops": achieved, "latency_us": lat, "meets": True, "kind": "bisect",
                      "latency": kind})
    if hi is not None:
        steps.append({"rate": hi, "achieved_iops": hi * 0.99, "latency_us": 1800.0, "meets": False, "kind": "bisect",
                      "latency": kind})
    return {"slo_us": slo, "percentile": 99.0, "steps": steps, "capacity_rate_iops": lo,
            "first_failing_rate_iops": hi}


def fio(iops=68_900.0, depth=12, top=256, lat=812.0, settled=True, stats_s=1.0, window_s=1.0, target=1000.0):
    """A series' 'cross_check' entry as the sweep records it (slo_search.cross_check_result)."""
    return {"iops": iops, "depth": depth, "max_depth": top, "latency_us": lat, "latency": "lat", "target_us": target,
            "percentile": 99.0, "window_s": window_s, "stats_s": stats_s, "settled": settled, "max_seconds": 30.0}


def test_fio_far_above_the_bisection_differs_and_says_why():
    v = cross_check_verdict(search(), fio(), point_runtime_s=3)
    assert v.agree is False and v.difference_pct == pytest.approx((68_900 / 45_100 - 1) * 100)
    s = v.sentence
    assert "45,100 IOPS achieved at 45,255 offered with p99 total latency 950 µs ≤ 1,000 µs over each 3 s point" in s
    assert "68,900 IOPS at QD 12 of at most 256" in s and "in each 1 s window" in s
    assert "they differ by +53 % (fio higher; their ranges, search 45,100–49,780, fio 68,900–74,642 IOPS, are 38.4 % " \
           "apart) — see why:" in s and "closed loop" in s and "QD 12" in s
    assert s.count(". ") == 0 and s.endswith(".")  # one sentence


def test_fio_below_the_bisection_names_windows_and_depth_steps():
    v = cross_check_verdict(search(), fio(iops=25_500.0, depth=4, lat=700.0))
    assert v.agree is False and round(v.difference_pct) == -43
    assert "(fio lower; their ranges, search 45,100–49,780, fio 25,500–31,875 IOPS, are 41.5 % apart)" in v.sentence
    assert "EVERY 1 s window" in v.sentence and "QD 4 → 5 is +25 %" in v.sentence


@pytest.mark.parametrize("iops, depth, agree", [
    (47_000.0, 8, True),   # inside the search's bracket
    (41_000.0, 8, True),   # below it, but QD 9 (+12.5 %) would reach it: fio's depth step covers the gap
    (52_000.0, 16, True),  # above the bracket by less than the 10 % noise allowance
    (60_000.0, 16, False),  # above the bracket's top by 21 %
    (30_000.0, 16, False),  # one depth step (+6 %) is far from 45,100
])
def test_ranges_overlap_rule(iops, depth, agree):
    v = cross_check_verdict(search(), fio(iops=iops, depth=depth))
    assert v.agree is agree, v.sentence
    assert ("they agree" in v.sentence) is agree and ("they differ" in v.sentence) is (not agree)
    assert ("overlap" in v.sentence) is (iops <= 49_780 and iops * (depth + 1) / depth >= 45_100)


def test_open_ranges_lower_bounds():
    at_top = cross_check_verdict(search(), fio(iops=47_000.0, depth=256))  # fio met it at its largest depth
    assert at_top.agree is True and "lower bound" in at_top.sentence
    beyond = cross_check_verdict(search(), fio(iops=90_000.0, depth=256))  # a lower bound above the bracket
    assert beyond.agree is False and "lower bound" in beyond.sentence
    no_top = cross_check_verdict(search(hi=None), fio(iops=90_000.0, depth=16))  # the search met it up to max_rate
    assert no_top.agree is True and "met up to max_rate" in no_top.sentence


def test_an_unsettled_or_failing_fio_result_is_never_hidden():
    v = cross_check_verdict(search(), fio(settled=False, stats_s=4.2, lat=1500.0))
    assert "not one 1 s window" in v.sentence and "p99 1,500 µs, above the target" in v.sentence
    never = cross_check_verdict(search(), fio(settled=False, stats_s=30.0))
    assert "never settled within its 30 s runtime cap" in never.sentence
    cut = cross_check_verdict(search(), fio(settled=False, stats_s=0.4))
    assert "cut its final window short" in cut.sentence


def test_nothing_to_compare():
    none = cross_check_verdict(search(lo=None, hi=1000), fio(iops=900.0, depth=1, lat=2500.0))
    assert none.agree is True and "neither found a load" in none.sentence and math.isnan(none.difference_pct)
    one = cross_check_verdict(search(lo=None, hi=1000), fio(iops=9_000.0, depth=2))
    assert one.agree is False and "the search found none" in one.sentence
    other = cross_check_verdict(search(), fio(iops=900.0, depth=1, lat=2500.0))
    assert other.agree is False and "even at QD 1" in other.sentence
    missing = cross_check_verdict(search(), None)
    assert missing.agree is None and "no fio latency_target cross-check" in missing.sentence
    failed = cross_check_verdict(search(), {"error": "fio's latency_target point x failed: boom"})
    assert failed.agree is None and "failed: fio's latency_target point x failed: boom" in failed.sentence


def test_like_with_like_differences_are_stated():
    v = cross_check_verdict(search(kind="clat"), fio(iops=47_000.0, depth=8))
    assert "completion latency (clat)" in v.sentence and "fio holds total latency" in v.sentence
    w = cross_check_verdict(search(), {**fio(iops=47_000.0, depth=8), "percentile": 99.9})
    assert "fio ran with p99.9" in w.sentence


def test_profile_cross_check_point_and_fio_options(tmp_path):
    prof = load_profile("slo")
    so, p0 = prof.slo, prof.points[0]
    assert so.cross_check and so.latency_window_s == 1 and so.cross_check_windows == 30
    cc = so.cross_check_point(p0)
    assert cc.point_id == "slo-randread-bs4k-qd256-nj1-lt1000us" and cc.runtime_s == 30 and cc.ramp_s == 0
    opts = dict(point_options(cc, tmp_path / "t", 1 << 20))
    assert (opts["latency_target"], opts["latency_percentile"], opts["latency_window"], opts["latency_run"]) == (
        "1000us", "99", "1000000us", "0")
    assert opts["iodepth"] == "256" and "rate_iops" not in opts and opts["lat_percentiles"] == "1"
    # fio doubles QD 1 -> 256 (8 windows), bisects back (about 8) and runs a final window: 18 of the 30 windows
    assert so.cross_check_seconds(p0) == pytest.approx(18 * 1.0 + cc.seconds - cc.runtime_s - cc.ramp_s)
    assert prof.estimated_seconds == pytest.approx(p0.seconds * so.typical_steps + so.cross_check_seconds(p0))
    assert prof.max_seconds == pytest.approx(p0.seconds * so.max_steps + cc.seconds)  # the cap
    off = parse_profile({"mode": "slo", "slo": {"cross_check": False}, "points": [{"rw": "randread", "bs": "4k"}]})
    assert not off.slo.cross_check and off.slo.cross_check_seconds(off.points[0]) == 0
    with pytest.raises(Exception, match="latency_window_s"):
        parse_profile({"mode": "slo", "slo": {"latency_window_s": 0}, "points": [{"rw": "randread", "bs": "4k"}]})


def test_a_job_without_a_latency_target_is_not_one():
    """fio writes latency_depth (the iodepth) and latency_target 0 for every job: only a target > 0 counts."""
    from pathlib import Path

    path = Path(__file__).parent / "data" / "fio" / "json" / "randread-qd4.json"
    data = path.read_bytes()
    job = json.loads(data)["jobs"][0]
    assert job["latency_depth"] == 4 and job["latency_target"] == 0
    assert read_result(parse_fio_bytes(data), data).entries[0].latency_target is None


def test_device_seconds_count_what_a_point_ran_when_it_stopped_early():
    pts = {"a": {"status": "ok", "parameters": {"runtime_s": 30, "ramp_s": 0}, "seconds": 7.5},
           "b": {"status": "ok", "parameters": {"runtime_s": 1, "ramp_s": 0.5}, "seconds": 1.9},
           "c": {"status": "ok", "parameters": {"runtime_s": 2, "ramp_s": 0}}}
    assert device_seconds(pts) == pytest.approx(7.5 + 1.5 + 2)


@pytest.mark.fio
def test_real_cross_check_point_reaches_the_analysis(tmp_path, scratch_dir, fio_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))
    prof = write_profile(tmp_path, "slo", [{"group": "slo", "rw": "randread", "bs": "4k", "iodepth": 16}],
                         settings={"ioengine": "libaio", "runtime_s": 0.5, "ramp_s": 0}, mode="slo",
                         slo={"slo_us": 5000, "start_rate": 500, "factor": 4, "max_steps": 2,
                              "latency_window_s": 0.1, "cross_check_windows": 10})
    m = sweep.sweep(scratch_dir / "cc.bin", prof, "cc", None, "16m", tmp_path / "raw", progress=False)
    assert m["status"] == "complete"
    series = "slo-randread-bs4k-qd16-nj1"
    res = m["slo"][series]
    cc = res["cross_check"]
    assert len(res["steps"]) == 2 and "error" not in cc, cc
    # stored verbatim like every point, recorded in the manifest
    entry = m["points"][cc["point_id"]]
    assert entry["status"] == "ok" and entry["slo"] == {"series": series, "kind": "cross-check"}
    raw = tmp_path / "raw" / "cc" / cc["raw_file"]
    job = json.loads(raw.read_text())["jobs"][0]
    assert job["latency_target"] == 5_000_000 and job["latency_window"] == 100_000 and job["latency_percentile"] == 99
    assert cc["max_seconds"] == pytest.approx(1.0) and cc["device_seconds"] == min(entry["seconds"], 1.0)
    # parsed by the one reader: what fio settled on
    data = raw.read_bytes()
    e = read_result(parse_fio_bytes(data), data).entries[0]
    assert (e.latency_target.depth, e.latency_target.target_us, e.latency_target.window_us) == (
        job["latency_depth"], 5000.0, 100_000)
    assert cc["depth"] == job["latency_depth"] and 1 <= cc["depth"] <= 16 and cc["max_depth"] == 16
    assert cc["iops"] == pytest.approx(job["read"]["iops"]) and cc["latency"] == "lat"
    assert cc["latency_us"] == pytest.approx(job["read"]["lat_ns"]["percentile"]["99.000000"] / 1000)
    assert cc == {**cc, **slo_search.cross_check_result(raw, 99.0)}
    # the ingest keeps it out of the results (fio chose its depth) and says why; the search's points are rows
    ing = ingest_run(tmp_path / "raw" / "cc")
    assert sorted(ing.results["rate_iops"]) == sorted(float(s["rate"]) for s in res["steps"])
    q = ing.quarantine.set_index("job_name").loc[cc["point_id"]]
    assert "latency_target mode chose this job's queue depth" in q["reason"] and f"QD {cc['depth']}" in q["reason"]
    # both numbers reach the analysis, and the sentence states the numbers that are in the data
    row = analysis.slo_cross_check({"cc": m}).iloc[0]
    at = next(s for s in res["steps"] if s["rate"] == res["capacity_rate_iops"]) if res["capacity_rate_iops"] else None
    assert row["fio_iops"] == cc["iops"] and row["fio_depth"] == cc["depth"]
    assert f"{cc['iops']:,.0f} IOPS at QD {cc['depth']} of at most 16" in row["verdict"]
    assert f"p99 of its final statistics: {cc['latency_us']:,.0f} µs" in row["verdict"]
    if at is not None:
        assert row["search_iops"] == at["achieved_iops"]
        assert f"{at['achieved_iops']:,.0f} IOPS achieved at {at['rate']:,} offered" in row["verdict"]
    want = (row["fio_iops"] / row["search_iops"] - 1) * 100 if at is not None else float("nan")
    assert row["difference_pct"] == pytest.approx(want, nan_ok=True)
    if row["agree"] is False and at is not None:
        assert f"they differ by {want:+.0f} %" in row["verdict"]
    assert row["cross_check_device_s"] == cc["device_seconds"] and f"cross-check: {cc['device_seconds']:g} s more" in row[
        "device_time"]
    assert m["device_seconds"] == pytest.approx(device_seconds(m["points"]), abs=0.005)  # the manifest rounds to 0.01 s
    steps = analysis.slo_search_steps({"cc": m})
    assert list(steps["offered_iops"]) == [s["rate"] for s in res["steps"]]
