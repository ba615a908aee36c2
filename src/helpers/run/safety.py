"""Block-device safety: every check runs before any I/O and only *reads* system state.

Rules (documented in docs/sweeps.md):

* A write workload on a block device needs ``destroy_device`` to repeat the device's name
  (``/dev/sdX`` or ``sdX``); a read-only profile needs nothing more when the device is unused.
* Always refused (no override): the device, one of its partitions or a holder of it is mounted,
  is active swap, or is part of md RAID / device-mapper (LVM, dm-crypt).  For read-only profiles
  an explicit ``read_only_ack`` naming the device allows reading a device that is in use.
* A device that carries a filesystem, RAID/LVM member or partition-table signature is refused
  for writes unless a second override, ``ignore_signature``, also repeats the device name.

Signatures are found with ``blkid -p`` (probing the device itself, not udev's cache) and, in
addition, by reading a few well-known magic numbers directly (read-only), so that a machine
without blkid is still protected.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from helpers.errors import LabError

SYS_BLOCK = Path("/sys/class/block")


@dataclass
class DeviceState:
    path: Path
    name: str
    size_bytes: int
    related: list[str] = field(default_factory=list)  # device, partitions, holders (recursive)
    mounted: list[str] = field(default_factory=list)  # "loop0 on /mnt"
    swap: list[str] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)  # md*/dm-* holding the device or a partition
    signatures: list[str] = field(default_factory=list)  # "ext4", "gpt", ...

    @property
    def in_use(self) -> list[str]:
        out = [f"mounted ({', '.join(self.mounted)})"] if self.mounted else []
        if self.swap:
            out.append(f"used as swap ({', '.join(self.swap)})")
        if self.holders:
            out.append(f"part of md/LVM/device-mapper (held by {', '.join(self.holders)})")
        return out


def is_block_device(path: Path) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def sys_name(path: Path) -> str:
    st = os.stat(path)
    link = Path(f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
    return link.resolve().name if link.exists() else Path(os.path.realpath(path)).name


def _read(p: Path) -> str:
    try:
        return p.read_text().strip()
    except OSError:
        return ""


def partitions_of(name: str) -> list[str]:
    d = SYS_BLOCK / name
    try:
        real = d.resolve()
        return sorted(c.name for c in real.iterdir() if (c / "partition").exists())
    except OSError:
        return []


def holders_of(name: str) -> list[str]:
    try:
        return sorted(h.name for h in (SYS_BLOCK / name / "holders").iterdir())
    except OSError:
        return []


def related_devices(name: str) -> tuple[list[str], list[str]]:
    """(device + partitions + holders recursively, the holders alone)."""
    seen: list[str] = []
    holders: list[str] = []
    todo = [name] + partitions_of(name)
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.append(n)
        for h in holders_of(n):
            holders.append(h)
            todo.append(h)
            todo.extend(partitions_of(h))
    if (SYS_BLOCK / name / "md").exists() and name not in holders:
        pass  # the device *is* an md array: its own members are not our concern
    return seen, sorted(set(holders))


def device_size(name: str) -> int:
    sectors = _read(SYS_BLOCK / name / "size")
    return int(sectors) * 512 if sectors.isdigit() else 0


def mounted_users(related: list[str]) -> list[str]:
    devnums = {_read(SYS_BLOCK / n / "dev"): n for n in related}
    out = []
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        parts = line.split()
        if len(parts) < 10:
            continue
        majmin, mnt = parts[2], parts[4].replace("\\040", " ")
        source = parts[parts.index("-") + 2] if "-" in parts else ""
        name = devnums.get(majmin)
        if name is None and source.startswith("/dev/"):
            real = Path(os.path.realpath(source)).name
            name = real if real in related else None
        if name:
            out.append(f"{name} on {mnt}")
    return sorted(set(out))


def swap_users(related: list[str]) -> list[str]:
    out = []
    for line in _read(Path("/proc/swaps")).splitlines()[1:]:
        src = line.split()[0] if line.split() else ""
        if Path(os.path.realpath(src)).name in related:
            out.append(src)
    return out


# (offset, magic, name): read-only probes for the commonest signatures.
MAGICS = [
    (1080, b"\x53\xef", "ext2/3/4"),
    (0, b"XFSB", "xfs"),
    (65600, b"_BHRfS_M", "btrfs"),
    (512, b"EFI PART", "gpt"),
    (0, b"LUKS\xba\xbe", "crypto_LUKS"),
    (3, b"NTFS    ", "ntfs"),
    (4086, b"SWAPSPACE2", "swap"),
    (4086, b"SWAP-SPACE", "swap"),
    (536, b"LABELONE", "LVM2_member"),
    (4096, b"\xfc\x4e\x2b\xa9", "linux_raid_member"),
    (510, b"\x55\xaa", "dos partition table / boot sector"),
]


def magic_signatures(dev: Path) -> list[str]:
    try:
        with open(dev, "rb") as f:
            head = f.read(70 * 1024)
    except OSError:
        return []
    return sorted({name for off, magic, name in MAGICS if head[off:off + len(magic)] == magic})


def blkid_signatures(dev: Path) -> list[str]:
    try:
        out = subprocess.run(["blkid", "-p", "-o", "export", str(dev)], check=False, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.stdout.splitlines():
        k, _, v = line.partition("=")
        if k in ("TYPE", "PTTYPE") and v:
            found.append(v)
    return found


def inspect_device(path: Path) -> DeviceState:
    path = Path(path)
    name = sys_name(path)
    related, holders = related_devices(name)
    sigs = sorted(set(blkid_signatures(path)) | set(magic_signatures(path)))
    return DeviceState(path=path, name=name, size_bytes=device_size(name), related=related,
                       mounted=mounted_users(related), swap=swap_users(related), holders=holders, signatures=sigs)


def names_device(value: str | None, path: Path) -> bool:
    """True when an override value repeats the device: '/dev/loop3', 'loop3' or a symlink to it."""
    if not value:
        return False
    v = str(value).strip()
    cand = Path(v if v.startswith("/") else f"/dev/{v}")
    try:
        return os.path.realpath(cand) == os.path.realpath(path)
    except OSError:
        return False


def check_block_device(path: Path, writes: bool, destroy_device: str | None = None,
                       ignore_signature: str | None = None, read_only_ack: str | None = None) -> DeviceState:
    """Raise LabError unless the rules above allow this sweep on ``path``; nothing is written."""
    path = Path(path)
    if not is_block_device(path):
        raise LabError(f"{path} is not a block device.")
    st = inspect_device(path)
    dev = str(path)
    if writes:
        if not names_device(destroy_device, path):
            got = f" (it names {destroy_device!r})" if destroy_device else ""
            raise LabError(
                f"{dev} is a block device and this profile writes to it, which destroys its data: "
                f"refused unless the destroy_device parameter repeats the device name{got} (DESTROY_DEVICE={dev})."
            )
        if st.in_use:
            raise LabError(f"{dev} is {' and '.join(st.in_use)}, so write workloads are refused (no override): "
                           "choose an unused device.")
        if st.signatures and not names_device(ignore_signature, path):
            raise LabError(
                f"{dev} carries a {', '.join(st.signatures)} signature (existing data), so writes are refused: "
                f"wipe it yourself or set the second override ignore_signature to the device name "
                f"(IGNORE_SIGNATURE={dev})."
            )
    elif st.in_use and not names_device(read_only_ack, path):
        raise LabError(
            f"{dev} is {' and '.join(st.in_use)}: a read-only profile may only read it with the explicit "
            f"acknowledgement read_only_ack set to the device name (READ_ONLY_ACK={dev})."
        )
    if st.size_bytes <= 0:
        raise LabError(f"{dev} reports a size of 0 bytes (no medium?).")
    return st
