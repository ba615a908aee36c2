"""The device's health during points: the temperature the time-series views overlay, and the one sentence a
page shows when a run has none.

``health_note(manifest, health)``: why a run has no device temperature ('' when it has some) -- the sweep's
own sentence (``manifest["health"]["note"]``, written by :func:`helpers.run.smart.health_source`: "no
SMART/health data: /dev/vda is a virtual or software device (vda) without SMART."), else what the data
says (a run recorded before the lab read device health, captures that all failed, not re-ingested).  The
device card, the time-series pages and the explorer all show this sentence; nobody rewrites it.

``health_summary(manifest, health)``: the device card's line -- the tool, how many captures and the
temperature range against the warning temperature the device reports, with its source ("34–61 °C, warning at
80 °C (id-ctrl)"), or the sentence above.

``temperature_series(health, series)``: the captures with a temperature, placed on the time axis of the
time-series views (seconds since the end of the ramp: ``t_s`` minus the point's ``ramp_s``).
``temperature_at_gb(temps, write_series)``: the same captures placed on the sustained-write axis (GB
written when each was taken, interpolated between log windows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.cliff import gb_written, rate_rows

NO_MANIFEST = "no SMART/health data: no sweep manifest was found for this run."
BEFORE_HEALTH = "no SMART/health data: this run was recorded before the lab read the device's health."
NOT_INGESTED = ("no SMART/health data in the processed data: the run was ingested before the lab read health "
                "captures (ingest it again: make ingest RUN={run}).")
TEMPERATURE_COLUMNS = ["run_id", "point_id", "phase", "t_s", "time_s", "temperature_c", "warning_temp_c",
                       "threshold_source", "source"]


def health_note(manifest: dict | None, health: pd.DataFrame | None = None) -> str:
    """One sentence: why the run of ``manifest`` has no device temperature in ``health`` (its rows of the
    health dataset); '' when it has some.  Without ``health`` only the manifest is asked ('' when it names a
    source)."""
    if health is not None and len(health) and health["temperature_c"].notna().any():
        return ""
    if not manifest:
        return NO_MANIFEST
    h = manifest.get("health")
    if not isinstance(h, dict):
        return BEFORE_HEALTH
    if h.get("note"):
        return str(h["note"])
    if health is None:
        return ""
    if len(health):
        errors = health["error"].dropna()
        if len(errors):
            return f"no SMART/health data: every capture failed, e.g. {errors.iloc[0]}"
        return f"no SMART/health data: {h.get('source') or 'the health tool'} reported no temperature."
    return NOT_INGESTED.format(run=manifest.get("run_id") or "<RUN>")


def _against(manifest: dict | None, health: pd.DataFrame) -> str:
    """'warning at 80 °C (id-ctrl)': the threshold the device reports (the captures' own, else the run's
    reading), or why there is none."""
    rows = health[health["warning_temp_c"].notna()] if "warning_temp_c" in health.columns else health.iloc[:0]
    thr = ((manifest or {}).get("health") or {}).get("thresholds") or {}
    if len(rows):
        warn, src = rows["warning_temp_c"].iloc[0], rows.get("threshold_source", pd.Series([None])).iloc[0]
    elif thr.get("warning_temp_c") is not None:
        warn, src = thr["warning_temp_c"], thr.get("source")
    else:
        return "the device reports no warning temperature" if thr else "no warning temperature read"
    return f"warning at {float(warn):g} °C" + (f" ({src})" if isinstance(src, str) and src else "")


def health_summary(manifest: dict | None, health: pd.DataFrame | None = None) -> str:
    """The device card's health line: '<tool>: N captures over P points, 34–61 °C, warning at 80 °C (id-ctrl)'
    (the run's temperature range against the threshold the device reports, and where it came from), or the
    sentence of :func:`health_note` when there is no temperature."""
    note = health_note(manifest, health)
    if note:
        return note
    source = str((manifest or {}).get("health", {}).get("source") or "SMART/health")
    if health is None:
        return f"read with {source} before and after every point (and every 10 s during long points)"
    t = health["temperature_c"].dropna()
    return (f"{source}: {len(health):,} captures over {health['point_id'].nunique():,} points, "
            f"{t.min():g}–{t.max():g} °C, {_against(manifest, health)}")


def temperature_series(health: pd.DataFrame | None, series: pd.DataFrame | None = None) -> pd.DataFrame:
    """The captures with a temperature, one row each (columns :data:`TEMPERATURE_COLUMNS`), in time order per
    point; ``time_s`` = seconds since the end of the point's ramp (``ramp_s`` of ``series``, a point_series or
    timeseries frame; 0 when the point has no logs)."""
    if health is None or health.empty:
        return pd.DataFrame({c: pd.Series(dtype="float64" if c.endswith(("_s", "_c")) else "string")
                             for c in TEMPERATURE_COLUMNS})
    t = health[health["temperature_c"].notna()].copy()
    if "threshold_source" not in t.columns:  # health data ingested before the lab read thresholds
        t["threshold_source"] = pd.Series(pd.NA, index=t.index, dtype="string")
    ramp = pd.Series(dtype="float64")
    if series is not None and len(series) and "ramp_s" in series.columns:
        ramp = series.groupby(["run_id", "point_id"])["ramp_s"].first()
    keys = pd.MultiIndex.from_frame(t[["run_id", "point_id"]].astype(object))
    t["time_s"] = t["t_s"].astype(float) - ramp.reindex(keys).fillna(0.0).to_numpy(dtype=float)
    return t.sort_values(["run_id", "point_id", "t_s"], kind="stable")[TEMPERATURE_COLUMNS].reset_index(drop=True)


def temperature_at_gb(temps: pd.DataFrame, write_series: pd.DataFrame) -> np.ndarray:
    """GB written when each capture of ``temps`` (one point's :func:`temperature_series` rows) was taken:
    interpolated between the point's log windows (``write_series``: its write rows of a point_series frame),
    0 GB at the end of the ramp and before it, the total after the last window."""
    if temps.empty or write_series.empty:
        return np.zeros(len(temps))
    s = rate_rows(write_series)
    end = np.r_[0.0, s["window_end_s"].to_numpy(dtype=float)]
    gb = np.r_[0.0, gb_written(s).to_numpy(dtype=float)]
    return np.interp(temps["time_s"].to_numpy(dtype=float), end, gb)
