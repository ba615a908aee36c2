"""Sweep orchestration: profile -> preflight -> prefill -> one fio process per point -> data/raw/<RUN>/.

Command line (used by ``make sweep`` for its one-sentence preflight)::

    python -m helpers.run.sweep --target data/scratch/fio-target.bin --profile quick --check-only
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from helpers import config
from helpers.errors import LabError
from helpers.fio.binary import find_fio, fio_version
from helpers.fio.units import parse_size
from helpers.run import adaptive as adaptive_mod
from helpers.run import burst as burst_mod
from helpers.run import demand, replay_sweep, slo_search, smart
from helpers.run import options as sweep_opts
from helpers.run import pts as pts_mod
from helpers.run.hosts import check_hosts, client_entries, parse_hosts
from helpers.run.lock import SweepLocks
from helpers.run.manifest import (
    check_run_id,
    check_same_plan,
    default_run_id,
    now_iso,
    read_manifest,
    text_sha256,
    write_json_atomic,
    write_manifest,
)
from helpers.run.profiles import Point, Profile, load_profile, qd_ladder
from helpers.run.runner import (
    FioInterrupted,
    client_argv,
    describe_point,
    job_file_text,
    log_dir_of,
    point_argv,
    prefill_argv,
    prefill_options,
    run_fio,
    run_point,
)
from helpers.run.smart import HEALTH_SUFFIX, PointHealth, health_source
from helpers.run.steady_state import pts_steady_state
from helpers.run.system import describe_host, describe_target
from helpers.run.target import Target, prepare_target, read_sidecar, small_target_warning, write_sidecar

PROGRESS_NAME = ".sweep.progress"  # JSON in the run folder: what the sweep is doing now (read by the pipeline)
# Set by helpers.report.pipeline for the kernels it starts: the terminal shows the live progress bar, so
# the executed notebook shows only the final count (a widget bar would be saved at its first state, 0/N).
TERMINAL_PROGRESS_ENV = "SSDLAB_TERMINAL_PROGRESS"


class SweepInterrupted(LabError):
    """Ctrl-C (or SIGTERM) stopped the sweep; the message says how to resume."""


@dataclass
class SweepPlan:
    run_id: str
    profile: Profile
    target: Target
    fio: str
    run_dir: Path
    hosts: list[str] = field(default_factory=list)
    dry_run: bool = False
    runtime_s: float | None = None  # the RUNTIME override (None: the profile's runtimes)
    fio_version: str = ""
    warnings: list[str] = field(default_factory=list)  # printed before the sweep, kept in the manifest
    values: dict[str, Any] = field(default_factory=dict)  # the options as given (for the resume command)
    replay: replay_sweep.Prepared | None = None  # mode replay: the iolog and clone job, made before any I/O

    @property
    def pin(self) -> dict[str, Any]:
        """What the run id is bound to (manifest["plan"]): resuming with anything else is refused."""
        if not self.fio_version:
            self.fio_version = fio_version(self.fio)
        return {"target": str(self.target.path), "size_bytes": self.target.size_bytes, "profile": self.profile.name,
                "profile_sha256": text_sha256(self.profile.source), "runtime_s": self.runtime_s,
                "hosts": list(self.hosts), "fio_version": self.fio_version}

    def resume_command(self, stage: str = "sweep") -> str:
        """``make sweep RUN=... TARGET=... PROFILE=... SIZE=... RUNTIME=...`` (every option it was given)."""
        return sweep_opts.make_command(stage, {**self.values, "run_id": self.run_id, "target": str(self.target.path)})

    @property
    def read_only(self) -> bool:
        """No point writes and no preconditioning: fio runs with --readonly."""
        return not self.profile.writes and self.profile.precondition is None

    @property
    def estimate(self) -> str:
        sized = self.profile.precondition or any(p.volume is not None for p in self.profile.points)
        return self.profile.estimate_text(self.target.size_bytes if sized else None)

    def announcement(self) -> str:
        p = self.profile
        hosts = f" on {len(self.hosts)} hosts ({', '.join(self.hosts)})" if self.hosts else ""
        mode = "" if p.mode == "grid" else f" ({p.mode} mode, {len(p.points)} series)"
        if p.mode == "characterize":
            n = len(p.points) - len(p.series)
            mode = (f" (characterize mode: {len(p.series)} QD series searched, {n} point{'' if n == 1 else 's'} as "
                    "listed; reads, then the sustained write, then writes and mixes on the preconditioned target)")
        if p.mode == "pts" and p.pts:
            mode = (f" per round (pts mode: {', '.join(p.pts.test_names)}, {p.pts.pts_class} class "
                    f"{p.pts.jobs} jobs x QD{p.pts.qd}, ActiveRange {p.pts.active_range:g} %)")
        if p.mode == "replay" and p.replay:
            mode = f" (replay mode: {Path(p.replay.trace).name} replayed{', then its clone' if len(p.points) > 1 else ''})"
        note = f"; {self.target.note}" if self.target.note else ""
        return (f"profile {p.name}: {len(p.points)} points{mode}, {self.estimate}, target {self.target.path}"
                f"{hosts}{note}")


def plan_sweep(target: str | Path | None = config.DEFAULT_TARGET, profile: str | Path | None = config.DEFAULT_PROFILE,
               run_id: str | None = None, runtime_s: float | None = None, size: str | int | None = config.DEFAULT_SIZE,
               raw_dir: str | Path | None = config.RAW_DIR, *, hosts: str | list[str] | None = None,
               dry_run: bool = False, allow_existing: str | None = None, destroy_device: str | None = None,
               ignore_signature: str | None = None, read_only_ack: str | None = None,
               check_hosts_now: bool = True, trace_reader=None) -> SweepPlan:
    """Every check that can fail before any I/O: fio present, profile valid, target safe, space free,
    hosts reachable, target not locked by another sweep, run id not bound to other settings.  Nothing
    is written in a dry run (not even the scratch folder).

    The keywords are the options of :data:`helpers.run.options.SWEEP_OPTIONS` (plus ``check_hosts_now``);
    empty values ("" / 0 / None, as notebooks and the Makefile pass them) mean the lab's default.
    ``trace_reader``: path -> a trace's I/Os (helpers.ingest.traces), for replay profiles."""
    values = {"target": str(target or ""), "profile": str(profile or ""), "run_id": run_id or "",
              "runtime_s": float(runtime_s or 0), "size": str(size or ""), "hosts": hosts or "",
              "allow_existing": allow_existing or "", "destroy_device": destroy_device or "",
              "ignore_signature": ignore_signature or "", "read_only_ack": read_only_ack or ""}
    if isinstance(values["hosts"], list):
        values["hosts"] = ",".join(values["hosts"])
    target = target or config.DEFAULT_TARGET
    profile = profile or config.DEFAULT_PROFILE
    size = size or config.DEFAULT_SIZE
    runtime_s = float(runtime_s) if runtime_s else None
    raw_dir = Path(raw_dir) if raw_dir else config.RAW_DIR
    fio = find_fio()
    prof = load_profile(profile).with_runtime(runtime_s)
    direct = all(p.direct for p in prof.points)
    writes = prof.writes or prof.precondition is not None
    host_list = parse_hosts(hosts or None)
    tpath = Path(target).expanduser()
    if host_list and tpath.exists() and tpath.is_block_device():
        raise LabError("multi-host sweeps run on files only (the lab cannot check devices on other hosts).")
    run_id = check_run_id(run_id or default_run_id())
    if prof.mode == "replay":  # the points come from the trace (helpers.run.replay_sweep)
        prof = replay_sweep.resolve(prof, trace_reader, raw_dir / run_id)
        writes = prof.writes
    # the lab fills a scratch file it owns before reading it, so checks are for writes unless the
    # target is a foreign file or a device, where read-only profiles only read
    owned = not tpath.exists() or (tpath.is_file() and read_sidecar(tpath).get("created_by") == "ssd-perf-lab")
    tgt = prepare_target(target, size, writes=writes or owned, direct=direct, allow_existing=allow_existing or None,
                         destroy_device=destroy_device or None, ignore_signature=ignore_signature or None,
                         read_only_ack=read_only_ack or None, dry_run=dry_run)
    plan = SweepPlan(run_id=run_id, profile=prof, target=tgt, fio=fio, run_dir=raw_dir / run_id, hosts=host_list,
                     dry_run=bool(dry_run), runtime_s=runtime_s, values=values)
    if prof.mode == "replay":  # offsets fitted or the trace refused, before any I/O
        plan.replay = replay_sweep.check(prof, tgt, trace_reader)
        plan.warnings.append(plan.replay.note)
    warning = small_target_warning(tgt.size_bytes, tgt.kind)
    if warning:
        plan.warnings.append(warning)
    plan.warnings += demand.input_problems(any(p.jobs_auto for p in prof.points),
                                           any(p.engine_auto for p in prof.points),
                                           max((p.numjobs for p in prof.points), default=1), fio,
                                           any(p.ioengine == "io_uring" for p in prof.points))
    if read_manifest(plan.run_dir):  # an existing run: the same settings resume it, others are refused
        check_same_plan(plan.run_dir, run_id, plan.pin)
    if not plan.dry_run:  # a sweep holding the target or the run: refused now, before any folder is made
        SweepLocks(tgt.path, plan.run_dir, run_id).check_free()
    if host_list and check_hosts_now:
        check_hosts(host_list)
    return plan


def plan_table(plan: SweepPlan) -> pd.DataFrame:
    """The points of a plan, one row each, with the estimated time of the whole sweep in the index name."""
    df = pd.DataFrame([p.as_dict() for p in plan.profile.points]).set_index("point_id")
    df.index.name = f"{plan.run_id}: {plan.announcement()}"
    return df


def points_table(manifest: dict[str, Any]) -> pd.DataFrame:
    """Status, duration and raw file of every point of a finished (or interrupted) sweep."""
    rows = [{"point_id": k, "status": v.get("status"), "seconds": v.get("seconds"), "raw_file": v.get("raw_file"),
             "fio_messages": v.get("fio_messages")} for k, v in manifest.get("points", {}).items()]
    return pd.DataFrame(rows).set_index("point_id") if rows else pd.DataFrame()


# ---------------------------------------------------------------------------------------- dry run

def _cmd(argv: list[str]) -> str:
    return shlex.join(argv)


def dry_run_commands(plan: SweepPlan) -> list[str]:
    """Every fio command the sweep would run (adaptive and steady-state: the most it could run)."""
    out_dir = plan.run_dir
    prof, tgt = plan.profile, plan.target
    cmds = []

    def point_cmd(p: Point) -> str:
        out = out_dir / f".{p.point_id}.json.tmp"
        if plan.hosts:
            job = out_dir / f".{p.point_id}.fio"
            text = job_file_text(p, tgt.path, tgt.size_bytes).strip().replace("\n", "; ")
            return f"{_cmd(client_argv(plan.fio, plan.hosts, job, out, plan.read_only))}   # {job.name}: {text}"
        prefix = log_dir_of(out_dir, p.point_id) / p.point_id
        return _cmd(point_argv(plan.fio, p, tgt.path, tgt.size_bytes, out, read_only=plan.read_only,
                               log_prefix=prefix if (p.log_avg_msec or p.log_hist_msec) else None))

    if tgt.kind == "file" and tgt.owned and prof.mode != "pts":  # a PTS run recreates the file per test
        cmds.append(_cmd(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out_dir / ".prefill.json.tmp"))
                    + "   # skipped when the lab already filled this file")
    if prof.precondition:
        pc = prof.precondition
        for i in range(1, pc.passes + 1):
            cmds.append(_cmd(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out_dir / f".precondition-{i}.json.tmp",
                                          pc.bs_bytes, pc.iodepth, name=f"precondition-{i}")))
    def series_cmds(p0: Point) -> list[str]:  # an adaptive series: every depth its ladder may measure
        a = prof.adaptive
        seeded = " (a series seeded by the one before it of its operation skips depths below its plateau)" \
            if a.seed else ""
        return [f"# adaptive series {describe_point(p0)}: doubling QD from {a.start_qd}, stopping at the plateau"
                f"{seeded}; at most:", *(point_cmd(replace(p0, iodepth=q)) for q in qd_ladder(a.start_qd, a.max_qd)),
                *demand_cmds(p0)]

    def demand_cmds(p0: Point) -> list[str]:  # numjobs/ioengine auto: what follows a CPU-bound peak
        if not (p0.jobs_auto or p0.engine_auto):
            return []
        cpus, pin = demand.usable_cpus(), demand.can_pin()
        uring = p0.engine_auto and demand.io_uring_problem(plan.fio) is None
        moves = ([f"more jobs at the same outstanding I/O (jobs x QD), 2, 4, ... up to {cpus} CPU(s)"
                  + (", each pinned (cpus_allowed, split)" if pin else ", unpinned (this process may not pin)")]
                 if p0.jobs_auto else [])
        if p0.engine_auto:
            moves.append("io_uring with registerfiles, fixedbufs" if uring else
                         "no io_uring (missing: the series stays on libaio)")
        first = demand.Config(2 if p0.jobs_auto and cpus >= 2 else 1, 8 if p0.jobs_auto and cpus >= 2 else 16, "io_uring" if uring else p0.ioengine)
        example = replace(p0, iodepth=first.qd, numjobs=first.jobs, ioengine=first.engine,
                          fio_extra=tuple(demand.engine_options(first, demand.cpu_list() if pin else None)))
        return [f"#   then, while the peak's probe is CPU-bound (fio >= {demand.CPU_BOUND_PCT:g} % of a CPU per job): "
                f"{'; '.join(moves)}; then deeper outstanding I/O while it pays off (at most {demand.MAX_PROBES - 1} "
                f"probes, each recorded with engine, jobs, QD and fio's CPU %), e.g. at 16 outstanding:",
                point_cmd(example)]

    if prof.mode == "adaptive" and prof.adaptive:
        for p0 in prof.points:
            cmds.extend(series_cmds(p0))
    elif prof.mode == "characterize" and prof.adaptive:
        searched = set(prof.searched)
        for phase, points in characterize_phases(prof).items():
            cmds.append(f"# {phase}: {TARGET_STATES[phase]}")
            for p0 in points:
                cmds.extend(series_cmds(p0) if p0.point_id in searched else [point_cmd(p0)])
    elif prof.mode == "slo" and prof.slo:
        so = prof.slo
        for p0 in prof.points:
            cmds.append(f"# slo search {describe_point(p0)}: rate_iops from {so.start_rate} (x{so.factor:g} while "
                        f"p{so.percentile:g} <= {so.slo_us:g} us), then bisection to {so.tolerance_pct:g} %; first:")
            cmds.append(point_cmd(replace(p0, rate_iops=so.start_rate, rate_process=p0.rate_process or "poisson")))
            if so.cross_check:
                cmds.append(f"# then the cross-check: fio's latency_target mode (queue depth 1..{p0.iodepth} chosen "
                            f"by fio, {so.latency_window_s:g} s windows, at most {so.cross_check_windows}):")
                cmds.append(point_cmd(so.cross_check_point(p0)))
    elif prof.mode == "pts" and prof.pts:
        s = prof.pts
        size = s.active_bytes(tgt.size_bytes)
        for test in s.test_names:
            purge = "purge (helpers.run.pts: nvme format / ATA secure erase / blkdiscard)" if tgt.kind == "block" \
                else "file recreated and trimmed (no purge)"
            cmds.append(f"# PTS {test}: {purge}" + ("" if test in ("wsat", "xsr") else ", then preconditioning:"))
            if test not in ("wsat", "xsr"):
                bs = parse_size(test.removeprefix("tp-")) if test.startswith("tp-") else parse_size(s.precondition_bs)
                cmds.extend(_cmd(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out_dir / f".pts-{test}-pc.json.tmp",
                                              bs, s.precondition_iodepth, name=f"pts-{test}-precondition-{i}"))
                            for i in range(1, max(1, round(s.precondition_volume)) + 1))
                cmds.append(f"# rounds 1..{s.max_rounds} until steady state (window {s.window}), each round:")
            cmds.extend(_cmd(point_argv(plan.fio, p, tgt.path, size, out_dir / f".{p.point_id}.json.tmp"))
                        for p in s.test_points(test, 0 if test == "wsat" else 1)
                        if test != "xsr" or p.round in (1, s.xsr_seq_samples + 1, s.xsr_seq_samples + s.xsr_rnd_samples + 1))
    elif prof.mode == "burst" and prof.burst:
        for p0 in prof.points:
            cmds.append(f"# burst {describe_point(p0)}: drain until the rate stays below {p0.drop_ratio:g} x its burst "
                        f"for {p0.drop_windows} windows (at most {p0.runtime_s:g} s), then rests of "
                        f"{', '.join(f'{r:g}' for r in prof.burst.rests_s)} s, each followed by a drain:")
            cmds.extend(point_cmd(d) for d in burst_mod.drains(p0, prof.burst.rests_s))
    elif prof.mode == "steady-state" and prof.steady_state:
        ss = prof.steady_state
        cmds.append(f"# rounds 1..{ss.max_rounds} until steady state (window {ss.window}), each round:")
        cmds.extend(point_cmd(replace(p, round=1)) for p in prof.points)
    else:
        deepest = set(demand.deepest_points(prof.points).values())  # numjobs/ioengine auto in a grid
        for p in prof.points:
            cmds.extend([point_cmd(p), *(demand_cmds(p) if p in deepest else [])])
    return cmds


def dry_run(plan: SweepPlan, file=None) -> list[str]:
    """Print the announcement and every fio command; write nothing."""
    file = file or sys.stdout
    cmds = dry_run_commands(plan)
    print(f"dry run, nothing is written: {plan.announcement()}", file=file)
    for warning in plan.warnings:
        print(f"# {warning}", file=file)
    for c in cmds:
        print(c, file=file)
    return cmds


# ----------------------------------------------------------------------------------- the sweep

def _cleanup_partial(run_dir: Path) -> list[str]:
    """Temp files (and log folders) left by a sweep killed mid-point (kill -9): never data, always removed."""
    removed = []
    for p in list(run_dir.glob(".*.tmp")) + list(run_dir.glob(".*.fio")):
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p.name)
    return removed


def _fill(plan: SweepPlan, name: str, bs_bytes: int, iodepth: int, locks: SweepLocks,
          stop: threading.Event | None = None) -> dict[str, Any]:
    tgt = plan.target
    out = plan.run_dir / f".{name}.json.tmp"
    final = plan.run_dir / f".{name}.json"
    job = None
    if plan.hosts:
        job = plan.run_dir / f".{name}.fio"
        opts = prefill_options(tgt.path, tgt.size_bytes, bs_bytes, iodepth, name)
        job.write_text(f"[{name}]\n" + "\n".join(f"{k}={v}" for k, v in opts[1:]) + "\n")
        argv = client_argv(plan.fio, plan.hosts, job, out)
    else:
        argv = prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out, bs_bytes, iodepth, name)
    try:
        rc, text, seconds = run_fio(argv, out, final, timeout=6 * 3600, on_start=lambda pid: locks.set(fio_pid=pid),
                                    stop=stop)
    finally:
        if job is not None:
            job.unlink(missing_ok=True)
    final.unlink(missing_ok=True)
    if rc != 0:
        raise LabError(f"{name} of {tgt.path} failed (fio exit {rc}): {text.splitlines()[-1] if text else ''}")
    return {"bytes": tgt.size_bytes, "seconds": round(seconds, 2)}


def prefill(plan: SweepPlan, locks: SweepLocks | None = None, stop: threading.Event | None = None) -> dict[str, Any]:
    """Write the lab's scratch file once (skipped when the lab already filled it to this size).

    Only files the lab owns are filled; a foreign file or a device is never prefilled."""
    tgt = plan.target
    if not (tgt.kind == "file" and tgt.owned):
        return {"skipped": True, "reason": "not a lab scratch file"}
    side = read_sidecar(tgt.path)
    if tgt.path.exists() and side.get("prefilled_bytes", 0) >= tgt.size_bytes and not plan.hosts:
        return {"skipped": True, "reason": "already filled by the lab", "bytes": side["prefilled_bytes"]}
    write_sidecar(tgt.path, prefilled_bytes=0)  # mark the file as the lab's before fio creates it
    res = _fill(plan, "prefill", 1024**2, 16, locks or _NoLocks(), stop)
    write_sidecar(tgt.path, prefilled_bytes=tgt.size_bytes)
    return {"skipped": False, **res}


class _NoLocks:
    def set(self, **fields) -> None:
        pass


def _announce(msg: str, progress: bool) -> None:
    print(msg, flush=True)


def _bar_enabled(progress: bool) -> bool:
    """The in-process tqdm bar: off when the pipeline renders the progress in the terminal."""
    return progress and not os.environ.get(TERMINAL_PROGRESS_ENV)


def run_sweep(plan: SweepPlan, progress: bool = True) -> dict[str, Any]:
    """Run every point of the plan; completed points (raw file present) are skipped on a re-run.

    Holds a lock on the target and on the run folder for the whole sweep (a refusal leaves no run
    folder behind).  Ctrl-C stops fio cleanly, records the interrupted point and raises
    :class:`SweepInterrupted` saying how to resume.  Progress is kept in ``<run>/.sweep.progress``.
    """
    if plan.dry_run:
        dry_run(plan)
        return {"run_id": plan.run_id, "status": "dry-run", "commands": dry_run_commands(plan)}
    locks = SweepLocks(plan.target.path, plan.run_dir, plan.run_id)
    locks.check_free()
    created = not plan.run_dir.exists()
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    try:
        locks.acquire()
    except BaseException:
        if created:
            _remove_empty(plan.run_dir)
        raise
    try:
        with _StopOnSignal() as stop:
            return _run_locked(plan, locks, progress, stop.event)
    finally:
        locks.release()


def _remove_empty(run_dir: Path) -> None:
    for p in run_dir.iterdir():
        if p.name != ".sweep.lock":
            return
        p.unlink(missing_ok=True)
    run_dir.rmdir()


class _Progress:
    """``<run>/.sweep.progress`` (JSON): points done / total, the point being measured and when it started, the
    estimated seconds left.  Written at every point boundary; a reader renders elapsed and ETA live."""

    def __init__(self, plan: SweepPlan, manifest: dict[str, Any]):
        self.plan, self.manifest = plan, manifest
        self.path = plan.run_dir / PROGRESS_NAME
        self.started = time.time()
        grid = plan.profile.mode == "grid"
        self.estimates = {p.point_id: p.seconds for p in plan.profile.points} if grid else {}
        self.total = len(plan.profile.points) if grid else None
        self.prefix = ""  # what the point belongs to (a PTS test, round and steady-state status)
        self.remaining: float | None = None  # seconds left when the mode estimates them itself (PTS)

    def counts(self) -> tuple[int, int]:
        pts = self.manifest.get("points", {})
        ok = sum(1 for v in pts.values() if v.get("status") == "ok")
        failed = sum(1 for v in pts.values() if v.get("status") == "failed")
        return ok, failed

    def write(self, status: str = "running", current: Point | None = None, label: str = "",
              seconds: float | None = None) -> None:
        ok, failed = self.counts()
        pts = self.manifest.get("points", {})
        left = [s for k, s in self.estimates.items() if pts.get(k, {}).get("status") not in ("ok", "failed")]
        data = {"run_id": self.plan.run_id, "pid": os.getpid(), "status": status, "started": self.started,
                "updated": time.time(), "total": self.total, "done": ok + failed, "ok": ok, "failed": failed,
                "current": self._current(label or (describe_point(current) if current else None)),
                "current_started": time.time() if current or label else None,
                "current_seconds": seconds if seconds is not None else (current.seconds if current else None),
                "remaining_seconds": round(sum(left), 1) if self.total is not None else (
                    None if self.remaining is None else round(self.remaining, 1))}
        try:
            write_json_atomic(self.path, data)
        except OSError:  # progress is a convenience: never a reason to stop a sweep
            pass

    def _current(self, text: str | None) -> str | None:
        return f"{self.prefix}: {text}" if self.prefix and text and not text.startswith(self.prefix) else text

    def summary(self) -> str:
        ok, failed = self.counts()
        total = self.total if self.total is not None else ok + failed
        return (f"run {self.plan.run_id}: {ok + failed} of {total} points measured ({ok} ok, {failed} failed) "
                f"in {time.time() - self.started:.0f} s.")


class _StopOnSignal:
    """Ctrl-C (SIGINT) and SIGTERM stop the sweep (main thread only): the handler records the request in
    ``event`` and raises KeyboardInterrupt.  The event matters when Python swallows that exception (one
    raised inside fork()'s at-fork hooks is only printed): the running fio and the next point check it."""

    def __init__(self):
        self.event = threading.Event()
        self.old: dict[int, Any] = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.old[sig] = signal.signal(sig, self._handler)
        return self

    def _handler(self, signum, frame):
        self.event.set()
        raise KeyboardInterrupt()

    def __exit__(self, *exc):
        for sig, old in self.old.items():
            signal.signal(sig, old)


def _run_locked(plan: SweepPlan, locks: SweepLocks, progress: bool,
                stop: threading.Event | None = None) -> dict[str, Any]:
    removed = _cleanup_partial(plan.run_dir)
    manifest = read_manifest(plan.run_dir) or {"run_id": plan.run_id, "started": now_iso()}
    resumed = bool(manifest.get("points"))
    check_same_plan(plan.run_dir, plan.run_id, plan.pin)  # again under the lock (the plan may be old)
    manifest.update({
        "run_id": plan.run_id,
        "plan": plan.pin,
        "warnings": plan.warnings,
        **describe_host(),
        "fio_version": plan.fio_version,
        "target": describe_target(plan.target.path),
        "target_kind": plan.target.kind,
        "target_size_bytes": plan.target.size_bytes,
        "read_only": plan.read_only,
        "profile": plan.profile.name,
        "profile_mode": plan.profile.mode,
        "profile_description": plan.profile.description,
        "profile_yaml": plan.profile.source,
        "estimated_seconds": round(plan.profile.estimated_seconds),
        "estimate": plan.estimate,
        "status": "running",
    })
    if plan.hosts:
        manifest["hosts"] = plan.hosts
    if resumed:
        manifest.setdefault("resumes", []).append({"at": now_iso(), "removed_partial_files": removed,
                                                   "took_over_locks_of": [t.get("pid") for t in locks.took_over]})
    manifest.setdefault("points", {})
    # SMART/health before and after each point when the target's device exposes it (helpers.run.smart)
    source = "no SMART/health data: multi-host sweeps do not read the hosts' devices." if plan.hosts else \
        health_source(plan.target.path)
    manifest["health"] = {"source": " ".join(source[0])} if isinstance(source, tuple) else {"note": source}
    if isinstance(source, tuple):  # the device's own temperature thresholds, read once per run, kept verbatim
        manifest["health"]["thresholds"] = smart.read_thresholds(source, plan.run_dir)
    write_manifest(plan.run_dir, manifest)
    _announce(f"{'resuming' if resumed else 'starting'} run {plan.run_id}: {plan.announcement()}", progress)
    for warning in plan.warnings:
        _announce(warning, progress)
    ctx = _SweepContext(plan, manifest, locks, progress, stop)
    ctx.health_source = source if isinstance(source, tuple) else None
    ctx.tracker.write()
    try:
        if plan.profile.mode == "pts" and "prefill" not in manifest:  # every PTS test starts from a purge
            manifest["prefill"] = {"skipped": True, "reason": "PTS: the target is purged (a file recreated) and "
                                   "preconditioned before each test", "done": True}
        if "prefill" not in manifest or not manifest["prefill"].get("done"):
            ctx.tracker.write(label=f"filling the scratch file ({plan.target.size_bytes / 1024**2:.0f} MiB)",
                              seconds=plan.target.size_bytes / (200 * 1024**2))
            manifest["prefill"] = {**prefill(plan, locks, ctx.stop), "done": True}
            write_manifest(plan.run_dir, manifest)
        if plan.profile.mode == "adaptive":
            ctx.run_adaptive()
        elif plan.profile.mode == "characterize":
            ctx.run_characterize()
        elif plan.profile.mode == "steady-state":
            ctx.run_steady_state()
        elif plan.profile.mode == "slo":
            ctx.run_slo()
        elif plan.profile.mode == "pts":
            ctx.run_pts()
        elif plan.profile.mode == "replay":
            replay_sweep.run(ctx, plan.replay)
        elif plan.profile.mode == "burst":
            burst_mod.run_burst(ctx)
        else:
            ctx.run_points(plan.profile.points)
            ctx.run_grid_demand(plan.profile.points)
    except (KeyboardInterrupt, FioInterrupted):
        current = ctx.current
        if current and current in manifest["points"] and manifest["points"][current].get("status") == "running":
            manifest["points"][current]["status"] = "interrupted"
        manifest.update({"status": "interrupted", "interrupted": now_iso()})
        write_manifest(plan.run_dir, manifest)
        ctx.tracker.write("interrupted")
        done = sum(1 for v in manifest["points"].values() if v.get("status") == "ok")
        of = f" of {ctx.tracker.total}" if ctx.tracker.total is not None else ""
        raise SweepInterrupted(
            f"sweep {plan.run_id} was interrupted{' during point ' + current if current else ''} (fio stopped, its "
            f"partial output discarded; {done}{of} points are done): resume with the same run id and settings, "
            f"'{plan.resume_command()}' (or run_id='{plan.run_id}' in the notebook), then "
            f"'make reports RUN={plan.run_id}' builds the reports."
        ) from None
    failed = [k for k, v in manifest["points"].items() if v.get("status") not in ("ok",)]
    manifest.update({"status": "failed-points" if failed else "complete", "finished": now_iso(),
                     "device_seconds": round(adaptive_mod.device_seconds(manifest["points"]), 2)})
    write_manifest(plan.run_dir, manifest)
    ctx.tracker.write(manifest["status"])
    if progress:
        print(ctx.tracker.summary(), flush=True)
    return manifest


# what the target had been through when a characterize phase measured it (manifest: every point and series)
TARGET_STATES = {
    "reads": "fresh: the lab's sequential fill only",
    "sustained": "the sustained sequential write itself (it preconditions the target)",
    "writes": "preconditioned: after the sustained sequential write of the target",
}


def characterize_phases(profile: Profile) -> dict[str, list[Point]]:
    """A characterize profile's points in run order: ``reads`` (series and points that do not write), then
    ``sustained`` (the size-based writes: ``volume``), then ``writes`` (every other writing series or point),
    each in profile order."""
    pts = profile.points
    return {"reads": [p for p in pts if not p.writes],
            "sustained": [p for p in pts if p.writes and p.volume is not None],
            "writes": [p for p in pts if p.writes and p.volume is None]}


class _SweepContext:
    def __init__(self, plan: SweepPlan, manifest: dict, locks: SweepLocks, progress: bool,
                 stop: threading.Event | None = None):
        self.plan, self.manifest, self.locks, self.progress = plan, manifest, locks, progress
        self.stop = stop or threading.Event()
        self.current: str | None = None
        self.tracker = _Progress(plan, manifest)
        self.health_source: tuple[list[str], str] | None = None
        # per operation (a series' point without block size and depth): the block size of its last series searched
        # and the seed that search gives the next (None: it ended on no plateau)
        self.seeds: dict[Point, tuple[int, adaptive_mod.Seed | None]] = {}

    def raw(self, point: Point) -> Path:
        return self.plan.run_dir / f"{point.point_id}.json"

    def done(self, point: Point) -> bool:
        entry = self.manifest["points"].get(point.point_id, {})
        return self.raw(point).exists() and entry.get("status") in (None, "ok")

    def run_point(self, point: Point, extra: dict | None = None, size_bytes: int | None = None) -> dict:
        """Run (or skip, when already measured) one point and record it in the manifest; ``size_bytes``: the
        region fio addresses when not the whole target (a PTS ActiveRange)."""
        plan, pts = self.plan, self.manifest["points"]
        entry = {"parameters": point.as_dict(), **(extra or {})}
        if self.done(point):
            pts.setdefault(point.point_id, {**entry, "status": "ok", "raw_file": self.raw(point).name})
            pts[point.point_id]["status"] = "ok"
            return pts[point.point_id]
        if self.stop.is_set():  # a stop request whose KeyboardInterrupt was swallowed
            raise KeyboardInterrupt
        self.current = point.point_id
        pts[point.point_id] = {**entry, "status": "running", "started": now_iso()}
        write_manifest(plan.run_dir, self.manifest)
        self.tracker.write(current=point)
        health = None
        if self.health_source:  # long points are also sampled while fio runs (helpers.run.smart)
            long = point.volume is not None or point.runtime_s + point.ramp_s >= smart.LONG_POINT_S
            health = PointHealth(self.health_source, plan.run_dir / f"{point.point_id}{HEALTH_SUFFIX}",
                                 smart.SAMPLE_EVERY_S if long else None,
                                 (self.manifest.get("health") or {}).get("thresholds"))
            health.before()
            health.start()
        try:
            res = run_point(point, plan.target.path, size_bytes or plan.target.size_bytes, plan.run_dir, fio=plan.fio,
                            read_only=plan.read_only, hosts=plan.hosts or None,
                            on_start=lambda pid: self.locks.set(fio_pid=pid, point=point.point_id), stop=self.stop)
        except BaseException:
            if health:
                health.abandon()
            raise
        pts[point.point_id] = {
            **entry, "status": res.status, "raw_file": res.raw_file, "seconds": round(res.seconds, 2),
            "returncode": res.returncode, "argv": res.argv, "fio_messages": res.stderr or None,
        }
        if res.device_s is not None:  # ramp + the runtime fio measured (at most runtime_s)
            pts[point.point_id]["device_s"] = res.device_s
        if res.settled_s is not None:  # ended early: its IOPS had settled (settle_windows)
            pts[point.point_id]["settled_after_s"] = res.settled_s
        if health:  # the captures verbatim in <point>.health.jsonl; here what they say
            pts[point.point_id]["health"] = health.finish()
        if res.logs:  # fio's per-window logs, stored verbatim (large ones gzipped) next to the raw JSON
            pts[point.point_id]["logs"] = res.logs
            pts[point.point_id]["log_settings"] = {"log_avg_msec": point.log_avg_msec,
                                                   "log_hist_msec": point.log_hist_msec}
        if plan.hosts and res.status == "ok":
            try:
                pts[point.point_id]["clients"] = client_entries(self.raw(point))
            except (OSError, ValueError, LabError) as exc:  # the raw file is kept verbatim either way
                pts[point.point_id]["clients_error"] = str(exc)[:200]
        self.current = None
        write_manifest(plan.run_dir, self.manifest)
        self.tracker.write()
        return pts[point.point_id]

    def run_points(self, points) -> None:
        bar = tqdm(points, desc=f"sweep {self.plan.run_id}", unit="point", disable=not _bar_enabled(self.progress))
        for point in bar:
            bar.set_postfix_str(describe_point(point))
            self.run_point(point)

    def run_grid_demand(self, points) -> None:
        """``numjobs``/``ioengine: auto`` in a grid: each series' deepest point starts a demand search
        (:meth:`search_demand`, per-job QD at most that depth); its summary in the manifest's ``demand`` by the
        deepest point's id, its probes tagged ``demand``."""
        deepest = demand.deepest_points(points)
        if not deepest:
            return
        out = self.manifest.setdefault("demand", {})
        bar = tqdm(desc=f"demand {self.plan.run_id}", unit="point", disable=not _bar_enabled(self.progress))
        for p in deepest.values():
            if self.done(p):
                out[p.point_id] = self.search_demand(p, p.iodepth, p.point_id, bar, tag="demand", max_qd=p.iodepth)
        bar.close()
        write_manifest(self.plan.run_dir, self.manifest)

    # -------------------------------------------------------------------------------- adaptive
    def run_adaptive(self) -> None:
        bar = tqdm(desc=f"adaptive {self.plan.run_id}", unit="point", disable=not _bar_enabled(self.progress))
        for p0 in self.plan.profile.points:
            self.search_series(p0, bar)
        bar.close()

    def search_series(self, p0: Point, bar, extra: dict | None = None) -> None:
        """The adaptive ladder over one (rw, bs, ...) series (helpers.run.adaptive); ``extra`` is recorded with
        each of its points and in its summary.  With ``seed: true`` the last series searched of the same operation
        (everything but the block size and depth alike) seeds it when its block was not larger
        (:class:`helpers.run.adaptive.Seed`, recorded in the summary); its own search then seeds the next."""
        a = self.plan.profile.adaptive
        summary = self.manifest.setdefault("adaptive", {})
        history: list[adaptive_mod.Step] = []
        series = replace(p0, iodepth=a.start_qd).point_id
        operation = replace(p0, bs_bytes=0, iodepth=0)
        before = self.seeds.get(operation) if a.seed else None
        seed = before[1] if before is not None and before[0] <= p0.bs_bytes else None
        while True:
            nxt = adaptive_mod.next_depth(history, a, seed)
            if nxt is None:  # the search finished: it seeds the next series of its operation
                self.seeds[operation] = (p0.bs_bytes, adaptive_mod.seed_from(history, a, series))
                break
            qd, kind = nxt
            point = replace(p0, iodepth=qd)
            if kind == "confirm":  # a full-length measurement: no settle-stop
                point = replace(point, runtime_s=a.confirm_runtime_s, repeat=1, settle_windows=0)
            elif kind == "reprobe":  # the same point measured again: its own raw file (r2, r3; confirm is r1)
                point = replace(point, repeat=1 + len(adaptive_mod.readings(history, qd)))
            if point.settle_windows > 0:  # shorter settle windows once IOPS fill them (adaptive.py)
                point = replace(point, settle_window_ms=adaptive_mod.probe_window_ms(
                    history, a, point.settle_window_ms))
            bar.set_postfix_str(f"{describe_point(point)} ({kind})")
            entry = self.run_point(point, {"adaptive": {"series": series, "kind": kind}, **(extra or {})})
            bar.update(1)
            if entry.get("status") != "ok":
                summary[series] = {"error": f"point {point.point_id} failed; search stopped", **(extra or {})}
                self.seeds[operation] = (p0.bs_bytes, None)  # an unfinished search seeds nothing
                break
            history.append(adaptive_mod.step_of(qd, kind, self.raw(point), entry))
        if history:
            summary[series] = {**adaptive_mod.summary(history, a, seed), **(extra or {})}
            if (p0.jobs_auto or p0.engine_auto) and series in summary and "error" not in summary[series]:
                # the raw file of a depth's first reading (ladder or refine) is the demand search's start probe
                start = demand.start_depth([(s.qd, s.iops) for s in history if s.kind in ("ladder", "refine")],
                                           a.gain_pct)
                summary[series]["demand"] = self.search_demand(p0, start, series, bar, extra)
        write_manifest(self.plan.run_dir, self.manifest)

    def search_demand(self, p0: Point, qd: int, series: str, bar, extra: dict | None = None, tag: str = "adaptive",
                      max_qd: int | None = None) -> dict:
        """From the series' peak depth: more jobs at the same outstanding I/O, io_uring, deeper demand, while the
        best probe is CPU-bound and a move pays off (helpers.run.demand.next_config); the summary it returns
        records every configuration (engine, jobs, QD, fio's CPU %) and whether the best is only a lower bound."""
        a = self.plan.profile.adaptive
        start = demand.Config(p0.numjobs, qd, p0.ioengine)
        probes = [demand.probe_of(start, self.raw(replace(p0, iodepth=qd)))]
        pin = demand.cpu_list() if demand.can_pin() else None
        uring = demand.io_uring_problem(self.plan.fio or "fio") is None if p0.engine_auto else False
        hipri = demand.queue_polls(self.plan.target.path)
        while (c := demand.next_config(probes, demand.usable_cpus(), p0.engine_auto, p0.jobs_auto,
                                       max_qd or a.max_qd, uring=uring)) is not None:
            point = replace(p0, iodepth=c.qd, numjobs=c.jobs, ioengine=c.engine,
                            fio_extra=tuple(demand.engine_options(c, pin, hipri)))
            bar.set_postfix_str(f"{describe_point(point)} (demand)")
            entry = self.run_point(point, {tag: {"series": series, "kind": "demand"}, **(extra or {})})
            bar.update(1)
            if entry.get("status") != "ok":
                break
            probes.append(demand.probe_of(c, self.raw(point)))
        return demand.summary(probes)

    # ---------------------------------------------------------------------------- characterize
    def run_characterize(self) -> None:
        """The whole picture in one run (``mode: characterize``): every read first (QD series by the adaptive
        ladder, then the listed points), then the sustained write of ``volume`` x the target (the write cliff; it
        preconditions the target), then the write and mixed series and points, each recorded (manifest
        ``characterize``) as measured on the preconditioned target."""
        prof = self.plan.profile
        searched = {p.point_id for p in prof.series}
        phases = characterize_phases(prof)
        self.manifest["characterize"] = {"phases": {k: [p.point_id for p in v] for k, v in phases.items()}}
        bar = tqdm(desc=f"characterize {self.plan.run_id}", unit="point", disable=not _bar_enabled(self.progress))
        for phase, points in phases.items():
            extra = {"characterize": {"phase": phase, "target_state": TARGET_STATES[phase]}}
            for p in points:
                if p.point_id in searched:
                    self.search_series(p, bar, extra)
                else:
                    bar.set_postfix_str(f"{describe_point(p)} ({phase})")
                    self.run_point(p, extra)
                    bar.update(1)
        bar.close()

    # -------------------------------------------------------------------------------- slo search
    def run_slo(self) -> None:
        so = self.plan.profile.slo
        summary = self.manifest.setdefault("slo", {})
        bar = tqdm(desc=f"slo {self.plan.run_id}", unit="point", disable=not self.progress)
        for p0 in self.plan.profile.points:
            history: list[slo_search.RateStep] = []
            series = p0.point_id
            while True:
                nxt = slo_search.next_rate(history, so)
                if nxt is None:
                    break
                rate, kind = nxt
                point = replace(p0, rate_iops=rate, rate_process=p0.rate_process or "poisson")
                bar.set_postfix_str(f"{describe_point(point)} ({kind})")
                entry = self.run_point(point, {"slo": {"series": series, "kind": kind}})
                bar.update(1)
                if entry.get("status") != "ok":
                    summary[series] = {"error": f"point {point.point_id} failed; search stopped"}
                    break
                m = slo_search.point_tail(self.raw(point), so.percentile)
                history.append(slo_search.RateStep(rate, m["iops"], m["latency_us"],
                                                   slo_search.meets(rate, m["iops"], m["latency_us"], so), kind,
                                                   m["latency"]))
            if history and "error" not in summary.get(series, {}):
                summary[series] = slo_search.summary(history, so, p0.runtime_s + p0.ramp_s)
                if so.cross_check:
                    bar.set_postfix_str(f"{describe_point(p0)} (fio latency_target cross-check)")
                    summary[series]["cross_check"] = self.run_cross_check(so.cross_check_point(p0), series)
                    bar.update(1)
            write_manifest(self.plan.run_dir, self.manifest)
        bar.close()

    def run_cross_check(self, point: Point, series: str) -> dict:
        """The SLO search's cross-check: one point in fio's latency_target mode, its raw file kept verbatim
        like every point's; what fio settled on, read back through the one fio reader, with its device time:
        the seconds the fio process ran (fio stops once it has settled), at most the runtime cap (as
        :func:`helpers.run.adaptive.device_seconds` counts a point that stopped early)."""
        entry = self.run_point(point, {"slo": {"series": series, "kind": "cross-check"}})
        ran = entry.get("seconds")
        out = {"point_id": point.point_id, "raw_file": entry.get("raw_file"), "max_seconds": point.runtime_s,
               "device_seconds": None if ran is None else round(min(float(ran), point.runtime_s), 2)}
        if entry.get("status") != "ok":
            last = (entry.get("fio_messages") or "no message").strip().splitlines() or ["no message"]
            return {**out, "error": f"fio's latency_target point {point.point_id} failed: {last[-1]}"}
        try:
            return {**out, **slo_search.cross_check_result(self.raw(point), point.latency_percentile)}
        except (OSError, ValueError, LabError) as exc:  # the raw file is kept verbatim either way
            return {**out, "error": str(exc)[:300]}

    # ---------------------------------------------------------------------------- SNIA PTS
    def run_pts(self) -> None:
        """The PTS procedure (helpers.run.pts): purge, preconditioning and rounds per test."""
        pts_mod.run_pts(self, lambda name, bs, qd: _fill(self.plan, name, bs, qd, self.locks, self.stop))

    # ---------------------------------------------------------------------------- steady state
    def run_steady_state(self) -> None:
        plan, prof = self.plan, self.plan.profile
        ss, pc = prof.steady_state, prof.precondition
        state = self.manifest.setdefault("steady_state", {"settings": ss.__dict__, "rounds": []})
        pre = self.manifest.setdefault("precondition", {"passes_done": 0})
        if pc and pre.get("passes_done", 0) < pc.passes:
            pre["passes_done"] = 0  # an interrupted fill starts over: both passes must be complete
            pre["passes"] = []
            for i in range(1, pc.passes + 1):
                self.current = f"precondition-{i}"
                _announce(f"preconditioning {plan.target.path}: sequential fill {i} of {pc.passes}", self.progress)
                pre["passes"].append(_fill(plan, f"precondition-{i}", pc.bs_bytes, pc.iodepth, self.locks,
                                           self.stop))
                pre["passes_done"] = i
                write_manifest(plan.run_dir, self.manifest)
            self.current = None
        tracked = prof.points[0]
        values: list[float] = []
        rounds = []
        for r in range(1, ss.max_rounds + 1):
            for p in prof.points:
                entry = self.run_point(replace(p, round=r), {"round": r})
                if entry.get("status") != "ok":
                    raise LabError(f"steady-state round {r} failed at {p.point_id}: "
                                   f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")
            m = adaptive_mod.point_metrics(self.raw(replace(tracked, round=r)))
            values.append(m["iops"])
            check = pts_steady_state(values, ss.window, ss.range_pct, ss.slope_pct)
            rounds.append({"round": r, "point_id": replace(tracked, round=r).point_id, "iops": round(m["iops"], 1),
                           "lat_mean_us": round(m["lat_mean_us"], 1), "steady": check.steady})
            state.update({"rounds": rounds, "tracked_point": tracked.point_id, "result": check.to_dict()})
            write_manifest(plan.run_dir, self.manifest)
            if self.progress:
                print(f"round {r}: {m['iops']:.0f} IOPS; {check.reason}", flush=True)
            if check.steady:
                break


def sweep(target: str | Path = config.DEFAULT_TARGET, profile: str | Path = config.DEFAULT_PROFILE,
          run_id: str | None = None, runtime_s: float | None = None, size: str | int = config.DEFAULT_SIZE,
          raw_dir: Path = config.RAW_DIR, progress: bool = True, **options: Any) -> dict[str, Any]:
    """Plan and run a sweep; returns the manifest.  ``options``: see :func:`plan_sweep`."""
    return run_sweep(plan_sweep(target, profile, run_id, runtime_s, size, raw_dir, **options), progress=progress)


def add_sweep_arguments(ap: argparse.ArgumentParser, make_only: bool = False) -> None:
    """The sweep's options as ``--flags`` (see :data:`helpers.run.options.SWEEP_OPTIONS`; ``make_only``: the
    ones the Makefile passes, as helpers.report.pipeline takes them)."""
    sweep_opts.add_arguments(ap, make_only)


def sweep_options(args: argparse.Namespace, make_only: bool = False) -> dict[str, Any]:
    """Parsed arguments -> :func:`plan_sweep` keywords."""
    return sweep_opts.values_from_args(args, make_only)


def main(argv: list[str] | None = None) -> int:
    ap = sweep_opts.ArgumentParser(prog="python -m helpers.run.sweep", description=__doc__.splitlines()[0])
    add_sweep_arguments(ap)
    ap.add_argument("--check-only", action="store_true", help="run the checks, print the plan, do no I/O")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    try:
        plan = plan_sweep(**sweep_options(args))
        if args.check_only:
            print(f"ok: {plan.announcement()} ({plan.target.size_bytes / 1024**3:.2f} GiB)")
            for warning in plan.warnings:
                print(warning)
            return 0
        t0 = time.monotonic()
        m = run_sweep(plan, progress=not args.quiet)
        if plan.dry_run:
            return 0
        print(f"run {m['run_id']}: {m['status']} in {time.monotonic() - t0:.0f} s -> {plan.run_dir}")
        return 0
    except SweepInterrupted as exc:
        print(f"interrupted: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # before the sweep held its locks: nothing was measured
        print("interrupted before the sweep started: nothing was measured.", file=sys.stderr)
        return 130
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
