"""Locks that keep two sweeps off the same target (or the same run folder) at once.

A lock is a small JSON file held with ``fcntl.flock``: the kernel drops the lock when the holding
process dies (even on ``kill -9``), so a lock left behind by a dead process is taken over
automatically.  The file records who holds it (pid, run id, command, start time) so that a
refusal can name the other process, and the pid of the fio child currently running, so that a
sweep taking over after a crash can wait for (or stop) a fio process orphaned by the crash.

Target locks live in a machine-wide folder (``/run/lock/ssdlab`` or ``$TMPDIR/ssdlab-locks``),
keyed by the target's resolved path, because two sweeps may use different data folders but the
same device.  Run locks live in the run folder itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

from helpers.errors import LabError

LOCK_DIRS = (Path("/run/lock/ssdlab"), Path(tempfile.gettempdir()) / "ssdlab-locks")
RUN_LOCK_NAME = ".sweep.lock"


def lock_dir() -> Path:
    override = os.environ.get("SSDLAB_LOCK_DIR")
    for d in ([Path(override)] if override else []) + list(LOCK_DIRS):
        try:
            d.mkdir(parents=True, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    raise LabError("no writable folder for sweep locks (tried /run/lock/ssdlab and the temp folder).")


def target_lock_path(target: Path) -> Path:
    real = os.path.realpath(str(target))
    digest = hashlib.sha1(real.encode()).hexdigest()[:16]
    safe = "".join(c if c.isalnum() else "_" for c in real)[-60:]
    return lock_dir() / f"target-{safe}-{digest}.lock"


def pid_alive(pid: int | None) -> bool:
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie is dead for our purposes
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class Lock:
    """An exclusive, non-blocking lock on ``path`` describing its holder as JSON."""

    def __init__(self, path: Path, what: str, info: dict | None = None):
        self.path = Path(path)
        self.what = what  # "target /x/y" or "run R": used in messages
        self.info = dict(info or {})
        self.fd: int | None = None
        self.took_over: dict | None = None  # the dead holder's record, when a stale lock was taken over

    def _read(self) -> dict:
        try:
            return json.loads(self.path.read_text() or "{}")
        except (OSError, ValueError):
            return {}

    def acquire(self) -> Lock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LabError(self._busy_message()) from None
        previous = self._read()
        if previous.get("pid") and previous.get("pid") != os.getpid():
            self.took_over = previous
            _stop_orphan_fio(previous.get("fio_pid"))
        self.fd = fd
        self.info.update({"pid": os.getpid(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                          "command": " ".join(sys.argv)[:300]})
        self._write()
        return self

    def _busy_message(self) -> str:
        other = self._read()
        pid = other.get("pid")
        who = f"pid {pid}" if pid else "another process"
        extra = ", ".join(f"{k} {other[k]}" for k in ("run_id", "started") if other.get(k))
        cmd = other.get("command") or (_cmdline(pid) if pid else "")
        if pid:
            return (f"{self.what} is in use by another sweep ({who}{', ' + extra if extra else ''}"
                    f"{', command: ' + cmd[:160] if cmd else ''}): wait for it to finish or stop it "
                    f"(kill -INT {pid}), then start again.")
        return f"{self.what} is locked by another process ({self.path}): wait for it to finish, then start again."

    def check_free(self) -> None:
        """Raise the refusal :meth:`acquire` would raise when another process holds the lock; creates
        nothing (a preflight check, so that a refused sweep leaves no folder behind)."""
        if self.fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return  # no lock file: nobody holds it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LabError(self._busy_message()) from None
        finally:
            os.close(fd)

    def _write(self) -> None:
        if self.fd is None:
            return
        data = json.dumps(self.info).encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)

    def set(self, **fields) -> None:
        """Update the holder record (e.g. the pid of the running fio child)."""
        self.info.update(fields)
        self._write()

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.ftruncate(self.fd, 0)
            self.path.unlink(missing_ok=True)
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Self:
        return self.acquire() if self.fd is None else self

    def __exit__(self, *exc) -> None:
        self.release()


def _stop_orphan_fio(fio_pid: int | None, wait_s: float = 10.0) -> None:
    """A crashed sweep's fio child may still be running: ask it to stop and wait for it."""
    if not pid_alive(fio_pid) or "fio" not in _cmdline(fio_pid):
        return
    try:
        os.kill(fio_pid, signal.SIGINT)
    except OSError:
        return
    deadline = time.monotonic() + wait_s
    while pid_alive(fio_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(fio_pid):
        try:
            os.kill(fio_pid, signal.SIGKILL)
        except OSError:
            pass


class SweepLocks:
    """The target lock and the run lock together (target first, so the message names the device)."""

    def __init__(self, target: Path, run_dir: Path, run_id: str, extra_targets: list[Path] | None = None):
        info = {"run_id": run_id, "target": str(target), "run_dir": str(run_dir)}
        self.locks = [Lock(target_lock_path(target), f"target {target}", info)]
        for t in extra_targets or []:
            self.locks.append(Lock(target_lock_path(t), f"target {t}", info))
        self.locks.append(Lock(Path(run_dir) / RUN_LOCK_NAME, f"run {run_id}", info))

    def acquire(self) -> SweepLocks:
        taken: list[Lock] = []
        try:
            for lk in self.locks:
                taken.append(lk.acquire())
        except BaseException:
            for lk in reversed(taken):
                lk.release()
            raise
        return self

    def check_free(self) -> None:
        """Preflight: the refusal :meth:`acquire` would raise, without creating anything."""
        for lk in self.locks:
            lk.check_free()

    @property
    def took_over(self) -> list[dict]:
        return [lk.took_over for lk in self.locks if lk.took_over]

    def set(self, **fields) -> None:
        for lk in self.locks:
            lk.set(**fields)

    def release(self) -> None:
        for lk in reversed(self.locks):
            lk.release()

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
