"""Consistency of the series inside a point (helpers.analysis.timeseries): known answers on synthetic windows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import timeseries as an
from helpers.processed import schema
from timeseries_helpers import frame


def test_known_answers_one_stall():
    iops = [1000.0] * 10
    iops[4] = 100.0  # window 4-5 s
    row = an.consistency(frame(iops)).iloc[0]
    assert row["windows"] == 10 and row["iops_median"] == 1000
    assert row["within_band_pct"] == pytest.approx(90.0)
    assert row["iops_cv_pct"] == pytest.approx(np.std(iops, ddof=1) / np.mean(iops) * 100)
    assert (row["worst_iops"], row["worst_start_s"], row["worst_end_s"]) == (100, 4, 5)
    assert row["stalls"] == 1 and row["stall_s"] == 1.0
    assert row["unstable"] is False or row["unstable"] == False  # noqa: E712 (pandas boolean)
    assert "1 stall below 50% of the median (1 s)" in row["summary"]


def test_adjacent_low_windows_are_one_stall_with_their_duration():
    iops = [1000, 1000, 200, 300, 1000, 1000, 100, 1000, 1000, 1000, 1000, 1000]
    row = an.consistency(frame(iops, window_s=0.5)).iloc[0]
    assert row["stalls"] == 2 and row["stall_s"] == pytest.approx(1.5)  # 2 + 1 windows of 0.5 s
    assert row["window_s"] == 0.5


def test_never_settled_and_too_short():
    rising = an.consistency(frame(np.linspace(100, 2000, 12))).iloc[0]
    assert bool(rising["unstable"]) and rising["settle_reason"].startswith("never settled")
    short = an.consistency(frame([1000, 1010, 990])).iloc[0]
    assert pd.isna(short["unstable"]) and "too few" in short["settle_reason"]


def test_jobs_are_combined_per_window():
    a = frame([1000] * 6, job=0, lat_mean_us=100.0)
    b = frame([3000] * 6, job=1)
    b["lat_mean_us"] = 200.0
    a["clat_p99_us"], b["clat_p99_us"] = 150.0, 300.0
    s = an.point_series(pd.concat([a, b], ignore_index=True))
    assert len(s) == 6 and (s["iops"] == 4000).all() and (s["jobs"] == 2).all()
    assert s["lat_mean_us"].iloc[0] == pytest.approx((1000 * 100 + 3000 * 200) / 4000)  # IOPS-weighted
    assert (s["clat_p99_us"] == 300).all()  # the worst job's percentile


def test_unstable_flag_reaches_results_flag_reasons():
    ts = pd.concat([frame(np.linspace(100, 2000, 12), point="a"), frame([1000] * 12, point="b")], ignore_index=True)
    results = pd.DataFrame({"run_id": ["r", "r", "r"], "source_file": ["a.json", "b.json", "c.json"],
                            "direction": ["read"] * 3, "flag_reasons": ["", "", ""]}).astype("string")
    out = an.with_unstable(results, ts)
    assert out["flag_unstable"].tolist()[:2] == [True, False] and pd.isna(out["flag_unstable"].iloc[2])
    assert out["flag_reasons"].iloc[0].startswith("IOPS never settled") and out["flag_reasons"].iloc[1] == ""


def test_empty():
    empty = pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.TIMESERIES_COLUMNS})
    assert an.consistency(empty).empty and an.point_series(empty).empty


def test_noise_alone_is_not_unsettled():
    rng = np.random.default_rng(7)
    flat = pd.concat([frame(1000 * (1 + 0.09 * rng.standard_normal(20)), point=f"p{i:03d}") for i in range(200)],
                     ignore_index=True)  # 200 points judged one by one in one call (consistency is per point)
    table = an.consistency(flat)
    assert len(table) == 200 and table["unstable"].notna().all()
    flagged = int(table["unstable"].sum())
    assert flagged <= 10  # ~9 % CV window noise (this VM): at most 5 % of flat series called unsettled
    falling = an.consistency(frame(np.r_[np.full(10, 2000.0), np.linspace(2000, 1000, 10)])).iloc[0]
    assert bool(falling["unstable"]) and "still falling" in falling["settle_reason"]


def test_consistency_table_names_points_readably_in_numeric_order():
    """Issue 22.7: '4k randread QD16', not 'mix-randrw-bs4k-qd16-nj1' clipped in an SVG table; QD 2 before
    QD 16 before QD 128 (point ids sort qd128 before qd16 before qd2); numbers stay numbers, 'why' says why."""
    ids = {"g-qd128": 128, "g-qd16": 16, "g-qd2": 2, "m-qd16": 16}
    ts = pd.concat([frame([1000.0] * 8, point=p) for p in ids], ignore_index=True)
    results = pd.DataFrame({"run_id": "r", "point_id": list(ids), "rw": ["randread"] * 3 + ["randrw"],
                            "direction": "read", "bs_bytes": 4096, "iodepth": list(ids.values()), "numjobs": 1,
                            "rwmixread_pct": [np.nan] * 3 + [70.0]})
    t = an.consistency_table(an.consistency(ts), results)
    assert t["point"].tolist() == ["4k randread QD2", "4k randread QD16", "4k randread QD128",
                                   "4k randrw read QD16 70 % read"]
    assert "run_id" not in t.columns and t["iops_median"].tolist() == [1000.0] * 4
    assert t["settled"].tolist() == ["yes"] * 4 and t["settle_reason"].str.len().min() > 10


def test_a_narrow_final_window_is_left_out_of_the_statistics_and_said():
    """A job's final partial window (here 10 ms with 10 IOPS: one I/O) is not a stall nor the worst window."""
    ts = frame([1000.0] * 8)
    tail = ts.iloc[[-1]].assign(window_start_s=8.0, window_end_s=8.01, iops=10.0, from_json=True, t_ms=8010)
    ts = pd.concat([ts, tail], ignore_index=True)
    r = an.consistency(ts).iloc[0]
    assert r["windows"] == 8 and r["stalls"] == 0 and r["worst_iops"] == 1000
    assert "1 window narrower than 0.5 x the typical width left out" in r["summary"]
    assert an.narrow_windows(ts).tolist() == [False] * 8 + [True]


def test_clones_on_one_grid_keep_every_byte():
    """Two clones tick at their own times (entries 0.3 s apart, one 0.1 s late); on the 1 s grid their rates
    are split by overlap: a constant 1000 IOPS each gives 2000 per grid window and the byte total is kept."""
    a = frame([1000.0] * 4, job=0)
    b = frame([1000.0] * 4, job=1)
    b["window_start_s"] = [0.0, 1.3, 2.3, 3.3]
    b["window_end_s"] = [1.3, 2.3, 3.3, 4.3]
    ts = pd.concat([a, b], ignore_index=True)
    s = an.point_series(ts)
    rate = s[s["iops"].notna()]
    assert rate["window_end_s"].tolist() == [1.0, 2.0, 3.0, 4.0, 4.3]
    np.testing.assert_allclose(rate["iops"].iloc[:4], 2000.0)
    total = (ts["bytes_per_s"] * (ts["window_end_s"] - ts["window_start_s"])).sum()
    assert (rate["bytes_per_s"] * (rate["window_end_s"] - rate["window_start_s"])).sum() == pytest.approx(total)
