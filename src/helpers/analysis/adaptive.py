"""Adaptive queue-depth searches as the sweep recorded them (manifest ``adaptive``: per series the steps
measured, how long each drove the device and whether it ended early once settled, and why the search
stopped, see :mod:`helpers.run.adaptive`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from helpers.run.adaptive import PROBE_KINDS

STEP_COLUMNS = ["series", "step", "kind", "qd", "iops", "clat_mean_us", "runtime_s", "device_s", "settled_after_s",
                "on_plateau", "plateau_iops", "stop_reason"]


def adaptive_steps(manifest: dict[str, Any]) -> pd.DataFrame:
    """One row per measured step of every adaptive series (empty when the run made no adaptive search);
    ``stop_reason`` repeats the series' reason (or its error) on each of its rows.  ``runtime_s`` is the most
    the step could run, ``device_s`` the seconds it drove the device (ramp + the runtime it took) and
    ``settled_after_s`` when it ended early because its IOPS had settled (ramp included; empty: it ran its
    full runtime, or the run predates these records).  A ladder depth measured again (its probe read more than
    ``gain_pct`` below a shallower depth, :func:`helpers.run.adaptive.reprobe_due`) has a row per reading, kind
    ``reprobe`` after the first.  ``on_plateau`` marks the probes of the plateau the ladder
    ended on and ``plateau_iops`` repeats their median IOPS on each row of the series (the search's estimate of
    the plateau level; empty when it ended on none, or the run predates it)."""
    rows = []
    for series, info in ((manifest or {}).get("adaptive") or {}).items():
        reason = info.get("stop_reason", info.get("error"))
        plateau, level = set(info.get("plateau_qds") or ()), info.get("plateau_iops")
        for i, st in enumerate(info.get("steps") or [], start=1):
            rows.append({"series": series, "step": i, "kind": st.get("kind"), "qd": st.get("qd"),
                         "iops": st.get("iops"),
                         # the search records the IOPS-weighted mean COMPLETION latency (fio.reader.point_totals)
                         "clat_mean_us": st.get("lat_mean_us"), "runtime_s": st.get("runtime_s"),
                         "device_s": st.get("device_s"), "settled_after_s": st.get("settled_s"),
                         "on_plateau": st.get("kind") in PROBE_KINDS and st.get("qd") in plateau,
                         "plateau_iops": level, "stop_reason": reason})
        if not info.get("steps"):
            rows.append({"series": series, "step": None, "kind": None, "qd": None, "iops": None,
                         "clat_mean_us": None, "runtime_s": None, "device_s": None, "settled_after_s": None,
                         "on_plateau": None, "plateau_iops": None, "stop_reason": reason})
    return pd.DataFrame(rows, columns=STEP_COLUMNS)
