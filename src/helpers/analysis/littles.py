"""Little's Law check and the linear (unsaturated) region of throughput vs outstanding I/O.

For a closed loop that keeps N I/Os outstanding, Little's Law says N = X · R: throughput X
(IOPS, all directions) times mean total latency R (seconds, submission + completion).  fio's
measured L̂ = X · R should therefore equal the configured outstanding I/O
``iodepth × numjobs``.  A point more than :data:`LITTLES_TOLERANCE` off is flagged with the
likely reason: a synchronous engine (psync, sync, ...) keeps only one I/O per job in flight
whatever iodepth says; libaio with buffered I/O (direct=0) submits synchronously; fio itself
is CPU-bound and cannot keep the queue full; or iodepth_batch / iodepth_low options.

In the unsaturated region latency stays at the service latency S, so X = N / S: a straight
line through the origin with slope 1 / S.  :func:`fit_linear_region` finds the longest prefix
of the sweep that stays on such a line and reports the residuals of every point against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.processed.validity import CPU_BOUND_PCT, SYNC_ENGINES, cpu_per_job

LITTLES_TOLERANCE = 0.10  # |L̂ / configured − 1| above this is flagged
LINEAR_TOLERANCE = 0.10  # a point stays in the linear region while within 10 % of the line
POINT_KEYS = ["run_id", "host", "source_file", "run_index", "point_id", "job_name"]
DESCRIBE = ["rw", "bs_bytes", "rwmixread_pct", "ioengine", "direct", "iodepth", "numjobs", "group"]
BATCH_OPTIONS = ["iodepth_batch_submit", "iodepth_batch", "iodepth_batch_complete_min",
                 "iodepth_batch_complete_max", "iodepth_low"]

LITTLES_COLUMNS = ["outstanding_io", "iops_total", "lat_mean_us", "littles_l", "littles_ratio", "littles_flag",
                   "littles_reason"]


def _reasons(r: pd.Series, ratio: float) -> str:
    out = []
    engine = str(r.get("ioengine", ""))
    if engine in SYNC_ENGINES and r["iodepth"] > 1:
        out.append(f"synchronous engine {engine} keeps one I/O per job in flight: iodepth {int(r['iodepth'])} "
                   f"has no effect (expected L̂ ≈ numjobs = {int(r['numjobs'])})")
    if engine == "libaio" and int(r.get("direct", 1) or 0) == 0:
        out.append("libaio with buffered I/O (direct=0) submits synchronously: the queue never fills")
    cpu = r.get("cpu_pct", np.nan)
    if pd.notna(cpu) and cpu >= CPU_BOUND_PCT:
        out.append(f"fio is CPU-bound (usr+sys {cpu:.0f} % of a CPU per job) and cannot keep the queue full")
    for opt in BATCH_OPTIONS:
        if opt in r.index and pd.notna(r[opt]) and str(r[opt]) not in ("", "0", "1"):
            out.append(f"{opt}={r[opt]} changes how full fio keeps the queue")
    if not out:
        side = "below" if ratio < 1 else "above"
        out.append(f"L̂ {side} the configured depth with no known cause: check iodepth_batch/iodepth_low, "
                   "rate or thinktime options, and the validity flags")
    return "; ".join(out)


def littles_law(df: pd.DataFrame, tolerance: float = LITTLES_TOLERANCE) -> pd.DataFrame:
    """Little's Law per measured point.

    ``df``: processed results (one row per job entry and direction).  Rows of the same point
    (directions of a mixed workload, per-job entries without group_reporting) are combined:
    ``iops_total`` = Σ IOPS, ``littles_l`` = Σ IOPS × mean total latency (s) = L̂,
    ``lat_mean_us`` = IOPS-weighted mean total latency.  Adds ``outstanding_io``
    (iodepth × numjobs), ``littles_ratio`` = L̂ / outstanding_io, ``littles_flag``
    (|ratio − 1| > ``tolerance``) and ``littles_reason`` (likely cause, empty when clean).
    """
    keys = [k for k in POINT_KEYS if k in df.columns]
    describe = [c for c in DESCRIBE if c in df.columns] + [c for c in BATCH_OPTIONS if c in df.columns]
    if df.empty:
        return pd.DataFrame(columns=keys + describe + ["cpu_pct"] + LITTLES_COLUMNS)
    d = df.copy()
    d["_l"] = d["iops"] * d["lat_mean_us"] * 1e-6
    d["cpu_pct"] = cpu_per_job(d)
    agg = {"iops": "sum", "_l": "sum", "cpu_pct": "max", **{c: "first" for c in describe}}
    if "flag_reasons" in d.columns:
        agg["flag_reasons"] = lambda s: "; ".join(sorted({x for x in s.dropna() if x}))
    out = d.groupby(keys, dropna=False, sort=False).agg(agg).reset_index()
    out = out.rename(columns={"iops": "iops_total", "_l": "littles_l"})
    out["outstanding_io"] = out["iodepth"] * out["numjobs"]
    out["lat_mean_us"] = out["littles_l"] / out["iops_total"] * 1e6
    out["littles_ratio"] = out["littles_l"] / out["outstanding_io"]
    out["littles_flag"] = ((out["littles_ratio"] - 1).abs() > tolerance).fillna(False).astype(bool)
    out["littles_reason"] = [
        _reasons(r, r["littles_ratio"]) if r["littles_flag"] else "" for _, r in out.iterrows()]
    out["littles_reason"] = out["littles_reason"].astype("string")
    sort = [c for c in ("run_id", "rw", "bs_bytes", "ioengine", "direct", "numjobs", "iodepth") if c in out.columns]
    return out.sort_values(sort).reset_index(drop=True)


@dataclass
class LinearFit:
    """Throughput = slope × N through the origin over the linear (unsaturated) region."""

    slope_iops_per_io: float
    service_latency_us: float  # 1 / slope
    n_linear: int  # points in the linear region
    max_linear_n: float  # largest outstanding I/O still on the line
    n: np.ndarray
    iops: np.ndarray
    predicted: np.ndarray
    residual_pct: np.ndarray  # (measured − line) / line × 100
    in_linear: np.ndarray
    reason: str

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"outstanding_io": self.n, "iops": self.iops, "linear_iops": self.predicted,
                             "residual_iops": self.iops - self.predicted, "residual_pct": self.residual_pct,
                             "in_linear_region": self.in_linear})


def fit_linear_region(n, iops, tolerance: float = LINEAR_TOLERANCE) -> LinearFit:
    """Longest prefix of the sweep (sorted by outstanding I/O ``n``; repeats averaged) whose
    points all lie within ``tolerance`` of a line through the origin; slope by least squares."""
    d = pd.DataFrame({"n": np.asarray(n, dtype=float), "y": np.asarray(iops, dtype=float)}).dropna()
    d = d[d["n"] > 0].groupby("n", as_index=False)["y"].mean().sort_values("n")
    x, y = d["n"].to_numpy(), d["y"].to_numpy()
    if len(x) == 0:
        e = np.array([])
        return LinearFit(np.nan, np.nan, 0, np.nan, e, e, e, e, e.astype(bool), "no valid points")
    k = 1
    slope = np.nan  # a line through one point proves nothing: the linear region needs at least two
    for j in range(2, len(x) + 1):
        s = float(np.sum(x[:j] * y[:j]) / np.sum(x[:j] ** 2))
        if np.all(np.abs(y[:j] - s * x[:j]) <= tolerance * s * x[:j]):
            k, slope = j, s
        else:
            break
    pred = slope * x
    in_lin = np.arange(len(x)) < k if k >= 2 else np.zeros(len(x), dtype=bool)
    if len(x) == 1:
        reason = f"only N = {x[0]:g} was measured: a linear region needs at least two points"
    elif k == 1:
        reason = (f"no linear region: throughput is already sub-linear at N = {x[1]:g} (a linear region needs "
                  f"at least two points on a line through the origin)")
    elif k == len(x):
        reason = f"all {k} points on the line: not saturated up to N = {x[-1]:g}"
    else:
        reason = f"linear up to N = {x[k - 1]:g} ({k} points), sub-linear beyond"
    if k < 2:
        return LinearFit(np.nan, np.nan, 0, np.nan, x, y, pred, np.full(len(x), np.nan), in_lin, reason)
    return LinearFit(float(slope), float(1e6 / slope) if slope > 0 else np.nan, int(k), float(x[k - 1]), x, y,
                     pred, (y - pred) / pred * 100.0, in_lin, reason)


def linear_region_table(series: pd.DataFrame, tolerance: float = LINEAR_TOLERANCE) -> pd.DataFrame:
    """Per series of :func:`helpers.analysis.qd_series` output: every point with the linear-region
    prediction, residual and ``in_linear_region``, plus the series' ``service_latency_us``."""
    cols = ["series", "outstanding_io", "iops", "linear_iops", "residual_iops", "residual_pct",
            "in_linear_region", "service_latency_us", "linear_reason"]
    parts = []
    for name, s in series.groupby("series", sort=False):
        f = fit_linear_region(s["outstanding_io"], s["iops"], tolerance)
        parts.append(f.table().assign(series=name, service_latency_us=f.service_latency_us, linear_reason=f.reason))
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)
