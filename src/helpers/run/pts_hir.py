"""SNIA PTS HIR (host idle recovery; PTS-E 1.1 / PTS 2.0.2, as Alan-ADATA/SSS-PTS-TEST's
``BlockStorageTestHir.php`` and cloudharmony/block-storage run it): after the purge, the preconditioning and rounds
of random 4 KiB writes to steady state (:func:`helpers.run.pts._run_rounds`, the baseline), for each wait state of
5, 10, 15, 25 and 50 s: ``hir_cycles`` (PTS: 360) cycles of ``hir_write_s`` (5 s) random writes followed by the
wait (the host idle), then the same number of ``hir_write_s`` write samples without waits (the return to
baseline).  Every cycle is its own fio point tagged with its wait state, phase and start (wall-clock seconds), so
a killed HIR resumes at the cycle it lacks (the wait after the last measured cycle is slept again)."""

from __future__ import annotations

import time

from helpers.errors import LabError
from helpers.run.profiles import Point, PtsSettings


def cycle_point(s: PtsSettings, wait_s: float, phase: str, n: int) -> Point:
    """Cycle ``n`` (1-based) of a wait state's "wait" or "baseline" phase: random 4k writes at the class's
    jobs x QD for ``hir_write_s``."""
    return Point(group=f"pts-hir-{phase}{wait_s:g}s", rw="randwrite", bs_bytes=4096, iodepth=s.qd, numjobs=s.jobs,
                 ioengine=s.ioengine, runtime_s=s.hir_write_s, ramp_s=0.0, round=n, log_avg_msec=0, log_hist_msec=0)


def run_wait_states(ctx, s: PtsSettings, t: dict, active: int, sleep=time.sleep) -> None:
    """Every wait state in order: its cycles (writes, then the wait), then its return to baseline."""
    t.update({"waits_s": list(s.hir_waits), "cycles": s.hir_cycles, "write_s": s.hir_write_s})
    plan = [(w, phase, n) for w in s.hir_waits for phase in ("wait", "baseline") for n in range(1, s.hir_cycles + 1)]
    spent = 0.0  # the cycles' planned seconds so far (writes and waits): test_limit_s stops the wait states
    for i, (wait, phase, n) in enumerate(plan):
        if s.test_limit_s and spent >= s.test_limit_s:
            t["stopped_at_limit"] = {"cycles": i, "limit_s": s.test_limit_s}
            break
        spent += s.hir_write_s + (wait if phase == "wait" else 0.0)
        p = cycle_point(s, wait, phase, n)
        if ctx.done(p):
            continue
        ctx.tracker.prefix = f"PTS hir wait state {wait:g} s: {phase} cycle {n} of {s.hir_cycles}"
        ctx.tracker.remaining = sum(s.hir_write_s + (w if ph == "wait" else 0) for w, ph, _ in plan[i:])
        ctx.tracker.write(label=ctx.tracker.prefix, seconds=p.seconds + (wait if phase == "wait" else 0))
        tag = {"test": "hir", "wait_s": wait, "phase": phase, "round": n, "at_s": round(time.time(), 3)}
        entry = ctx.run_point(p, {"pts": tag}, size_bytes=active)
        if entry.get("status") != "ok":
            raise LabError(f"PTS hir cycle {p.point_id} failed: "
                           f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")
        if phase == "wait":
            sleep(wait)  # the host idle: no I/O from the lab until the next cycle
    ctx.tracker.prefix = ""
