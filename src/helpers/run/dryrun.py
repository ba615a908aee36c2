"""A dry run: every fio command a sweep would run (DRY_RUN=1), written nowhere."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace

from helpers.fio.units import parse_size
from helpers.run import burst as burst_mod
from helpers.run import demand
from helpers.run.plan import TARGET_STATES, SweepPlan, characterize_phases
from helpers.run.profiles import Point, qd_ladder
from helpers.run.runner import (
    client_argv,
    describe_point,
    job_file_text,
    log_dir_of,
    point_argv,
    prefill_argv,
)


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
                               log_prefix=prefix if (p.log_avg_msec or p.log_hist_msec) else None,
                               clocksource=plan.clock))

    if tgt.kind == "file" and tgt.owned and prof.mode != "pts":  # a PTS run recreates the file per test
        cmds.append(_cmd(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out_dir / ".prefill.json.tmp",
                                      clocksource=plan.clock))
                    + "   # skipped when the lab already filled this file")
    if prof.precondition:
        pc = prof.precondition
        for i in range(1, pc.passes + 1):
            cmds.append(_cmd(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out_dir / f".precondition-{i}.json.tmp",
                                          pc.bs_bytes, pc.iodepth, name=f"precondition-{i}", clocksource=plan.clock)))
    def series_cmds(p0: Point) -> list[str]:  # an adaptive series: every depth its ladder may measure
        a = prof.adaptive
        seeded = " (a series seeded by the one before it of its operation skips depths below its plateau)" \
            if a.seed else ""
        return [f"# adaptive series {describe_point(p0)}: doubling QD from {a.start_qd}, stopping at the plateau"
                f"{seeded}; at most:", *(point_cmd(replace(p0, iodepth=q)) for q in qd_ladder(a.start_qd, a.max_qd)),
                *demand_cmds(p0)]

    def demand_moves(p0: Point) -> list[str]:  # numjobs/ioengine auto: the moves off a CPU-bound probe
        cpus, pin = demand.usable_cpus(), demand.can_pin()
        uring = p0.engine_auto and demand.io_uring_problem(plan.fio) is None
        moves = ([f"more jobs at the same outstanding I/O (jobs x QD), 2, 4, ... up to {cpus} CPU(s)"
                  + (", each pinned (cpus_allowed, split)" if pin else ", unpinned (this process may not pin)")]
                 if p0.jobs_auto else [])
        if p0.engine_auto:
            moves.append("io_uring with registerfiles, fixedbufs" if uring else
                         "no io_uring (missing: the series stays on libaio)")
        return moves

    def demand_cmds(p0: Point) -> list[str]:  # numjobs/ioengine auto: what follows a CPU-bound peak
        if not (p0.jobs_auto or p0.engine_auto):
            return []
        cpus, pin = demand.usable_cpus(), demand.can_pin()
        uring = p0.engine_auto and demand.io_uring_problem(plan.fio) is None
        moves = demand_moves(p0)
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
            if p0.jobs_auto or p0.engine_auto:
                cmds.append(f"# a load that fails while fio uses >= {demand.CPU_BOUND_PCT:g} % of a CPU per job (fio, "
                            "not the device, may be what failed) is offered again with "
                            f"{'; then '.join(demand_moves(p0))} (rate_iops per job: the load / jobs)")
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
                                              bs, s.precondition_iodepth, name=f"pts-{test}-precondition-{i}",
                                              clocksource=plan.clock))
                            for i in range(1, max(1, round(s.precondition_volume)) + 1))
                cmds.append(f"# rounds 1..{s.max_rounds} until steady state (window {s.window}), each round:")
            cmds.extend(_cmd(point_argv(plan.fio, p, tgt.path, size, out_dir / f".{p.point_id}.json.tmp",
                                        clocksource=plan.clock))
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
