"""For tests marked ``quiet`` (make test runs them one at a time after the parallel suite): whether the CPUs are
idle now.  The load average lags a minute behind (it still read 2.5 on an idle machine right after the parallel
phase), and the kernel's writeback of what that phase wrote kept both CPUs busy for seconds, so these tests measure
idle CPUs from /proc/stat and wait a little for them."""

from __future__ import annotations

import os
import time


def idle_cpus(seconds: float = 0.5) -> float:
    """How many CPUs sat idle over the next ``seconds`` (idle + iowait ticks of /proc/stat)."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v[:8])  # idle + iowait, all but guest time
    i0, t0 = sample()
    time.sleep(seconds)
    i1, t1 = sample()
    return (os.cpu_count() or 1) * (i1 - i0) / max(1, t1 - t0)


def wait_until_idle(need: float, timeout_s: float = 20.0) -> float:
    """Wait up to ``timeout_s`` until at least ``need`` CPUs are idle; the idle CPUs last measured."""
    end = time.monotonic() + timeout_s
    while True:
        idle = idle_cpus(0.25)  # 25 ticks per CPU: enough to tell a busy CPU from an idle one
        if idle >= need or time.monotonic() >= end:
            return idle
