"""Demand intensity: the drive's limit, not fio's.

A probe whose fio job used a whole CPU (:data:`CPU_BOUND_PCT`, the validity flag's own rule) measured the host's
CPU, not the device.  Wherever a search finds a peak (:func:`next_config`), such a probe is followed by

* more jobs at the same outstanding I/O (jobs x QD: PTS's thread count x queue depth), 2, 4, ... up to the CPUs
  the process may use, each job pinned to its own CPU (``cpus_allowed`` + ``cpus_allowed_policy=split``) when the
  process may pin; and
* io_uring with ``registerfiles`` and ``fixedbufs`` (``hipri`` only when the device's queue polls) where the
  engine is the limit (profile ``ioengine: auto``);

then, at the best configuration's job count, deeper outstanding I/O per engine while it pays off.  Every choice is a
measurement: the next configuration is a pure function of the ones measured (:func:`next_config`), so a resumed
sweep takes the same path.  When every configuration tried was CPU-bound, the peak is a lower bound
(:func:`lower_bound_sentence`).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import point_totals, read_result

CPU_BOUND_PCT = 90.0  # CPU per fio job near a full core (fio's usr+sys per job, or the whole process's per job)
MAX_PROBES = 12  # configurations per series at most, the start included (each one short settle-stopped probe)
# a move must add this much over the best configuration to become the best: zram holds within about 2 % between
# runs, and a doubling of a CPU-bound io_uring job's depth adds 5-15 % there
GAIN_PCT = 5.0
# an engine's line is deepened while its best reads within this much of the overall best: io_uring at a shallow depth
# can read well below libaio and still win deeper (zram, 2 jobs x QD 3: 441k against libaio's 506k; x QD 32: 895k)
LINE_PCT = 25.0
# engines whose line is deepened until two doublings in a row do not pay off on the line itself, whatever it reads
# against the best: io_uring at 2 zram jobs x QD 2 read 464k against libaio's 701k (66 %, bench-peak 2026-11-29
# 04:10) and 873k at x QD 64; at x QD 1 276k, x QD 2 348k against libaio's 615k (06:02: deepened once only, the
# search ended at 0.84); 711k at x QD 8, 719k at x QD 16 (06:10: stopped at one flat doubling, 0.88), 838k at
# x QD 32 in earlier runs
BATCHING_ENGINES = frozenset({"io_uring"})


def start_depth(steps: list[tuple[int, float]], gain_pct: float = 10.0) -> int:
    """Where the demand search starts from a finished ladder's ``(qd, iops)`` probes: the deepest depth whose IOPS
    lie within ``gain_pct`` % of the best (on a CPU-bound curve every depth past the first reads the same; the
    deepest gives the extra jobs the most outstanding I/O to share)."""
    top = max(i for _, i in steps)
    return max(q for q, i in steps if i >= top / (1 + gain_pct / 100))


@dataclass(frozen=True)
class Config:
    """One demand configuration: ``jobs`` fio jobs of queue depth ``qd`` each with ``engine``."""

    jobs: int
    qd: int
    engine: str

    @property
    def outstanding(self) -> int:
        return self.jobs * self.qd

    def phrase(self) -> str:
        """How a number was reached, for a headline: '2 jobs × QD 16, io_uring'."""
        return f"{self.jobs} job{'s' if self.jobs != 1 else ''} × QD {self.qd}, {self.engine}"


@dataclass(frozen=True)
class Probe:
    """A measured configuration: total IOPS, mean completion latency and fio's CPU % per job (usr + sys)."""

    config: Config
    iops: float
    lat_mean_us: float
    cpu_pct: float

    @property
    def cpu_bound(self) -> bool:
        return self.cpu_pct >= CPU_BOUND_PCT

    def record(self) -> dict:
        return {"jobs": self.config.jobs, "qd": self.config.qd, "ioengine": self.config.engine,
                "outstanding": self.config.outstanding, "iops": round(self.iops, 1),
                "lat_mean_us": round(self.lat_mean_us, 2), "cpu_pct": round(self.cpu_pct, 1),
                "cpu_bound": self.cpu_bound}


def cpu_per_job(fio_pct, process_pct, jobs):
    """The one CPU-per-job rule (scalars or numpy arrays): the larger of fio's own usr + sys per job (each job
    thread's) and the whole fio process's CPU (helpers.run.cpu) over its jobs, NaN ignored: fio's own misses
    io_uring's kernel workers (zram, 2 io_uring jobs: fio 51 % per job, the process 198 %)."""
    return np.fmax(fio_pct, np.asarray(process_pct, dtype=float) / np.maximum(jobs, 1))


def probe_of(config: Config, raw: Path, process_cpu_pct: float | None = None) -> Probe:
    """The record of one measured configuration from its raw fio file (the one fio reader).  Its CPU per job is the
    larger of fio's own usr + sys (each job thread's) and ``process_cpu_pct`` (the whole fio process's CPU while it
    ran, helpers.run.cpu, the manifest's point entry) over its jobs: fio's own misses io_uring's kernel workers
    (the rule of :func:`helpers.processed.validity.cpu_per_job`, on one point)."""
    res = read_result(parse_fio_bytes(Path(raw).read_bytes()))
    m = point_totals(res)
    own = [c for c in (e.usr_cpu_pct + e.sys_cpu_pct for e in res.entries if not e.error) if c == c]  # NaN: none
    proc = float("nan") if process_cpu_pct is None else float(process_cpu_pct)
    cpu = float(cpu_per_job(max(own) if own else float("nan"), proc, config.jobs))
    return Probe(config, m["iops"], m["lat_mean_us"], cpu)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_list() -> str:
    """The process's CPUs as fio's ``cpus_allowed`` list ('0-3' style, comma-joined)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = list(range(os.cpu_count() or 1))
    return ",".join(map(str, cpus))


def can_pin() -> bool:
    """Whether the process may pin threads (sched_setaffinity on itself with its own mask succeeds)."""
    try:
        os.sched_setaffinity(0, os.sched_getaffinity(0))
        return True
    except (AttributeError, OSError):
        return False


def io_uring_problem(fio: str) -> str | None:
    """Why io_uring cannot be used (one sentence), or None: fio lacks the engine, or the kernel refuses it
    (``kernel.io_uring_disabled``)."""
    try:
        out = subprocess.run([fio, "--enghelp"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"io_uring cannot be checked: {fio} --enghelp failed ({exc})."
    if "io_uring" not in out.split():
        return f"io_uring is missing from fio ({fio} --enghelp does not list it): the searches stay on libaio."
    try:
        if Path("/proc/sys/kernel/io_uring_disabled").read_text().strip() not in ("", "0"):
            return "io_uring is disabled in this kernel (kernel.io_uring_disabled): the searches stay on libaio."
    except OSError:
        pass
    return None


def queue_polls(target: str | Path) -> bool:
    """Whether the block device's queue polls (``/sys/block/X/queue/io_poll`` is 1): only then ``hipri``."""
    name = Path(os.path.realpath(target)).name
    try:
        return Path(f"/sys/block/{name}/queue/io_poll").read_text().strip() == "1"
    except OSError:
        return False


def engine_options(config: Config, pin: str | None, hipri: bool = False) -> list[tuple[str, str]]:
    """The fio options a demand configuration adds to a point: io_uring's registered files and fixed buffers
    (``hipri`` when the queue polls), and with more than one job each pinned to its own CPU of ``pin``."""
    opts: list[tuple[str, str]] = []
    if config.engine == "io_uring":
        opts += [("registerfiles", "1"), ("fixedbufs", "1")] + ([("hipri", "1")] if hipri else [])
    if pin and config.jobs > 1:
        opts += [("cpus_allowed", pin), ("cpus_allowed_policy", "split")]
    return opts


def next_config(probes: list[Probe], cpus: int, engine_auto: bool, jobs_auto: bool, max_qd: int = 1024,
                gain_pct: float = GAIN_PCT, uring: bool = True) -> Config | None:
    """The next configuration to measure, or None when the demand search is done.  From the best probe so far:

    1. when the host was the limit (it was CPU-bound, or it came from a move off a CPU-bound start) and
       ``jobs_auto``: twice its jobs (at most ``cpus``) at the same outstanding I/O (QD per job halved, at least 1);
    2. when the host was the limit, ``engine_auto`` and its engine is libaio (and io_uring works): io_uring, same
       jobs and QD;
    3. deeper demand at the best probe's job count, per engine measured there (the best's engine first): twice the
       QD per job (at most ``max_qd``) of that engine's own best (:func:`best` over its probes in the order
       measured), when that best was reached by a move (not the start probe) and reads within :data:`LINE_PCT` % of
       the overall best; for io_uring (:data:`BATCHING_ENGINES`), twice its line's deepest QD, whatever it reads
       against the best, until two doublings in a row did not pay off on the line itself (its best is neither of
       its last two probes).  An engine is deepened on its own line because io_uring batches its submissions: at
       the depth where it was switched on it can read the same as libaio, or less, and still pay off deeper (zram,
       2 jobs: 721k at QD 8 against libaio's 725k, 895k at QD 32), and one flat doubling does not end its rise;

    each only when not measured yet.  A candidate that reads less than ``gain_pct`` % over the best does not
    become the best (:func:`best`), so the search stops once no move pays off."""
    if not probes or len(probes) >= MAX_PROBES:
        return None
    b = best(probes, gain_pct)
    c = b.config
    seen = {p.config for p in probes}
    # the host was the limit: the best probe was CPU-bound, or it came from a move off a CPU-bound start (fio's usr +
    # sys per job misses what it waits for: 2 zram jobs at QD 2 read 479k at 75 % CPU each, and io_uring's kernel
    # workers; a move that does not pay off is stopped by the gain rule)
    host = b.cpu_bound or (b is not probes[0] and probes[0].cpu_bound)
    cands: list[Config] = []
    if host and jobs_auto and c.jobs * 2 <= cpus:
        cands.append(Config(c.jobs * 2, max(1, c.qd // 2), c.engine))
    if host and engine_auto and uring and c.engine == "libaio":
        cands.append(Config(c.jobs, c.qd, "io_uring"))
    engines = [c.engine] + sorted({p.config.engine for p in probes} - {c.engine})
    for engine in engines:
        line = [p for p in probes if p.config.jobs == c.jobs and p.config.engine == engine]
        if not line:
            continue
        lb = best(line, gain_pct)
        if lb is probes[0]:
            continue
        # io_uring is deepened while its own line still gains, whatever it reads against the best: its batching pays
        # only deeper, and not at every doubling (zram, 2 jobs: 711k at x QD 8, 719k at 16, 838k at 32), so its line
        # ends after two doublings in a row that did not pay off, as the QD ladder does
        deepest = max(line, key=lambda p: p.config.qd)
        if engine in BATCHING_ENGINES and any(p is lb for p in line[-2:]):
            qd = deepest.config.qd * 2
        elif lb.iops >= b.iops * (1 - LINE_PCT / 100):
            qd = lb.config.qd * 2
        else:
            continue
        if qd <= max_qd:
            cands.append(Config(c.jobs, qd, engine))
    return next((x for x in cands if x not in seen), None)


def more_demand(config: Config, cpus: int, jobs_auto: bool, engine_auto: bool, uring: bool = True) -> Config | None:
    """The next configuration to offer a load that failed while fio was CPU-bound (the SLO search's step: a rate, not a depth,
    sets the load): twice the jobs (at most ``cpus``) at the same outstanding I/O ceiling, else io_uring in place
    of libaio; None when no move is left (a fixed ``numjobs``/``ioengine`` is obeyed)."""
    if jobs_auto and config.jobs * 2 <= cpus:
        return Config(config.jobs * 2, max(1, config.qd // 2), config.engine)
    if engine_auto and uring and config.engine == "libaio":
        return Config(config.jobs, config.qd, "io_uring")
    return None


def deepest_points(points) -> dict:
    """The deepest point of each grid series with ``numjobs``/``ioengine: auto`` (everything but the depth alike;
    its first repeat): where a grid's demand search starts.  Keyed by the series (the point at depth 0)."""
    out: dict = {}
    for p in points:
        if (p.jobs_auto or p.engine_auto) and p.repeat <= 1:
            key = replace(p, iodepth=0, repeat=0)
            if key not in out or p.iodepth > out[key].iodepth:
                out[key] = p
    return out


def best(probes: list[Probe], gain_pct: float = GAIN_PCT) -> Probe:
    """The best configuration: in the order measured, a probe replaces the best so far only when it reads more
    than ``gain_pct`` % over it (a move that does not pay off beyond the noise keeps the simpler setting)."""
    b = probes[0]
    for p in probes[1:]:
        if p.iops > b.iops * (1 + gain_pct / 100):
            b = p
    return b


def lower_bound(probes: list[Probe]) -> bool:
    """Every configuration tried was CPU-bound: the peak is the host's limit, a lower bound of the device's."""
    return bool(probes) and all(p.cpu_bound for p in probes)


def lower_bound_sentence(iops: float, config: Config | None = None) -> str:
    """The one sentence a peak reached only CPU-bound carries."""
    at = f" at {config.phrase()}" if config else ""
    return (f"At least {iops / 1000:,.0f}k IOPS{at}: fio used a whole CPU for every job it ran, so the device may "
            "do more (the number is the host's limit, not the drive's).")


def summary(probes: list[Probe], gain_pct: float = GAIN_PCT) -> dict:
    """The manifest's record of a series' demand search: every probe, the best configuration and whether it
    is only a lower bound."""
    b = best(probes, gain_pct)
    return {"probes": [p.record() for p in probes], "best": b.record(), "setting": b.config.phrase(),
            "lower_bound": lower_bound(probes),
            "sentence": lower_bound_sentence(b.iops, b.config) if lower_bound(probes) else None}


def input_problems(jobs_auto: bool, engine_auto: bool, max_jobs: int, fio: str, uses_uring: bool) -> list[str]:
    """One sentence per bad input, each naming the fallback the lab takes, checked before any I/O: ``numjobs: auto``
    where the process may not pin, a profile asking more jobs than CPUs, io_uring missing from fio or kernel."""
    out = []
    cpus = usable_cpus()
    if jobs_auto and not can_pin():
        out.append("numjobs: auto, but this process may not pin its jobs to CPUs: the extra jobs run unpinned.")
    if max_jobs > cpus:
        out.append(f"the profile asks for {max_jobs} jobs but this process may use {cpus} CPU(s): the jobs beyond "
                   "them share CPUs, so such points can measure the host rather than the device.")
    if engine_auto or uses_uring:
        if (why := io_uring_problem(fio)) is not None:
            out.append(why)
    return out
