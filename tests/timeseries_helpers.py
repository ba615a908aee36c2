"""Shared fixtures of the time-series tests: synthetic timeseries rows with known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.processed import schema


def frame(iops, point="p", direction="read", job=0, window_s=1.0, **cols) -> pd.DataFrame:
    """Timeseries rows of one point/direction/job: windows of ``window_s`` with the given IOPS, ramp 1 s."""
    n = len(iops)
    end = np.arange(1, n + 1) * window_s
    iops = np.asarray(iops, dtype=float)
    data = {"run_id": "r", "point_id": point, "source_file": f"{point}.json", "run_index": 0, "job_index": 0,
            "log_job": job + 1,
            "direction": direction, "log": "iops,bw", "t_ms": np.rint(end * 1000).astype(np.int64),
            "window_start_s": end - window_s, "interval_s": window_s, "from_json": False, "window_end_s": end, "ramp_s": 1.0,
            "iops": iops, "bytes_per_s": iops * 4096, "lat_mean_us": 100.0, "clat_mean_us": np.nan,
            "slat_mean_us": np.nan, "hist_ios": pd.NA, "clat_p50_us": np.nan, "clat_p99_us": np.nan,
            "clat_p99_9_us": np.nan, "clat_p99_999_us": np.nan, "clat_max_us": np.nan, "unreliable_percentiles": "",
            "flag_few_ios": False, **cols}
    df = pd.DataFrame({c: pd.Series(np.broadcast_to(np.asarray(data[c], dtype=object), n)).astype(t)
                       for c, t, _ in schema.TIMESERIES_COLUMNS})
    return df
