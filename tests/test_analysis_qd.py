"""Known-answer tests for queue-depth sweeps: series of points that differ only in iodepth."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import qd_series, qd_table
from helpers.processed import schema


def empty_results() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of("results")})


def sweep(qds=(1, 2, 4, 8), **extra) -> pd.DataFrame:
    """4k random reads: 10 000 IOPS per outstanding I/O (no saturation), latency 100 µs + QD."""
    return rows([{"point_id": f"qd{q}-{extra.get('numjobs', 1)}", "iodepth": q, "iops": 10_000.0 * q,
                  "lat_mean_us": 100.0 + q, "clat_p50_us": 90.0 + q, "clat_p99_us": 200.0 + q, **extra}
                 for q in qds])


def test_series_rows_with_outstanding_io_sorted_by_queue_depth():
    s = qd_series(sweep(qds=(8, 1, 4, 2)))
    assert list(s["iodepth"]) == [1, 2, 4, 8] and list(s.index) == [0, 1, 2, 3]
    assert list(s["outstanding_io"]) == [1, 2, 4, 8]
    assert list(s["iops"]) == pytest.approx([10_000.0, 20_000.0, 40_000.0, 80_000.0])
    assert list(s["series"]) == ["randread 4k (read)"] * 4 and s["series"].dtype == "string"


def test_outstanding_io_is_queue_depth_times_jobs():
    s = qd_series(sweep(qds=(1, 4, 32), numjobs=4))
    assert list(s["outstanding_io"]) == [4, 16, 128]
    assert set(s["series"]) == {"randread 4k x4 jobs (read)"}


def test_one_series_per_job_count_block_size_direction_and_read_share():
    df = pd.concat([sweep(), sweep(numjobs=4), sweep(bs_bytes=131072),
                    sweep(rw="randwrite", direction="write"),
                    sweep(rw="randrw", rwmixread_pct=70.0, direction="read"),
                    sweep(rw="randrw", rwmixread_pct=70.0, direction="write")], ignore_index=True)
    s = qd_series(df)
    assert s.groupby("series").size().to_dict() == {
        "randread 128k (read)": 4, "randread 4k (read)": 4, "randread 4k x4 jobs (read)": 4,
        "randrw 4k 70% read (read)": 4, "randrw 4k 70% read (write)": 4, "randwrite 4k (write)": 4}
    # sorted by the settings' values, then queue depth: 4k before 128k (issue 22.6: the label's text put
    # 'randread 128k' first)
    assert list(dict.fromkeys(s["series"])) == ["randread 4k (read)", "randread 4k x4 jobs (read)",
                                                "randread 128k (read)", "randrw 4k 70% read (read)",
                                                "randrw 4k 70% read (write)", "randwrite 4k (write)"]
    assert all((g["iodepth"].diff().dropna() > 0).all() for _, g in s.groupby("series"))


def test_two_engines_at_the_same_jobs_are_two_named_series():
    """A demand search measures libaio and io_uring lines at 2 jobs (zram characterize, 2026-11-29: two rows at
    2 jobs x QD 8 read 700,834 and 702,764 IOPS under one label): the engine names the series where it tells two
    apart, and only there."""
    df = pd.concat([sweep(), sweep(numjobs=2, ioengine="libaio"),
                    sweep(qds=(8, 16, 32), numjobs=2, ioengine="io_uring")], ignore_index=True)
    df["point_id"] = [f"p{i}" for i in range(len(df))]
    s = qd_series(df)
    assert s.groupby("series").size().to_dict() == {
        "randread 4k (read)": 4, "randread 4k x2 jobs, libaio (read)": 4, "randread 4k x2 jobs, io_uring (read)": 3}
    t = qd_table(df)
    assert t.loc[("randread 4k x2 jobs, io_uring (read)", 8), "iops"] == pytest.approx(80_000.0)


def test_several_runs_are_prefixed_with_the_run():
    s = qd_series(pd.concat([sweep(), sweep().assign(run_id="r2")], ignore_index=True))
    assert set(s["series"]) == {"r1: randread 4k (read)", "r2: randread 4k (read)"}


def test_points_without_a_queue_depth_sweep_are_left_out():
    lonely = rows([{"rw": "randwrite", "direction": "write", "point_id": "w"}])  # one QD
    repeats = rows([{"rw": "read", "iodepth": 32, "point_id": f"r{i}"} for i in range(3)])  # same QD thrice
    other_engine = sweep(qds=(1,), ioengine="io_uring")  # QD1 with another engine is not part of the sweep
    s = qd_series(pd.concat([sweep(), lonely, repeats, other_engine], ignore_index=True))
    assert len(s) == 4 and set(s["ioengine"]) == {"libaio"} and set(s["rw"]) == {"randread"}


def test_repeats_inside_a_sweep_are_all_kept():
    df = pd.concat([sweep(), sweep(qds=(4,)).assign(point_id="qd4-r1", iops=41_000.0)], ignore_index=True)
    s = qd_series(df)
    assert list(s["iodepth"]) == [1, 2, 4, 4, 8]
    assert sorted(s.loc[s["iodepth"] == 4, "iops"]) == [40_000.0, 41_000.0]


def test_min_points():
    assert len(qd_series(sweep(qds=(1, 2)))) == 2
    assert qd_series(sweep(qds=(1, 2)), min_points=3).empty
    assert len(qd_series(sweep(qds=(1, 2, 4)), min_points=3)) == 3


def test_empty_and_no_sweep_give_empty_frames_with_the_new_columns():
    for df in (empty_results(), rows([{}])):
        s = qd_series(df)
        assert s.empty and {"outstanding_io", "series", "iops"} <= set(s.columns)


def test_input_is_not_modified():
    df = sweep()
    qd_series(df)
    assert "series" not in df.columns and "outstanding_io" not in df.columns


def test_table_is_indexed_by_series_and_queue_depth_with_units_in_column_names():
    t = qd_table(sweep(qds=(1, 2), numjobs=2))
    assert t.index.names == ["series", "iodepth"]
    assert list(t.columns) == ["numjobs", "outstanding_io", "iops", "bw_bytes_per_s", "lat_mean_us", "clat_p50_us",
                               "clat_p99_us", "flag_reasons"]
    r = t.loc[("randread 4k x2 jobs (read)", 2)]
    assert r["outstanding_io"] == 4 and r["iops"] == 20_000.0
    assert r["bw_bytes_per_s"] == pytest.approx(20_000.0 * 4096)  # bytes per second, not KiB/s
    assert r["lat_mean_us"] == 102.0 and r["clat_p50_us"] == 92.0 and r["clat_p99_us"] == 202.0


def test_table_of_empty_results_is_empty():
    t = qd_table(empty_results())
    assert t.empty and t.index.names == ["series", "iodepth"] and "iops" in t.columns
