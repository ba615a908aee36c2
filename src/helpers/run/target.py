"""The sweep target: checks before any I/O and the lab's scratch file.

A scratch file the lab creates is marked by a sidecar ``<file>.ssdlab.json``; write
workloads are only pointed at such files (or at a path that does not exist yet).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from helpers import config
from helpers.errors import LabError
from helpers.fio.units import parse_size
from helpers.run.lock import Lock, target_lock_path
from helpers.run.manifest import read_manifest
from helpers.run.options import ArgumentParser
from helpers.run.safety import check_block_device, is_block_device
from helpers.run.system import mount_of

SIDECAR_SUFFIX = ".ssdlab.json"
FREE_SPACE_MARGIN = 256 * 1024**2  # keep this much free beyond the scratch file
# Below this a target measures caches (the drive's DRAM/SLC cache, the host's controller) more than the
# drive: a few random offsets are reused over and over.  Tests and the smoke profile use 64 MiB on purpose.
MIN_MEASURING_SIZE = 64 * 1024**2


@dataclass(frozen=True)
class Target:
    path: Path
    size_bytes: int
    kind: str  # "file" or "block"
    owned: bool = True  # a lab scratch file (or a new file the lab will create and mark)
    writes: bool = True  # the checks passed for write workloads (False: read-only sweep)
    note: str = ""  # e.g. "size limited to the device size"


def small_target_warning(size_bytes: int, kind: str = "file") -> str | None:
    """One sentence when the tested region is far too small to say anything about a drive."""
    if size_bytes >= MIN_MEASURING_SIZE:
        return None
    return (f"warning: the tested {'region' if kind == 'block' else 'file'} is only {size_bytes / 1024**2:.3g} MiB, "
            f"far below {MIN_MEASURING_SIZE // 1024**2} MiB, so caches serve most I/O and the numbers describe the "
            "cache rather than the drive: use SIZE=1g or more to measure a drive.")


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def is_lab_file(path: Path) -> bool:
    return sidecar_path(path).exists()


def read_sidecar(path: Path) -> dict:
    try:
        return json.loads(sidecar_path(path).read_text())
    except (OSError, ValueError):
        return {}


def write_sidecar(path: Path, **fields) -> None:
    data = {**read_sidecar(path), **fields, "created_by": "ssd-perf-lab"}
    side = sidecar_path(path)
    tmp = side.with_name(side.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, side)


MEMORY_FILESYSTEMS = ("tmpfs", "ramfs", "devtmpfs", "hugetlbfs")


def check_o_direct(directory: Path) -> None:
    """Raise LabError if ``directory`` is memory-backed or its files cannot be opened with O_DIRECT."""
    mount = mount_of(directory)
    if mount and mount["fstype"] in MEMORY_FILESYSTEMS:
        raise LabError(
            f"{directory} is on {mount['fstype']} (memory, not a device), so fio would measure RAM: "
            "choose a TARGET on a disk-backed filesystem."
        )
    fd = None
    probe = None
    try:
        fd_tmp, probe = tempfile.mkstemp(prefix=".odirect-probe-", dir=directory)
        os.close(fd_tmp)
        fd = os.open(probe, os.O_RDWR | getattr(os, "O_DIRECT", 0))
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):
            raise LabError(
                f"{directory} is on a filesystem without O_DIRECT support (tmpfs?), so direct=1 I/O cannot run there: "
                "choose a TARGET on a disk-backed filesystem."
            ) from None
        raise LabError(f"cannot create a file in {directory} ({exc.strerror}).") from None
    finally:
        if fd is not None:
            os.close(fd)
        if probe:
            os.unlink(probe)


def check_free_space(directory: Path, size_bytes: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < size_bytes + FREE_SPACE_MARGIN:
        raise LabError(
            f"not enough free space in {directory}: the target needs {size_bytes / 1024**3:.2f} GiB plus "
            f"{FREE_SPACE_MARGIN / 1024**2:.0f} MiB margin, only {free / 1024**3:.2f} GiB is free (lower SIZE)."
        )


def _same_path(a: str | Path | None, b: Path) -> bool:
    if not a:
        return False
    return os.path.realpath(Path(str(a)).expanduser()) == os.path.realpath(b)


def _memory_fs_check(directory: Path) -> None:
    d = directory
    while not d.exists() and d != d.parent:
        d = d.parent
    mount = mount_of(d)
    if mount and mount["fstype"] in MEMORY_FILESYSTEMS:
        raise LabError(
            f"{directory} is on {mount['fstype']} (memory, not a device), so fio would measure RAM: "
            "choose a TARGET on a disk-backed filesystem."
        )


def prepare_target(path: str | Path, size: str | int, writes: bool, direct: bool = True, *,
                   allow_existing: str | Path | None = None, destroy_device: str | None = None,
                   ignore_signature: str | None = None, read_only_ack: str | None = None,
                   dry_run: bool = False) -> Target:
    """Check a target before any I/O and create the scratch file's directory (not in a dry run).

    Files: the parent must allow O_DIRECT and have free space for a new file; an existing file the
    lab did not create is refused for write workloads unless ``allow_existing`` names it.  For
    reads, a foreign file is fine and the tested size is limited to its size (so fio never extends
    it).  Block devices follow :func:`helpers.run.safety.check_block_device`.
    """
    path = Path(path).expanduser().absolute()
    size_bytes = parse_size(size, what="SIZE")
    if is_block_device(path):
        st = check_block_device(path, writes, destroy_device=destroy_device, ignore_signature=ignore_signature,
                                read_only_ack=read_only_ack)
        note = ""
        if size_bytes > st.size_bytes:
            size_bytes, note = st.size_bytes, f"size limited to the device size ({st.size_bytes} bytes)"
        return Target(path=path, size_bytes=size_bytes, kind="block", owned=False, writes=writes, note=note)
    if path.exists() and not path.is_file():
        raise LabError(f"target {path} exists and is not a regular file or block device.")
    parent = path.parent
    owned = not path.exists() or is_lab_file(path)
    if path.exists() and writes and not owned and not _same_path(allow_existing, path):
        raise LabError(
            f"{path} exists and was not created by the lab, so write workloads will not touch it: "
            "point TARGET at a new file (the default is data/scratch/fio-target.bin), or name this file in the "
            "allow_existing parameter (ALLOW_EXISTING=<same path>) if its contents may be destroyed."
        )
    note = ""
    if path.exists() and not owned and path.stat().st_size < size_bytes:
        size_bytes = path.stat().st_size
        note = f"size limited to the existing file's size ({size_bytes} bytes)"
        if size_bytes <= 0:
            raise LabError(f"{path} is empty, so there is nothing to read: use a new TARGET instead.")
    if dry_run:
        _memory_fs_check(parent)
    else:
        if not parent.exists():
            parent.mkdir(parents=True, exist_ok=True)
        if direct:
            check_o_direct(parent)
    existing = path.stat().st_size if path.exists() else 0
    if existing < size_bytes:
        anc = parent
        while not anc.exists() and anc != anc.parent:
            anc = anc.parent
        check_free_space(anc, size_bytes - existing)
    return Target(path=path, size_bytes=size_bytes, kind="file", owned=owned, writes=writes, note=note)


def remove_scratch(path: Path) -> bool:
    """Delete a scratch file and its sidecar, only if the lab created it; True when removed."""
    path = Path(path)
    if not is_lab_file(path):
        return False
    path.unlink(missing_ok=True)
    sidecar_path(path).unlink(missing_ok=True)
    return True


def lab_scratch_files(raw_dir: str | Path = "") -> list[Path]:
    """Scratch files the lab created outside ``data/scratch`` (a TARGET given by the user), found through
    the manifests of the runs in ``raw_dir``: only files that still carry the lab's sidecar."""
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    found: list[Path] = []
    inside = os.path.realpath(config.SCRATCH_DIR)
    for run in sorted(rdir.iterdir()) if rdir.is_dir() else []:
        m = read_manifest(run) if run.is_dir() else {}
        path = (m.get("plan") or {}).get("target") or (m.get("target") or {}).get("path")
        if not path or m.get("target_kind", "file") != "file":
            continue
        p = Path(path)
        real = os.path.realpath(p)
        if real.startswith(inside + os.sep) or p in found or not p.is_file() or not is_lab_file(p):
            continue
        found.append(p)
    return found


def _gib(paths: list[Path]) -> str:
    return f"{sum(p.stat().st_size for p in paths if p.exists()) / 1024**3:.2f} GiB"


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m helpers.run.target")
    ap.add_argument("--remove-scratch", nargs="?", const=str(config.DEFAULT_TARGET), metavar="PATH",
                    help="delete the lab's scratch file (refused for files the lab did not create)")
    ap.add_argument("--list-elsewhere", action="store_true",
                    help="list scratch files the lab created outside data/scratch (runs' TARGETs); removes nothing")
    ap.add_argument("--remove-elsewhere", action="store_true",
                    help="delete those files too (only files with the lab's mark, not in use by a sweep)")
    args = ap.parse_args(argv)
    if args.remove_scratch:
        p = Path(args.remove_scratch)
        if remove_scratch(p):
            print(f"removed scratch file {p}")
        elif p.exists():
            print(f"kept {p}: it was not created by the lab")
    others = lab_scratch_files() if args.list_elsewhere or args.remove_elsewhere else []
    if others and args.remove_elsewhere:
        for p in others:
            try:
                Lock(target_lock_path(p), f"target {p}").check_free()  # not while a sweep uses it
            except LabError as exc:
                print(f"kept {p}: {exc}")
                continue
            size = _gib([p])
            if remove_scratch(p):
                print(f"removed lab scratch file {p} ({size})")
    elif others:
        print(f"kept {len(others)} scratch file{'s' if len(others) > 1 else ''} the lab created outside data/scratch "
              f"({_gib(others)}): {', '.join(map(str, others))}; 'make clean SCRATCH=1' removes them.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
