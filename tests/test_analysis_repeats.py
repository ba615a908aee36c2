"""Known-answer tests for repeated points: mean with a Student-t 95 % confidence interval.

The t quantiles below are textbook table values (two-sided 95 %: t(0.975, 1) = 12.7062,
t(0.975, 2) = 4.3027, t(0.975, 4) = 2.7764; two-sided 90 %: t(0.95, 2) = 2.9200), not computed by
the code under test.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import aggregate_repeats, mean_ci
from helpers.processed import schema

T975 = {1: 12.706205, 2: 4.302653, 4: 2.776445}
T95_2 = 2.919986


def empty_results() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of("results")})


# --- mean_ci ----------------------------------------------------------------------------------------


def test_mean_ci_of_three_repeats_uses_student_t_with_two_degrees_of_freedom():
    m, lo, hi, n = mean_ci([1.0, 2.0, 3.0])  # mean 2, sample sd 1, sem 1/sqrt(3)
    half = T975[2] / math.sqrt(3)  # 2.4841
    assert n == 3 and m == pytest.approx(2.0)
    assert lo == pytest.approx(2.0 - half, rel=1e-6) and hi == pytest.approx(2.0 + half, rel=1e-6)
    # more than twice as wide as a normal (z = 1.96) interval: with 3 repeats the t interval matters
    assert hi - lo > 2 * (2 * 1.96 / math.sqrt(3))


def test_mean_ci_of_two_repeats_is_wide():
    m, lo, hi, n = mean_ci([10_000.0, 12_000.0])  # sd = sqrt(2) x 1000, sem = 1000
    assert (m, n) == (11_000.0, 2)
    assert lo == pytest.approx(11_000.0 - T975[1] * 1000.0, rel=1e-6)
    assert hi == pytest.approx(11_000.0 + T975[1] * 1000.0, rel=1e-6)


def test_mean_ci_of_five_repeats():
    values = [98.0, 99.0, 100.0, 101.0, 102.0]  # mean 100, sample variance 10/4 = 2.5
    m, lo, hi, n = mean_ci(values)
    half = T975[4] * math.sqrt(2.5) / math.sqrt(5)
    assert n == 5 and m == pytest.approx(100.0)
    assert (lo, hi) == (pytest.approx(100.0 - half, rel=1e-6), pytest.approx(100.0 + half, rel=1e-6))


def test_mean_ci_other_confidence_level():
    _, lo, hi, _ = mean_ci([1.0, 2.0, 3.0], confidence=0.90)
    assert hi - 2.0 == pytest.approx(T95_2 / math.sqrt(3), rel=1e-6) and lo == pytest.approx(4.0 - hi)


def test_mean_ci_identical_repeats_have_a_zero_width_interval():
    assert mean_ci([5.0, 5.0, 5.0]) == (5.0, 5.0, 5.0, 3)


def test_mean_ci_without_repeats_has_no_interval():
    m, lo, hi, n = mean_ci([42.0])
    assert (m, n) == (42.0, 1) and math.isnan(lo) and math.isnan(hi)
    m, lo, hi, n = mean_ci([])
    assert n == 0 and all(math.isnan(x) for x in (m, lo, hi))


def test_mean_ci_ignores_missing_and_non_numeric_values():
    m, lo, hi, n = mean_ci([1.0, float("nan"), 3.0, None, "n/a"])
    assert n == 2 and m == pytest.approx(2.0)  # sd sqrt(2), sem 1
    assert hi == pytest.approx(2.0 + T975[1], rel=1e-6)
    assert mean_ci(pd.Series([float("nan")] * 3))[3] == 0


# --- aggregate_repeats ------------------------------------------------------------------------------


def three_repeats_and_a_single() -> pd.DataFrame:
    rep = [{"point_id": f"q1-r{i}", "source_file": f"r{i}.json", "iops": v, "lat_mean_us": lat, "clat_p99_us": p99}
           for i, (v, lat, p99) in enumerate([(1000.0, 100.0, 200.0), (1100.0, 90.0, 220.0), (1200.0, 80.0, 240.0)])]
    single = {"point_id": "q8", "iodepth": 8, "iops": 6000.0, "lat_mean_us": 130.0, "clat_p99_us": 400.0}
    return rows(rep + [single])


def test_repeats_are_averaged_with_a_t_interval_and_standard_error():
    a = aggregate_repeats(three_repeats_and_a_single())
    assert list(a["iodepth"]) == [1, 8] and list(a["repeats"]) == [3, 1]
    r = a.iloc[0]
    half = T975[2] * 100.0 / math.sqrt(3)  # values 1000, 1100, 1200: sd 100
    assert r["iops"] == pytest.approx(1100.0)
    assert r["iops_ci95_low"] == pytest.approx(1100.0 - half, rel=1e-6)
    assert r["iops_ci95_high"] == pytest.approx(1100.0 + half, rel=1e-6)
    assert r["iops_sem"] == pytest.approx(100.0 / math.sqrt(3))
    assert r["lat_mean_us"] == pytest.approx(90.0) and r["clat_p99_us"] == pytest.approx(220.0)


def test_a_point_without_repeats_keeps_its_value_and_has_no_interval():
    r = aggregate_repeats(three_repeats_and_a_single()).iloc[1]
    assert r["iops"] == 6000.0 and r["lat_mean_us"] == 130.0 and r["repeats"] == 1
    assert math.isnan(r["iops_ci95_low"]) and math.isnan(r["iops_ci95_high"]) and math.isnan(r["iops_sem"])


def test_configuration_columns_are_kept_and_pure_modes_group_on_missing_read_share():
    a = aggregate_repeats(three_repeats_and_a_single())
    assert {"run_id", "host", "rw", "bs_bytes", "direction", "iodepth", "numjobs", "rwmixread_pct", "ioengine",
            "direct"} <= set(a.columns)
    assert a["rwmixread_pct"].isna().all()  # NaN is a group of its own, not dropped
    assert "point_id" not in a.columns and "source_file" not in a.columns


def test_read_and_write_rows_of_a_mixed_point_are_not_repeats_of_each_other():
    df = rows([{"rw": "randrw", "rwmixread_pct": 70.0, "direction": d, "iops": v, "source_file": f}
               for f in ("a.json", "b.json") for d, v in (("read", 700.0), ("write", 300.0))])
    a = aggregate_repeats(df)
    assert list(a["direction"]) == ["read", "write"] and list(a["iops"]) == [700.0, 300.0]
    assert list(a["repeats"]) == [2, 2] and list(a["iops_ci95_low"]) == [700.0, 300.0]


def test_different_runs_hosts_and_configurations_are_not_merged():
    base = {"iops": 1000.0}
    df = rows([base, {**base, "run_id": "r2"}, {**base, "host": "h2"}, {**base, "numjobs": 4},
               {**base, "bs_bytes": 8192}, {**base, "ioengine": "io_uring"}, {**base, "direct": 0}])
    a = aggregate_repeats(df)
    assert len(a) == 7 and set(a["repeats"]) == {1}


def test_repeats_count_only_measured_values():
    df = rows([{"iops": 900.0, "point_id": "a"}, {"iops": 1100.0, "point_id": "b"}, {"iops": 1.0, "point_id": "c"}])
    df.loc[2, "iops"] = float("nan")
    r = aggregate_repeats(df).iloc[0]
    assert r["repeats"] == 2 and r["iops"] == pytest.approx(1000.0)
    assert r["iops_sem"] == pytest.approx(100.0)  # sd = sqrt(2) x 100, / sqrt(2)


def test_other_value_column_and_keys():
    df = rows([{"bs_bytes": 65536, "bw_bytes_per_s": bw, "iodepth": q, "point_id": f"p{i}"}
               for i, (q, bw) in enumerate([(1, 100e6), (1, 120e6), (2, 300e6)])])
    a = aggregate_repeats(df, keys=["bs_bytes", "iodepth", "not_a_column"], value="bw_bytes_per_s", extra=("nope",))
    assert list(a.columns) == ["bs_bytes", "iodepth", "bw_bytes_per_s", "bw_bytes_per_s_ci95_low",
                               "bw_bytes_per_s_ci95_high", "bw_bytes_per_s_sem", "repeats"]
    assert list(a["bw_bytes_per_s"]) == pytest.approx([110e6, 300e6])
    assert a["bw_bytes_per_s_ci95_high"].iloc[0] == pytest.approx(110e6 + T975[1] * 10e6, rel=1e-6)


def test_single_key_groups():
    df = rows([{"iodepth": q, "iops": v, "point_id": f"p{i}"} for i, (q, v) in enumerate([(1, 1.0), (1, 3.0), (4, 8.0)])])
    a = aggregate_repeats(df, keys=["iodepth"])
    assert list(a["iodepth"]) == [1, 4] and list(a["iops"]) == [2.0, 8.0] and list(a["repeats"]) == [2, 1]


def test_empty_input_gives_an_empty_frame():
    assert aggregate_repeats(empty_results()).empty


def test_open_loop_points_at_different_offered_loads_are_not_repeats():
    df = rows([{"point_id": f"openloop-rate{r}", "iodepth": 256, "rate_iops": float(r), "iops": float(r)}
               for r in (1000, 2000, 4000)])
    a = aggregate_repeats(df)
    assert len(a) == 3 and list(a["repeats"]) == [1, 1, 1]
