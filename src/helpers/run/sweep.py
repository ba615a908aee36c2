"""Sweep orchestration: profile -> preflight -> prefill -> one fio process per point -> data/raw/<RUN>/.

The plan is made in :mod:`helpers.run.plan`, printed by :mod:`helpers.run.dryrun` and executed point by point by
:mod:`helpers.run.executor`; this module holds the run's life (locks, signals, resume, the manifest) and the command
line, and keeps every name importable from here.

Command line (used by ``make sweep`` for its one-sentence preflight)::

    python -m helpers.run.sweep --target data/scratch/fio-target.bin --profile quick --check-only
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from helpers import config
from helpers.errors import LabError
from helpers.run import adaptive as adaptive_mod
from helpers.run import burst as burst_mod
from helpers.run import options as sweep_opts
from helpers.run import replay_sweep, smart
from helpers.run.dryrun import dry_run as dry_run
from helpers.run.dryrun import dry_run_commands as dry_run_commands
from helpers.run.executor import PROGRESS_NAME as PROGRESS_NAME
from helpers.run.executor import TERMINAL_PROGRESS_ENV as TERMINAL_PROGRESS_ENV
from helpers.run.executor import _announce as _announce
from helpers.run.executor import _SweepContext as _SweepContext
from helpers.run.executor import prefill as prefill
from helpers.run.lock import SweepLocks
from helpers.run.manifest import check_same_plan, now_iso, read_manifest, write_manifest
from helpers.run.plan import SweepPlan as SweepPlan
from helpers.run.plan import characterize_phases as characterize_phases
from helpers.run.plan import plan_sweep as plan_sweep
from helpers.run.plan import plan_table as plan_table
from helpers.run.plan import points_table as points_table
from helpers.run.runner import FioInterrupted
from helpers.run.smart import health_source
from helpers.run.system import describe_host, describe_target


class SweepInterrupted(LabError):
    """Ctrl-C (or SIGTERM) stopped the sweep; the message says how to resume."""


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
    if resumed:  # the rest of its points time with the clock the first ones did
        plan.clock_kept = manifest.get("fio_clocksource")
    check_same_plan(plan.run_dir, plan.run_id, plan.pin)  # again under the lock (the plan may be old)
    manifest.update({
        "run_id": plan.run_id,
        "plan": plan.pin,
        "warnings": plan.warnings,
        **describe_host(),
        "fio_version": plan.fio_version,
        "fio_clocksource": plan.clock,  # every point's --clocksource (None: fio chose per run)
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
