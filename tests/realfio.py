"""Run a small real fio job file and ingest its output (shared by the real-fio tests)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from helpers.errors import LabError
from helpers.ingest import core as ingest
from helpers.run.refdev import reference_device

SIZE = "64m"


@contextlib.contextmanager
def still_target(fallback: Path, size_bytes: int = 64 << 20, fill: bytes | None = b"\x3c",
                 realtime: bool = False) -> Iterator[Path]:
    """A fio target that holds still beside make test's other workers: the reference device (zram; root), with this
    thread at nice -10 (real-time with ``realtime``, for a rate-limited fio: ``fio_favoured``) so that fio (a child)
    inherits it and its ticks and rate limiter run on time.  Beside four
    workers the shared disk stalled fio for a second at a time (a 500 IOPS point logged 15 and 986 I/Os in two
    windows, a 16 MiB/s write read 22.5 MB/s after the stall's catch-up, whole 1 s repeats of A fell near zero).
    Without root: ``fallback``, a file on the scratch disk of ``size_bytes`` (written once with ``fill``; with
    ``fill=None`` left to the sweep, which creates and marks its own files)."""
    with contextlib.ExitStack() as stack:
        try:
            target = stack.enter_context(reference_device(max(size_bytes, 256 << 20))).path
        except LabError:
            if fill is not None and (not fallback.exists() or fallback.stat().st_size != size_bytes):
                fallback.write_bytes(fill * size_bytes)
            yield fallback
            return
        with fio_favoured(realtime=realtime):
            yield target


# fio's real-time priority (SCHED_FIFO) in fio_favoured(realtime=True): below the bucket device's controller
# (tests/burst_device.py, 10), so that the device's ticks come first
FIO_REALTIME_PRIORITY = 5


@contextlib.contextmanager
def fio_favoured(by: int = 10, realtime: bool = False) -> Iterator[None]:
    """This thread's priority raised, so that fio started from it inherits it and its log ticks and rate limiter
    run on time beside other work: nice -``by``, or with ``realtime`` the real-time class (SCHED_FIFO), for an fio
    that sleeps most of its run (rate-limited, or on a throttled device).  Neither is a guarantee here: beside make
    test's parallel phase (2026-11-29) the bucket device test read a 404 IOPS baseline where the device delivered
    498 at nice -10 (1 of 7 runs), passed 7 of 7 real-time, then failed real-time in a make test run (a 0.4 s
    stall: this kernel, PREEMPT_NONE, finishes its own work before a waking real-time task runs), so the tests that
    need fio's timing stay in the quiet phase.  An unpaced fio on zram is all CPU: real-time, it would take a CPU
    from the other workers for its whole run (the kernel leaves them 5 %), so nice -10 there.  Root without
    CAP_SYS_NICE (a container) keeps the normal priority."""
    nice, policy, param = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0), os.sched_getparam(0)
    with contextlib.suppress(OSError):
        if realtime:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(FIO_REALTIME_PRIORITY))
        else:
            os.setpriority(os.PRIO_PROCESS, 0, nice - by)
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)
        os.setpriority(os.PRIO_PROCESS, 0, nice)


def prefill(fio: str, target: Path) -> None:
    """Write the whole 64 MiB target once (reads of a sparse file never reach the device); a block device (the
    reference device) is written every time, fio's report of it discarded."""
    device = Path(target).is_block_device()
    if device or not target.exists() or target.stat().st_size < 64 << 20:
        subprocess.run([fio, "--name=prefill", f"--filename={target}", f"--size={SIZE}", "--rw=write", "--bs=1m",
                        "--ioengine=libaio", "--iodepth=8", "--direct=1", "--output-format=json",
                        f"--output={os.devnull if device else f'{target}.prefill.json'}"], check=True,
                       capture_output=True, timeout=60)


def run_jobs(fio: str, target: Path, jobs: dict[str, dict], out: Path, runtime_s: float = 1.0,
             ramp_s: float = 0.25, **global_options) -> pd.DataFrame:
    """Run ``jobs`` (name -> fio options) one after another (stonewall) in one fio process and
    return the ingested results (flags included)."""
    opts = {"filename": target, "size": SIZE, "time_based": 1, "runtime": f"{runtime_s:g}s",
            "ramp_time": f"{ramp_s:g}s", "randrepeat": 0, **global_options}
    lines = ["[global]", *(f"{k}={v}" for k, v in opts.items())]
    for name, o in jobs.items():
        lines += [f"[{name}]", "stonewall", *(f"{k}={v}" for k, v in o.items())]
    jobfile = out.with_suffix(".fio")
    jobfile.write_text("\n".join(lines) + "\n")
    subprocess.run([fio, "--output-format=json", f"--output={out}", str(jobfile)], check=True,
                   capture_output=True, timeout=60 + len(jobs) * (runtime_s + ramp_s) * 3)
    rows, bad = ingest.rows_from_bytes(out.read_bytes(), "real-fio", out.name)
    assert not bad, bad
    results, _ = ingest.to_frames(rows, bad)
    return results
