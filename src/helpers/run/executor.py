"""The executor of a sweep: the prefill, the progress it reports, and the context that runs points and dispatches to the strategies (grid, adaptive and characterize series, demand, SLO, steady state, PTS)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from helpers.errors import LabError
from helpers.run import adaptive as adaptive_mod
from helpers.run import demand, slo_search, smart
from helpers.run import pts as pts_mod
from helpers.run.hosts import client_entries
from helpers.run.lock import SweepLocks
from helpers.run.manifest import (
    now_iso,
    write_json_atomic,
    write_manifest,
)
from helpers.run.plan import TARGET_STATES, SweepPlan, characterize_phases
from helpers.run.profiles import Point
from helpers.run.runner import (
    client_argv,
    describe_point,
    prefill_argv,
    prefill_options,
    run_fio,
    run_point,
)
from helpers.run.smart import HEALTH_SUFFIX, PointHealth
from helpers.run.steady_state import pts_steady_state
from helpers.run.target import read_sidecar, write_sidecar

PROGRESS_NAME = ".sweep.progress"  # JSON in the run folder: what the sweep is doing now (read by the pipeline)


# Set by helpers.report.pipeline for the kernels it starts: the terminal shows the live progress bar, so
# the executed notebook shows only the final count (a widget bar would be saved at its first state, 0/N).
TERMINAL_PROGRESS_ENV = "SSDLAB_TERMINAL_PROGRESS"


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
        argv = prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out, bs_bytes, iodepth, name, clocksource=plan.clock)
    try:
        rc, text, seconds, _ = run_fio(argv, out, final, timeout=6 * 3600,
                                       on_start=lambda pid: locks.set(fio_pid=pid), stop=stop)
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

    def process_cpu(self, point: Point) -> float | None:
        """The whole fio process's CPU while ``point`` ran (its manifest entry; None when not sampled)."""
        return self.manifest["points"].get(point.point_id, {}).get("process_cpu_pct")

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
                            on_start=lambda pid: self.locks.set(fio_pid=pid, point=point.point_id), stop=self.stop,
                            clocksource=plan.clock)
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
        if res.process_cpu_pct is not None:  # the whole fio process, every thread (helpers.run.cpu)
            pts[point.point_id]["process_cpu_pct"] = round(res.process_cpu_pct, 1)
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
        first = replace(p0, iodepth=qd)
        probes = [demand.probe_of(start, self.raw(first), self.process_cpu(first))]
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
            probes.append(demand.probe_of(c, self.raw(point), entry.get("process_cpu_pct")))
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
        """Per series the SLO search (helpers.run.slo_search) on the total offered load; with ``numjobs: auto`` or
        ``ioengine: auto`` a load that failed while fio was CPU-bound (host-limited) is offered again with more jobs, then
        io_uring (helpers.run.demand.more_demand), the host-limited step kept as superseded; the cross-check runs at
        the configuration the search ended with."""
        so = self.plan.profile.slo
        summary = self.manifest.setdefault("slo", {})
        bar = tqdm(desc=f"slo {self.plan.run_id}", unit="point", disable=not self.progress)
        pin = demand.cpu_list() if demand.can_pin() else None
        hipri = demand.queue_polls(self.plan.target.path)
        for p0 in self.plan.profile.points:
            history: list[slo_search.RateStep] = []
            series = p0.point_id
            cfg = start = demand.Config(p0.numjobs, p0.iodepth, p0.ioengine)
            uring = demand.io_uring_problem(self.plan.fio or "fio") is None if p0.engine_auto else False
            at = p0  # the series' point at the configuration measured last (a moved one adds the engine options)
            while True:
                nxt = slo_search.next_rate(history, so)
                if nxt is None:
                    break
                rate, kind = nxt
                if cfg != start:
                    at = replace(p0, numjobs=cfg.jobs, iodepth=cfg.qd, ioengine=cfg.engine,
                                 fio_extra=p0.fio_extra + tuple(demand.engine_options(cfg, pin, hipri)))
                point = replace(at, rate_iops=slo_search.per_job_rate(rate, cfg.jobs),
                                rate_process=p0.rate_process or "poisson")
                bar.set_postfix_str(f"{describe_point(point)} ({kind})")
                entry = self.run_point(point, {"slo": {"series": series, "kind": kind}})
                bar.update(1)
                if entry.get("status") != "ok":
                    summary[series] = {"error": f"point {point.point_id} failed; search stopped"}
                    break
                m = slo_search.point_tail(self.raw(point), so.percentile)
                cpu = demand.probe_of(cfg, self.raw(point), entry.get("process_cpu_pct")).cpu_pct
                step = slo_search.RateStep(rate, m["iops"], m["latency_us"],
                                           slo_search.meets(rate, m["iops"], m["latency_us"], so), kind,
                                           m["latency"], cfg.jobs, cfg.qd, cfg.engine, cpu)
                if slo_search.host_limited(step, so) and (more := demand.more_demand(
                        cfg, demand.usable_cpus(), p0.jobs_auto, p0.engine_auto, uring)) is not None:
                    step, cfg = replace(step, superseded=True), more  # the same load again, with more demand
                history.append(step)
            if history and "error" not in summary.get(series, {}):
                summary[series] = slo_search.summary(history, so, p0.runtime_s + p0.ramp_s)
                if so.cross_check:
                    bar.set_postfix_str(f"{describe_point(at)} (fio latency_target cross-check)")
                    summary[series]["cross_check"] = self.run_cross_check(so.cross_check_point(at), series)
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
