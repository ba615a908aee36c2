"""One point: its JSON facts and options, its logs parsed per job, its row sets."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from helpers.fio import logs as fio_logs
from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes, split_runs
from helpers.ingest.timeseries.reconcile import _final_windows, _reconcile
from helpers.ingest.timeseries.windows import _NUMERIC, PER_IO_WINDOW_MS, _hist_sets, _per_io_sets

EPOCH_MS_MIN = 10**11  # time stamps above this (1973 in Unix ms, 3 years in point time) are log_unix_epoch
_TIME_RE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(us|ms|s|m|h|d)?\s*$", re.IGNORECASE)
_TIME_UNIT_S = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def _seconds(v) -> float:
    """fio time option ('1', '0.5s', '500ms', '2m') -> seconds; 0 when absent or unreadable."""
    m = _TIME_RE.match(str(v)) if v is not None else None
    return float(m.group(1)) * _TIME_UNIT_S[(m.group(2) or "").lower() or None] if m else 0.0


def _int_opt(v) -> int:
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return 0


def _truthy(v) -> bool:
    return str(v).strip().lower() in ("1", "true", "yes", "on", "")


# --- one point ---------------------------------------------------------------------------------------

def _point_info(json_path: Path, parsed_json: dict | None = None) -> dict | None:
    """Job names, options, fio version and per-entry totals of a raw JSON (None when not a usable result)."""
    try:
        runs = split_runs((parsed_json or {}).get(json_path) or parse_fio_bytes(json_path.read_bytes()))
        objs = runs[-1]  # fio rewrites its logs on every run: they belong to the file's last run
        jobs = [j for j in final_jobs(objs) if isinstance(j, dict)]
    except (OSError, FioParseError):
        return None
    if not jobs or all(j.get("error", 0) not in (0, None) for j in jobs):
        return None
    obj = objs[-1]  # (objs: the file's last fio run, which wrote the logs)
    g = obj.get("global options")
    g = g[0] if isinstance(g, list) and len(g) == 1 else g
    opts = {**(g if isinstance(g, dict) else {}), **(jobs[0].get("job options") or {})}
    version = str(obj.get("fio version", ""))
    m = re.search(r"(\d+)\.", version)
    major = int(m.group(1)) if m else 3
    totals = []  # per entry: {direction code: (io bytes, I/Os or nan, runtime ms)}
    for j in jobs:
        t = {}
        for code, name in enumerate(("read", "write", "trim")):
            d = j.get(name)
            if not isinstance(d, dict):
                continue
            b = d.get("io_bytes", d.get("io_kbytes", 0) * 1024 if "io_kbytes" in d else None)
            if isinstance(b, (int, float)) and b > 0 and isinstance(d.get("runtime"), (int, float)):
                ios = d.get("total_ios")
                t[code] = (float(b), float(ios) if isinstance(ios, (int, float)) else np.nan, float(d["runtime"]))
        totals.append(t)
    return {"jobs": [str(j.get("jobname", "")) for j in jobs], "options": opts, "lat_unit_ns": major >= 3,
            "totals": totals, "run_index": len(runs) - 1}


def _averaged_items(prep: dict) -> list[tuple[dict, int, float]]:
    """The jobs of a prepared point whose value logs are averaged (for :func:`_averaged_batch`), in job order."""
    if prep["avg_ms"] <= 0:
        return []
    return [({k: v for k, v in logs.items() if k != "clat_hist"}, prep["avg_ms"], prep["lat_factor"])
            for _, logs in sorted(prep["parsed"].items())]


def _point_logs(json_path: Path, log_files: list[Path], parsed_values: dict[Path, object] | None = None,
                parsed_json: dict | None = None) -> dict | None:
    """A point's JSON facts and its logs parsed per job, time stamps made relative (None: not a usable result)."""
    info = _point_info(Path(json_path), parsed_json)
    if info is None:
        return None
    opts = info["options"]
    avg_ms = _int_opt(opts.get("log_avg_msec", 0))
    hist_ms = _int_opt(opts.get("log_hist_msec", 0))
    max_values = _truthy(opts["log_max_value"]) if "log_max_value" in opts else False
    lat_factor = 1e-3 if info["lat_unit_ns"] else 1.0
    parsed: dict[int, dict[str, object]] = defaultdict(dict)
    for f in log_files:
        name = fio_logs.parse_log_name(os.path.basename(f))
        if name is None or name.kind == "lat_hist" or (max_values and name.kind in ("lat", "clat", "slat")):
            continue  # log_max_value: the window's maximum, not its mean: not a mean latency
        if name.kind == "clat_hist":
            try:
                log = fio_logs.read_hist_log(fio_logs.read_text(f), info["lat_unit_ns"])
            except (OSError, ValueError, EOFError):
                continue
        else:
            log = parsed_values.get(f) if parsed_values is not None else None
            if log is None:
                log = fio_logs.read_value_logs([f])[0]
            if isinstance(log, Exception):
                continue  # an unreadable log is left out; the point's other logs still count
        parsed[name.job][name.kind] = log
    # log_unix_epoch=1 (e.g. several stonewalled jobs writing one log stream): Unix ms time stamps, made
    # relative to the point's first window here
    times = [log.time_ms if isinstance(log, fio_logs.HistLog) else log["time_ms"]
             for logs_ in parsed.values() for log in logs_.values()]
    firsts = [int(t.min()) for t in times if len(t)]
    epoch = bool(firsts) and min(firsts) > EPOCH_MS_MIN
    step_v = avg_ms if avg_ms > 0 else PER_IO_WINDOW_MS
    step_h = hist_ms if hist_ms > 0 else PER_IO_WINDOW_MS
    shift = min(firsts) - min(step_v, step_h) if epoch else 0
    for logs in parsed.values():
        if shift:
            for log in logs.values():
                if isinstance(log, fio_logs.HistLog):
                    log.time_ms = log.time_ms - shift
                else:
                    log["time_ms"] = log["time_ms"] - shift
    return {"info": info, "opts": opts, "avg_ms": avg_ms, "hist_ms": hist_ms, "lat_factor": lat_factor,
            "parsed": parsed, "epoch": epoch, "shift": shift}


def _point_segments(prep: dict, averaged: list[list[dict]]) -> list[dict] | None:
    """A prepared point's row sets; ``averaged``: :func:`_averaged_batch` of its :func:`_averaged_items`."""
    info, opts, avg_ms, hist_ms = prep["info"], prep["opts"], prep["avg_ms"], prep["hist_ms"]
    parsed, epoch, shift, lat_factor = prep["parsed"], prep["epoch"], prep["shift"], prep["lat_factor"]
    jobs = info["jobs"]
    job_entry = {job: min(job - 1, len(jobs) - 1) for job in parsed}  # group_reporting: one entry for all clones
    sets_by_job: dict[int, list[dict]] = {}
    for n, (job, logs) in enumerate(sorted(parsed.items())):
        values = {k: v for k, v in logs.items() if k != "clat_hist"}
        ends = {d: r for d, (_, _, r) in info["totals"][job_entry[job]].items()} if not epoch else {}
        sets = averaged[n] if avg_ms > 0 else _per_io_sets(values, lat_factor, ends)
        if "clat_hist" in logs and len(logs["clat_hist"]):
            sets += _hist_sets(logs["clat_hist"], hist_ms)
        for s in sets:
            s.setdefault("end", s["t"].astype(np.float64))
        sets_by_job[job] = sets
    if avg_ms > 0:
        _reconcile(sets_by_job, job_entry, info["totals"], epoch, not _truthy(opts.get("per_job_logs", 1)))
    if avg_ms > 0 and not epoch:
        _final_windows(sets_by_job, job_entry, info["totals"],
                       {job: [k for k in ("iops", "bw") if k in logs] for job, logs in parsed.items()}, avg_ms)
    segments = []  # one per row set: scalars of its rows and the arrays it has (the rest NaN when assembled)
    ramp = _seconds(opts.get("ramp_time"))
    for job, sets in sets_by_job.items():
        for s in sets:
            if not len(s["t"]):
                continue
            seg = {c: s[c] for c in _NUMERIC if c in s}
            seg.update({"point_id": jobs[job_entry[job]], "job_index": job_entry[job],
                        "run_index": info["run_index"], "log_job": job,
                        "log": ",".join(s["log"]), "direction": s["dir"], "interval_ms": s["interval"], "ramp_s": ramp,
                        "t_ms": s["t"].astype(np.int64) + shift, "start_ms": np.maximum(s["start"], 0.0),
                        "end_ms": s["end"], "from_json": s.get("from_json")})
            segments.append(seg)
    return segments or None


