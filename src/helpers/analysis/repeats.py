"""Repeated points: mean and 95 % confidence interval per point.

A point is *repeated* when several rows share the same configuration (everything that defines
the workload) but come from different fio runs (files or job names).  Fits use the means, and
the standard error of each mean as its weight when there are repeats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CONFIG_KEYS = ["run_id", "host", "rw", "bs_bytes", "direction", "iodepth", "numjobs", "rwmixread_pct",
               "ioengine", "direct", "rate_iops"]  # rate_iops: open-loop loads are different points


def mean_ci(values, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """(mean, ci_low, ci_high, n) of ``values`` with a Student-t interval; NaN bounds when n < 2."""
    v = np.asarray(pd.to_numeric(pd.Series(values), errors="coerce").dropna(), dtype=float)
    n = len(v)
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    m = float(v.mean())
    if n < 2:
        return m, float("nan"), float("nan"), 1
    # heavy (~0.3-1 s): imported where used, so a notebook kernel that never calls this starts faster
    from scipy import stats

    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * v.std(ddof=1) / np.sqrt(n))
    return m, m - half, m + half, n


def aggregate_repeats(df: pd.DataFrame, keys: list[str] | None = None, value: str = "iops",
                      extra: tuple[str, ...] = ("lat_mean_us", "clat_p99_us")) -> pd.DataFrame:
    """One row per point (``keys``, default :data:`CONFIG_KEYS` present in ``df``): the mean of
    ``value`` with ``<value>_ci95_low``/``_high``, ``<value>_sem`` (standard error, NaN without
    repeats), ``repeats`` (count), and the mean of each ``extra`` column."""
    keys = [k for k in (keys or CONFIG_KEYS) if k in df.columns]
    rows = []
    for key, g in df.groupby(keys, dropna=False, sort=True):
        m, lo, hi, n = mean_ci(g[value])
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        sd = float(pd.to_numeric(g[value], errors="coerce").std(ddof=1)) if n > 1 else float("nan")
        row.update({value: m, f"{value}_ci95_low": lo, f"{value}_ci95_high": hi,
                    f"{value}_sem": sd / np.sqrt(n) if n > 1 else float("nan"), "repeats": n})
        for col in extra:
            if col in g.columns:
                row[col] = float(pd.to_numeric(g[col], errors="coerce").mean())
        rows.append(row)
    return pd.DataFrame(rows)
