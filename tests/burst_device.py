"""Test harness (not product): a block device with a known token bucket in front of it.

:class:`BucketDevice` takes its own zram device (``/sys/class/zram-control/hot_add``) and a cgroup v1 blkio group
(``blkio.throttle.read_iops_device`` / ``write_iops_device``; cgroup v2 ``io.max`` under /sys/fs/cgroup/unified
when v1 is missing), and a controller thread that every ``tick_s`` (100 ms) reads the I/Os the device completed
(``/sys/block/zramN/stat``) and follows the bucket: tokens start at ``bucket_ios``, refill at ``refill_iops``
and are spent by every I/O; the ceiling is ``burst_iops`` while the bucket holds more than a tick of it, for the
tick it empties in the rate that spends exactly what is left, else ``baseline_iops`` (:meth:`BucketDevice.ceiling`).
:meth:`BucketDevice.wrap` gives the argv that runs a command inside the group.  Everything is undone on exit,
failures included (the group removed, the device reset and removed).

As a script it runs a command against such a device (``BUCKET_DEVICE`` in its environment names it; ``{dev}`` in
the command is replaced by it), the whole command inside the throttled group:

    python tests/burst_device.py --bucket-ios 60000 --burst-iops 3000 --baseline-iops 600 -- \
        make run-all PROFILE=burst-short TARGET={dev} DESTROY_DEVICE={dev}
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ZRAM = Path("/sys/class/zram-control")
V1 = Path("/sys/fs/cgroup/blkio")
V2 = Path("/sys/fs/cgroup/unified")


def available() -> str | None:
    """None when the harness can run here, else why not (one sentence)."""
    if os.geteuid() != 0:
        return "the known-bucket device needs root (zram and the block throttle)."
    if not ZRAM.is_dir():
        os.system("modprobe zram >/dev/null 2>&1")
    if not ZRAM.is_dir():
        return "zram is not available (modprobe zram failed)."
    if not (V1 / "blkio.throttle.read_iops_device").exists() and not (V2 / "cgroup.controllers").exists():
        return "neither cgroup v1 blkio nor v2 io is mounted."
    return None


class BucketDevice:
    def __init__(self, bucket_ios: float, burst_iops: float, baseline_iops: float, refill_iops: float | None = None,
                 size: str = "256M", tick_s: float = 0.1):
        self.bucket_ios, self.burst_iops, self.baseline_iops = bucket_ios, burst_iops, baseline_iops
        self.refill_iops = baseline_iops if refill_iops is None else refill_iops
        self.size, self.tick_s = size, tick_s
        self.n: int | None = None
        self.group: Path | None = None
        self.tokens = float(bucket_ios)
        self.limit: int | None = None
        self.ticks: list[tuple[int | None, int, float]] = []  # (ceiling in effect, I/Os completed, seconds) per tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def path(self) -> str:
        return f"/dev/zram{self.n}"

    def _ios(self) -> int:
        f = Path(f"/sys/block/zram{self.n}/stat").read_text().split()
        return int(f[0]) + int(f[4])  # reads and writes completed

    def _set(self, iops: int) -> None:
        if iops == self.limit:
            return
        dev = Path(f"/sys/block/zram{self.n}/dev").read_text().strip()
        if self.v1:
            for key in ("blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"):
                (self.group / key).write_text(f"{dev} {iops}")
        else:
            (self.group / "io.max").write_text(f"{dev} riops={iops} wiops={iops}")
        self.limit = iops

    def _control(self) -> None:
        try:  # a real-time thread (root): a late tick lets the drain run past the empty bucket (a 407 IOPS refill
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))  # for 500 was read beside busy workers)
        except (OSError, AttributeError):
            pass
        last, t = self._ios(), time.monotonic()
        while not self._stop.wait(self.tick_s):
            now, ios = time.monotonic(), self._ios()
            self.ticks.append((self.limit, ios - last, now - t))
            self.tokens = min(self.bucket_ios, self.tokens + self.refill_iops * (now - t) - (ios - last))
            last, t = ios, now
            self._set(self.ceiling())

    def delivered_iops(self, ceiling: float) -> tuple[float, float, float] | None:
        """The rates (10th percentile, median, 90th percentile) the device let through over the ticks it spent under
        ``ceiling`` with I/Os completing in the tick and in both its neighbours (no drain's start or end): what the
        host drove it at -- the ceiling, tightly, on a quiet machine; less and spread when fio or the block
        throttle's dispatch is starved (a median of 2,699 against 3,000 IOPS beside four test workers).  None when
        no such tick."""
        t = self.ticks
        rates = sorted(d / dt for i, (lim, d, dt) in enumerate(t) if 0 < i < len(t) - 1 and lim == int(ceiling)
                       and dt > 0 and min(d, t[i - 1][1], t[i + 1][1]) > 0)
        if not rates:
            return None
        return rates[len(rates) // 10], float(statistics.median(rates)), rates[(len(rates) * 9) // 10]

    def ceiling(self) -> int:
        """The next tick's limit: the burst while the bucket holds more than a tick of it; the tick it empties in,
        what is left (the refill plus the tokens over the tick); else the baseline.  The limit changes only when
        the bucket does: every write of a new limit restarts the kernel's throttle slice, which lets I/Os through
        (a limit rewritten every tick around 500 IOPS gave 600)."""
        if self.tokens > self.burst_iops * self.tick_s:
            return int(self.burst_iops)
        if self.tokens > 2 * self.refill_iops * self.tick_s:  # the last of the bucket (more than the refill's noise)
            return int(min(self.burst_iops, self.refill_iops + self.tokens / self.tick_s))
        return int(self.baseline_iops)

    def rest(self, seconds: float) -> None:
        """Idle (the controller keeps refilling)."""
        time.sleep(seconds)

    @contextmanager
    def joined(self):
        """This process (and every process it starts meanwhile) inside the throttled group, moved back after."""
        key = "blkio" if self.v1 else ""
        home = next(line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                    if line.split(":", 2)[1].split(",").count(key) or line.split(":", 2)[1] == key)
        (self.group / "cgroup.procs").write_text(str(os.getpid()))
        try:
            yield self
        finally:
            ((V1 if self.v1 else V2) / home.lstrip("/") / "cgroup.procs").write_text(str(os.getpid()))

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the throttled group."""
        return ["sh", "-c", f'echo $$ > {self.group}/cgroup.procs && exec "$@"', "sh", *argv]

    def __enter__(self) -> BucketDevice:
        try:
            self.n = int(Path(ZRAM / "hot_add").read_text().strip())
            Path(f"/sys/block/zram{self.n}/disksize").write_text(self.size)
            self.v1 = (V1 / "blkio.throttle.read_iops_device").exists()
            root = V1 if self.v1 else V2
            if not self.v1:
                (V2 / "cgroup.subtree_control").write_text("+io")
            self.group = root / f"ssdlab-bucket-{os.getpid()}-{self.n}"
            self.group.mkdir()
            self._set(int(self.burst_iops))
            self._thread = threading.Thread(target=self._control, daemon=True)
            self._thread.start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        if self.group and self.group.exists():
            try:
                self.group.rmdir()
            except OSError:
                time.sleep(0.5)  # a process still leaving the group
                self.group.rmdir()
        if self.n is not None:
            Path(f"/sys/block/zram{self.n}/reset").write_text("1")
            (ZRAM / "hot_remove").write_text(str(self.n))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run a command against a zram device behind a known token bucket.")
    ap.add_argument("--bucket-ios", type=float, required=True)
    ap.add_argument("--burst-iops", type=float, required=True)
    ap.add_argument("--baseline-iops", type=float, required=True)
    ap.add_argument("--refill-iops", type=float, default=None, help="default: the baseline (gp2's rule)")
    ap.add_argument("--size", default="256M")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    why = available()
    if why or not cmd:
        print(why or "no command given (after --).", file=sys.stderr)
        return 2
    with BucketDevice(a.bucket_ios, a.burst_iops, a.baseline_iops, a.refill_iops, a.size) as dev:
        print(f"{dev.path}: bucket {a.bucket_ios:g} I/Os, burst {a.burst_iops:g} IOPS, baseline {a.baseline_iops:g} "
              f"IOPS, refill {dev.refill_iops:g} I/Os per s", file=sys.stderr)
        return subprocess.run(dev.wrap([c.replace("{dev}", dev.path) for c in cmd]),
                              env={**os.environ, "BUCKET_DEVICE": dev.path}).returncode


if __name__ == "__main__":
    sys.exit(main())
