"""Machine and device facts for the manifest (helpers.run.system), read from this machine's /proc and /sys."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from helpers.run.system import block_device_of, describe_host, describe_target, mount_of


def test_host_facts():
    h = describe_host()
    assert h["kernel"] == platform.release() and h["cpu_count"] == os.cpu_count() and h["host"]
    assert h["cpu_model"] is None or isinstance(h["cpu_model"], str)


def test_mount_of_is_the_longest_matching_mountpoint(tmp_path):
    m = mount_of(tmp_path)
    assert m is not None and m["fstype"]
    mnt = Path(m["mountpoint"])
    assert mnt == tmp_path or mnt in tmp_path.parents
    assert mount_of(Path("/proc/self"))["fstype"] == "proc"  # a nested mount beats "/"


def test_device_behind_a_file_is_in_sys(scratch_dir):
    path = scratch_dir / "system-probe.bin"
    path.write_bytes(b"x")
    info = block_device_of(path)
    if info["device"] is None:  # overlay/network filesystems have no block device behind them
        assert info == {"device": None, "disk": None, "model": None, "rotational": None}
        return
    assert Path("/sys/class/block", info["device"]).exists()
    assert Path("/sys/class/block", info["disk"]).exists()
    assert info["rotational"] in ("0", "1")
    t = describe_target(path)
    assert t["path"] == str(path) and t["device"] == info["device"] and t["mount"] == mount_of(path)


def test_a_missing_file_resolves_through_its_folder(scratch_dir):
    assert block_device_of(scratch_dir / "not-created-yet.bin") == block_device_of(scratch_dir)


def test_target_says_file_or_device_and_the_disk_capacity(scratch_dir):
    """Issue 10 point 2: the manifest names what was measured: a file (on which disk, of what size)."""
    path = scratch_dir / "system-probe.bin"
    path.write_bytes(b"x")
    t = describe_target(path)
    assert t["kind"] == "file"
    if t["disk"] is not None:
        sectors = int(Path("/sys/block", t["disk"], "size").read_text())
        assert t["capacity_bytes"] == sectors * 512 > 0
