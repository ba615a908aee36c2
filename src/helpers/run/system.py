"""Facts about the machine and the device behind a target, for the run manifest."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path


def _read(path: Path | str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_model() -> str | None:
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        if line.lower().startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def mount_of(path: Path) -> dict[str, str] | None:
    """The /proc/mounts entry (device, mountpoint, fstype) that holds ``path``."""
    path = path.resolve()
    best = None
    for line in (_read("/proc/mounts") or "").splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        dev, mnt, fstype = parts[0], parts[1].replace("\\040", " "), parts[2]
        if (path == Path(mnt) or Path(mnt) in path.parents) and (best is None or len(mnt) > len(best["mountpoint"])):
            best = {"source": dev, "mountpoint": mnt, "fstype": fstype}
    return best


def block_device_of(path: Path) -> dict[str, str | None]:
    """Resolve the block device (and its whole-disk parent and model) behind a file or device."""
    info: dict[str, str | None] = {"device": None, "disk": None, "model": None, "rotational": None}
    try:
        st = path.stat() if path.exists() else path.parent.stat()
    except OSError:
        return info
    import stat as _stat

    rdev = st.st_rdev if _stat.S_ISBLK(st.st_mode) else st.st_dev
    sys_link = Path(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")
    if not sys_link.exists():
        return info
    real = sys_link.resolve()
    info["device"] = real.name
    disk = real.parent if (real / "partition").exists() else real
    info["disk"] = disk.name
    info["model"] = _read(disk / "device" / "model") or _read(disk / "device" / "name")
    info["rotational"] = _read(disk / "queue" / "rotational")
    if info["model"] is None:
        try:
            out = subprocess.run(["lsblk", "-ndo", "MODEL", f"/dev/{disk.name}"], capture_output=True, text=True,
                                 timeout=10)
            info["model"] = out.stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            pass
    return info


def describe_host() -> dict[str, object]:
    return {
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }


def disk_capacity_bytes(disk: str | None) -> int | None:
    """Size of a whole disk (``/sys/block/<disk>/size`` counts 512-byte sectors); None when unknown."""
    sectors = _read(f"/sys/block/{disk}/size") if disk else None
    return int(sectors) * 512 if sectors and sectors.isdigit() else None


def describe_target(path: Path) -> dict[str, object]:
    """Path, kind ('file' or 'block device'), mount, device, disk, model, rotational and the disk's capacity."""
    import stat as _stat

    try:
        kind = "block device" if _stat.S_ISBLK(path.stat().st_mode) else "file"
    except OSError:
        kind = "file"  # not created yet: the lab creates files, never devices
    dev = block_device_of(path)
    return {"path": str(path), "kind": kind, "mount": mount_of(path), **dev,
            "capacity_bytes": disk_capacity_bytes(dev["disk"])}
