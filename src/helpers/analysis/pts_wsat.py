"""SNIA PTS WSAT's optional response-time report: the mean total response time per log window over time (fio's
lat log), and over the whole WSAT the 99.999 % response time of its json+ histogram with the I/O count behind it
(its reliability: 1 in 100,000 I/Os needs at least 100,000 I/Os) and the maximum; and per window (fio's
completion-latency histogram log, one histogram per window and job) the 99.999 % and the slowest I/O, with the
window's I/O count saying whether its 99.999 % is sound."""

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


def wsat_window_tail(timeseries: pd.DataFrame, run) -> pd.DataFrame:
    """Per WSAT histogram-log window: t_s (window end), ios (all jobs), jobs, p99_999_us and max_us (completion
    latency, µs) and ``reliable`` (at least :data:`FIVE_NINES_MIN_IOS` I/Os behind the 99.999 % of every job).
    With several jobs the window's 99.999 % is the largest of the jobs' (the merged histogram's lies at or below
    it, never above) and its maximum the largest job maximum (exact to the bin)."""
    cols = ["t_s", "ios", "jobs", "p99_999_us", "max_us", "reliable"]
    point = (run.tests.get("wsat") or {}).get("point")
    if not point or timeseries is None or timeseries.empty or "clat_max_us" not in timeseries.columns:
        return pd.DataFrame(columns=cols)
    h = timeseries[(timeseries["run_id"] == run.run_id) & (timeseries["point_id"] == point)
                   & (timeseries["direction"] == "write") & timeseries["clat_max_us"].notna()]
    if h.empty:
        return pd.DataFrame(columns=cols)
    step = float(h["interval_s"].median())
    ios = pd.to_numeric(h["hist_ios"], errors="coerce").fillna(0).astype(float)
    g = h.assign(_w=np.rint(h["window_end_s"].astype(float) / step).astype(int), _ios=ios,
                 _ok=ios >= FIVE_NINES_MIN_IOS).groupby("_w", sort=True)
    out = pd.DataFrame({"t_s": g["_w"].first() * step, "ios": g["_ios"].sum().astype(int),
                        "jobs": g["log_job"].nunique(), "p99_999_us": g["clat_p99_999_us"].max(),
                        "max_us": g["clat_max_us"].max(), "reliable": g["_ok"].all()})
    return out.reset_index(drop=True)[cols]


def wsat_tail_note(tail: pd.DataFrame) -> str:
    """One sentence on how many windows have enough I/Os for their 99.999 %."""
    if tail.empty:
        return "No WSAT histogram log: per-window 99.999 % and maximum not recorded (runs before this feature)."
    bad = int((~tail["reliable"].astype(bool)).sum())
    jobs = int(tail["jobs"].max())
    of = " (the largest of the jobs' per-job values)" if jobs > 1 else ""
    if bad == 0:
        return f"Every one of the {len(tail)} windows has at least {FIVE_NINES_MIN_IOS:,} I/Os per job behind its 99.999 %{of}."
    return (f"{bad} of {len(tail)} windows have fewer than {FIVE_NINES_MIN_IOS:,} I/Os per job (at most "
            f"{int(tail['ios'].max()):,} in a window): their 99.999 % is the slowest few I/Os, not a five-nines "
            f"estimate (open markers){of}.")
