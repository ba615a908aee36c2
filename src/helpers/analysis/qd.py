"""Queue-depth sweeps: the series of points that differ only in iodepth."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.points import engine_suffixes, latency_columns, numeric_order, with_latency
from helpers.fio.units import format_bytes

SERIES_KEYS = ["run_id", "host", "rw", "bs_bytes", "direction", "numjobs", "rwmixread_pct", "ioengine", "direct"]


def series_label(row: pd.Series, with_run: bool = False, engine: str = "") -> str:
    mix = "" if pd.isna(row["rwmixread_pct"]) else f" {row['rwmixread_pct']:.0f}% read"
    nj = "" if row["numjobs"] == 1 else f" x{row['numjobs']} jobs"
    label = f"{row['rw']} {format_bytes(row['bs_bytes'])}{mix}{nj}{engine} ({row['direction']})"
    return f"{row['run_id']}: {label}" if with_run else label


def qd_series(df: pd.DataFrame, min_points: int = 2) -> pd.DataFrame:
    """Rows belonging to a queue-depth sweep (≥ ``min_points`` distinct iodepths with everything
    else equal), sorted by series and iodepth, with ``outstanding_io``, a ``series`` label and the
    percentile columns of :func:`helpers.analysis.points.with_latency` (``p50_us`` ..., ``percentile_latency``)."""
    if df.empty:
        return df.assign(outstanding_io=pd.Series(dtype="int64"), series=pd.Series(dtype="string"))
    keys = [k for k in SERIES_KEYS if k in df.columns]
    g = df.groupby(keys, dropna=False)["iodepth"].transform("nunique")
    out = with_latency(df[g >= min_points])  # p50_us/p99_us: total latency when fio wrote it, else clat
    out["outstanding_io"] = out["iodepth"] * out["numjobs"]
    multi_run = out["run_id"].nunique() > 1
    engines = engine_suffixes(out, keys)  # the engine where it tells two series apart
    out["series"] = pd.Series([series_label(r, multi_run, e) for (_, r), e in zip(out.iterrows(), engines)],
                              index=out.index, dtype="string")
    return numeric_order(out, ["run_id", "rw", "bs_bytes", "rwmixread_pct", "numjobs", "direction", "series",
                               "iodepth"])



TABLE_COLUMNS = ["series", "iodepth", "numjobs", "outstanding_io", "iops", "bw_bytes_per_s", "lat_mean_us",
                 "clat_p50_us", "clat_p99_us", "flag_reasons"]


def qd_table(df: pd.DataFrame) -> pd.DataFrame:
    """The queue-depth series as a compact table (one row per point, units in column names)."""
    s = qd_series(df)
    lc = latency_columns(df)  # the table shows the same percentiles as the figure, named for their latency
    cols = [lc.column(float(c[len("clat_p"):-3].replace("_", "."))) if c.startswith("clat_p") else c
            for c in TABLE_COLUMNS]
    return s[[c for c in cols if c in s.columns]].set_index(["series", "iodepth"])
