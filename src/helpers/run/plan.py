"""The plan of a sweep: what runs, on which target, in which order (SweepPlan, plan_sweep; a characterize run's phases), made and checked before any I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from helpers import config
from helpers.errors import LabError
from helpers.fio.binary import find_fio, fio_clocksource, fio_version
from helpers.run import demand, replay_sweep
from helpers.run import options as sweep_opts
from helpers.run.hosts import check_hosts, parse_hosts
from helpers.run.lock import SweepLocks
from helpers.run.manifest import (
    check_run_id,
    check_same_plan,
    default_run_id,
    read_manifest,
    text_sha256,
)
from helpers.run.profiles import Point, Profile, load_profile
from helpers.run.target import Target, prepare_target, read_sidecar, small_target_warning


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
    clock_kept: str | None = None  # a resumed run's fio_clocksource (its manifest's): kept for the rest of its points

    @property
    def pin(self) -> dict[str, Any]:
        """What the run id is bound to (manifest["plan"]): resuming with anything else is refused."""
        if not self.fio_version:
            self.fio_version = fio_version(self.fio)
        return {"target": str(self.target.path), "size_bytes": self.target.size_bytes, "profile": self.profile.name,
                "profile_sha256": text_sha256(self.profile.source), "runtime_s": self.runtime_s,
                "hosts": list(self.hosts), "fio_version": self.fio_version}

    @property
    def clock(self) -> str | None:
        """The clock every fio of this sweep is given (``--clocksource``): the one fio picks on this machine, asked
        once (helpers.fio.binary.fio_clocksource), so that no point's own start-up test (70 ms of CPU, a thread
        on each CPU, before the point's I/O) can switch it mid-sweep; a resumed run keeps the clock its manifest
        recorded.  None with hosts (each host's fio picks its own) or when fio does not say."""
        if self.hosts:
            return None
        return self.clock_kept or fio_clocksource(self.fio)

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
