"""Latency histograms from fio's json+ ``bins``: percentiles and CDF.

The histograms dataset (``data/processed/histograms/run_id=<RUN>/``) holds one row per
(file, job entry, direction, bin): ``bin_ns`` is fio's bin key (latency in ns), ``count`` the I/Os
in it, ``latency`` which latency the bins count ('lat', total latency, when the job ran with
``lat_percentiles=1``; else 'clat', completion latency) -- one histogram per job entry and direction.  fio computes its own percentiles from the same bins (stat.c ``calc_clat_percentiles``):
the p-th percentile is the value of the first bin, in ascending latency, whose cumulative count
reaches ``p / 100 * N``.  :func:`percentile` follows that rule, so it reproduces fio's reported
percentiles exactly whenever fio wrote bins (its bins themselves are ~1.6 % wide: 64 per power of 2).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

KEY = ["run_id", "source_file", "run_index", "job_index", "direction"]  # one histogram


def _sorted(bin_ns, count) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(bin_ns, dtype=np.int64)
    c = np.asarray(count, dtype=np.int64)
    order = np.argsort(b, kind="stable")
    return b[order], c[order]


def percentile(bin_ns, count, p: float | Iterable[float]) -> float | np.ndarray:
    """The p-th percentile(s) in ns of one histogram, by fio's rule; NaN for an empty histogram."""
    out = percentile_rows(bin_ns, np.asarray(count, dtype=np.int64)[None, :], np.atleast_1d(p))[0]
    return float(out[0]) if np.ndim(p) == 0 else out


def percentile_rows(bin_ns, counts, p: Iterable[float]) -> np.ndarray:
    """Percentiles in ns of many histograms over the same bins (one per row of ``counts``, e.g. the
    windows of a fio histogram log), by fio's rule: rows x len(p); NaN for an empty row."""
    b = np.asarray(bin_ns, dtype=np.int64)
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 2 or c.shape[1] != len(b):
        raise ValueError("counts must be a 2-D array with one column per bin.")
    order = np.argsort(b, kind="stable")
    b, c = b[order], c[:, order]
    # bins no row uses cannot be the first to reach a share (the first bin stays: p = 0 answers it)
    used = c.any(axis=0)
    if len(used):
        used[0] = True
        b, c = b[used], c[:, used]
    ps = np.asarray(list(p), dtype=float)
    if np.any((ps < 0) | (ps > 100)):
        raise ValueError("percentiles must be between 0 and 100.")
    out = np.full((c.shape[0], len(ps)), np.nan)
    if not len(b):
        return out
    cum = np.cumsum(c, axis=1)
    total = cum[:, -1]
    ok = total > 0
    for j, q in enumerate(ps):
        # fio: sum >= p/100 * nr, in long double; the first bin where that holds
        reach = cum[ok] >= (q / 100.0 * total[ok])[:, None]
        idx = np.argmax(reach, axis=1)
        out[ok, j] = b[idx].astype(float)
    return out


def cdf(bin_ns, count) -> pd.DataFrame:
    """CDF of one histogram: bin_ns, count, cum_count and cdf (fraction of I/Os <= bin_ns)."""
    b, c = _sorted(bin_ns, count)
    cum = np.cumsum(c)
    total = cum[-1] if len(cum) else 0
    return pd.DataFrame({"bin_ns": b, "count": c, "cum_count": cum,
                         "cdf": cum / total if total else np.full(len(b), np.nan)})


def percentiles(hist: pd.DataFrame, ps: Iterable[float] = (50, 90, 99, 99.9),
                by: list[str] | None = None) -> pd.DataFrame:
    """Percentiles in µs of every histogram in a histograms table, one row per histogram.

    Columns: the ``by`` keys (default: run_id, source_file, run_index, job_index, direction, when present)
    and ``p<p>_us`` per requested percentile (``p99_9_us`` for 99.9).
    """
    ps = list(ps)
    by = by or [k for k in KEY if k in hist.columns]
    names = [f"p{p:g}_us".replace(".", "_") for p in ps]
    rows = []
    for key, g in hist.groupby(by, sort=True, dropna=False):
        vals = percentile(g["bin_ns"].to_numpy(), g["count"].to_numpy(), ps) / 1000.0
        rows.append((*(key if isinstance(key, tuple) else (key,)), *vals))
    return pd.DataFrame(rows, columns=[*by, *names])


def cdf_table(hist: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """CDF of every histogram in a histograms table (long form, ``by`` keys first, lat_us added)."""
    by = by or [k for k in KEY if k in hist.columns]
    frames = []
    for key, g in hist.groupby(by, sort=True, dropna=False):
        f = cdf(g["bin_ns"].to_numpy(), g["count"].to_numpy())
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            f[k] = v
        frames.append(f)
    if not frames:
        return pd.DataFrame(columns=[*by, "bin_ns", "count", "cum_count", "cdf", "lat_us"])
    out = pd.concat(frames, ignore_index=True)
    out["lat_us"] = out["bin_ns"] / 1000.0
    return out[[*by, "bin_ns", "lat_us", "count", "cum_count", "cdf"]]
