"""Validity flags: each flag on synthetic rows, the FLAG_COLUMNS contract, and a real cached read."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest

from helpers.processed import schema
from helpers.processed.validity import FLAG_COLUMNS, add_flags, settled_text, unreliable_percentiles
from realfio import prefill, run_jobs


def row(**kw):
    base = {"run_id": "r", "host": "h", "rw": "randread", "bs_bytes": 4096, "direction": "read", "iodepth": 4,
            "numjobs": 1, "rwmixread_pct": np.nan, "ioengine": "libaio", "direct": 1, "runtime_s": 10.0,
            "total_ios": 1_000_000, "iops": 100_000.0, "lat_mean_us": 80.0, "usr_cpu_pct": 10.0, "sys_cpu_pct": 20.0,
            "clat_p99_us": 200.0, "clat_p99_9_us": 300.0, "clat_p99_99_us": 500.0}
    return {**base, **kw}


def flags(*rows):
    return add_flags(pd.DataFrame(list(rows)))


def test_clean_row_has_every_flag_column_and_no_reason():
    f = flags(row())
    for col, _dtype, _ in FLAG_COLUMNS:
        assert col in f.columns
    assert not f.loc[0, ["flag_page_cache", "flag_cpu_bound", "flag_few_ios", "flag_short_run",
                         "flag_repeat_spread"]].any()
    assert f.loc[0, "flag_reasons"] == "" and f.loc[0, "unreliable_percentiles"] == ""


def test_flag_columns_are_in_the_schema():
    names = schema.column_names()
    assert all(c in names for c, _, _ in FLAG_COLUMNS)


@pytest.mark.parametrize("kw,text", [
    ({"direct": 0}, "buffered I/O"),
    ({"lat_mean_us": 1.18}, "1.18 µs is faster than any SSD"),
    ({"disk_read_ios": 1000}, "the device only 1,000"),
])
def test_page_cache(kw, text):
    f = flags(row(**kw))
    assert f.loc[0, "flag_page_cache"] and text in f.loc[0, "flag_reasons"]


def test_disk_util_consistent_is_not_flagged():
    f = flags(row(disk_read_ios=900_000), row(disk_read_ios=np.nan))
    assert not f["flag_page_cache"].any()


def test_unknown_direct_is_not_assumed_buffered():
    f = add_flags(pd.DataFrame([row(), row()]).astype({"direct": "Int64"}).assign(direct=pd.array([pd.NA, 0],
                                                                                                 dtype="Int64")))
    assert list(f["flag_page_cache"]) == [False, True]
    assert f.loc[0, "flag_reasons"] == ""


def test_reasons_follow_their_rows_with_several_flags_and_a_duplicate_index():
    df = pd.DataFrame([row(runtime_s=1.0, usr_cpu_pct=50.0, sys_cpu_pct=45.0), row(), row(direct=0)],
                      index=[7, 7, 3])
    f = add_flags(df)
    assert list(f["flag_short_run"]) == [True, False, False]
    assert f["flag_reasons"].iloc[0] == "fio used 95 % of a CPU (CPU-bound); ran 1.0 s: too short for steady state (< 3 s)"
    assert f["flag_reasons"].iloc[1] == ""
    assert f["flag_reasons"].iloc[2].startswith("buffered I/O")


def test_cpu_bound():
    f = flags(row(usr_cpu_pct=35.0, sys_cpu_pct=62.0))
    assert f.loc[0, "flag_cpu_bound"] and "97 % of a CPU" in f.loc[0, "flag_reasons"]


def test_too_few_ios_marks_the_percentile():
    assert unreliable_percentiles(50_000) == ["clat_p99_99_us"]
    assert unreliable_percentiles(5_000) == ["clat_p99_9_us", "clat_p99_99_us"]
    assert unreliable_percentiles(200_000) == []
    f = flags(row(total_ios=20_000), row(total_ios=20_000, clat_p99_99_us=np.nan))
    assert f.loc[0, "flag_few_ios"] and f.loc[0, "unreliable_percentiles"] == "clat_p99_99_us"
    assert not f.loc[1, "flag_few_ios"]  # a percentile that was not reported is not marked
    # the point's throughput is sound: few I/Os is a percentile-level mark, not a point-level reason
    assert f.loc[0, "flag_reasons"] == ""


def test_short_run():
    f = flags(row(runtime_s=1.0))
    assert f.loc[0, "flag_short_run"] and "too short for steady state" in f.loc[0, "flag_reasons"]


def test_a_probe_that_ended_because_it_settled_is_not_short_one_that_ran_out_is():
    """A settle-early probe of 0.45 s that ended once its IOPS settled (settled_after_s 0.55, ramp included) measured
    its level by the settle rule: no short-run flag.  The same probe that ran its whole 1 s without settling (no
    settled_after_s) is flagged, and so is a point with no settle record at all (NaN, or no such column)."""
    f = flags(row(runtime_s=0.45, settled_after_s=0.55), row(runtime_s=1.0, settled_after_s=np.nan),
              row(runtime_s=0.45, settled_after_s=0.55, usr_cpu_pct=60.0, sys_cpu_pct=35.0))
    assert list(f["flag_short_run"]) == [False, True, False]
    assert list(f["flag_reasons"]) == ["", "ran 1.0 s: too short for steady state (< 3 s)",
                                       "fio used 95 % of a CPU (CPU-bound)"]  # its other flags still stand
    assert flags(row(runtime_s=0.45)).loc[0, "flag_short_run"]
    assert settled_text(0.5512) == "ended once its IOPS settled after 0.55 s"


def test_repeat_spread():
    f = flags(row(iops=100_000.0), row(iops=70_000.0), row(iodepth=8, iops=100_000.0), row(iodepth=8, iops=101_000.0))
    assert list(f["flag_repeat_spread"]) == [True, True, False, False]


def test_points_of_different_sweep_groups_are_not_repeats_of_each_other():
    """A characterize run's QD1 probe (group qd) read 30 % below its 5 s QD1 latency point (group qd1): different
    measurements of one setting, not repeats (the probe's spread flagged the 5 s point).  Two readings of one
    group (a re-probe) that disagree so are."""
    f = flags(row(group="qd", iops=70_000.0), row(group="qd1", iops=100_000.0),
              row(group="qd", iodepth=8, iops=70_000.0), row(group="qd", iodepth=8, iops=100_000.0))
    assert list(f["flag_repeat_spread"]) == [False, False, True, True]


def test_burst_drains_are_not_repeats_of_each_other():
    """A burst run's drains (the first, those after rests, a redrain) run one setting again on a bucket each one
    empties: 2,200, 950 and 1,675 IOPS are the bucket's doing, not a spread (issue 33)."""
    f = flags(row(group="burst", iops=2200.0), row(group="burst", iops=950.0), row(group="burst", iops=1675.0),
              row(group="redrain", iops=2000.0), row(group="redrain", iops=600.0))
    assert not f["flag_repeat_spread"].any() and (f["flag_reasons"] == "").all()


def test_open_loop_loads_are_not_repeats_of_each_other():
    # same workload at three offered loads: achieved IOPS differ by design, not by noise
    f = flags(row(rate_iops=1000.0, iops=1000.0), row(rate_iops=4000.0, iops=4000.0),
              row(rate_iops=16000.0, iops=15000.0))
    assert not f["flag_repeat_spread"].any()
    # two runs of the same offered load that disagree are
    f = flags(row(rate_iops=4000.0, iops=4000.0), row(rate_iops=4000.0, iops=2500.0))
    assert f["flag_repeat_spread"].all()
    # closed-loop repeats (rate_iops NaN, as ingest writes it) are still compared with each other
    f = flags(row(rate_iops=np.nan, iops=100_000.0), row(rate_iops=np.nan, iops=70_000.0))
    assert f["flag_repeat_spread"].all()


def test_each_row_gets_its_own_values_in_its_reasons_and_percentile_list():
    # sentences are made once per distinct value: rows with equal, close and signed-zero values keep their own
    rows = [row(runtime_s=1.04), row(runtime_s=1.04, direct=0), row(runtime_s=1.06), row(runtime_s=0.0, iodepth=8),
            row(runtime_s=-0.0, iodepth=16), row(lat_mean_us=1.18, total_ios=5_000), row(lat_mean_us=1.184),
            row(usr_cpu_pct=70.0, sys_cpu_pct=25.0, runtime_s=2.0, total_ios=50_000, clat_p99_99_us=np.nan)]
    f = flags(*rows)
    short = "too short for steady state (< 3 s)"
    assert list(f["flag_reasons"]) == [
        f"ran 1.0 s: {short}", f"buffered I/O (direct=0): the page cache may serve it; ran 1.0 s: {short}",
        f"ran 1.1 s: {short}", f"ran 0.0 s: {short}", f"ran -0.0 s: {short}",
        "mean read latency 1.18 µs is faster than any SSD (cache?)",
        "mean read latency 1.18 µs is faster than any SSD (cache?)",
        f"fio used 95 % of a CPU (CPU-bound); ran 2.0 s: {short}"]
    assert list(f["unreliable_percentiles"]) == [""] * 5 + ["clat_p99_9_us,clat_p99_99_us", "", ""]
    assert f["flag_reasons"].dtype == "string" and f["unreliable_percentiles"].dtype == "string"


def test_empty_frame():
    f = add_flags(pd.DataFrame(columns=list(row())))
    assert all(c in f.columns for c, _, _ in FLAG_COLUMNS) and f.empty


def test_real_cached_buffered_read_is_flagged(fio_path, scratch_dir, tmp_path):
    target = scratch_dir / "cache-target.bin"
    prefill(fio_path, target)
    subprocess.run(["cat", str(target)], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    res = run_jobs(fio_path, target, {"cached-read": {}}, tmp_path / "cached.json", rw="read", bs="4k",
                   ioengine="psync", direct=0)
    r = res.iloc[0]
    assert r["direct"] == 0 and r["flag_page_cache"], r["flag_reasons"]
    assert "buffered I/O" in r["flag_reasons"]
    # served from memory: a page-cache copy takes ~1-3 µs (5.8 µs seen with make test's two workers busy),
    # a 4k read from this VM's disk ~100 µs
    assert r["lat_mean_us"] < 20.0


def _seq(rw: str, mb_per_s: float, **kw) -> dict:
    direction = "write" if "write" in rw else "read"
    kw = {"bs_bytes": 1 << 20, "iodepth": 16, **kw}
    return row(rw=rw, direction=direction, iops=mb_per_s * 1e6 / kw["bs_bytes"], bw_bytes_per_s=mb_per_s * 1e6,
               io_bytes=int(mb_per_s * 1e6 * 5), lat_mean_us=4000.0, **kw)


def test_writes_faster_than_reads_at_the_same_setting_are_implausible():
    # the VM's numbers: sequential 1m write 4,014 MB/s against 1,216 MB/s for reads (3.3x): a write-back cache
    f = flags(_seq("read", 1216.0), _seq("write", 4014.0))
    assert list(f["flag_implausible"]) == [False, True]
    reason = f["flag_reasons"].iloc[1]
    assert "writes at 3.3x the bandwidth of reads at the same setting (1,216 MB/s)" in reason
    assert "after 19,140 MiB written" in reason and "larger SIZE or the sustained-write profile" in reason
    assert f["flag_reasons"].iloc[0] == ""  # the read is not the suspect


def test_plausible_writes_and_where_the_check_does_not_apply():
    # a real SSD: writes slower than reads, or a little faster (below 1.3x): no flag
    assert not flags(_seq("read", 3000.0), _seq("write", 2000.0))["flag_implausible"].any()
    assert not flags(_seq("read", 3000.0), _seq("write", 3800.0))["flag_implausible"].any()  # 1.27x
    # QD1: a drive's write buffer acknowledges writes before a flash read completes; not checked
    assert not flags(_seq("read", 100.0, iodepth=1), _seq("write", 400.0, iodepth=1))["flag_implausible"].any()
    # open-loop (offered rate) points and other runs are not compared
    assert not flags(_seq("read", 100.0), _seq("write", 400.0, run_id="other"))["flag_implausible"].any()
    assert not flags(_seq("read", 100.0), _seq("write", 400.0, rate_iops=500.0))["flag_implausible"].any()
    # random writes against random reads of the same block size and depth
    f = flags(_seq("randread", 300.0, bs_bytes=4096), _seq("randwrite", 450.0, bs_bytes=4096))
    assert list(f["flag_implausible"]) == [False, True]


def test_writes_faster_than_any_read_of_the_run_are_implausible():
    # no read at the write's block size: the run's fastest read (at 128k) is the reference
    f = flags(_seq("read", 1000.0, bs_bytes=128 << 10), _seq("write", 1500.0, bs_bytes=1 << 20))
    assert list(f["flag_implausible"]) == [False, True]
    assert "1.5x the bandwidth of the fastest read in this run (1,000 MB/s)" in f["flag_reasons"].iloc[1]
    # no read at all: nothing to judge by
    assert not flags(_seq("write", 4000.0))["flag_implausible"].any()


def test_a_deep_write_with_no_read_at_its_depth_is_held_against_the_nearest_read_depth():
    """Issue 34.1: a characterize run's write 128k at QD512 (2,453 MB/s) was shown clean because no read ran at
    QD512 and the run's fastest read was a lucky 2,083 MB/s probe, while the same write at QD16 was flagged against
    the reads at QD16.  It is now held against the reads of 128k at the nearest depth measured (QD16: 1,700 MB/s)."""
    import pandas as pd

    from helpers.processed.validity import add_flags

    base = {"run_id": "r", "host": "h", "numjobs": 1, "ioengine": "libaio", "direct": 1, "runtime_s": 5.0}
    df = pd.DataFrame([
        {**base, "point_id": "r16", "rw": "read", "direction": "read", "bs_bytes": 131072, "iodepth": 16,
         "bw_bytes_per_s": 1.7e9},
        {**base, "point_id": "lucky", "rw": "read", "direction": "read", "bs_bytes": 4096, "iodepth": 64,
         "bw_bytes_per_s": 2.083e9},
        {**base, "point_id": "w512", "rw": "write", "direction": "write", "bs_bytes": 131072, "iodepth": 512,
         "bw_bytes_per_s": 2.453e9}])
    out = add_flags(df).set_index("point_id")
    assert out.loc["w512", "flag_implausible"]
    assert "writes at 1.4x the bandwidth of reads of the same block size at QD16, the nearest depth reads were " \
           "measured at (1,700 MB/s)" in out.loc["w512", "flag_reasons"]
