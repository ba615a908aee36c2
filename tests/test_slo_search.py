"""SLO search mode: ladder + log-space bisection on rate_iops (pure logic on a simulated device with a
known capacity), profile validation, and one real-fio search cross-checked by the ingest and
analysis.slo_table."""

from __future__ import annotations

import math

import pytest

from helpers.analysis.slo import latency_column, slo_table
from helpers.errors import LabError
from helpers.ingest.core import ingest_run
from helpers.run import slo_search, sweep
from helpers.run.profiles import SloSearchSettings, parse_profile
from sweep_helpers import write_profile


def simulate(capacity: float, s: SloSearchSettings) -> list[slo_search.RateStep]:
    """A device that meets the SLO up to ``capacity`` IOPS offered (latency 100 us), beyond it 10 x slo."""
    history: list[slo_search.RateStep] = []
    while (nxt := slo_search.next_rate(history, s)) is not None:
        rate, kind = nxt
        lat = 100.0 if rate <= capacity else 10 * s.slo_us
        achieved = float(min(rate, capacity * 1.02))
        history.append(slo_search.RateStep(rate, achieved, lat, slo_search.meets(rate, achieved, lat, s), kind))
    return history


@pytest.mark.parametrize("capacity", [1500, 37_000, 250_000])
def test_bisection_brackets_the_known_capacity_within_tolerance(capacity):
    s = SloSearchSettings(start_rate=1000, factor=4, tolerance_pct=10, max_rate=1_000_000)
    h = simulate(capacity, s)
    lo, hi = slo_search.bracket(h)
    assert lo <= capacity < hi and hi / lo <= 1.10
    out = slo_search.summary(h, s, point_seconds=3.5)
    assert out["capacity_rate_iops"] == lo and len(h) <= 14
    assert out["device_seconds"] < out["grid_device_seconds"] / 4  # a 10 % rate grid needs 74 points
    assert out["grid_points"] == math.ceil(math.log(1000) / math.log(1.1)) + 1
    assert "bracket within" in out["reason"]


def test_start_rate_failing_bisects_down_or_says_none():
    s = SloSearchSettings(start_rate=1000, tolerance_pct=10, min_rate=100)
    lo, hi = slo_search.bracket(simulate(300, s))
    assert lo <= 300 < hi and hi / lo <= 1.1
    h = simulate(50, s)  # below min_rate: nothing meets
    assert slo_search.bracket(h)[0] is None and "no offered load" in slo_search.summary(h, s, 1.0)["reason"]


def test_met_everywhere_stops_at_max_rate():
    s = SloSearchSettings(start_rate=1000, factor=4, max_rate=100_000)
    h = simulate(1e9, s)
    assert [x.rate for x in h] == [1000, 4000, 16000, 64000, 100_000]
    assert "at least" in slo_search.summary(h, s, 1.0)["reason"]


def test_saturation_counts_as_failure():
    s = SloSearchSettings()
    assert not slo_search.meets(10_000, 9_000, 100.0, s)  # achieved 90 % of offered
    assert not slo_search.meets(10_000, 10_000, float("nan"), s)  # no percentile: cannot claim it met


@pytest.mark.parametrize("doc, fragment", [
    ({"mode": "slo", "points": [{"rw": "randread", "bs": "4k", "rate_iops": 100}]}, "sets rate_iops itself"),
    ({"slo": {"slo_us": 500}, "points": [{"rw": "randread", "bs": "4k"}]}, "needs mode: slo"),
    ({"mode": "slo", "slo": {"factor": 1}, "points": [{"rw": "randread", "bs": "4k"}]}, "factor > 1"),
])
def test_profile_errors(doc, fragment):
    with pytest.raises(LabError, match=fragment):
        parse_profile(doc)


@pytest.mark.fio
def test_real_slo_search_agrees_with_ingest_and_analysis(tmp_path, scratch_dir, fio_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))
    prof = write_profile(tmp_path, "slo", [{"group": "slo", "rw": "randread", "bs": "4k", "iodepth": 32}],
                         settings={"ioengine": "libaio", "runtime_s": 1, "ramp_s": 0.25}, mode="slo",
                         slo={"slo_us": 2000, "start_rate": 2000, "factor": 4, "tolerance_pct": 50,
                              "max_rate": 1_000_000, "max_steps": 8, "cross_check": False})  # test_slo_cross_check
    m = sweep.sweep(scratch_dir / "slo.bin", prof, "slo", None, "64m", tmp_path / "raw", progress=False)
    assert m["status"] == "complete"
    res = m["slo"]["slo-randread-bs4k-qd32-nj1"]
    assert 2 <= len(res["steps"]) <= 8 and res["device_seconds"] < res["grid_device_seconds"]
    rows = ingest_run(tmp_path / "raw" / "slo").results
    assert sorted(rows["rate_iops"]) == sorted(float(s["rate"]) for s in res["steps"])
    by_rate = rows.set_index("rate_iops")
    for step in res["steps"]:  # the search's own reading of each raw file agrees with the ingest's
        r = by_rate.loc[float(step["rate"])]
        assert step["achieved_iops"] == pytest.approx(r["iops"], rel=1e-6)
        assert step["latency_us"] == pytest.approx(r[latency_column(rows)[0]], rel=1e-6)  # the SLO latency
    table = slo_table(rows, slo_us=2000).set_index("mode").loc["open loop (rate)"]
    assert table["at_rate_iops"] == res["capacity_rate_iops"]  # the analysis finds the same load
