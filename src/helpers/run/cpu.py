"""The fio process's own CPU while it runs: all its processes and threads, sampled from ``/proc/<pid>/stat``.

fio's usr/sys figures are each job thread's own (getrusage per thread).  They miss the work the kernel does for an
io_uring job in its io-wq worker threads, which run as threads of the fio process: on zram, 2 io_uring jobs at
QD 32 read 53 % of a CPU per job in fio's output while the process used 187 % of a CPU (both CPUs of the machine),
and one io_uring job read 98 % while the process used 182 % (measured 2026-11-29 with ``os.wait4``).  The
process's CPU over its running part is what says whether fio as a whole was the limit (the validity flag and the
demand search take the larger of the two per job: :func:`helpers.processed.validity.cpu_per_job`).

The rate is taken over the samples from :data:`STARTUP_S` after fio started to the last one before it exited:
fio's own start (options, buffers, registered files) and teardown (the JSON) cost 0.1-0.2 s of CPU that is not
I/O, which over a 1 s probe would read as 15 % more than the I/O used.
"""

from __future__ import annotations

import os
import threading
import time

STARTUP_S = 0.3  # left out at the start: fio's own set-up, not its I/O
SAMPLE_S = 0.1  # how often the process's CPU time is read
MIN_WINDOW_S = 0.25  # a shorter sampled window gives no number (clock ticks are 10 ms)
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (every thread, exited ones included) and of its children it
    has reaped (cutime + cstime), or None when it cannot be read (gone, or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2:].split()  # after the command name: state is field 3, utime 14 .. cstime 17
    try:
        return sum(int(x) for x in fields[11:15]) / _TICK
    except ValueError:
        return None


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            continue
    return out


def process_cpu_seconds(pid: int, depth: int = 3) -> float | None:
    """User + system CPU seconds so far of process ``pid`` and its descendants: fio forks one process per job (the
    main process only starts and reaps them), and an io_uring job's kernel workers are threads of its process.  The
    children's time counts while they run (their own stat) and once reaped (the parent's cutime/cstime).  None when
    ``pid`` cannot be read."""
    own = _stat_seconds(pid)
    if own is None or depth <= 0:
        return own
    return own + sum(c for c in (process_cpu_seconds(k, depth - 1) for k in _children(pid)) if c is not None)


def window_pct(samples: list[tuple[float, float]], started: float, startup_s: float = STARTUP_S) -> float | None:
    """Percent of one CPU the process used over ``samples`` ((monotonic time, CPU seconds), in order) from
    ``startup_s`` after ``started`` to the last sample; None when that window is shorter than
    :data:`MIN_WINDOW_S`."""
    kept = [s for s in samples if s[0] >= started + startup_s]
    if len(kept) < 2 or kept[-1][0] - kept[0][0] < MIN_WINDOW_S:
        return None
    (t0, c0), (t1, c1) = kept[0], kept[-1]
    return 100.0 * (c1 - c0) / (t1 - t0)


class CpuSampler:
    """Reads a running process's CPU time every :data:`SAMPLE_S` in a thread of its own; :meth:`finish` stops it
    and returns :func:`window_pct` of what it read."""

    def __init__(self, pid: int, interval: float = SAMPLE_S) -> None:
        self.pid, self.interval = pid, interval
        self.started = time.monotonic()
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"cpu-{pid}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        top = 0.0
        while True:
            cpu = process_cpu_seconds(self.pid)
            if cpu is None:
                return
            top = max(top, cpu)  # a child that exited but is not reaped yet reads nothing for a moment
            self.samples.append((time.monotonic(), top))
            if self._stop.wait(self.interval):
                return

    def finish(self) -> float | None:
        self._stop.set()
        self._thread.join()
        return window_pct(self.samples, self.started)
