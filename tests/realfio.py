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
def still_target(fallback: Path, size_bytes: int = 64 << 20, fill: bytes = b"\x3c") -> Iterator[Path]:
    """A fio target that holds still beside make test's other workers: the reference device (zram; root), with this
    thread at nice -10 so that fio (a child) inherits it and its ticks and rate limiter run on time.  Beside four
    workers the shared disk stalled fio for a second at a time (a 500 IOPS point logged 15 and 986 I/Os in two
    windows, a 16 MiB/s write read 22.5 MB/s after the stall's catch-up, whole 1 s repeats of A fell near zero).
    Without root: ``fallback``, a file on the scratch disk of ``size_bytes`` (written once with ``fill``)."""
    with contextlib.ExitStack() as stack:
        try:
            target = stack.enter_context(reference_device(max(size_bytes, 256 << 20))).path
        except LabError:
            if not fallback.exists() or fallback.stat().st_size != size_bytes:
                fallback.write_bytes(fill * size_bytes)
            yield fallback
            return
        with fio_favoured():
            yield target


@contextlib.contextmanager
def fio_favoured(by: int = 10) -> Iterator[None]:
    """This thread's priority raised by ``by`` (nice -10), so that fio started from it inherits it: its log ticks
    and rate limiter run on time beside make test's other workers.  Root without CAP_SYS_NICE (a container) keeps
    the normal priority."""
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, nice - by)
    try:
        yield
    finally:
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
