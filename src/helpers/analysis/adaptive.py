"""Adaptive queue-depth searches as the sweep recorded them (manifest ``adaptive``: per series the steps
measured, how long each drove the device and whether it ended early once settled, and why the search
stopped, see :mod:`helpers.run.adaptive`)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import yaml

from helpers.errors import LabError
from helpers.run.adaptive import PROBE_KINDS
from helpers.run.profiles import parse_profile

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


PLATEAU_COLUMNS = ["rw", "bs_bytes", "rwmixread_pct", "numjobs", "measured_qds", "last_qd", "max_qd", "plateau_iops",
                   "target_state"]


def search_plateaus(manifest: dict[str, Any]) -> pd.DataFrame:
    """One row per searched QD series of a run (adaptive or characterize mode): its workload (``rw``, ``bs_bytes``,
    ``rwmixread_pct``, ``numjobs``), the depths it measured (``measured_qds``), the deepest ladder depth
    (``last_qd``), the ladder's largest (``max_qd``: the series' record, for older runs the profile's; the deepest power
    of two when unknown), the
    plateau level it stopped on (``plateau_iops``: the median of its plateau probes, NaN when it ended on none)
    and the state of the target it measured (``target_state``, characterize runs).  The points come from the
    manifest's point entries (their ``adaptive.series``); empty when the run searched nothing."""
    m = manifest or {}
    series = m.get("adaptive") or {}
    rows: dict[str, dict] = {}
    for entry in (m.get("points") or {}).values():
        info = entry.get("adaptive") or {}
        sid = info.get("series")
        if sid not in series or entry.get("status") != "ok":
            continue
        p = entry.get("parameters") or {}
        row = rows.setdefault(sid, {"rw": p.get("rw"), "bs_bytes": p.get("bs_bytes"), "rwmixread_pct": p.get(
            "rwmixread"), "numjobs": p.get("numjobs", 1), "measured_qds": set(), "target_state": (
                entry.get("characterize") or {}).get("target_state")})
        if info.get("kind") != "confirm":
            row["measured_qds"].add(int(p.get("iodepth", 0)))
    profile_max = None if all(s.get("max_qd") for s in series.values()) else _profile_max_qd(m)
    out = []
    for sid, row in rows.items():
        ladder = [s["qd"] for s in series[sid].get("steps") or [] if s.get("kind") == "ladder"]
        last = max(ladder) if ladder else max(row["measured_qds"])
        level = series[sid].get("plateau_iops")
        max_qd = series[sid].get("max_qd") or profile_max
        out.append({**row, "measured_qds": sorted(row["measured_qds"]), "last_qd": last,
                    "max_qd": max_qd or 1 << (int(last).bit_length() - 1),
                    "plateau_iops": float("nan") if level is None else float(level)})
    return pd.DataFrame(out, columns=PLATEAU_COLUMNS)


def _profile_max_qd(manifest: dict[str, Any]) -> int | None:
    """The ladder's largest depth from the run's profile (its YAML in the manifest, read by the one profile
    parser) for runs whose series summaries predate recording it; None when it cannot be read."""
    try:
        prof = parse_profile(yaml.safe_load(manifest.get("profile_yaml") or ""), "run profile")
    except (LabError, yaml.YAMLError, AttributeError, TypeError, ValueError):
        return None
    return prof.adaptive.max_qd if prof.adaptive else None
