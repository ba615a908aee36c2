"""Points of a burst run that are no level of the device (issue 33): the drains themselves (the same setting run
again after each rest, on a bucket each drain empties) and the points that ran inside the burst
(:func:`helpers.processed.validity.add_burst_flag`).  Apart from :mod:`helpers.analysis.burst` so its figure
does not import the validity rules (figures import no run layer)."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.burst import BURST_GROUP, burst_series
from helpers.processed.validity import BURST_DRAIN_GROUPS, add_burst_flag


def burst_drain_rows(rows: pd.DataFrame) -> pd.Series:
    """True for the rows of a burst run's drains (the first, those after rests, the redrains): one setting run
    again and again on a bucket each drain empties -- not repeats to average, nor a level of the device."""
    pid = rows["point_id"].astype("object").fillna("").astype(str) if "point_id" in rows else None
    if pid is None:
        return pd.Series(False, index=rows.index)
    return pid.str.startswith(tuple(f"{g}-" for g in BURST_DRAIN_GROUPS))


def burst_flags(results: pd.DataFrame, series: pd.DataFrame | None, manifests: dict | None = None) -> pd.DataFrame:
    """``results`` with :data:`helpers.processed.validity.IN_BURST_FLAG` raised on every point of a run that ran
    above the baseline its burst drains found (the flag's rule and sentence: helpers.processed.validity)."""
    buckets = []
    for b in burst_series(series, manifests):
        if b.point_id.startswith(f"{BURST_GROUP}-") and b.bucket.found:
            buckets.append({"run_id": b.run_id, "point_id": b.point_id, "direction": b.direction, "unit": b.unit,
                            "burst_rate": b.bucket.burst_rate, "baseline_rate": b.bucket.baseline_rate})
    return add_burst_flag(results, buckets) if buckets else results


IN_BURST_COLUMNS = ["run_id", "point_id", "direction", "iops", "bw_bytes_per_s", "flag_reasons"]


def in_burst_points(results: pd.DataFrame | None, series: pd.DataFrame | None,
                    manifests: dict | None = None) -> pd.DataFrame:
    """The points :func:`burst_flags` flags (ran above a burst drain's baseline): :data:`IN_BURST_COLUMNS`."""
    if results is None or results.empty:
        return pd.DataFrame(columns=IN_BURST_COLUMNS)
    out = burst_flags(results, series, manifests)
    if "flag_in_burst" not in out:
        return pd.DataFrame(columns=IN_BURST_COLUMNS)
    return out.loc[out["flag_in_burst"], [c for c in IN_BURST_COLUMNS if c in out]].reset_index(drop=True)
