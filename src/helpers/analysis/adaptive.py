"""Adaptive queue-depth searches as the sweep recorded them (manifest ``adaptive``: per series the steps
measured and why the search stopped, see :mod:`helpers.run.adaptive`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

STEP_COLUMNS = ["series", "step", "kind", "qd", "iops", "clat_mean_us", "stop_reason"]


def adaptive_steps(manifest: dict[str, Any]) -> pd.DataFrame:
    """One row per measured step of every adaptive series (empty when the run made no adaptive search);
    ``stop_reason`` repeats the series' reason (or its error) on each of its rows."""
    rows = []
    for series, info in ((manifest or {}).get("adaptive") or {}).items():
        reason = info.get("stop_reason", info.get("error"))
        for i, st in enumerate(info.get("steps") or [], start=1):
            rows.append({"series": series, "step": i, "kind": st.get("kind"), "qd": st.get("qd"),
                         "iops": st.get("iops"),
                         # the search records the IOPS-weighted mean COMPLETION latency (fio.reader.point_totals)
                         "clat_mean_us": st.get("lat_mean_us"), "stop_reason": reason})
        if not info.get("steps"):
            rows.append({"series": series, "step": None, "kind": None, "qd": None, "iops": None,
                         "clat_mean_us": None, "stop_reason": reason})
    return pd.DataFrame(rows, columns=STEP_COLUMNS)
