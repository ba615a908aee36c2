"""``mode: replay`` through the sweep: a profile naming a trace -> the fio iolog the lab writes -> fio replays it
(``read_iolog``) on the target, then the clone job (the trace's characterization as fio options) runs on the
same target; both are points like any other (raw JSON in data/raw/<RUN>/, ingested as usual) with per-I/O logs
(``write_lat_log`` without averaging, ``log_offset=1``: completion ms, latency, direction, size, offset) that the
Workload page compares with the trace (lag, latency per I/O, the fidelity table).

The run layer does not parse traces: the caller passes a reader (``helpers.ingest.traces.read_trace``'s I/Os), as
:func:`helpers.report.pipeline` and the sweep notebook do.  A trace that cannot be replayed on the target is
refused in one sentence before any I/O (:class:`helpers.run.replay.ReplayRefused`).  Inputs the lab wrote are
kept beside the raw results in ``<RUN>/.replay/``: a verbatim copy of the trace, the iolog and the clone job.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.errors import LabError
from helpers.run import replay
from helpers.run.manifest import text_sha256
from helpers.run.profiles import Point, Profile
from helpers.run.runner import log_dir_of

REPLAY_DIR = ".replay"  # hidden: the ingest never takes the lab's inputs for results
LOG_HIST_MSEC = 1000
STALL_CAP_S = 5.0  # a replay's runtime cap: 1.5 x the trace's (scaled) duration and this (fio ends at its
# iolog's end; a replay cut short says how many of the trace's I/Os it issued)


@dataclass
class Prepared:
    """A replay run's inputs, made before any I/O: the trace's I/Os, the iolog text and how offsets were fitted,
    the clone job."""

    trace: Path
    ios: pd.DataFrame
    iolog: str
    note: str
    clone_job: str
    character: dict


def trace_path(s: replay.ReplaySettings) -> Path:
    """The profile's trace: absolute, relative to the current folder, else to the project."""
    p = Path(s.trace).expanduser()
    return p if p.is_absolute() or p.exists() else config.ROOT / p


def _rw(ios: pd.DataFrame) -> str:
    ops = set(ios["op"])
    return "randrw" if {"read", "write"} <= ops else "randwrite" if "write" in ops else "randread"


def resolve(profile: Profile, reader: Callable[[Path], pd.DataFrame] | None, run_dir: Path) -> Profile:
    """The replay profile with its points (the replay, and the clone unless ``clone: false``) from the trace,
    read by ``reader``; a missing trace or reader is one sentence."""
    s = profile.replay
    path = trace_path(s)
    if reader is None:
        raise LabError("a replay profile needs the lab's trace reader: run it with make sweep PROFILE=... "
                       "(helpers.report.pipeline) or the sweep notebook.")
    if not path.is_file():
        raise LabError(f"profile {profile.name}: the trace {s.trace} does not exist ({path}).")
    ios = reader(path)
    ios = ios[ios["op"].isin(["read", "write"])].sort_values("seq", ignore_index=True)
    if ios.empty:
        raise LabError(f"profile {profile.name}: the trace {path} has no reads or writes to replay.")
    size = int(ios["size_bytes"].mode().iloc[0])
    depth = replay.queue_depth(ios) or 1
    span = float(ios["t_s"].max() - ios["t_s"].min()) if ios["t_s"].notna().all() else 0.0
    scaled = 0.0 if s.no_stall else span * 100 / s.time_scale_pct
    rw = _rw(ios)
    # fio takes each I/O's direction from the iolog; rwmixread names the trace's read share in the results (fio's
    # JSON would otherwise carry its default 50 % and the pages would label the replay "50% read")
    mix = round(float(character(ios)["read_pct"])) if rw == "randrw" else None
    base = Point(group="replay", rw=rw, rwmixread=mix, bs_bytes=size, iodepth=depth, ioengine=s.ioengine,
                 runtime_s=float(math.ceil(1.5 * scaled + STALL_CAP_S)), ramp_s=0.0, log_avg_msec=0,
                 log_hist_msec=LOG_HIST_MSEC)
    extra = [("read_iolog", str(run_dir / REPLAY_DIR / "replay.iolog"))]
    if s.time_scale_pct != 100:
        extra.append(("replay_time_scale", str(s.time_scale_pct)))
    if s.no_stall:
        extra.append(("replay_no_stall", "1"))
    points = [replace(base, fio_extra=tuple(extra + _io_log(run_dir, base)))]
    if s.clone:
        points.append(_clone_point(base, ios, s, run_dir, max(1.0, math.ceil(span)) if not s.clone_runtime_s
                                   else s.clone_runtime_s))
    return replace(profile, points=tuple(points))


def _io_log(run_dir: Path, p: Point) -> list[tuple[str, str]]:
    """Per-I/O logs (no log_avg_msec): lat, clat, slat lines with the offset of every I/O."""
    return [("write_lat_log", str(log_dir_of(run_dir, p.point_id) / p.point_id)), ("log_offset", "1")]


def character(ios: pd.DataFrame) -> dict:
    """What the clone needs of the trace's characterization (analysis.workload.summary's keys; the run layer
    computes them itself: mix, rate, per-direction sequential share, zones over the trace's span)."""
    rw = ios["op"].isin(["read", "write"])
    span = float(ios["t_s"].max() - ios["t_s"].min()) if ios["t_s"].notna().all() else float("nan")
    end = (ios["offset_bytes"] + ios["size_bytes"]).groupby(ios["op"]).shift()
    seq = float(100 * (ios["offset_bytes"] == end).mean())
    gaps = ios["t_s"].sort_values().diff().dropna().to_numpy()
    cv = float(gaps.std() / gaps.mean()) if len(gaps) > 1 and gaps.mean() > 0 else float("nan")
    return {"read_pct": float(100 * (ios["op"] == "read").sum() / max(1, int(rw.sum()))),
            "iops": (len(ios) - 1) / span if span and span > 0 else float("nan"),
            "sequential_per_op_pct": seq, "zoned": zoned(ios), "interarrival_cv": cv}


def zoned(ios: pd.DataFrame, n: int = 10) -> str:
    """fio's random_distribution=zoned over ``n`` equal ranges of the trace's span (:func:`replay.zoned_from_counts`)."""
    top = int((ios["offset_bytes"] + ios["size_bytes"]).max())
    edges = [i * top / n for i in range(n + 1)]
    return replay.zoned_from_counts(pd.cut(ios["offset_bytes"], edges, right=False, include_lowest=True)
                                    .value_counts(sort=False).to_numpy())


def _clone_point(base: Point, ios: pd.DataFrame, s: replay.ReplaySettings, run_dir: Path, runtime_s: float) -> Point:
    opts = replay.clone_options(ios, character(ios))
    p = replace(base, group="clone", runtime_s=float(runtime_s), bssplit=opts.pop("bssplit"),
                rwmixread=int(opts.pop("rwmixread")) if "rwmixread" in opts else None,
                random_distribution=opts.pop("random_distribution"))
    return replace(p, fio_extra=tuple(opts.items()) + tuple(_io_log(run_dir, p)))


def check(profile: Profile, target, reader: Callable[[Path], pd.DataFrame]) -> Prepared:
    """Everything before any I/O: the iolog on ``target`` (offsets fitted or the trace refused in one sentence:
    beyond the target with fit: refuse, writes on a read-only target) and the clone job's text."""
    s = profile.replay
    path = trace_path(s)
    ios = reader(path)
    ios = ios[ios["op"].isin(["read", "write"])].sort_values("seq", ignore_index=True)
    writable = bool(getattr(target, "writes", True)) and (not Path(target.path).exists()
                                                          or os.access(target.path, os.W_OK))
    plan = replay.plan(ios, Path(target.path), target.size_bytes, s.fit, writable)
    clone = next((p for p in profile.points if p.group == "clone"), None)
    job = replay.clone_job(ios, character(ios), Path(target.path), target.size_bytes, clone.runtime_s,
                           ioengine=s.ioengine) if clone else ""
    return Prepared(path, ios, plan.iolog, plan.note, job, character(ios))


def run(ctx, prepared: Prepared) -> None:
    """Write the inputs to ``<RUN>/.replay/``, then run the replay point and the clone point (each recorded in
    the manifest like any point, with what it is in ``replay``)."""
    plan, manifest = ctx.plan, ctx.manifest
    folder = plan.run_dir / REPLAY_DIR
    folder.mkdir(exist_ok=True)
    copy = folder / prepared.trace.name
    if not copy.exists():
        shutil.copyfile(prepared.trace, copy)
    (folder / "replay.iolog").write_text(prepared.iolog)
    if prepared.clone_job:
        (folder / "clone.fio").write_text(prepared.clone_job)
    s = plan.profile.replay
    manifest["replay"] = {"trace": str(prepared.trace), "trace_copy": f"{REPLAY_DIR}/{copy.name}",
                          "trace_sha256": text_sha256(copy.read_bytes().decode("utf-8", "replace")),
                          "ios": len(prepared.ios), "fit": s.fit, "fit_note": prepared.note,
                          "time_scale_pct": s.time_scale_pct, "no_stall": s.no_stall, "ioengine": s.ioengine,
                          "iolog": f"{REPLAY_DIR}/replay.iolog",
                          "clone_job": f"{REPLAY_DIR}/clone.fio" if prepared.clone_job else None,
                          "points": {p.group: p.point_id for p in plan.profile.points}}
    for p in plan.profile.points:
        ctx.run_point(p, {"replay": {"role": p.group}})
