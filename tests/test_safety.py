"""Safety: refusals happen before any I/O.  Checksums of a decoy file and of loop devices (file-backed
images in a disk-backed temp folder: one mounted ext4, one with an ext4 signature, one blank) are
unchanged and fio is never started.  No test points a write workload at a real disk."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.errors import LabError
from helpers.run import sweep
from helpers.run.safety import check_block_device, names_device, related_devices
from sweep_helpers import fio_recorder, sha256, write_profile

WRITE = [{"group": "w", "rw": "randwrite", "bs": "4k", "iodepth": 4}]
READ = [{"group": "r", "rw": "randread", "bs": "4k", "iodepth": 4}]
IMAGE_MB = 24


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


@pytest.fixture
def recorded_fio(tmp_path, fio_path, monkeypatch):
    """Every fio start is logged: a refusal must leave the log absent."""
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    return log


@pytest.fixture
def profiles(tmp_path):
    return {"write": write_profile(tmp_path, "wr", WRITE), "read": write_profile(tmp_path, "rd", READ)}


def _loop_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "loop-device tests need root (losetup, mount)"
    for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        out = subprocess.run(["losetup", "-f"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"losetup -f failed ({exc})"
    if out.returncode != 0 or not out.stdout.strip().startswith("/dev/loop"):
        return f"no free loop device in this sandbox (losetup -f: {out.stderr.strip() or out.stdout.strip()})"
    return None


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    """Three loop devices on file-backed images in a disk-backed folder: mounted ext4, ext4 signature, blank."""
    reason = _loop_unavailable()
    if reason:
        pytest.skip(reason)
    from helpers.run.system import mount_of
    from helpers.run.target import MEMORY_FILESYSTEMS

    d = tmp_path_factory.mktemp("loops")
    if (mount_of(d) or {}).get("fstype") in MEMORY_FILESYSTEMS:
        d = Path(__file__).resolve().parents[1] / "build" / "test-loops"
        d.mkdir(parents=True, exist_ok=True)
    devs: dict[str, Path] = {}
    mnt = d / "mnt"
    mounted = False
    try:
        for name in ("mounted", "signature", "blank"):
            img = d / f"{name}.img"
            with open(img, "wb") as f:
                f.truncate(IMAGE_MB << 20)
            out = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True, check=False)
            if out.returncode != 0:
                pytest.skip(f"losetup could not attach an image ({out.stderr.strip()})")
            devs[name] = Path(out.stdout.strip())
        for name in ("mounted", "signature"):
            subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
                            str(devs[name])], check=True, capture_output=True)
        mnt.mkdir(exist_ok=True)
        # mounted read-only so that the filesystem itself (journal, superblock counters) cannot change
        # the checksum; for the lab a read-only mount is as "mounted" as a read-write one
        subprocess.run(["mount", "-o", "ro", str(devs["mounted"]), str(mnt)], check=True, capture_output=True)
        mounted = True
        subprocess.run(["sync"], check=False)
        yield devs
    finally:
        if mounted:
            subprocess.run(["umount", str(mnt)], check=False, capture_output=True)
        for dev in devs.values():
            subprocess.run(["losetup", "-d", str(dev)], check=False, capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def _sums(devs):
    return {k: sha256(v) for k, v in devs.items()}


def _plan(target, prof, tmp_path, **kw):
    return sweep.plan_sweep(target, prof, "safety", None, "16m", tmp_path / "raw", **kw)


# ------------------------------------------------------------------------------------ files

def test_decoy_file_refused_for_writes_unless_named_and_never_touched(tmp_path, scratch_dir, profiles, recorded_fio):
    decoy = scratch_dir / "decoy-safety.bin"
    decoy.write_bytes(os.urandom(1 << 20))
    before = sha256(decoy)
    with pytest.raises(LabError, match="was not created by the lab"):
        sweep.sweep(decoy, profiles["write"], "s1", None, "1m", tmp_path / "raw", progress=False)
    with pytest.raises(LabError, match="allow_existing"):  # an override naming another file does not count
        sweep.sweep(decoy, profiles["write"], "s2", None, "1m", tmp_path / "raw", progress=False,
                    allow_existing=str(scratch_dir / "other.bin"))
    assert sha256(decoy) == before and not recorded_fio.exists()
    assert not (decoy.parent / (decoy.name + ".ssdlab.json")).exists()
    # naming it explicitly passes the checks (the plan only; the decoy is not written here)
    plan = _plan(decoy, profiles["write"], tmp_path, allow_existing=str(decoy))
    assert plan.target.path == decoy and not plan.target.owned
    # a read-only profile may read it: fio runs with --readonly, size limited to the file, no prefill
    m = sweep.sweep(decoy, profiles["read"], "s3", None, "64m", tmp_path / "raw", progress=False)
    assert m["status"] == "complete" and m["prefill"]["skipped"] and m["read_only"]
    assert m["target_size_bytes"] == 1 << 20
    assert sha256(decoy) == before
    assert "--readonly" in recorded_fio.read_text() and "--name=prefill" not in recorded_fio.read_text()
    assert not (decoy.parent / (decoy.name + ".ssdlab.json")).exists()  # never marked as the lab's


def test_make_clean_removes_only_the_lab_scratch(tmp_path, scratch_dir):
    from helpers.run.target import main as target_main

    decoy = scratch_dir / "decoy-clean.bin"
    decoy.write_bytes(b"keep me")
    assert target_main(["--remove-scratch", str(decoy)]) == 0
    assert decoy.read_bytes() == b"keep me"


# ------------------------------------------------------------------------------ block devices

def test_loop_devices_refused_for_writes_before_any_io(tmp_path, loops, profiles, recorded_fio):
    before = _sums(loops)
    for name, dev in loops.items():
        with pytest.raises(LabError, match="destroy_device parameter repeats the device name"):
            sweep.sweep(dev, profiles["write"], f"w-{name}", None, "16m", tmp_path / "raw", progress=False)
        other = loops["blank" if name != "blank" else "signature"]
        with pytest.raises(LabError, match=r"it names"):
            sweep.sweep(dev, profiles["write"], f"w2-{name}", None, "16m", tmp_path / "raw", progress=False,
                        destroy_device=str(other))
    # mounted: refused even with both overrides (no override for a mounted device)
    with pytest.raises(LabError, match=r"is mounted .*no override"):
        sweep.sweep(loops["mounted"], profiles["write"], "w3", None, "16m", tmp_path / "raw", progress=False,
                    destroy_device=str(loops["mounted"]), ignore_signature=str(loops["mounted"]))
    # an ext4 signature needs the second override
    with pytest.raises(LabError, match=r"ext4.* signature .*ignore_signature"):
        sweep.sweep(loops["signature"], profiles["write"], "w4", None, "16m", tmp_path / "raw", progress=False,
                    destroy_device=loops["signature"].name)
    assert _sums(loops) == before and not recorded_fio.exists()
    assert not (tmp_path / "raw").exists() or not any((tmp_path / "raw").rglob("manifest.json"))
    # with the overrides the checks pass (plans only: nothing runs)
    assert _plan(loops["signature"], profiles["write"], tmp_path, destroy_device=str(loops["signature"]),
                 ignore_signature=str(loops["signature"])).target.kind == "block"
    assert _plan(loops["blank"], profiles["write"], tmp_path, destroy_device=loops["blank"].name).target.kind == "block"
    assert _sums(loops) == before and not recorded_fio.exists()


def test_read_only_profile_on_devices(tmp_path, loops, profiles, recorded_fio):
    before = _sums(loops)
    with pytest.raises(LabError, match="read_only_ack"):
        sweep.sweep(loops["mounted"], profiles["read"], "r1", None, "16m", tmp_path / "raw", progress=False)
    assert not recorded_fio.exists()
    # unmounted devices may be read; a mounted one with the explicit acknowledgement (fio --readonly)
    m = sweep.sweep(loops["signature"], profiles["read"], "r2", None, "64m", tmp_path / "raw", progress=False)
    assert m["status"] == "complete" and m["target_size_bytes"] == IMAGE_MB << 20 and m["prefill"]["skipped"]
    m = sweep.sweep(loops["mounted"], profiles["read"], "r3", None, "16m", tmp_path / "raw", progress=False,
                    read_only_ack=str(loops["mounted"]))
    assert m["status"] == "complete"
    log = recorded_fio.read_text().splitlines()
    # fio's version per sweep, its clock once (the null engine: no I/O), one point per sweep, read-only
    points = [line for line in log if "--name=" in line and "--ioengine=null" not in line]
    assert len(log) == 2 + 1 + 2 and len(points) == 2 and all("--readonly" in line for line in points)
    assert _sums(loops) == before


def test_blank_loop_device_accepts_a_named_write_sweep(tmp_path, loops, profiles, fio_path):
    m = sweep.sweep(loops["blank"], profiles["write"], "blank", None, "8m", tmp_path / "raw", progress=False,
                    destroy_device=str(loops["blank"]))
    assert m["status"] == "complete" and m["target_kind"] == "block" and m["prefill"]["skipped"]


def test_device_name_matching_and_holders(tmp_path, monkeypatch):
    assert names_device("/dev/null", Path("/dev/null")) and not names_device("", Path("/dev/null"))
    assert not names_device("/dev/zero", Path("/dev/null"))
    sysfs = tmp_path / "sys"
    for d in ("sdz/sdz1/holders/md9", "sdz/holders", "md9/holders/dm-7", "dm-7/holders"):
        (sysfs / d).mkdir(parents=True, exist_ok=True)
    (sysfs / "sdz" / "sdz1" / "partition").write_text("1")
    monkeypatch.setattr("helpers.run.safety.SYS_BLOCK", sysfs)
    (sysfs / "sdz1").symlink_to(sysfs / "sdz" / "sdz1")
    related, holders = related_devices("sdz")
    assert {"sdz", "sdz1", "md9", "dm-7"} <= set(related) and holders == ["dm-7", "md9"]


def test_block_device_write_refusal_names_the_override(tmp_path):
    dev = Path("/dev/loop-control")
    if not dev.exists():
        pytest.skip("no /dev/loop-control")
    # not a block device: prepare_target refuses it as a non-regular file
    from helpers.run.target import prepare_target

    with pytest.raises(LabError, match="not a regular file or block device"):
        prepare_target(dev, "1m", writes=True)
    with pytest.raises(LabError):
        check_block_device(tmp_path / "nope", writes=True)
