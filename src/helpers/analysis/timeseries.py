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
NARROW_FRACTION = 0.5  # windows narrower than this x the log interval: views hide them, statistics leave them out

SUMMARY_COLUMNS = ["run_id", "point_id", "source_file", "direction", "windows", "window_s", "duration_s",
                   "iops_median", "iops_cv_pct", "within_band_pct", "worst_iops", "worst_start_s", "worst_end_s",
                   "stalls", "stall_s", "unstable", "settle_reason", "summary"]


RATE_COLUMNS = ["iops", "bytes_per_s"]
MEAN_COLUMNS = ["lat_mean_us", "clat_mean_us", "slat_mean_us"]
SERIES_KEY = POINT_KEY + ["log_job", "log"]


def _grid_rows(g: pd.DataFrame, edges: np.ndarray) -> dict[str, np.ndarray]:
    """One series (one log of one job) put on the grid ``edges`` (seconds): rates integrated over each grid
    window, mean latencies weighted by the time covered (``_cover``), histogram entries by their end."""
    g = g.sort_values("window_end_s", kind="stable")
    start = g["window_start_s"].to_numpy(dtype=float)
    end = g["window_end_s"].to_numpy(dtype=float)
    width = np.maximum(end - start, 0.0)
    x = np.column_stack([start, end]).ravel()
    n = len(edges) - 1
    gw = np.diff(edges)
    out: dict[str, np.ndarray] = {}

    def integral(v):  # the integral of a piecewise-constant v (0 outside the windows) over each grid window
        cum = np.cumsum(v * width)
        y = np.column_stack([np.r_[0.0, cum[:-1]], cum]).ravel()
        return np.diff(np.interp(edges, x, y, left=0.0, right=float(cum[-1]) if len(cum) else 0.0))

    for c in RATE_COLUMNS:
        v = g[c].to_numpy(dtype=float)
        if not np.isnan(v).all():
            out[c] = integral(np.nan_to_num(v)) / np.where(gw > 0, gw, np.nan)
    for c in MEAN_COLUMNS:
        v = g[c].to_numpy(dtype=float)
        if not np.isnan(v).all():
            ok = (~np.isnan(v)).astype(float)
            cover = integral(ok)
            out[c] = integral(np.nan_to_num(v)) / np.where(cover > 0, cover, np.nan)
            out["_c" + c] = cover
    h = pd.to_numeric(g["hist_ios"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    pct = g[PCT_COLUMNS].to_numpy(dtype=float, na_value=np.nan)
    if not (np.isnan(h).all() and np.isnan(pct).all()):
        k = np.clip(np.searchsorted(edges, end, side="left") - 1, 0, n - 1)
        out["hist_ios"] = np.bincount(k, weights=np.nan_to_num(h), minlength=n)
        seen = np.bincount(k, weights=(~np.isnan(h)).astype(float), minlength=n) > 0
        out["hist_ios"][~seen] = np.nan
        for c in PCT_COLUMNS:
            v = np.full(n, -np.inf)
            np.maximum.at(v, k, np.nan_to_num(g[c].to_numpy(dtype=float), nan=-np.inf))
            out[c] = np.where(np.isinf(v), np.nan, v)
        few = np.zeros(n, dtype=bool)
        np.logical_or.at(few, k, g["flag_few_ios"].fillna(False).to_numpy(dtype=bool) if "flag_few_ios" in g
                         else np.zeros(len(g), dtype=bool))
        out["flag_few_ios"] = few
        labels = [set() for _ in range(n)]
        for kk, u in zip(k, g["unreliable_percentiles"].fillna("").astype(str) if "unreliable_percentiles" in g
                         else [""] * len(g)):
            labels[kk].update(x for x in u.split(",") if x)
        out["unreliable_percentiles"] = np.array([",".join(sorted(lab)) for lab in labels], dtype=object)
    return out


def on_grid(ts: pd.DataFrame) -> pd.DataFrame:
    """Every job's logs (one point and direction) on one grid per point and log interval: windows of the
    interval from 0, the last ending at the point's last window end; one row per job and grid window with the
    columns of all its logs (``log`` names them), ``window_start_s``/``window_end_s`` the grid's, and
    ``_c<column>`` the seconds of the grid window each mean-latency column covered.  Totals are kept:
    sum(bytes_per_s x width) is the same as in ``ts``."""
    cover = [f"_c{c}" for c in MEAN_COLUMNS]
    if ts.empty:
        return ts.assign(**{c: pd.Series(dtype="float64") for c in cover})
    width = ts["window_end_s"].astype(float) - ts["window_start_s"].astype(float)
    ts = ts.assign(**{k: v for k, v in (("interval_s", width.groupby([ts[c] for c in POINT_KEY]).transform("median")),
                                        ("log_job", 1), ("job_index", 0), ("log", ""), ("ramp_s", 0.0))
                      if k not in ts.columns})  # frames made by hand may lack the ingest's columns
    ts = ts.assign(**{c: np.nan for c in [*RATE_COLUMNS, *MEAN_COLUMNS, "hist_ios", *PCT_COLUMNS] if c not in ts.columns})
    frames = []
    point = POINT_KEY + [c for c in ("run_index",) if c in ts.columns]  # the fio run of the file: a join key
    for key, p in ts.groupby(point + ["interval_s"], sort=True, dropna=False):
        step, emax = float(key[-1]), float(p["window_end_s"].max())
        if not step > 0 or not emax > 0:
            continue
        edges = np.r_[np.arange(0.0, emax - 1e-9, step), emax]
        n = len(edges) - 1
        for (job, job_index), g in p.groupby(["log_job", "job_index"], sort=True):
            row = {**dict(zip(point, key)), "job_index": job_index, "log_job": job,
                   "log": ",".join(sorted(set(g["log"].astype(str)))), "window_start_s": edges[:-1],
                   "window_end_s": edges[1:], "interval_s": step, "ramp_s": g["ramp_s"].iloc[0]}
            for _, one in g.groupby("log", sort=True):
                row.update(_grid_rows(one, edges))
            frames.append(pd.DataFrame({k: v if np.ndim(v) else np.repeat(v, n) for k, v in row.items()}))
    if not frames:
        return ts.iloc[0:0].assign(**{c: pd.Series(dtype="float64") for c in cover})
    out = pd.concat(frames, ignore_index=True)
    for c in [*RATE_COLUMNS, *MEAN_COLUMNS, *cover, "hist_ios", *PCT_COLUMNS]:
        if c not in out.columns:
            out[c] = np.nan
    return out


def point_series(ts: pd.DataFrame) -> pd.DataFrame:
    """Per point, direction, log and window: the jobs combined (see the module text)."""
    if ts.empty:
        return ts.assign(jobs=pd.Series(dtype="int64")).iloc[0:0]
    single = ts.groupby(POINT_KEY, sort=False)["log_job"].transform("nunique") == 1
    out = [ts[single].assign(jobs=1)]
    multi = ts[~single]
    if len(multi):
        g = on_grid(multi)
        ios = g["iops"].where(g["iops"] > 0).fillna(1.0)  # each job's weight: its I/Os in the window (time alone without an iops log)
        for c in MEAN_COLUMNS:
            g["_c" + c] = (g["_c" + c] * ios).where(g[c].notna())
            g["_w" + c] = g[c] * g["_c" + c]
        keys = POINT_KEY + ["window_start_s", "window_end_s"]
        g["hist_ios"] = pd.to_numeric(g["hist_ios"], errors="coerce").astype(float)
        by = g.groupby(keys, sort=True, dropna=False)
        parts = [by.agg(ramp_s=("ramp_s", "first"), interval_s=("interval_s", "first"), jobs=("log_job", "nunique"),
                        log=("log", lambda u: ",".join(sorted({x for v in u for x in str(v).split(",")})))),
                 by[RATE_COLUMNS + ["hist_ios"]].sum(min_count=1), by[PCT_COLUMNS].max(),
                 by[[f"_w{c}" for c in MEAN_COLUMNS] + [f"_c{c}" for c in MEAN_COLUMNS]].sum()]
        comb = pd.concat(parts, axis=1).reset_index()
        few = g["flag_few_ios"].fillna(False).astype(bool) if "flag_few_ios" in g.columns else pd.Series(False, g.index)
        comb["flag_few_ios"] = few.groupby([g[k] for k in keys], sort=True, dropna=False).any().to_numpy()
        labels = (g["unreliable_percentiles"].fillna("").astype(str) if "unreliable_percentiles" in g.columns
                  else pd.Series("", index=g.index))
        comb["unreliable_percentiles"] = labels.groupby([g[k] for k in keys], sort=True, dropna=False).agg(
            lambda u: ",".join(sorted({x for v in u for x in v.split(",") if x}))).to_numpy()
        for c in MEAN_COLUMNS:
            comb[c] = comb.pop(f"_w{c}") / comb.pop(f"_c{c}").where(lambda w: w > 0)
        comb["from_json"] = False
        comb["t_ms"] = np.rint(comb["window_end_s"] * 1000).astype("int64")
        out.append(comb)
    df = pd.concat(out, ignore_index=True)
    return df.sort_values(POINT_KEY + ["log", "window_end_s"], kind="stable").reset_index(drop=True)


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
    # windows much narrower than the rest (a job's final partial window, a second entry in one interval) hold
    # a rate over a few ms: left out of the statistics, and the summary says so
    width = end_s - start_s
    narrow = width < NARROW_FRACTION * np.median(width) if len(width) else np.zeros(0, dtype=bool)
    start_s, end_s, iops = start_s[~narrow], end_s[~narrow], iops[~narrow]
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
    if narrow.any():
        text += (f" {int(narrow.sum())} window{'s' if narrow.sum() != 1 else ''} narrower than {NARROW_FRACTION:g} x "
                 "the typical width left out (a rate over a few ms).")
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


def narrow_windows(series: pd.DataFrame, fraction: float = NARROW_FRACTION) -> pd.Series:
    """True for the windows narrower than ``fraction`` x their log's interval: the job's final partial window,
    the second of two entries in one interval.  Their rate is over a few ms (noise when drawn beside the
    others); analysis counts them with their width, views may hide them and say so."""
    if series.empty or "interval_s" not in series.columns:
        return pd.Series(False, index=series.index)
    width = series["window_end_s"].astype(float) - series["window_start_s"].astype(float)
    return (width < fraction * series["interval_s"].astype(float)).fillna(False)


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
    yes / UNSTABLE / too few windows ("yes (its probe's check)" for a search's probe that ended once its IOPS settled:
    its few windows cannot judge it again) and ``settle_reason`` says why.  The run column only with several runs."""
    if summary is None or summary.empty:
        return pd.DataFrame(columns=CONSISTENCY_TABLE_COLUMNS[1:])
    s = summary.copy()
    order = ["run_id", "point_id", "direction"]
    if results is not None and len(results):
        cfg_cols = [c for c in ("rw", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct", "rate_iops", "ioengine",
                                "direct", "settled_after_s") if c in results.columns]
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
    if "settled_after_s" in s:  # a search's probe ended by its own settle check (fio's status, every 250 ms): its
        # few log windows cannot judge settling, but the probe was judged settled where it ran (issue 34.6)
        probe = s["unstable"].isna() & s["settled_after_s"].notna()
        s.loc[probe, "settled"] = "yes (its probe's check)"
        s.loc[probe, "settle_reason"] = [f"the search ended this probe once its IOPS settled, after {x:.2g} s "
                                         f"(fio's status every 250 ms); its {int(n)} log windows are too few to "
                                         "judge again here" for x, n in zip(s.loc[probe, "settled_after_s"],
                                                                             s.loc[probe, "windows"])]
    cols = CONSISTENCY_TABLE_COLUMNS if s["run_id"].nunique() > 1 else CONSISTENCY_TABLE_COLUMNS[1:]
    return s[cols].reset_index(drop=True)
