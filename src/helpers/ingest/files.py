"""Which files an ingest considers (every file, recognised by content; the lab's own and fio's logs left out)
and the source_file each is named by."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from helpers.fio.logs import parse_log_name
from helpers.ingest.health import is_health_file
from helpers.run.manifest import MANIFEST_NAME


def raw_files(path: Path, glob: str | None = None) -> list[Path]:
    """``path`` itself when it is a file; else every candidate file below it (see :func:`_files`)."""
    path = Path(path)
    if path.is_file():
        return [path]
    return [path / rel for rel, _ in _files(str(path), glob)]


def _skipped(name: str) -> bool:
    """Files never considered here: hidden files (the lab's job files and temporaries, editor and VCS
    files), the lab's own run manifest and Parquet datasets, fio's per-window logs
    (``<prefix>_bw.1.log``, ``_clat_hist.1.log.gz``, ...) and the lab's SMART/health captures
    (``<point>.health.jsonl``): those are read by :mod:`helpers.ingest.timeseries` and
    :mod:`helpers.ingest.health` into their own datasets, not results."""
    return name.startswith(".") or name == MANIFEST_NAME or name.endswith(".parquet") or \
        parse_log_name(name) is not None or is_health_file(name)


def _files(root: str, glob: str | None = None) -> list[tuple[str, bool]]:
    """(path relative to ``root``, is a symlink) of every candidate file below ``root``, whatever its
    name -- fio results are recognised by content -- in path order: regular files (symlinked folders
    not entered, hidden folders and unreadable ones skipped, see :func:`_skipped`), restricted to
    those whose name or relative path matches ``glob`` when given; one scandir per folder."""
    found: list[tuple[tuple[str, ...], bool]] = []
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except PermissionError:
            continue
        for e in entries:
            name = e.name
            try:
                if e.is_dir():
                    if not e.is_symlink() and not name.startswith("."):
                        stack.append((e.path, (*parts, name)))
                    continue
                if _skipped(name) or not e.is_file():
                    continue
                rel = (*parts, name)
                if glob is not None and not (fnmatch.fnmatch(name, glob) or fnmatch.fnmatch("/".join(rel), glob)):
                    continue
                found.append((rel, e.is_symlink()))
            except OSError:
                pass
    found.sort(key=lambda f: f[0])
    return [("/".join(p), link) for p, link in found]


def _items(paths: list[Path], glob: str | None = None) -> list[tuple[str, str]]:
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases])) if bases else Path(".")
    out = []
    rel_dirs: dict[str, str] = {}  # directory -> its resolved path relative to base
    for p in paths:
        if p.is_file():
            out.append((str(p), p.name if len(paths) == 1 else _rel(str(p), os.path.islink(p), base, rel_dirs)))
            continue
        sp = str(p)
        for rel, link in _files(sp, glob):
            f = rel if sp == "." else os.path.join(sp, rel)  # str(p / rel)
            out.append((f, _rel(f, link, base, rel_dirs)))
    return out


def _rel(f: str, link: bool, base: Path, rel_dirs: dict[str, str]) -> str:
    """``os.path.relpath(Path(f).resolve(), base)``, resolving each folder once: a file that is not a
    symlink resolves to its resolved folder joined with its name."""
    if link:
        return os.path.relpath(os.path.realpath(f), base)
    d, name = os.path.split(f)
    rd = rel_dirs.get(d)
    if rd is None:
        rd = rel_dirs[d] = os.path.relpath(os.path.realpath(d or "."), base)
    return name if rd == "." else os.path.join(rd, name)


