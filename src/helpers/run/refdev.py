"""A reference device for tests and benchmarks: a fast block device that holds still.

zram (a compressed RAM disk) when the kernel has it: each process gets its own device
(``/sys/class/zram-control/hot_add``) and removes it afterwards; else a loop device on an image in tmpfs
(``/dev/shm``).  Both are memory, not an SSD: every I/O completes on the submitting CPU, so they behave like a
very fast drive behind a weak host and show whether the lab measures the drive or fio's CPU.  The device is
used through the lab's own block-device safety rules (``DESTROY_DEVICE``/``IGNORE_SIGNATURE`` name it) and is
reset and removed on leaving the context, also on failure.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from helpers.errors import LabError

ZRAM_CONTROL = Path("/sys/class/zram-control")
SHM = Path("/dev/shm")


@dataclass(frozen=True)
class RefDevice:
    path: Path
    kind: str  # "zram" or "tmpfs-loop"

    @property
    def sentence(self) -> str:
        """What the device is, in one sentence (the device card says it)."""
        return describe(self.path)


def describe(path: str | Path) -> str:
    """One sentence saying what a memory-backed reference device is ('' for any other target)."""
    name = Path(str(path)).name
    if name.startswith("zram"):
        return (f"{path} is zram, a compressed RAM disk: memory, not an SSD; every I/O completes on the submitting "
                "CPU, so it shows the host's limit and whether fio, not the device, was the bottleneck.")
    if name.startswith("loop") and _loop_backing(name).startswith(str(SHM)):
        return (f"{path} is a loop device on an image in tmpfs (RAM): memory, not an SSD; every I/O completes on the "
                "submitting CPU, so it shows the host's limit rather than a drive's.")
    return ""


def _loop_backing(name: str) -> str:
    try:
        return Path(f"/sys/block/{name}/loop/backing_file").read_text().strip()
    except OSError:
        return ""


def _zram(size_bytes: int) -> RefDevice | None:
    if not ZRAM_CONTROL.exists():
        subprocess.run(["modprobe", "zram", "num_devices=0"], capture_output=True)
    if not ZRAM_CONTROL.exists():
        return None
    try:
        n = int((ZRAM_CONTROL / "hot_add").read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        Path(f"/sys/block/zram{n}/disksize").write_text(str(size_bytes))
    except OSError:
        _zram_remove(n)
        return None
    return RefDevice(Path(f"/dev/zram{n}"), "zram")


def _zram_remove(n: int, tries: int = 20) -> None:
    """Reset and remove zram ``n``; a device still open for a moment after fio exits (udev's probe of a closed
    device) refuses both with EBUSY, so each is retried for up to ``tries`` x 0.1 s."""
    for path, value in ((Path(f"/sys/block/zram{n}/reset"), "1"), (ZRAM_CONTROL / "hot_remove", str(n))):
        for _ in range(tries):
            try:
                path.write_text(value)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)


def _tmpfs_loop(size_bytes: int) -> tuple[RefDevice, Path] | None:
    if not SHM.is_dir():
        return None
    img = SHM / f"ssdlab-ref-{id(object()):x}.img"
    with open(img, "wb") as f:
        f.truncate(size_bytes)
    r = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", str(img)], capture_output=True, text=True)
    if r.returncode != 0:
        r = subprocess.run(["losetup", "--find", "--show", str(img)], capture_output=True, text=True)
    if r.returncode != 0:
        img.unlink(missing_ok=True)
        return None
    return RefDevice(Path(r.stdout.strip()), "tmpfs-loop"), img


@contextlib.contextmanager
def reference_device(size_bytes: int = 1 << 30, kind: str | None = None) -> Iterator[RefDevice]:
    """A fresh reference device of ``size_bytes`` (``kind``: "zram", "tmpfs-loop" or None for the first that
    works), reset and removed on leaving, also when the body raised.  Needs root; a :class:`LabError` in one
    sentence when no kind can be made."""
    dev = img = None
    if kind in (None, "zram"):
        dev = _zram(size_bytes)
    if dev is None and kind in (None, "tmpfs-loop"):
        made = _tmpfs_loop(size_bytes)
        if made:
            dev, img = made
    if dev is None:
        raise LabError("no reference device: neither zram nor a loop device on tmpfs could be made (needs root).")
    try:
        yield dev
    finally:
        if dev.kind == "zram":
            _zram_remove(int(dev.path.name.removeprefix("zram")))
        else:
            subprocess.run(["losetup", "-d", str(dev.path)], capture_output=True)
            if img is not None:
                img.unlink(missing_ok=True)
