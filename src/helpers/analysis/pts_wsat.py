"""SNIA PTS WSAT's optional response-time report: the mean total response time per log window over time (fio's
lat log), and over the whole WSAT the 99.999 % response time of its json+ histogram with the I/O count behind it
(its reliability: 1 in 100,000 I/Os needs at least 100,000 I/Os) and the maximum.  Per-window nines and maxima
need a histogram log per window: not recorded yet, so the page gives them for the whole test only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.pts_dirth import capped_percentiles
from helpers.analysis.timeseries import point_series

FIVE_NINES_MIN_IOS = 100_000


def wsat_latency_series(timeseries: pd.DataFrame, run) -> pd.DataFrame:
    """One row per WSAT log window with a mean total latency: t_s (window end), lat_mean_us."""
    point = (run.tests.get("wsat") or {}).get("point")
    if not point or timeseries is None or timeseries.empty:
        return pd.DataFrame(columns=["t_s", "lat_mean_us"])
    ts = timeseries[(timeseries["run_id"] == run.run_id) & (timeseries["point_id"] == point)]
    s = point_series(ts)
    s = s[(s["direction"] == "write") & s["lat_mean_us"].notna()].sort_values("window_end_s")
    return pd.DataFrame({"t_s": s["window_end_s"].astype(float).to_numpy(),
                         "lat_mean_us": s["lat_mean_us"].astype(float).to_numpy()})


def wsat_response_summary(results: pd.DataFrame, histograms: pd.DataFrame, run) -> pd.DataFrame:
    """The whole WSAT: I/Os, mean and maximum total latency (fio's totals), the 99.999 % latency of its json+
    histogram (empty below 100,000 I/Os) and which latency the histogram holds."""
    point = (run.tests.get("wsat") or {}).get("point")
    cols = ["I/Os", "mean response time (µs)", "99.999 % (µs)", "max response time (µs)", "note"]
    if not point or results is None or results.empty:
        return pd.DataFrame(columns=cols)
    r = results[(results["run_id"] == run.run_id) & (results["point_id"] == point) & (results["direction"] == "write")]
    if r.empty:
        return pd.DataFrame(columns=cols)
    ios = int(r["total_ios"].sum())
    mean = float(np.average(r["lat_mean_us"], weights=r["iops"])) if r["iops"].sum() > 0 else float("nan")
    five, note = float("nan"), ""
    h = histograms[(histograms["run_id"] == run.run_id) & (histograms["point_id"] == point)
                   & (histograms["direction"] == "write") & (histograms["count"] > 0)] \
        if histograms is not None and not histograms.empty else pd.DataFrame()
    if ios < FIVE_NINES_MIN_IOS:
        note = f"too few I/Os for a 99.999 % response time ({ios:,} < {FIVE_NINES_MIN_IOS:,})"
    elif h.empty:
        note = "no json+ histogram recorded"
    else:
        merged = h.groupby("bin_ns")["count"].sum()
        five = capped_percentiles(merged.index.to_numpy(), merged.to_numpy(), [99.999], float(r["lat_max_us"].max()))[0]
        if str(h["latency"].iloc[0]) != "lat":
            note = "99.999 % of completion latency"
    return pd.DataFrame([{"I/Os": ios, "mean response time (µs)": mean, "99.999 % (µs)": five,
                          "max response time (µs)": float(r["lat_max_us"].max()), "note": note}], columns=cols)
