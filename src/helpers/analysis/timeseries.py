"""Time inside a point: per-window series from the ``timeseries`` dataset and their consistency.

``point_series(ts)``: one row per point, direction and window, the jobs (numjobs clones, ``log_job``) combined:
IOPS and bytes/s summed, mean latencies weighted by each job's IOPS; per-window percentiles are the
WORST job's (a percentile of several histograms cannot be rebuilt from their percentiles), and
``hist_ios`` is the I/O count behind the window summed over jobs.

``consistency(ts)``: one row per point and direction: CV of the per-window IOPS, share of windows
within ±10 % of the median, the worst window and when it happened, stalls (runs of windows below
``stall_fraction`` x the median: count and total seconds) and ``unstable``: over the second half of the
windows (at least 6 in all) IOPS still follow a trend -- the least-squares line moves them by more than
10 % of their mean across that half (the slope rule of SNIA PTS steady state) and the slope is clear of
the noise (|t| >= 3), so window-to-window noise alone (this VM: ~9 % CV) does not count as unsettled.
Every window counts: nothing is downsampled here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.points import point_label

POINT_KEY = ["run_id", "point_id", "source_file", "direction"]
BAND_PCT = 10.0  # "within ±10 % of the median"
STALL_FRACTION = 0.5  # a window below half the median IOPS is a stall
SETTLE_WINDOWS = 6  # fewer windows cannot tell a trend from noise
SETTLE_SLOPE_PCT = 10.0  # a trend over the second half moving IOPS by more than 10 % of their mean ...
SETTLE_T = 3.0  # ... and statistically clear (|t| of the least-squares slope >= 3): not settled
PCT_COLUMNS = ["clat_p50_us", "clat_p99_us", "clat_p99_9_us"]

SUMMARY_COLUMNS = ["run_id", "point_id", "source_file", "direction", "windows", "window_s", "duration_s",
                   "iops_median", "iops_cv_pct", "within_band_pct", "worst_iops", "worst_start_s", "worst_end_s",
                   "stalls", "stall_s", "unstable", "settle_reason", "summary"]


def _wmean(values: pd.Series, weights: pd.Series) -> float:
    v, w = values.to_numpy(dtype=float), weights.to_numpy(dtype=float)
    ok = ~np.isnan(v) & ~np.isnan(w) & (w > 0)
    if not ok.any():
        ok = ~np.isnan(v)
        return float(v[ok].mean()) if ok.any() else np.nan
    return float(np.average(v[ok], weights=w[ok]))


def point_series(ts: pd.DataFrame) -> pd.DataFrame:
    """Per point, direction and window: the jobs combined (see the module text)."""
    if ts.empty:
        return ts.assign(jobs=pd.Series(dtype="int64")).iloc[0:0]
    keys = POINT_KEY + ["window_start_s", "window_end_s"]
    single = ts.groupby(POINT_KEY, sort=False)["log_job"].transform("nunique") == 1
    out = [ts[single].assign(jobs=1)]
    multi = ts[~single]
    if len(multi):
        rows = []
        for key, g in multi.groupby(keys, sort=True, dropna=False):
            w = g["iops"]
            row = dict(zip(keys, key))
            row.update({
                "ramp_s": g["ramp_s"].iloc[0], "jobs": g["log_job"].nunique(),
                "iops": g["iops"].sum(min_count=1), "bytes_per_s": g["bytes_per_s"].sum(min_count=1),
                "lat_mean_us": _wmean(g["lat_mean_us"], w), "clat_mean_us": _wmean(g["clat_mean_us"], w),
                "slat_mean_us": _wmean(g["slat_mean_us"], w), "hist_ios": g["hist_ios"].sum(min_count=1),
                **{c: g[c].max() for c in PCT_COLUMNS},
                "flag_few_ios": bool(g["flag_few_ios"].any()),
                "unreliable_percentiles": ",".join(sorted({x for u in g["unreliable_percentiles"].fillna("")
                                                           for x in str(u).split(",") if x})),
            })
            rows.append(row)
        out.append(pd.DataFrame(rows))
    df = pd.concat(out, ignore_index=True)
    return df.sort_values(POINT_KEY + ["window_end_s"], kind="stable").reset_index(drop=True)


def _runs_below(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of True in ``mask``."""
    edges = np.diff(np.r_[0, mask.astype(np.int8), 0])
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def consistency_row(start_s, end_s, iops, band_pct: float = BAND_PCT, stall_fraction: float = STALL_FRACTION,
                    settle_windows: int = SETTLE_WINDOWS) -> dict:
    """Consistency figures of one series of windows (window starts/ends in s, IOPS per window)."""
    start_s, end_s, iops = (np.asarray(x, dtype=float) for x in (start_s, end_s, iops))
    ok = ~np.isnan(iops)
    start_s, end_s, iops = start_s[ok], end_s[ok], iops[ok]
    n = len(iops)
    if n == 0:
        return {"windows": 0, "unstable": pd.NA, "settle_reason": "no IOPS windows in the logs",
                "summary": "no IOPS windows in the logs."}
    width = end_s - start_s
    med = float(np.median(iops))
    mean = float(iops.mean())
    cv = float(iops.std(ddof=1) / mean * 100) if n > 1 and mean > 0 else np.nan
    band = float(np.mean(np.abs(iops - med) <= band_pct / 100 * med) * 100) if med > 0 else np.nan
    w = int(np.argmin(iops))
    stalls = _runs_below(iops < stall_fraction * med) if med > 0 else []
    stall_s = float(sum(width[a:b + 1].sum() for a, b in stalls))
    if n < settle_windows:
        unstable, reason = pd.NA, f"{n} windows: too few to judge settling (needs {settle_windows})"
    else:
        half = iops[n // 2:]
        # heavy (~0.8 s): imported where used, so a notebook kernel that never calls this starts faster
        from scipy import stats

        fit = stats.linregress(np.arange(len(half), dtype=float), half)
        excursion = abs(fit.slope) * (len(half) - 1)
        t = abs(fit.slope) / fit.stderr if fit.stderr > 0 else (np.inf if fit.slope else 0.0)
        limit = SETTLE_SLOPE_PCT / 100 * float(half.mean())
        unstable = bool(excursion > limit and t >= SETTLE_T)
        direction = "rising" if fit.slope > 0 else "falling"
        reason = (f"never settled: IOPS still {direction} over the last {len(half)} windows "
                  f"({excursion / half.mean() * 100:.0f} % of their mean, t = {t:.1f})" if unstable else
                  (f"settled: over the last {len(half)} windows the trend is {excursion / half.mean() * 100:.0f} % "
                   f"of the mean (<= {SETTLE_SLOPE_PCT:g} %)" if excursion <= limit else
                   f"settled: no clear trend over the last {len(half)} windows (|t| = {t:.1f} < {SETTLE_T:g})"))
    window_s = float(np.median(width))
    cv_text = "n/a" if np.isnan(cv) else f"{cv:.1f} %"
    text = (f"{n} window{'s' if n != 1 else ''} of {window_s:g} s: median {med:,.0f} IOPS, CV {cv_text}, {band:.0f} % of windows "
            f"within ±{band_pct:g} % of the median; worst {iops[w]:,.0f} IOPS at {start_s[w]:g}-{end_s[w]:g} s")
    text += (f"; {len(stalls)} stall{'s' if len(stalls) != 1 else ''} below {stall_fraction:.0%} of the median "
             f"({stall_s:g} s)" if stalls else "; no stalls")
    text += "; " + reason + "."
    return {"windows": n, "window_s": window_s, "duration_s": float(width.sum()), "iops_median": med,
            "iops_cv_pct": cv, "within_band_pct": band, "worst_iops": float(iops[w]),
            "worst_start_s": float(start_s[w]), "worst_end_s": float(end_s[w]), "stalls": len(stalls),
            "stall_s": stall_s, "unstable": unstable, "settle_reason": reason, "summary": text}


def consistency(ts: pd.DataFrame, band_pct: float = BAND_PCT, stall_fraction: float = STALL_FRACTION,
                settle_windows: int = SETTLE_WINDOWS) -> pd.DataFrame:
    """One row per point and direction (columns :data:`SUMMARY_COLUMNS`)."""
    series = point_series(ts)
    rows = []
    for key, g in series.groupby(POINT_KEY, sort=True, dropna=False):
        r = consistency_row(g["window_start_s"], g["window_end_s"], g["iops"], band_pct, stall_fraction,
                            settle_windows)
        rows.append({**dict(zip(POINT_KEY, key)), **r})
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out["unstable"] = out["unstable"].astype("boolean")
    return out


def with_unstable(results: pd.DataFrame, ts: pd.DataFrame) -> pd.DataFrame:
    """``results`` with ``flag_unstable`` (boolean, <NA> without logs or too few windows) and, where raised,
    the reason appended to ``flag_reasons`` so the QD/bs views mark the point."""
    out = results.copy()
    summ = consistency(ts)[POINT_KEY[:1] + ["source_file", "direction", "unstable", "settle_reason"]]
    if summ.empty:
        out["flag_unstable"] = pd.Series(pd.NA, index=out.index, dtype="boolean")
        return out
    merged = out[["run_id", "source_file", "direction"]].merge(summ, how="left",
                                                               on=["run_id", "source_file", "direction"])
    out["flag_unstable"] = merged["unstable"].astype("boolean").to_numpy()
    raised = out["flag_unstable"].fillna(False).to_numpy(dtype=bool)
    if raised.any() and "flag_reasons" in out.columns:
        reasons = out["flag_reasons"].fillna("").astype(str).to_numpy(dtype=object)
        extra = "IOPS " + merged["settle_reason"].fillna("").astype(str).to_numpy(dtype=object)
        reasons[raised] = ["; ".join(x for x in (a, b) if x) for a, b in zip(reasons[raised], extra[raised])]
        out["flag_reasons"] = pd.Series(reasons, index=out.index, dtype="string")
    return out


def stall_windows(series: pd.DataFrame, stall_fraction: float = STALL_FRACTION) -> pd.DataFrame:
    """The windows of ``point_series`` output below ``stall_fraction`` x their point's median IOPS."""
    if series.empty:
        return series
    med = series.groupby(POINT_KEY, sort=False)["iops"].transform("median")
    return series[series["iops"] < stall_fraction * med]


CONSISTENCY_TABLE_COLUMNS = ["run_id", "point", "windows", "iops_median", "iops_cv_pct", "within_band_pct",
                             "worst_iops", "worst_start_s", "stalls", "stall_s", "settled", "settle_reason"]


def consistency_table(summary: pd.DataFrame, results: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`consistency` as a page table: one row per point and direction, named as a reader says it ('4k
    randrw read QD16 70 % read', from the run's ``results``; the point id when the results do not have it),
    in numeric order of block size, queue depth, jobs and read share; numbers stay numbers; ``settled`` is
    yes / UNSTABLE / too few windows and ``settle_reason`` says why.  The run column only with several runs."""
    if summary is None or summary.empty:
        return pd.DataFrame(columns=CONSISTENCY_TABLE_COLUMNS[1:])
    s = summary.copy()
    order = ["run_id", "point_id", "direction"]
    if results is not None and len(results):
        cfg_cols = [c for c in ("rw", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct", "rate_iops", "ioengine",
                                "direct") if c in results.columns]
        cfg = results.drop_duplicates(["run_id", "point_id"])[["run_id", "point_id", *cfg_cols]]
        s = s.merge(cfg, on=["run_id", "point_id"], how="left")
        named = s["rw"].notna() & s["bs_bytes"].notna() & s["iodepth"].notna() if {"rw", "bs_bytes", "iodepth"} <= set(
            s.columns) else pd.Series(False, index=s.index)
        s["point"] = [point_label(r) if ok else str(r["point_id"]) for (_, r), ok in zip(s.iterrows(), named)]
        order = ["run_id", *[c for c in ("rw", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct") if c in s],
                 "point_id", "direction"]
    else:
        s["point"] = s["point_id"].astype(str) + " " + s["direction"].astype(str)
    s = s.sort_values(order, kind="stable", na_position="last")
    s["settled"] = ["too few windows" if pd.isna(u) else ("UNSTABLE" if u else "yes") for u in s["unstable"]]
    cols = CONSISTENCY_TABLE_COLUMNS if s["run_id"].nunique() > 1 else CONSISTENCY_TABLE_COLUMNS[1:]
    return s[cols].reset_index(drop=True)
