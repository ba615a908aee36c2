"""Locks: one sweep per target and per run; a clear message names the other process; stale locks
(dead pid, kill -9) are taken over, and an orphaned fio child of a crashed sweep is stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from helpers.errors import LabError
from helpers.run.lock import SweepLocks, pid_alive, target_lock_path
from sweep_helpers import ROOT, write_profile


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def test_second_sweep_on_same_target_or_run_is_refused_naming_the_holder(tmp_path):
    t1, t2 = tmp_path / "a.bin", tmp_path / "b.bin"
    with SweepLocks(t1, tmp_path / "raw" / "r1", "r1"):
        with pytest.raises(LabError) as exc:
            SweepLocks(t1, tmp_path / "raw" / "r2", "r2").acquire()
        msg = str(exc.value)
        assert f"target {t1} is in use by another sweep (pid {os.getpid()}" in msg and "run_id r1" in msg
        assert "\n" not in msg
        with pytest.raises(LabError, match=r"run r1 is in use by another sweep"):
            SweepLocks(t2, tmp_path / "raw" / "r1", "r1").acquire()
        # the failed attempt did not keep the other target's lock
        with SweepLocks(t2, tmp_path / "raw" / "r3", "r3"):
            pass
    with SweepLocks(t1, tmp_path / "raw" / "r2", "r2"):  # released: free again
        pass


def test_lock_held_by_another_process_refuses_a_real_sweep_before_io(tmp_path, scratch_dir, fio_path):
    target = scratch_dir / "locked.bin"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         ("import sys, time; from pathlib import Path; from helpers.run.lock import SweepLocks;"
         f"l = SweepLocks(Path({str(target)!r}), Path({str(tmp_path / 'other')!r}), 'other-run').acquire();"
         "print('ready', flush=True); time.sleep(60)")],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        from helpers.run import sweep

        prof = write_profile(tmp_path, "one", [{"rw": "randread", "bs": "4k"}])
        with pytest.raises(LabError) as exc:
            sweep.sweep(target=target, profile=prof, run_id="mine", size="8m", raw_dir=tmp_path / "raw",
                        progress=False)
        assert f"pid {holder.pid}" in str(exc.value) and "other-run" in str(exc.value)
        assert not target.exists()  # refused before the prefill
        assert not (tmp_path / "raw" / "mine" / "manifest.json").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder died without releasing: its lock is stale and is taken over
    locks = SweepLocks(target, tmp_path / "raw" / "mine", "mine").acquire()
    try:
        assert [t["pid"] for t in locks.took_over] == [holder.pid]
    finally:
        locks.release()


def test_stale_lock_of_dead_pid_is_taken_over_and_its_orphan_fio_stopped(tmp_path, scratch_dir, fio_path):
    data = scratch_dir / "orphan.bin"
    data.write_bytes(b"\0" * (4 << 20))
    orphan = subprocess.Popen([fio_path, "--name=orphan", f"--filename={data}", "--size=4m", "--rw=read",
                               "--bs=4k", "--time_based=1", "--runtime=60s", "--readonly",
                               "--output=/dev/null"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert not pid_alive(dead.pid)
    target = tmp_path / "t.bin"
    lock = target_lock_path(target)
    lock.write_text(json.dumps({"pid": dead.pid, "run_id": "crashed", "fio_pid": orphan.pid}))
    time.sleep(0.3)
    t0 = time.monotonic()
    locks = SweepLocks(target, tmp_path / "raw" / "r", "r").acquire()
    try:
        assert locks.took_over and locks.took_over[0]["run_id"] == "crashed"
        assert orphan.wait(timeout=15) is not None  # fio was stopped by the takeover
        assert time.monotonic() - t0 < 15
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    finally:
        locks.release()
        if orphan.poll() is None:
            orphan.kill()
