"""Demand intensity: every measured point by its outstanding I/O (numjobs x iodepth: PTS's thread count x queue
depth), its job count and engine, with fio's CPU % per job (:func:`helpers.processed.validity.cpu_per_job`: fio's
own usr + sys, or the whole process's share when larger) and whether fio was CPU-bound (the validity
flag's rule, :data:`helpers.run.demand.CPU_BOUND_PCT`).  Works on one-job runs and others' files alike: a point
without numjobs counts one job, one without an engine is named "engine not stated"."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.knee import knee_table
from helpers.analysis.points import operation_label, totals
from helpers.fio.units import format_bytes
from helpers.processed.validity import cpu_per_job
from helpers.run.demand import CPU_BOUND_PCT

COLUMNS = ["series", "line", "rw", "bs_bytes", "ioengine", "numjobs", "iodepth", "outstanding_io", "iops",
           "lat_mean_us", "cpu_pct", "cpu_bound", "point_id", "run_id"]


def demand_points(df: pd.DataFrame) -> pd.DataFrame:
    """One row per closed-loop point (open-loop ``rate_iops`` points left out: their load is offered, not
    outstanding): ``series`` (operation and block size), ``line`` (series, jobs and engine: one line of the
    IOPS-vs-outstanding-I/O view each), outstanding I/O, total IOPS, mean total latency, fio's CPU %."""
    if df.empty or not {"iodepth", "iops"} <= set(df.columns):
        return pd.DataFrame(columns=COLUMNS)
    d = df
    if "rate_iops" in d.columns:
        d = d[d["rate_iops"].isna()]
    d = totals(d[d["direction"] != "total"] if "direction" in d.columns else d)
    if d.empty:
        return pd.DataFrame(columns=COLUMNS)
    out = pd.DataFrame(index=d.index)
    out["rw"] = d["rw"].astype("object")
    out["bs_bytes"] = d["bs_bytes"]
    mix = d["rwmixread_pct"] if "rwmixread_pct" in d.columns else pd.Series(None, index=d.index)
    out["ioengine"] = (d["ioengine"].astype("object").where(d["ioengine"].notna(), "engine not stated")
                       if "ioengine" in d.columns else "engine not stated")
    out["numjobs"] = pd.to_numeric(d["numjobs"], errors="coerce").fillna(1).astype(int) if "numjobs" in d.columns \
        else 1
    out["iodepth"] = pd.to_numeric(d["iodepth"], errors="coerce")
    out["outstanding_io"] = out["numjobs"] * out["iodepth"]
    out["iops"] = d["iops"]
    out["lat_mean_us"] = d["lat_mean_us"] if "lat_mean_us" in d.columns else float("nan")
    out["cpu_pct"] = cpu_per_job(d)
    out["cpu_bound"] = out["cpu_pct"] >= CPU_BOUND_PCT
    out["series"] = [f"{operation_label(r, m)} {format_bytes(int(b)) if pd.notna(b) else 'bs not stated'}"
                     for r, m, b in zip(out["rw"], mix, out["bs_bytes"])]
    out["line"] = [f"{s}, {n} job{'s' if n != 1 else ''}, {e}" for s, n, e in
                   zip(out["series"], out["numjobs"], out["ioengine"])]
    out["point_id"] = d["point_id"] if "point_id" in d.columns else None
    out["run_id"] = d["run_id"] if "run_id" in d.columns else None
    out = out.dropna(subset=["iodepth", "iops"])
    return out.sort_values(["series", "numjobs", "ioengine", "outstanding_io"]).reset_index(drop=True)[COLUMNS]


def demand_varied(points: pd.DataFrame) -> bool:
    """The run measured more than one job count or engine within a series (the view then has several lines)."""
    return bool(len(points)) and bool((points.groupby("series")["line"].nunique() > 1).any())


def demand_envelope(points: pd.DataFrame) -> pd.DataFrame:
    """Per series and outstanding I/O the best configuration measured (most IOPS over job counts and engines): the
    curve a search that adds jobs and switches engines climbs.  Rows of :func:`demand_points`."""
    if points.empty:
        return points.iloc[0:0]
    best = points.loc[points.groupby(["series", "outstanding_io"])["iops"].idxmax()]
    return best.sort_values(["series", "outstanding_io"]).reset_index(drop=True)


def demand_knee_table(points: pd.DataFrame, S: float = 1.0) -> pd.DataFrame:
    """The knee of each series on outstanding I/O (jobs x QD), on its :func:`demand_envelope` (one-job runs: the QD
    series itself): :class:`helpers.analysis.Knee`'s fields with ``knee_outstanding_io`` and ``peak_outstanding_io``
    for its QDs, ``x`` the axis, ``setting`` how the knee was reached.
    Only series with at least 3 outstanding-I/O values (:func:`helpers.analysis.find_knee`'s own minimum)."""
    env = demand_envelope(points)
    if env.empty:
        return knee_table(pd.DataFrame(columns=["series", "outstanding_io", "iops"])).assign(x=None, setting=None).rename(
            columns={"knee_qd": "knee_outstanding_io", "peak_qd": "peak_outstanding_io"})
    out = knee_table(env, S=S, x="outstanding_io")
    at = env.set_index(["series", "outstanding_io"])["line"]
    out["x"] = "outstanding I/O (jobs × QD)"
    out["setting"] = [at.get((s, q)) if pd.notna(q) else None for s, q in zip(out["series"], out["knee_qd"])]
    out["reason"] = out["reason"].str.replace("QD", "outstanding I/O", regex=False)
    out = out.rename(columns={"knee_qd": "knee_outstanding_io", "peak_qd": "peak_outstanding_io"})
    for c in ("knee_outstanding_io", "peak_outstanding_io"):  # jobs x QD: whole numbers
        out[c] = pd.to_numeric(out[c], errors="coerce").round().astype("Int64")
    return out
