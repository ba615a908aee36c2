"""Adaptive queue-depth searches as the sweep recorded them (manifest ``adaptive``: per series the steps
measured, how long each drove the device and whether it ended early once settled, and why the search
stopped, see :mod:`helpers.run.adaptive`)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import yaml

from helpers.analysis.points import operation_label
from helpers.errors import LabError
from helpers.fio.units import format_bytes
from helpers.run.adaptive import PROBE_KINDS, device_seconds
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
                   "plateau_low_iops", "plateau_high_iops", "plateau_from_qd", "target_state", "seeded_from",
                   "seed_start_qd"]


def search_plateaus(manifest: dict[str, Any]) -> pd.DataFrame:
    """One row per searched QD series of a run (adaptive or characterize mode): its workload (``rw``, ``bs_bytes``,
    ``rwmixread_pct``, ``numjobs``), the depths it measured (``measured_qds``), the deepest ladder depth
    (``last_qd``), the ladder's largest (``max_qd``: the series' record, for older runs the profile's; the deepest power
    of two when unknown), the
    plateau level it stopped on (``plateau_iops``: the median of its plateau probes, NaN when it ended on none)
    with the range of those probes (``plateau_low_iops``, ``plateau_high_iops``), and the shallowest depth of those
    probes (``plateau_from_qd``; a depth between it and ``last_qd`` the ladder did
    not measure was jumped over by its plateau check, :func:`helpers.run.adaptive.check_due`), and the state of the
    target it measured (``target_state``, characterize runs); a seeded search
    (:class:`helpers.run.adaptive.Seed`) names the series that seeded it (``seeded_from``: "randread 4k") and the depth
    its ladder jumped to from QD 1 (``seed_start_qd``), both empty when it was not seeded.  The points come from the
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
        if info.get("kind") not in ("confirm", "demand"):  # a demand probe runs more jobs (helpers.run.demand)
            row["measured_qds"].add(int(p.get("iodepth", 0)))
    profile_max = None if all(s.get("max_qd") for s in series.values()) else _profile_max_qd(m)
    out = []
    for sid, row in rows.items():
        ladder = [s["qd"] for s in series[sid].get("steps") or [] if s.get("kind") == "ladder"]
        last = max(ladder) if ladder else max(row["measured_qds"])
        level = series[sid].get("plateau_iops")
        max_qd = series[sid].get("max_qd") or profile_max
        seed = series[sid].get("seed") or {}
        by = rows.get(seed.get("seeded_from"))
        on = set(series[sid].get("plateau_qds") or ())
        probes = [float(s["iops"]) for s in series[sid].get("steps") or []
                  if s.get("kind") in PROBE_KINDS and s.get("qd") in on and s.get("iops") is not None]
        out.append({**row, "measured_qds": sorted(row["measured_qds"]), "last_qd": last,
                    "max_qd": max_qd or 1 << (int(last).bit_length() - 1),
                    "plateau_iops": float("nan") if level is None else float(level),
                    "plateau_low_iops": min(probes) if probes and level is not None else float("nan"),
                    "plateau_high_iops": max(probes) if probes and level is not None else float("nan"),
                    "plateau_from_qd": min(series[sid].get("plateau_qds") or [0]) or None,
                    "seeded_from": None if not seed else _series_label(by) if by else seed["seeded_from"],
                    "seed_start_qd": seed.get("start_qd")})
    return pd.DataFrame(out, columns=PLATEAU_COLUMNS)


def _series_label(row: dict) -> str:
    """A searched series in words: ``randread 4k``, ``randrw 70% read 16k``."""
    mix = row.get("rwmixread_pct")
    return f"{operation_label(row['rw'], float('nan') if mix is None else mix)} {format_bytes(row['bs_bytes'])}"


def _profile_max_qd(manifest: dict[str, Any]) -> int | None:
    """The ladder's largest depth from the run's profile (its YAML in the manifest, read by the one profile
    parser) for runs whose series summaries predate recording it; None when it cannot be read."""
    try:
        prof = parse_profile(yaml.safe_load(manifest.get("profile_yaml") or ""), "run profile")
    except (LabError, yaml.YAMLError, AttributeError, TypeError, ValueError):
        return None
    return prof.adaptive.max_qd if prof.adaptive else None


SEARCH_COLUMNS = ["series", "phase", "target_state", "probes", "measured_qds", "seeded", "plateau_iops",
                  "peak_iops", "peak_qd", "stop_reason", "device_s"]


def search_steps(manifests: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """:func:`adaptive_steps` of every run, with ``run_id`` and the series in words (``label``: "randread 4k", the
    run id in front when several runs are shown)."""
    frames = []
    for run_id, m in (manifests or {}).items():
        steps = adaptive_steps(m)
        if steps.empty:
            continue
        labels = _labels(m)
        prefix = f"{run_id}: " if len(manifests) > 1 else ""
        frames.append(steps.assign(run_id=run_id, label=[prefix + labels.get(s, s) for s in steps["series"]]))
    cols = ["run_id", "label", *STEP_COLUMNS]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def search_table(manifests: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per searched QD series of every run (adaptive or characterize mode), in the order searched (``series``:
    "randread 4k", the run id in front when several runs are shown): its
    characterize phase and the state of the target it measured (empty in adaptive mode), its probes and the depths
    they measured, how its ladder started (``seeded``: "QD 1, then from QD 8 (seeded by randread 4k, plateau from
    QD 16; QD 2, 4 skipped)", or "QD 1, 2, 4, ... (not seeded)"), its plateau level (median of its plateau probes),
    its best probe, why it stopped and the seconds it drove the device.  Every number is one of the series' own
    probes or their median: a seed only chose depths."""
    rows = []
    for run_id, m in (manifests or {}).items():
        labels = _labels(m)
        prefix = f"{run_id}: " if len(manifests) > 1 else ""
        for sid, info in ((m or {}).get("adaptive") or {}).items():
            steps = info.get("steps") or []
            ch = info.get("characterize") or {}
            seed = info.get("seed")
            qds = sorted({s["qd"] for s in steps if s.get("kind") != "confirm"})
            if seed:
                how = (f"QD 1, then from QD {seed['start_qd']} (seeded by {labels.get(seed['seeded_from'], seed['seeded_from'])}"
                       f", plateau from QD {seed['expected_plateau_qd']}; QD "
                       f"{', '.join(map(str, seed['skipped_qds']))} skipped)")
            else:
                first = [s["qd"] for s in steps if s.get("kind") == "ladder"][:3]
                how = f"QD {', '.join(map(str, first))}, ... (not seeded)" if steps else ""
            rows.append({"series": prefix + labels.get(sid, sid), "phase": ch.get("phase"),
                         "target_state": ch.get("target_state"), "probes": len(steps), "measured_qds": qds,
                         "seeded": how, "plateau_iops": info.get("plateau_iops"), "peak_iops": info.get("peak_iops"),
                         "peak_qd": info.get("peak_qd"), "stop_reason": info.get("stop_reason", info.get("error")),
                         "device_s": info.get("device_s")})
    return pd.DataFrame(rows, columns=SEARCH_COLUMNS)


PHASE_COLUMNS = ["run_id", "phase", "target_state", "series_searched", "points_listed", "device_s"]


def characterize_phase_table(manifests: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per phase of every characterize run, in run order (reads on the fresh target, the sustained write,
    writes and mixes on the preconditioned target: manifest ``characterize``): the state of the target, the series
    it searched and the points it ran as listed, and the seconds it drove the device.  Empty for other runs."""
    rows = []
    for run_id, m in (manifests or {}).items():
        phases = ((m or {}).get("characterize") or {}).get("phases") or {}
        points = (m or {}).get("points") or {}
        series = (m or {}).get("adaptive") or {}
        for phase in phases:
            entries = [e for e in points.values() if (e.get("characterize") or {}).get("phase") == phase]
            state = next((e["characterize"].get("target_state") for e in entries), None)
            searched = [s for s, v in series.items() if (v.get("characterize") or {}).get("phase") == phase]
            listed = [e for e in entries if not e.get("adaptive")]
            rows.append({"run_id": run_id, "phase": phase, "target_state": state,
                         "series_searched": len(searched), "points_listed": len(listed),
                         "device_s": round(device_seconds({i: e for i, e in enumerate(entries)}), 2)})
    return pd.DataFrame(rows, columns=PHASE_COLUMNS)


def _labels(manifest: dict[str, Any]) -> dict[str, str]:
    """Series id -> "randread 4k" (from the series' first point entry; the id itself when it has none)."""
    out: dict[str, str] = {}
    for entry in ((manifest or {}).get("points") or {}).values():
        sid = (entry.get("adaptive") or {}).get("series")
        if sid and sid not in out:
            p = entry.get("parameters") or {}
            out[sid] = _series_label({"rw": p.get("rw"), "bs_bytes": p.get("bs_bytes"),
                                      "rwmixread_pct": p.get("rwmixread")})
    return out
