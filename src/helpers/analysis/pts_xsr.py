"""SNIA PTS XSR report (:mod:`helpers.run.pts_xsr`): per sample its time, segment, throughput and mean and maximum
total response time, and the recovery of segment 3 (sequential writes after the random ones) to segment 1's
throughput.  Pure functions of a run's manifest and its processed results."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from helpers.analysis.pts_dirth import test_note

SERIES_COLUMNS = ["sample", "segment", "t_s", "bytes_per_s", "lat_mean_us", "lat_max_us"]
SEGMENT_NAMES = {1: "1: sequential 1024k writes", 2: "2: random 8k writes", 3: "3: sequential 1024k writes"}


class XsrRecovery(NamedTuple):
    seconds: float | None  # from the start of segment 3 to its first sample at or above segment 1's mean
    target_bytes_per_s: float | None  # segment 1's mean throughput
    reason: str


def xsr_recovery(t_s, bytes_per_s, segment) -> XsrRecovery:
    """Seconds from the start of segment 3 to the first sample of segment 3 whose throughput is at or above the
    mean of segment 1 (arrays of one value per sample; ``t_s`` the sample's end time, ``segment`` 1, 2 or 3).
    Segment 3 starts where the last sample before it ends (the sample length before its first sample when it has
    none).  ``seconds`` None with the reason when segment 1 or 3 has no sample or segment 3 never gets there."""
    t = np.asarray(t_s, dtype=float)
    bw = np.asarray(bytes_per_s, dtype=float)
    seg = np.asarray(segment, dtype=int)
    order = np.argsort(t, kind="stable")
    t, bw, seg = t[order], bw[order], seg[order]
    one, three = bw[seg == 1], np.flatnonzero(seg == 3)
    if not len(one) or np.isnan(one).all():
        return XsrRecovery(None, None, "segment 1 has no sample: no throughput to recover to")
    target = float(np.nanmean(one))
    if not len(three):
        return XsrRecovery(None, target, "segment 3 has no sample")
    first = three[0]
    if first > 0:
        start = t[first - 1]
    else:
        start = t[first] - (float(np.median(np.diff(t))) if len(t) > 1 else t[first])
    hit = three[bw[three] >= target]
    if not len(hit):
        return XsrRecovery(None, target, f"segment 3 never reached segment 1's mean ({target:,.0f} bytes/s) in its "
                                         f"{len(three)} samples (best {np.nanmax(bw[three]):,.0f})")
    return XsrRecovery(float(t[hit[0]] - start), target,
                       f"first sample of segment 3 at or above segment 1's mean {target:,.0f} bytes/s")


def xsr_series(results: pd.DataFrame, run) -> pd.DataFrame:
    """One row per XSR sample (manifest order): sample, segment, t_s (end of the sample: samples x length),
    bytes_per_s (writes), mean and maximum total latency (µs)."""
    t = run.tests.get("xsr") or {}
    tags = {pid: e["pts"] for pid, e in (run.manifest.get("points") or {}).items()
            if (e.get("pts") or {}).get("test") == "xsr" and e.get("status") == "ok"}
    if not tags or results is None or results.empty:
        return pd.DataFrame(columns=SERIES_COLUMNS)
    r = results[(results["run_id"] == run.run_id) & results["point_id"].isin(list(tags))]
    r = r[r["direction"] == "write"]
    g = r.groupby("point_id").agg(bytes_per_s=("bw_bytes_per_s", "sum"), lat_mean_us=("lat_mean_us", "mean"),
                                  lat_max_us=("lat_max_us", "max")).reset_index()
    g["sample"] = [int(tags[p]["round"]) for p in g["point_id"]]
    g["segment"] = [int(tags[p]["segment"]) for p in g["point_id"]]
    g["t_s"] = g["sample"] * float(t.get("sample_s") or 0)
    return g[SERIES_COLUMNS].sort_values("sample").reset_index(drop=True)


def xsr_summary(series: pd.DataFrame) -> pd.DataFrame:
    """Per segment: samples, mean throughput, mean and peak of the mean response time, peak maximum response time;
    and the recovery line of :func:`xsr_recovery`."""
    if series is None or series.empty:
        return pd.DataFrame(columns=["segment", "samples", "mean bytes/s", "mean response time (µs)",
                                     "max response time (µs)", "note"])
    rows = []
    for seg, g in series.groupby("segment"):
        rows.append({"segment": SEGMENT_NAMES.get(int(seg), str(seg)), "samples": len(g),
                     "mean bytes/s": float(g["bytes_per_s"].mean()),
                     "mean response time (µs)": float(g["lat_mean_us"].mean()),
                     "max response time (µs)": float(g["lat_max_us"].max()), "note": ""})
    rec = xsr_recovery(series["t_s"], series["bytes_per_s"], series["segment"])
    rows.append({"segment": "recovery of segment 3", "samples": np.nan, "mean bytes/s": rec.target_bytes_per_s,
                 "mean response time (µs)": np.nan, "max response time (µs)": np.nan,
                 "note": (f"{rec.seconds:g} s: " if rec.seconds is not None else "not recovered: ") + rec.reason})
    return pd.DataFrame(rows)


def xsr_note(run) -> str:
    return test_note(run, "xsr", "sample")
