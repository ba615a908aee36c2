"""Multi-host sweeps: label rows with host:port and add the all-hosts aggregate."""

from __future__ import annotations

from typing import Any

import pandas as pd

POINT_KEYS = ["run_id", "source_file", "run_index", "point_id", "direction"]  # (a file may hold several fio runs)
SUM_COLUMNS = ["iops", "bw_bytes_per_s", "io_bytes", "total_ios"]
MAX_COLUMNS = ["clat_p50_us", "clat_p99_us", "clat_p99_9_us", "clat_p99_99_us", "lat_max_us"]


def label_hosts(df: pd.DataFrame, manifest: dict[str, Any]) -> pd.DataFrame:
    """Replace ``host`` by the ``host:port`` the lab connected to, using the manifest's per-point
    ``clients`` map ({job_index: "hostname:port"}).  fio reports the connection address as the
    hostname, so two servers on one machine differ only by port; rows without a map keep ``host``.
    ``manifest`` is one run's manifest, or {run_id: manifest} for rows of several runs."""
    out = df.copy()
    if out.empty or "job_index" not in out.columns:
        return out
    by_run = "points" not in manifest and "run_id" in out.columns

    def one(row) -> Any:
        m = (manifest.get(row["run_id"]) or {}) if by_run else manifest
        clients = ((m.get("points") or {}).get(row["point_id"]) or {}).get("clients") or {}
        return clients.get(str(int(row["job_index"])), row["host"])

    out["host"] = pd.Series([one(r) for _, r in out.iterrows()], index=out.index, dtype="string")
    return out


def host_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, direction, host) plus an ``all hosts`` row: IOPS and bandwidth summed,
    latency percentiles as the worst host (an aggregate of percentiles is not a percentile)."""
    if df.empty:
        return df
    keys = [k for k in POINT_KEYS if k in df.columns]
    cols = [c for c in SUM_COLUMNS + MAX_COLUMNS + ["lat_mean_us"] if c in df.columns]
    per = df[keys + ["host"] + cols].copy()
    agg = {c: "sum" for c in SUM_COLUMNS if c in cols}
    agg.update({c: "max" for c in MAX_COLUMNS if c in cols})
    total = df.groupby(keys, dropna=False).agg({**agg, "host": "nunique"}).rename(columns={"host": "hosts"})
    if "lat_mean_us" in cols:  # IOPS-weighted mean latency across hosts
        w = df.assign(_w=df["iops"] * df["lat_mean_us"]).groupby(keys, dropna=False)["_w"].sum()
        total["lat_mean_us"] = w / total["iops"].where(total["iops"] > 0)
    total = total.reset_index().assign(host="all hosts")
    per["hosts"] = 1
    return pd.concat([per, total], ignore_index=True).sort_values(keys + ["host"]).reset_index(drop=True)


def multi_host_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of points measured on more than one host (the multi-host points); empty when there are none."""
    if df.empty or "host" not in df.columns:
        return df.iloc[0:0]
    keys = [k for k in POINT_KEYS if k in df.columns]
    return df[df.groupby(keys, dropna=False)["host"].transform("nunique") > 1]
