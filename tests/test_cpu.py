"""helpers.run.cpu: the whole fio process tree's CPU while it runs (known-answer window arithmetic; real busy
processes, a forked child's time included, as fio forks one process per job)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from helpers.run import cpu


def test_window_leaves_out_the_start_and_reads_the_rate():
    # 0.3 s of set-up at 10 % of a CPU, then 150 % of a CPU: the window from 0.3 s reads 150
    samples = [(t / 10, 0.01 * min(t, 3) + 0.15 * max(0, t - 3)) for t in range(0, 21)]
    assert cpu.window_pct(samples, started=0.0) == pytest.approx(150.0)
    assert cpu.window_pct(samples, started=0.0, startup_s=0.0) == pytest.approx(100 * samples[-1][1] / 2.0)
    assert cpu.window_pct(samples[:4], started=0.0) is None  # too short a window: no number
    assert cpu.window_pct([], started=0.0) is None


def test_an_unreadable_process_gives_none():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert cpu.process_cpu_seconds(p.pid) is None  # reaped: no /proc entry


BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"
FORKED = ("import os, sys, time\npid = os.fork()\nif pid == 0:\n" + "".join(
    "    " + line + "\n" for line in BURN.format(s=1.2).splitlines()) + "    os._exit(0)\nos.waitpid(pid, 0)\n")


@pytest.mark.quiet  # the child must get a CPU of its own: beside the parallel tests it got 52 % and skipped
def test_a_forked_child_counts_as_the_process_like_a_fio_job():
    """The parent only waits (as fio's main process does) while its forked child burns a CPU: the sampler reads
    about one CPU, not the parent's nothing."""
    load = os.getloadavg()[0]
    p = subprocess.Popen([sys.executable, "-c", FORKED])
    s = cpu.CpuSampler(p.pid)
    p.wait()
    pct = s.finish()
    assert pct is not None
    if pct < 60 and load > (os.cpu_count() or 1):
        pytest.skip(f"machine busy (load average {load:.1f}): the child got {pct:.0f} % of a CPU")
    assert 60 <= pct <= 115, pct


def test_an_idle_process_reads_near_zero():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.2)"])
    s = cpu.CpuSampler(p.pid)
    time.sleep(0.05)
    p.wait()
    pct = s.finish()
    assert pct is not None and pct < 15, pct
