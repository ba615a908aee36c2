"""Read/write-mix sweeps: points that differ only in the read share, per direction and as totals."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.points import MIXED_MODES, engine_suffixes, totals, with_units

SERIES_KEYS = ["run_id", "host", "rw", "bs_bytes", "iodepth", "numjobs", "ioengine", "direct"]
DIRECTIONS = ["read", "write", "total"]


# the mix page's table (and the workbook's sheet): the series' values, not every results column
PAGE_COLUMNS = ["series", "direction", "rwmixread_pct", "iops", "mb_per_s", "lat_mean_us", "p99_us",
                "percentile_latency", "flag_reasons"]


def mix_series(df: pd.DataFrame, min_points: int = 2) -> pd.DataFrame:
    """Rows of mixed-workload sweeps (rw/randrw with ≥ ``min_points`` read shares, everything else
    equal): the read and write rows as measured plus one ``total`` row per point, with units and a
    ``series`` label (operation, block size, QD)."""
    empty = with_units(df.iloc[0:0]).assign(series=pd.Series(dtype="string"))
    if df.empty:
        return empty
    m = df[df["rw"].isin(MIXED_MODES) & df["rwmixread_pct"].notna()]
    if m.empty:
        return empty
    keys = [k for k in SERIES_KEYS if k in m.columns]
    n = m.groupby(keys, dropna=False)["rwmixread_pct"].transform("nunique")
    m = m[n >= min_points]
    if m.empty:
        return empty
    out = with_units(pd.concat([m, totals(m)], ignore_index=True))
    multi_run = out["run_id"].nunique() > 1
    out["series"] = pd.Series(
        [(f"{r.run_id}: " if multi_run else "") + f"{r.rw} {r.bs_label} QD{r.iodepth}"
         + ("" if r.numjobs == 1 else f" x{r.numjobs} jobs") + e
         for r, e in zip(out.itertuples(), engine_suffixes(out, keys))],
        index=out.index, dtype="string")
    out["direction"] = pd.Categorical(out["direction"], categories=DIRECTIONS + ["trim"], ordered=True)
    out = out.sort_values(["bs_bytes", "series", "direction", "rwmixread_pct"]).reset_index(drop=True)
    out["direction"] = out["direction"].astype(str)
    return out
