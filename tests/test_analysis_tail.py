import numpy as np
import pandas as pd

from helpers import analysis
from helpers.analysis import percentiles_long
from helpers.processed.validity import add_flags


def _row(**kw):
    base = {"run_id": "r", "point_id": "p", "host": "h", "rw": "randread", "bs_bytes": 4096, "direction": "read",
            "iodepth": 1, "numjobs": 1, "rwmixread_pct": np.nan, "ioengine": "libaio", "direct": 1,
            "runtime_s": 5.0, "total_ios": 40_000, "iops": 8000.0, "bw_bytes_per_s": 8000.0 * 4096,
            "lat_mean_us": 120.0, "usr_cpu_pct": 5.0, "sys_cpu_pct": 10.0, "clat_p50_us": 100.0,
            "clat_p90_us": 130.0, "clat_p95_us": 150.0, "clat_p99_us": 200.0, "clat_p99_9_us": 900.0,
            "clat_p99_99_us": 2600.0}
    return {**base, **kw}


def test_only_the_unreliable_percentile_is_marked_not_the_point():
    # 40,000 I/Os: p99.99 has 4 I/Os beyond it (needs 10), p99.9 has 40 -> only p99.99 is unreliable
    df = add_flags(pd.DataFrame([_row()]))
    assert df.loc[0, "flag_reasons"] == "" and df.loc[0, "unreliable_percentiles"] == "clat_p99_99_us"
    long = percentiles_long(df).set_index("percentile_label")
    assert long.loc["p99.99", "flagged"] and long.loc["p99.99", "flag_reasons"] == "too few I/Os (40,000) for p99.99"
    assert not long.loc[["p50", "p90", "p95", "p99", "p99.9"], "flagged"].any()
    assert long.loc["p99.99", "latency_us"] == 2600.0


def test_point_level_flag_marks_every_percentile_and_keeps_the_percentile_note():
    df = add_flags(pd.DataFrame([_row(direct=0)]))
    long = percentiles_long(df).set_index("percentile_label")
    assert long["flagged"].all()
    assert long.loc["p99", "flag_reasons"].startswith("buffered I/O")
    assert long.loc["p99.99", "flag_reasons"].endswith("; too few I/Os (40,000) for p99.99")


def test_distribution_percentile_follows_fios_rule_from_the_one_implementation():
    """1,000 I/Os one per bin (1..1000 µs).  fio compares the cumulative count with p / 100 * N in long
    double, where the double 99.9 is 99.900000000000006: 999 I/Os do not reach it, so fio reports the 1000th
    bin for p99.9, while p99 (990 I/Os) is the 990th.  Every p equals helpers.fio.histogram.percentile."""
    from helpers.fio import histogram

    bins = np.arange(1, 1001) * 1000
    hist = pd.DataFrame({"run_id": "r", "source_file": "f", "point_id": "p", "job_index": 0,
                         "direction": "read", "bin_ns": bins, "count": 1})
    dist = analysis.latency_distribution(hist)
    for p in (50, 99, 99.9, 100):
        got = analysis.distribution_percentile(dist, p)["latency_us"].iloc[0]
        assert got == histogram.percentile(bins, np.ones(1000), p) / 1000.0
    assert analysis.distribution_percentile(dist, 99)["latency_us"].iloc[0] == 990.0
    assert analysis.distribution_percentile(dist, 99.9)["latency_us"].iloc[0] == 1000.0
