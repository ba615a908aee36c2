"""Running fio: one process per point, argv lists (never shell strings), atomic raw files."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from helpers.fio.binary import find_fio
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.options import DIRECTIONS
from helpers.fio.reader import read_result
from helpers.fio.units import format_bytes
from helpers.run.cpu import CpuSampler
from helpers.run.profiles import Point

# fio's default percentile list plus the deep tail; printed as keys like "99.990000".
PERCENTILES = "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"
LOG_GZIP_BYTES = 256 * 1024  # fio logs larger than this are gzipped after fio exits (never fio's log_compression)


def fio_seconds(seconds: float) -> str:
    """A duration as a fio time option: whole seconds as '2s', others in milliseconds ('500ms'): fio (3.33)
    drops the fraction of '0.5s' (a 0.5 s runtime became none at all, 2.5 s became 2 s; measured)."""
    return f"{seconds:g}s" if float(seconds).is_integer() else f"{int(round(seconds * 1000))}ms"


def log_options(point: Point, prefix: Path) -> list[tuple[str, str]]:
    """fio options writing the point's per-window logs as ``<prefix>_{bw,iops,lat,clat,slat,clat_hist}.N.log``.

    bw/iops/lat logs average over ``log_avg_msec`` (without it fio logs every I/O); the histogram log
    holds fio's full completion-latency histogram per ``log_hist_msec`` window (exact percentiles)."""
    opts: list[tuple[str, str]] = []
    if point.log_avg_msec > 0:
        opts += [("write_bw_log", str(prefix)), ("write_iops_log", str(prefix)), ("write_lat_log", str(prefix)),
                 ("log_avg_msec", str(point.log_avg_msec))]
    if point.log_hist_msec > 0:
        opts += [("write_hist_log", str(prefix)), ("log_hist_msec", str(point.log_hist_msec))]
    return opts


def point_options(point: Point, target: Path, size_bytes: int, read_only: bool = False,
                  log_prefix: Path | None = None) -> list[tuple[str, str]]:
    """fio job options of one point, in order (command-line ``--k=v`` or job-file ``k=v``); with
    ``log_prefix`` the per-window logs of :func:`log_options` too."""
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
    ]
    if point.bssplit:  # a block-size mix (PTS CBW): fio draws each I/O's size from it, bs is then unused
        opts.append(("bssplit", point.bssplit))
    if point.random_distribution:
        opts.append(("random_distribution", point.random_distribution))
    if point.volume is not None:  # size-based: this much I/O (wrapping over the target), runtime only caps it
        opts.append(("io_size", str(int(round(point.volume * size_bytes)))))
    else:
        opts.append(("time_based", "1"))
    opts += [
        ("runtime", fio_seconds(point.runtime_s)),
        ("ramp_time", fio_seconds(point.ramp_s)),
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
    if point.latency_target_us is not None:  # fio's latency_target mode: fio moves the depth within 1..iodepth
        opts += [("latency_target", f"{point.latency_target_us:g}us"),
                 ("latency_percentile", f"{point.latency_percentile:g}"),
                 ("latency_window", f"{int(round(point.latency_window_s * 1e6))}us"),
                 # 0: find the depth, run one more window at it, exit (1 would keep adjusting to the end)
                 ("latency_run", "0")]
    opts += list(point.fio_extra)  # a demand probe's pinning and io_uring options (helpers.run.demand)
    if log_prefix is not None:
        opts += log_options(point, log_prefix)
    return opts


def point_argv(fio: str, point: Point, target: Path, size_bytes: int, output: Path,
               read_only: bool = False, log_prefix: Path | None = None, clocksource: str | None = None) -> list[str]:
    """The full fio command line for one sweep point (``--readonly`` for read-only sweeps; ``clocksource``: the
    sweep's clock, helpers.fio.binary.fio_clocksource)."""
    argv = [fio] + [f"--{k}={v}" for k, v in point_options(point, target, size_bytes, log_prefix=log_prefix)]
    if read_only:
        argv.insert(1, "--readonly")
    argv += clock_args(clocksource)
    if point.settle_windows > 0 or point.drop_windows > 0:  # one JSON status object per window: the live numbers
        # the settle check (or a burst drain's drop check) reads
        argv.append(f"--status-interval={status_interval(point.settle_window_ms)}")
    return argv + ["--output-format=json+", f"--output={output}"]


def clock_args(clocksource: str | None) -> list[str]:
    """``--clocksource=...`` when the sweep pinned fio's clock (fio then skips its start-up clock test)."""
    return [f"--clocksource={clocksource}"] if clocksource else []


def status_interval(ms: int) -> str:
    """fio's --status-interval value: whole seconds as a plain number, else milliseconds (``250ms``)."""
    return f"{ms // 1000}" if ms % 1000 == 0 else f"{ms}ms"


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
                 iodepth: int = 16, name: str = "prefill", clocksource: str | None = None) -> list[str]:
    """Sequential write of the whole target so that later reads hit written data."""
    return [fio] + [f"--{k}={v}" for k, v in prefill_options(target, size_bytes, bs_bytes, iodepth, name)] + [
        *clock_args(clocksource), "--output-format=json", f"--output={output}"]


@dataclass
class PointResult:
    point_id: str
    status: str  # "ok" or "failed"
    raw_file: str | None
    seconds: float
    returncode: int
    stderr: str
    argv: list[str]
    logs: list[str] = field(default_factory=list)  # fio log files next to the raw JSON (names)
    settled_s: float | None = None  # the point stopped early at this elapsed time (settle_windows)
    device_s: float | None = None  # seconds fio drove the device: ramp + runtime (fio's own, when stopped early)
    process_cpu_pct: float | None = None  # the whole fio process's CPU while it ran, % of one CPU (helpers.run.cpu)


class FioRun(NamedTuple):
    """What :func:`run_fio` returns: fio's exit code, its messages (stderr + stdout), the seconds it ran and the
    CPU of the whole process over its running part (% of one CPU, :mod:`helpers.run.cpu`; None when unread)."""

    returncode: int
    text: str
    seconds: float
    process_cpu_pct: float | None = None


class FioInterrupted(Exception):
    """fio was stopped because the sweep was interrupted (Ctrl-C / SIGTERM)."""


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}  # the sweep's stop signals (sweep._StopOnSignal)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: fio gets SIGTERM when the sweep process dies (even by kill -9), so no orphan keeps running; and the
    stop signals :func:`run_fio` blocked around the fork are unblocked for fio (a blocked mask survives exec)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return


STOP_GRACE_S = 10.0  # seconds fio gets to end its jobs after SIGINT before it is killed


def stop_process(proc: subprocess.Popen) -> None:
    """Ask fio to stop (SIGINT: it ends its jobs and exits), then kill it if it does not within
    :data:`STOP_GRACE_S`."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGINT)
        except OSError:
            pass
        try:
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


STOP_POLL_S = 0.2  # how often a running fio checks the sweep's stop request
# fio's first status object of a phase may come a whole window into its counting: with a 0.1 s ramp, fio 3.33 wrote
# its first objects at 45 ms (150 ms windows), 91 ms (200 ms) but 250 ms (250 ms windows; 2026-11-26).  Taken as
# starting nothing (strictly less than one window, before then), that window was lost, the third window came only
# at 1.0 s, the end of a 1 s probe: no probe with 250 ms windows could settle early (the first probe of every
# adaptive series, and every probe of a series below 6,700 IOPS, whose windows never shorten: it ran in full, counted
# as unsettled and so never as flat).  With a ramp shorter than a window (or none) a first object up to this many
# windows in starts its window from nothing.
FIRST_WINDOW_SLACK = 1.1


class SettleMonitor:
    """Reads fio's ``--status-interval`` objects from the output file while fio runs; ``__call__`` is True
    once, after the ramp, the last ``windows`` per-window IOPS are within ``pct`` % of their mean, or the windows
    keep a rhythm of two: the last ``windows`` + 1 alternate (up, down, up, ...) and their ``windows`` overlapping
    two-window spans are within ``pct`` / 2 % of their mean.  A device behind a token-bucket throttle completes
    I/Os in slices: measured here behind a kernel ceiling of 40,000 IOPS, alternate 150 ms windows read
    27,000-54,000 IOPS, so at QD 16 and deeper not one of 21 probes settled within 10 %, while two-window spans
    read 38,000-42,000 nearly always.  Without the alternation and the halved tolerance, two-window spans
    settled noisy probes on this VM's disk that single windows had not (19 of 183 in three bench runs; one, at
    QD 4 in a slow phase of the disk, ended a search there with its peak 82 % low).

    A window's IOPS is the growth of fio's cumulative I/O count over the growth of its runtime (ms) between
    two status objects.  fio resets its counts when ``ramp_time`` ends, seen as its runtime going back or as
    ``timestamp_ms - runtime`` (the moment it began counting) moving on by about the ramp.  The objects
    before that reset are the ramp and are dropped; the first window after it starts at the reset (0 I/Os,
    0 ms), as does the first window of a point whose first object comes at most about one window
    (:data:`FIRST_WINDOW_SLACK`, when the ramp is shorter than a window, or none) into its counting, so a point can settle
    ``windows`` windows after its ramp.  Objects that fio stamps with an ``elapsed`` second not past the ramp are dropped too.
    ``settled_s`` is the ramp plus fio's runtime at the last window: seconds into the point (the ramp
    included).  The file is read incrementally.
    """

    def __init__(self, output: Path, windows: int, pct: float, ramp_s: float, window_ms: int = 1000):
        self.output, self.windows, self.pct, self.ramp_s = output, windows, pct, ramp_s
        self.window_ms = window_ms
        self.iops: list[float] = []
        self.settled_s: float | None = None
        self._parsed = b""  # the start of the file already parsed (complete objects)
        self._samples: list[tuple[float, float]] = []  # (cumulative I/Os, runtime ms) after the ramp
        self._reset = False  # fio's end-of-ramp reset seen
        self._start: float | None = None  # timestamp_ms - runtime of the last object: when its counting began

    def _new_objects(self) -> list[dict]:
        """The complete objects written since the last call (all of them again if the file was rewritten)."""
        try:
            data = self.output.read_bytes()
        except OSError:
            return []
        if data[:len(self._parsed)] != self._parsed:  # not fio appending: start over
            self._parsed, self._samples, self._reset, self._start = b"", [], False, None
        text = data[len(self._parsed):].decode("utf-8", errors="replace")
        dec, out, i, used = json.JSONDecoder(), [], 0, 0
        while (j := text.find("{", i)) >= 0:
            try:
                obj, i = dec.raw_decode(text, j)
            except ValueError:
                break  # the object fio is writing right now
            used = i
            if isinstance(obj, dict) and obj.get("jobs"):
                out.append(obj)
        self._parsed += text[:used].encode("utf-8", errors="replace")
        return out

    def _add(self, obj: dict) -> None:
        job = obj["jobs"][0]
        if job.get("elapsed", 0) <= self.ramp_s:
            return
        ios = sum(job.get(d, {}).get("total_ios", 0) for d in DIRECTIONS)
        ms = max(job.get(d, {}).get("runtime", 0) for d in DIRECTIONS)
        stamp = obj.get("timestamp_ms")
        start = stamp - ms if isinstance(stamp, (int, float)) else None  # when fio began counting (wall ms)
        # fio reset its counts (the ramp ended): its runtime went back, or the moment it began counting moved
        # on by about the ramp (a reset between two objects that the runtime alone does not show)
        moved = start is not None and self._start is not None and start - self._start > self.ramp_s * 500 > 0
        if self._samples and (ms < self._samples[-1][1] or moved):
            self._samples, self._reset = [(0.0, 0.0)], True
        elif not self._samples and 0 < ms and (ms < self.window_ms or (  # the first object of its phase (the
                ms <= FIRST_WINDOW_SLACK * self.window_ms and self.ramp_s * 1000 < self.window_ms)):
            self._samples = [(0.0, 0.0)]  # measured time, or the ramp) started with nothing counted
        self._start = start
        self._samples.append((float(ios), float(ms)))

    def _spans(self) -> list[tuple[float, float]] | None:
        """The (I/Os, ms) of each window after the ramp so far (``self.iops``: their rates); None during a long ramp."""
        for obj in self._new_objects():
            self._add(obj)
        samples = self._samples
        if self.ramp_s * 1000 >= 2 * self.window_ms and not self._reset:
            return None  # fio writes objects during a ramp this long: until its reset they are all ramp
        spans = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(samples, samples[1:]) if b[1] > a[1] and b[0] >= a[0]]
        self.iops = [ios * 1000.0 / ms for ios, ms in spans]
        return spans

    def __call__(self) -> bool:
        spans = self._spans()
        if spans is None:
            return False
        samples = self._samples
        n = self.windows
        if len(spans) < n or not sum(self.iops[-n:]) > 0:
            return False
        # or a rhythm of two windows: a device that completes I/Os in slices (a token-bucket throttle) makes
        # windows alternate above and below a rate that two windows hold steady.  The last n + 1 windows must
        # alternate (every step changes direction) and their n overlapping two-window spans agree within half the
        # tolerance: smoothing pairs would otherwise let a noisy or drifting series through that single windows stop
        last = self.iops[-n - 1:]
        steps = [b - a for a, b in zip(last, last[1:])]
        rhythm = len(last) > n and all(x * y < 0 for x, y in zip(steps, steps[1:]))
        if self._within(self.iops[-n:], self.pct) or (rhythm and self._within(
                [(a[0] + b[0]) * 1000.0 / (a[1] + b[1]) for a, b in zip(spans[-n - 1:], spans[-n:])], self.pct / 2)):
            self.settled_s = round(self.ramp_s + samples[-1][1] / 1000.0, 3)
            return True
        return False

    @staticmethod
    def _within(values: list[float], pct: float) -> bool:
        """Every value within ``pct`` % of their mean."""
        mean = sum(values) / len(values)
        return mean > 0 and all(abs(v - mean) <= pct / 100 * mean for v in values)


class DropMonitor(SettleMonitor):
    """A burst drain's stop (``Point.drop_windows``): True once the last ``windows`` per-window IOPS (read as
    :class:`SettleMonitor` reads them) all lie below ``ratio`` x the highest median of three windows before them:
    the rate dropped from its burst and stayed low.  ``settled_s`` is when, as for a settled point."""

    def __init__(self, output: Path, windows: int, ratio: float, ramp_s: float, window_ms: int = 1000):
        super().__init__(output, windows, 0.0, ramp_s, window_ms)
        self.ratio = ratio

    def __call__(self) -> bool:
        if self._spans() is None:
            return False
        v, n = self.iops, self.windows
        if len(v) < n + 3:
            return False
        burst = max(sorted(v[i:i + 3])[1] for i in range(len(v) - n - 2))
        if burst > 0 and all(x < self.ratio * burst for x in v[-n:]):
            self.settled_s = round(self.ramp_s + self._samples[-1][1] / 1000.0, 3)
            return True
        return False


def run_fio(argv: list[str], output: Path, final: Path, timeout: float | None = None,
            on_start: Callable[[int], None] | None = None,
            stop: threading.Event | None = None,
            stop_when: Callable[[], bool] | None = None,
            poll_s: float = STOP_POLL_S) -> FioRun:
    """Run fio writing to ``output`` (a temp name), then rename to ``final`` atomically.

    Returns a :class:`FioRun` (returncode, stderr+stdout text, seconds, the process's CPU).  ``on_start(pid)`` is called once fio runs
    (the sweep records the pid in its lock).  On Ctrl-C fio is stopped cleanly, its partial output
    deleted and :class:`FioInterrupted` raised; ``final`` is only ever a complete file.  ``stop``: an
    event set by the sweep's signal handler, checked while fio runs, because a KeyboardInterrupt that
    lands inside ``fork()``'s bookkeeping is printed and swallowed by Python instead of raised.
    ``stop_when`` is polled with it: when it returns True fio is asked to stop (SIGINT: it ends the job
    and writes its complete result, as at the end of its runtime).  ``poll_s``: how often both are checked.
    """
    t0 = time.monotonic()
    kwargs = {"preexec_fn": _die_with_parent} if sys.platform.startswith("linux") else {}
    # a stop signal must not land inside Popen after the fork: its KeyboardInterrupt would leave a running fio that
    # nothing stops or waits for (seen: the SIGTERM test found fio alive after the sweep had exited).  Blocking it in
    # this thread is not enough: the kernel hands a process's signal to any thread that does not block it (the CPU
    # sampler's, the progress display's) and Python then runs the handler here all the same.  So while fio is
    # started the handlers only record the signal; it is handed to the sweep's handler once ``proc`` exists, inside
    # the try below
    block = bool(kwargs) and threading.current_thread() is threading.main_thread()
    held: list[int] = []
    if block:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        handlers = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in STOP_SIGNALS
                    if signal.getsignal(s) is not None}  # None: a handler not set from Python, left as it is

    def release() -> None:
        """The handlers back, and a signal that came meanwhile handed to its own (the sweep's raises
        KeyboardInterrupt; an ignored one stays ignored; a default one acts now)."""
        if not block:
            return
        for s, h in handlers.items():
            signal.signal(s, h)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        h = handlers[held[0]] if held else signal.SIG_IGN
        if callable(h):
            h(held[0], None)
        elif h == signal.SIG_DFL:
            signal.raise_signal(held[0])

    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    except BaseException:
        release()
        raise
    cpu = CpuSampler(proc.pid)
    try:
        release()  # a stop signal that came meanwhile raises KeyboardInterrupt here, handled below
        if on_start:
            on_start(proc.pid)
        deadline = None if timeout is None else t0 + timeout
        polling = stop is not None or stop_when is not None
        while True:
            if stop is not None and stop.is_set():
                raise KeyboardInterrupt
            if stop_when is not None and proc.poll() is None and stop_when():
                stop_process(proc)  # settled: fio ends the job and writes its complete result
                out, err = proc.communicate()
                break
            wait = poll_s if polling else None
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
                    return FioRun(124, f"fio did not finish within {timeout:.0f} s and was stopped. "
                                  f"{err or ''}".strip(), time.monotonic() - t0, cpu.finish())
    except KeyboardInterrupt:
        stop_process(proc)
        cpu.finish()
        output.unlink(missing_ok=True)
        raise FioInterrupted() from None
    except BaseException:
        proc.kill()
        proc.wait()
        cpu.finish()
        output.unlink(missing_ok=True)
        raise
    seconds = time.monotonic() - t0
    text = ((err or "") + (out or "")).strip()
    if output.exists():
        os.replace(output, final)
    return FioRun(proc.returncode, text, seconds, cpu.finish())


def run_point(point: Point, target: Path, size_bytes: int, run_dir: Path, fio: str | None = None,
              read_only: bool = False, hosts: list[str] | None = None,
              on_start: Callable[[int], None] | None = None, stop: threading.Event | None = None,
              clocksource: str | None = None) -> PointResult:
    """Run one point; the raw JSON lands verbatim in ``run_dir/<point_id>.json`` (or failed/).

    With ``hosts``, the point runs on every host at once through fio's client/server mode (each host's fio picks
    its own clock); ``clocksource``: the sweep's clock on this host.
    """
    fio = fio or find_fio()
    tmp = run_dir / f".{point.point_id}.json.tmp"
    job = None
    log_dir = None
    if hosts:  # fio's client/server mode ships logs back under other names: no logs on multi-host points
        job = run_dir / f".{point.point_id}.fio"
        job.write_text(job_file_text(point, target, size_bytes))
        argv = client_argv(fio, hosts, job, tmp, read_only=read_only)
    else:
        if point.log_avg_msec > 0 or point.log_hist_msec > 0:
            log_dir = log_dir_of(run_dir, point.point_id)
            shutil.rmtree(log_dir, ignore_errors=True)
            log_dir.mkdir()
        prefix = log_dir / point.point_id if log_dir else None
        argv = point_argv(fio, point, target, size_bytes, tmp, read_only=read_only, log_prefix=prefix,
                          clocksource=clocksource)
    timeout = point.runtime_s + point.ramp_s + 120
    final = run_dir / f"{point.point_id}.json"
    monitor = SettleMonitor(tmp, point.settle_windows, point.settle_pct, point.ramp_s, point.settle_window_ms) \
        if point.settle_windows > 0 and not hosts else None
    if point.drop_windows > 0 and not hosts:  # a burst drain: until its rate dropped and stayed low
        monitor = DropMonitor(tmp, point.drop_windows, point.drop_ratio, point.ramp_s, point.settle_window_ms)
    # the settle check looks ten times per window, so a settled point is stopped soon after its last window
    poll = min(STOP_POLL_S, point.settle_window_ms / 10_000) if monitor else STOP_POLL_S
    try:
        rc, text, seconds, process_cpu = run_fio(argv, tmp, final, timeout=timeout, on_start=on_start, stop=stop,
                                                 stop_when=monitor, poll_s=poll)
    except BaseException:
        if log_dir is not None:
            shutil.rmtree(log_dir, ignore_errors=True)
        raise
    finally:
        if job is not None:
            job.unlink(missing_ok=True)
    failed_dir = run_dir / "failed"
    if rc != 0 and monitor is not None and monitor.settled_s is not None and final.exists():
        what = "its rate dropped and stayed low" if isinstance(monitor, DropMonitor) else "its IOPS settled"
        rc_note = f"fio stopped by the lab after {what} at {monitor.settled_s:g} s (fio exit {rc})"
        text = f"{rc_note}. {text}".strip()
        rc = 0  # fio exits non-zero when stopped by SIGINT although its final result is complete
    if rc != 0:
        failed_dir.mkdir(exist_ok=True)
        if final.exists():
            os.replace(final, failed_dir / final.name)
        (failed_dir / f"{point.point_id}.stderr.txt").write_text(text + "\n")
        logs = _keep_logs(log_dir, failed_dir, point.point_id)
        return PointResult(point.point_id, "failed", None, seconds, rc, text[-2000:], argv, logs)
    # a point that failed before and succeeds now: its old failure must not be ingested as a second copy
    (failed_dir / final.name).unlink(missing_ok=True)
    (failed_dir / f"{point.point_id}.stderr.txt").unlink(missing_ok=True)
    for old in point_logs(failed_dir, point.point_id):
        old.unlink(missing_ok=True)
    logs = _keep_logs(log_dir, run_dir, point.point_id)
    settled = monitor.settled_s if monitor else None
    if settled is not None and settled >= point.ramp_s + point.runtime_s - 0.001:
        settled = None  # its last window was the end of its runtime: it ran in full
    return PointResult(point.point_id, "ok", final.name, seconds, rc, text[-2000:], argv, logs, settled,
                       device_seconds(point, final), None if hosts else process_cpu)  # a client's CPU is not fio's


def device_seconds(point: Point, raw: Path) -> float:
    """Seconds fio drove the device for one finished point: its ramp plus the runtime fio measured (its
    longest direction, as fio reports a group), at most ``runtime_s``: a point that ran in full counts
    ``ramp_s + runtime_s`` (fio's time-based runtime is never shorter), one that ended early (settled, size-based,
    fio's own early stop) what it ran.  An unreadable result counts the planned ramp + runtime."""
    try:
        result = read_result(parse_fio_bytes(Path(raw).read_bytes()))
        ran = max(x.runtime_s for e in result.entries if not e.error for x in e.directions)
    except (OSError, ValueError):  # unreadable or no direction did I/O: the planned runtime
        return point.ramp_s + point.runtime_s
    return round(point.ramp_s + min(ran, point.runtime_s), 3)


def log_dir_of(run_dir: Path, point_id: str) -> Path:
    """Where fio writes a running point's logs (a hidden temp folder, moved next to the JSON at the end)."""
    return Path(run_dir) / f".{point_id}.logs.tmp"


def point_logs(folder: Path, point_id: str) -> list[Path]:
    """The fio log files of one point in ``folder`` (``<point_id>_<kind>.<job>.log`` or ``.log.gz``)."""
    if not Path(folder).is_dir():
        return []
    return sorted(p for p in Path(folder).glob(f"{point_id}_*.log*") if p.name.endswith((".log", ".log.gz")))


def _gzip(path: Path) -> Path:
    """``path`` -> ``path.gz`` (written to a temp name, then renamed; the plain file removed)."""
    gz = path.with_name(path.name + ".gz")
    tmp = path.with_name(f".{gz.name}.tmp")
    with open(path, "rb") as src, gzip.open(tmp, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    os.replace(tmp, gz)
    path.unlink()
    return gz


def _keep_logs(log_dir: Path | None, dest: Path, point_id: str) -> list[str]:
    """Move the logs fio wrote into ``dest`` (replacing older logs of the point); large ones gzipped."""
    if log_dir is None or not log_dir.exists():
        return []
    dest.mkdir(exist_ok=True)
    for old in point_logs(dest, point_id):
        old.unlink(missing_ok=True)
    kept = []
    for f in sorted(log_dir.iterdir()):
        if not f.name.endswith(".log"):
            continue
        if f.stat().st_size > LOG_GZIP_BYTES:
            f = _gzip(f)
        os.replace(f, dest / f.name)
        kept.append(f.name)
    shutil.rmtree(log_dir, ignore_errors=True)
    return kept


def describe_point(point: Point) -> str:
    mix = f" {point.rwmixread}% read" if point.rwmixread is not None else ""
    return f"{point.rw} {format_bytes(point.bs_bytes)} QD{point.iodepth} x{point.numjobs}{mix}"
