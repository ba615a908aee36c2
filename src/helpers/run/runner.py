"""Running fio: one process per point, argv lists (never shell strings), atomic raw files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from helpers.fio.binary import find_fio
from helpers.fio.units import format_bytes
from helpers.run.profiles import Point

# fio's default percentile list plus the deep tail; printed as keys like "99.990000".
PERCENTILES = "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"


def point_options(point: Point, target: Path, size_bytes: int, read_only: bool = False) -> list[tuple[str, str]]:
    """fio job options of one point, in order (command-line ``--k=v`` or job-file ``k=v``)."""
    opts = [
        ("name", point.point_id),
        ("filename", str(target)),
        ("size", str(size_bytes)),
        ("rw", point.rw),
    ]
    if point.rwmixread is not None:
        opts.append(("rwmixread", str(point.rwmixread)))
    opts += [
        ("bs", str(point.bs_bytes)),
        ("iodepth", str(point.iodepth)),
        ("numjobs", str(point.numjobs)),
        ("ioengine", point.ioengine),
        ("direct", str(point.direct)),
        ("time_based", "1"),
        ("runtime", f"{point.runtime_s:g}s"),
        ("ramp_time", f"{point.ramp_s:g}s"),
        ("group_reporting", "1"),
        ("randrepeat", "0"),
        ("percentile_list", PERCENTILES),
        # percentiles of TOTAL latency (slat + clat, what an application waits for) in lat_ns.percentile;
        # fio keeps writing the completion-latency (clat) percentiles too
        ("lat_percentiles", "1"),
        # the lab creates (and marks) its files before the points run: fio never creates one itself
        ("allow_file_create", "0"),
    ]
    if point.rate_iops is not None:
        opts += [("rate_iops", str(point.rate_iops)), ("rate_process", point.rate_process or "poisson")]
    return opts


def point_argv(fio: str, point: Point, target: Path, size_bytes: int, output: Path,
               read_only: bool = False) -> list[str]:
    """The full fio command line for one sweep point (``--readonly`` for read-only sweeps)."""
    argv = [fio] + [f"--{k}={v}" for k, v in point_options(point, target, size_bytes)]
    if read_only:
        argv.insert(1, "--readonly")
    return argv + ["--output-format=json+", f"--output={output}"]


def job_file_text(point: Point, target: Path, size_bytes: int) -> str:
    """The point as a fio job file (client/server mode sends job files, not command-line options)."""
    opts = point_options(point, target, size_bytes)
    lines = [f"[{opts[0][1]}]"] + [f"{k}={v}" for k, v in opts[1:]]
    return "\n".join(lines) + "\n"


def client_argv(fio: str, hosts: list[str], job_file: Path, output: Path, read_only: bool = False) -> list[str]:
    """``fio --client=h1 job --client=h2 job ...``: every host runs the job at the same time."""
    argv = [fio]
    if read_only:
        argv.append("--readonly")
    for h in hosts:
        argv += [f"--client={client_address(h)}", str(job_file)]
    return argv + ["--output-format=json+", f"--output={output}"]


def client_address(host: str) -> str:
    """'host:port' or 'host' -> fio's 'host,port' spelling (IPv4 addresses and names)."""
    host = host.strip()
    if host.count(":") == 1:
        name, port = host.split(":")
        return f"{name},{port}"
    return host


def prefill_options(target: Path, size_bytes: int, bs_bytes: int = 1024**2, iodepth: int = 16,
                    name: str = "prefill") -> list[tuple[str, str]]:
    return [("name", name), ("filename", str(target)), ("size", str(size_bytes)), ("rw", "write"),
            ("bs", str(bs_bytes)), ("iodepth", str(iodepth)), ("ioengine", "libaio"), ("direct", "1")]


def prefill_argv(fio: str, target: Path, size_bytes: int, output: Path, bs_bytes: int = 1024**2,
                 iodepth: int = 16, name: str = "prefill") -> list[str]:
    """Sequential write of the whole target so that later reads hit written data."""
    return [fio] + [f"--{k}={v}" for k, v in prefill_options(target, size_bytes, bs_bytes, iodepth, name)] + [
        "--output-format=json", f"--output={output}"]


@dataclass
class PointResult:
    point_id: str
    status: str  # "ok" or "failed"
    raw_file: str | None
    seconds: float
    returncode: int
    stderr: str
    argv: list[str]


class FioInterrupted(Exception):
    """fio was stopped because the sweep was interrupted (Ctrl-C / SIGTERM)."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: fio gets SIGTERM when the sweep process dies (even by kill -9), so no orphan keeps running."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return


def stop_process(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """Ask fio to stop (SIGINT: it ends its jobs and exits), then kill it if it does not."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGINT)
        except OSError:
            pass
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


STOP_POLL_S = 0.2  # how often a running fio checks the sweep's stop request


def run_fio(argv: list[str], output: Path, final: Path, timeout: float | None = None,
            on_start: Callable[[int], None] | None = None,
            stop: threading.Event | None = None) -> tuple[int, str, float]:
    """Run fio writing to ``output`` (a temp name), then rename to ``final`` atomically.

    Returns (returncode, stderr+stdout text, seconds).  ``on_start(pid)`` is called once fio runs
    (the sweep records the pid in its lock).  On Ctrl-C fio is stopped cleanly, its partial output
    deleted and :class:`FioInterrupted` raised; ``final`` is only ever a complete file.  ``stop``: an
    event set by the sweep's signal handler, checked while fio runs, because a KeyboardInterrupt that
    lands inside ``fork()``'s bookkeeping is printed and swallowed by Python instead of raised.
    """
    t0 = time.monotonic()
    kwargs = {"preexec_fn": _die_with_parent} if sys.platform.startswith("linux") else {}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    try:
        if on_start:
            on_start(proc.pid)
        deadline = None if timeout is None else t0 + timeout
        while True:
            if stop is not None and stop.is_set():
                raise KeyboardInterrupt
            wait = STOP_POLL_S if stop is not None else None
            if deadline is not None:
                left = max(0.0, deadline - time.monotonic())
                wait = left if wait is None else min(wait, left)
            try:
                out, err = proc.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                if deadline is not None and time.monotonic() >= deadline:
                    stop_process(proc)
                    out, err = proc.communicate()
                    output.unlink(missing_ok=True)
                    return 124, f"fio did not finish within {timeout:.0f} s and was stopped. {err or ''}".strip(), \
                        time.monotonic() - t0
    except KeyboardInterrupt:
        stop_process(proc)
        output.unlink(missing_ok=True)
        raise FioInterrupted() from None
    except BaseException:
        proc.kill()
        proc.wait()
        output.unlink(missing_ok=True)
        raise
    seconds = time.monotonic() - t0
    text = ((err or "") + (out or "")).strip()
    if output.exists():
        os.replace(output, final)
    return proc.returncode, text, seconds


def run_point(point: Point, target: Path, size_bytes: int, run_dir: Path, fio: str | None = None,
              read_only: bool = False, hosts: list[str] | None = None,
              on_start: Callable[[int], None] | None = None, stop: threading.Event | None = None) -> PointResult:
    """Run one point; the raw JSON lands verbatim in ``run_dir/<point_id>.json`` (or failed/).

    With ``hosts``, the point runs on every host at once through fio's client/server mode.
    """
    fio = fio or find_fio()
    tmp = run_dir / f".{point.point_id}.json.tmp"
    job = None
    if hosts:
        job = run_dir / f".{point.point_id}.fio"
        job.write_text(job_file_text(point, target, size_bytes))
        argv = client_argv(fio, hosts, job, tmp, read_only=read_only)
    else:
        argv = point_argv(fio, point, target, size_bytes, tmp, read_only=read_only)
    timeout = point.runtime_s + point.ramp_s + 120
    final = run_dir / f"{point.point_id}.json"
    try:
        rc, text, seconds = run_fio(argv, tmp, final, timeout=timeout, on_start=on_start, stop=stop)
    finally:
        if job is not None:
            job.unlink(missing_ok=True)
    failed_dir = run_dir / "failed"
    if rc != 0:
        failed_dir.mkdir(exist_ok=True)
        if final.exists():
            os.replace(final, failed_dir / final.name)
        (failed_dir / f"{point.point_id}.stderr.txt").write_text(text + "\n")
        return PointResult(point.point_id, "failed", None, seconds, rc, text[-2000:], argv)
    # a point that failed before and succeeds now: its old failure must not be ingested as a second copy
    (failed_dir / final.name).unlink(missing_ok=True)
    (failed_dir / f"{point.point_id}.stderr.txt").unlink(missing_ok=True)
    return PointResult(point.point_id, "ok", final.name, seconds, rc, text[-2000:], argv)


def describe_point(point: Point) -> str:
    mix = f" {point.rwmixread}% read" if point.rwmixread is not None else ""
    return f"{point.rw} {format_bytes(point.bs_bytes)} QD{point.iodepth} x{point.numjobs}{mix}"
