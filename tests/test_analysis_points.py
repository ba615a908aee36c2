"""Known-answer tests for the per-point helpers: decimal/binary units, labels, flags, read+write totals."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import operations, totals, with_units
from helpers.processed import schema


def empty_results() -> pd.DataFrame:
    """What ``store.load`` returns when there is no run: every schema column, no rows."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of("results")})


def mixed_point(point_id="m", **extra) -> list[dict]:
    """One randrw 70 % read point: 700 read IOPS at 100 µs, 300 write IOPS at 200 µs (4 KiB blocks)."""
    read = {"point_id": point_id, "rw": "randrw", "rwmixread_pct": 70.0, "direction": "read", "iops": 700.0,
            "lat_mean_us": 100.0, "clat_mean_us": 90.0, "slat_mean_us": 10.0, "lat_min_us": 20.0,
            "lat_max_us": 900.0, "io_bytes": 7 * 4096, "total_ios": 7}
    write = {**read, "direction": "write", "iops": 300.0, "lat_mean_us": 200.0, "clat_mean_us": 180.0,
             "slat_mean_us": 20.0, "lat_min_us": 10.0, "lat_max_us": 800.0, "io_bytes": 3 * 4096, "total_ios": 3}
    return [{**read, **extra}, {**write, **extra}]


# --- with_units -------------------------------------------------------------------------------------


def test_decimal_megabytes_and_binary_mebibytes():
    df = rows([{"bw_bytes_per_s": 1_048_576.0}, {"bw_bytes_per_s": 1_000_000.0}, {"bw_bytes_per_s": 3.2e9}])
    u = with_units(df)
    # 1 MiB/s is 1.048576 MB/s; 1 MB/s is 10^6 / 2^20 = 0.95367431640625 MiB/s; 3.2 GB/s = 3200 MB/s
    assert list(u["mb_per_s"]) == pytest.approx([1.048576, 1.0, 3200.0])
    assert list(u["mib_per_s"]) == pytest.approx([1.0, 0.95367431640625, 3.2e9 / 1_048_576])
    assert u["mib_per_s"].iloc[2] == pytest.approx(3051.7578125)


def test_block_size_labels_use_fio_binary_suffixes():
    df = rows([{"bs_bytes": b} for b in (512, 4096, 131072, 1048576, 1536)])
    assert list(with_units(df)["bs_label"]) == ["512", "4k", "128k", "1m", "1536"]


def test_operation_labels_carry_the_read_share_of_mixed_modes_only():
    df = rows([{"rw": "randread"}, {"rw": "randrw", "rwmixread_pct": 70.0}, {"rw": "rw", "rwmixread_pct": 33.3},
               {"rw": "randrw"}, {"rw": "write", "rwmixread_pct": 50.0}])
    assert list(with_units(df)["operation"]) == ["randread", "randrw 70% read", "rw 33% read", "randrw", "write"]


def test_flagged_follows_flag_reasons_and_missing_reasons_are_empty():
    df = rows([{"flag_reasons": ""}, {"flag_reasons": "fio used 99 % of a CPU (CPU-bound)"}, {}])
    df["flag_reasons"] = df["flag_reasons"].astype("string")
    df.loc[2, "flag_reasons"] = pd.NA
    u = with_units(df)
    assert list(u["flagged"]) == [False, True, False]
    assert list(u["flag_reasons"]) == ["", "fio used 99 % of a CPU (CPU-bound)", ""]
    no_col = with_units(rows([{}]).drop(columns="flag_reasons"))
    assert list(no_col["flagged"]) == [False] and list(no_col["flag_reasons"]) == [""]


def test_with_units_does_not_modify_its_input():
    df = rows([{}])
    before = list(df.columns)
    with_units(df)
    assert list(df.columns) == before


def test_with_units_of_empty_results_is_empty_with_the_new_columns():
    u = with_units(empty_results())
    assert u.empty
    assert {"mb_per_s", "mib_per_s", "bs_label", "operation", "flagged", "flag_reasons"} <= set(u.columns)


# --- totals -----------------------------------------------------------------------------------------


def test_totals_sum_throughput_and_weight_mean_latency_by_iops():
    t = totals(rows(mixed_point()))
    assert len(t) == 1
    r = t.iloc[0]
    assert r["direction"] == "total" and r["rw"] == "randrw" and r["rwmixread_pct"] == 70.0
    assert r["iops"] == pytest.approx(1000.0)
    assert r["bw_bytes_per_s"] == pytest.approx(1000.0 * 4096)  # figdata: bw = iops x bs per direction
    assert r["io_bytes"] == 10 * 4096 and r["total_ios"] == 10
    # (700 x 100 + 300 x 200) / 1000 = 130 µs, not the plain mean 150 µs
    assert r["lat_mean_us"] == pytest.approx(130.0)
    assert r["clat_mean_us"] == pytest.approx((700 * 90 + 300 * 180) / 1000)  # 117
    assert r["slat_mean_us"] == pytest.approx((700 * 10 + 300 * 20) / 1000)  # 13
    assert r["lat_min_us"] == 10.0 and r["lat_max_us"] == 900.0


def test_totals_do_not_invent_percentiles_or_a_standard_deviation():
    r = totals(rows(mixed_point())).iloc[0]
    for col in ("clat_p50_us", "clat_p90_us", "clat_p95_us", "clat_p99_us", "clat_p99_9_us", "clat_p99_99_us",
                "lat_stddev_us"):
        assert math.isnan(r[col]), col


def test_totals_raise_a_flag_when_any_direction_has_it():
    pts = mixed_point()
    pts[1].update(flag_cpu_bound=True, flag_reasons="fio used 99 % of a CPU (CPU-bound)")
    r = totals(rows(pts)).iloc[0]
    assert bool(r["flag_cpu_bound"]) is True and bool(r["flag_short_run"]) is False
    assert r["flag_reasons"] == "fio used 99 % of a CPU (CPU-bound)"


def test_totals_join_identical_reasons_once():
    pts = mixed_point(flag_reasons="ran 1.0 s: too short for steady state (< 3 s)")
    assert totals(rows(pts)).iloc[0]["flag_reasons"] == "ran 1.0 s: too short for steady state (< 3 s)"


def test_totals_list_each_reason_sentence_once():
    cpu = "fio used 99 % of a CPU (CPU-bound)"
    fast = "mean read latency 2.00 µs is faster than any SSD (cache?)"
    pts = mixed_point()
    pts[0]["flag_reasons"] = f"{fast}; {cpu}"  # page-cache suspicion is read-only, CPU-bound is job level
    pts[1]["flag_reasons"] = cpu
    assert totals(rows(pts)).iloc[0]["flag_reasons"] == f"{fast}; {cpu}"


def test_totals_one_row_per_point_and_per_job_clone():
    pts = mixed_point("a") + mixed_point("b") + [{**p, "job_index": 1, "iops": p["iops"] / 2} for p in mixed_point("b")]
    t = totals(rows(pts))
    assert list(zip(t["point_id"], t["job_index"])) == [("a", 0), ("b", 0), ("b", 1)]
    assert list(t["iops"]) == pytest.approx([1000.0, 1000.0, 500.0])
    assert set(t["direction"]) == {"total"}


def test_totals_of_idle_point_fall_back_to_plain_mean_latency():
    pts = mixed_point()
    for p in pts:
        p["iops"] = 0.0
    r = totals(rows(pts)).iloc[0]
    assert r["iops"] == 0.0 and r["lat_mean_us"] == pytest.approx(150.0)


def test_totals_of_a_single_direction_is_that_direction():
    r = totals(rows(mixed_point()[:1])).iloc[0]
    assert r["iops"] == 700.0 and r["lat_mean_us"] == 100.0 and r["direction"] == "total"


def test_totals_of_empty_results_is_empty_with_a_direction_column():
    t = totals(empty_results())
    assert t.empty and "direction" in t.columns


def test_totals_keep_points_from_different_files_apart():
    # foreign files: point_id is the fio job name, so two runs of the same job file share it
    pts = mixed_point("job1", source_file="a.json") + mixed_point("job1", source_file="b.json")
    t = totals(rows(pts))
    assert len(t) == 2 and list(t["iops"]) == pytest.approx([1000.0, 1000.0])


# --- operations -------------------------------------------------------------------------------------


def test_operations_keep_pure_modes_and_replace_mixed_modes_by_their_total():
    pure = [{"point_id": "r", "rw": "randread", "iops": 5000.0}, {"point_id": "w", "rw": "write",
                                                                  "direction": "write", "iops": 800.0}]
    ops = operations(rows(pure + mixed_point()))
    assert len(ops) == 3
    by_op = ops.set_index("operation")
    assert by_op.loc["randread", "iops"] == 5000.0 and by_op.loc["randread", "direction"] == "read"
    assert by_op.loc["write", "iops"] == 800.0
    assert by_op.loc["randrw 70% read", "iops"] == pytest.approx(1000.0)
    assert by_op.loc["randrw 70% read", "direction"] == "total"
    assert by_op.loc["randrw 70% read", "mb_per_s"] == pytest.approx(1000.0 * 4096 / 1e6)


def test_operations_of_pure_modes_only_and_of_empty_results():
    ops = operations(rows([{"rw": "randread", "iops": 10.0}]))
    assert list(ops["operation"]) == ["randread"] and list(ops["iops"]) == [10.0]
    e = operations(empty_results())
    assert e.empty and {"operation", "mb_per_s"} <= set(e.columns)


def test_engine_suffixes_only_where_two_engines_share_a_series():
    from helpers.analysis.points import engine_suffixes

    df = pd.DataFrame({"rw": ["randread"] * 4 + ["read"] * 2, "numjobs": [2, 2, 2, 2, 1, 1],
                       "ioengine": ["libaio", "io_uring", "libaio", "io_uring", "libaio", "libaio"]})
    assert list(engine_suffixes(df, ["rw", "numjobs", "ioengine"])) == [", libaio", ", io_uring", ", libaio",
                                                                          ", io_uring", "", ""]
    assert list(engine_suffixes(df, ["rw", "numjobs"])) == [""] * 6  # the caller's series do not split on it
