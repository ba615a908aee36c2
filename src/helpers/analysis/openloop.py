"""Open-loop (offered-load) sweeps: achieved vs offered IOPS and latency, the hockey stick."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

SATURATION_FRACTION = 0.95  # achieved below 95 % of offered: the device cannot keep up
_RATE_RE = re.compile(r"-rate(\d+)(?:-|$)")
COLUMNS = ["run_id", "point_id", "rw", "bs_bytes", "iodepth", "offered_iops", "achieved_iops", "achieved_fraction",
           "saturated", "clat_p50_us", "clat_p99_us", "clat_p99_9_us"]
TOTAL_LATENCY_COLUMNS = ["lat_p50_us", "lat_p99_us", "lat_p99_9_us"]  # when fio measured them (lat_percentiles=1)
PERCENTILE_COLUMNS = COLUMNS[-3:] + TOTAL_LATENCY_COLUMNS


def offered_rate(point_id: str, manifest: dict[str, Any] | None = None) -> float:
    """Offered IOPS of a point: the manifest's ``rate_iops`` parameter, else the ``-rateN`` of its id."""
    params = ((manifest or {}).get("points", {}).get(point_id) or {}).get("parameters") or {}
    if params.get("rate_iops") is not None:
        return float(params["rate_iops"])
    m = _RATE_RE.search(str(point_id))
    return float(m.group(1)) if m else float("nan")


def openloop_table(df: pd.DataFrame, manifest: dict[str, Any] | None = None,
                   fraction: float = SATURATION_FRACTION) -> pd.DataFrame:
    """One row per open-loop point: offered and achieved IOPS (all directions summed), p50/p99/p99.9
    completion latency and, when fio measured them, total latency (worst direction), ``saturated`` when
    achieved < ``fraction`` x offered.

    Uses a ``rate_iops`` column when the ingest provides one, else the manifest / point id."""
    if df.empty:
        return pd.DataFrame(columns=COLUMNS)
    d = df.copy()
    # rate_iops is a per-job, per-direction cap: a point offers the sum over its rows (directions, hosts,
    # job clones), a grouped entry of numjobs clones counting numjobs times.  Data ingested without the
    # rate_iops column takes the same per-row rate from the manifest or the point id.
    if "rate_iops" in d.columns and d["rate_iops"].notna().any():
        rate = d["rate_iops"].astype(float)
    else:
        rate = pd.Series([offered_rate(p, manifest) for p in d["point_id"]], index=d.index, dtype=float)
    clones = 1.0
    if {"numjobs", "group_reporting"} <= set(d.columns):
        clones = d["numjobs"].astype(float).where(d["group_reporting"].fillna(False).astype(bool), 1.0)
    d["offered_iops"] = rate * clones
    d = d[d["offered_iops"].notna()]
    if d.empty:
        return pd.DataFrame(columns=COLUMNS)
    # never merge two runs' points, nor two fio runs appended to one file
    keys = [k for k in ("run_id", "source_file", "run_index", "point_id") if k in d.columns]
    agg = {"rw": "first", "bs_bytes": "first", "iodepth": "first", "offered_iops": "sum", "iops": "sum"}
    for c in PERCENTILE_COLUMNS:
        if c in d.columns:
            agg[c] = "max"
    t = d.groupby(keys, dropna=False).agg(agg).reset_index().rename(columns={"iops": "achieved_iops"})
    t["achieved_fraction"] = t["achieved_iops"] / t["offered_iops"]
    t["saturated"] = t["achieved_fraction"] < fraction
    t = t.sort_values(["rw", "bs_bytes", "offered_iops"]).reset_index(drop=True)
    return t[[c for c in COLUMNS + TOTAL_LATENCY_COLUMNS if c in t.columns]]
