"""Sweep profiles: plain YAML files listing fio points, validated before any I/O.

A profile has optional ``settings`` (applied to every point) and ``points``: each
entry may give lists for ``rw``, ``bs``, ``iodepth``, ``numjobs`` and ``rwmixread``,
which expand into their cartesian product.  Example::

    description: 4k random-read queue-depth sweep
    settings: {ioengine: libaio, runtime_s: 5, ramp_s: 1}
    points:
      - {group: qd, rw: randread, bs: 4k, iodepth: [1, 2, 4, 8, 16, 32, 64, 128]}
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from . import config
from .errors import LabError
from .units import format_bytes, parse_size

RW_MODES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite")
MIXED_MODES = ("rw", "readwrite", "randrw")
WRITE_MODES = ("write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite")
IOENGINES = ("libaio", "io_uring", "psync", "sync", "pvsync", "pvsync2", "posixaio", "mmap")

POINT_KEYS = {"group", "rw", "bs", "iodepth", "numjobs", "rwmixread", "ioengine", "runtime_s", "ramp_s",
              "direct", "repeat"}
TOP_KEYS = {"description", "settings", "points"}
PER_POINT_OVERHEAD_S = 0.7  # fio start-up and file open, measured on a 2-core VM


@dataclass(frozen=True)
class Point:
    """One fio invocation of a sweep."""

    group: str
    rw: str
    bs_bytes: int
    iodepth: int = 1
    numjobs: int = 1
    rwmixread: int | None = None
    ioengine: str = "libaio"
    runtime_s: float = 5.0
    ramp_s: float = 1.0
    direct: int = 1
    repeat: int = 0

    @property
    def point_id(self) -> str:
        parts = [self.group, self.rw, f"bs{format_bytes(self.bs_bytes)}", f"qd{self.iodepth}", f"nj{self.numjobs}"]
        if self.rwmixread is not None:
            parts.append(f"mix{self.rwmixread}")
        if self.ioengine != "libaio":
            parts.append(self.ioengine)
        if self.direct != 1:
            parts.append(f"direct{self.direct}")
        if self.repeat:
            parts.append(f"r{self.repeat}")
        return "-".join(parts)

    @property
    def writes(self) -> bool:
        return self.rw in WRITE_MODES

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "point_id": self.point_id}


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    points: tuple[Point, ...]
    source: str  # the YAML text, stored in the manifest

    @property
    def estimated_seconds(self) -> float:
        return sum(p.runtime_s + p.ramp_s + PER_POINT_OVERHEAD_S for p in self.points)

    @property
    def writes(self) -> bool:
        return any(p.writes for p in self.points)

    def with_runtime(self, runtime_s: float | None) -> "Profile":
        """Same points with every point's runtime replaced (the RUNTIME override)."""
        if runtime_s is None:
            return self
        if runtime_s <= 0:
            raise LabError(f"runtime {runtime_s!r} must be a positive number of seconds.")
        pts = tuple(replace(p, runtime_s=float(runtime_s)) for p in self.points)
        return replace(self, points=pts)


def available_profiles() -> list[str]:
    return sorted(p.stem for p in config.PROFILES_DIR.glob("*.yaml"))


def profile_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") and p.exists():
        return p
    candidate = config.PROFILES_DIR / f"{name_or_path}.yaml"
    if candidate.exists():
        return candidate
    raise LabError(
        f"profile {str(name_or_path)!r} not found: use one of {', '.join(available_profiles())} or a path to a .yaml file."
    )


def load_profile(name_or_path: str | Path) -> Profile:
    path = profile_path(name_or_path)
    text = path.read_text()
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LabError(f"profile {path.name} is not valid YAML ({str(exc).splitlines()[0]}).") from None
    return parse_profile(doc, name=path.stem, source=text)


def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _int(v: Any, key: str, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise LabError(f"{where}: {key} {v!r} must be a whole number from {lo} to {hi}.")
    return v


def _number(v: Any, key: str, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise LabError(f"{where}: {key} {v!r} must be a number of seconds (0 or more).")
    return float(v)


def parse_profile(doc: Any, name: str = "profile", source: str = "") -> Profile:
    """Validate a parsed YAML document and expand it into points."""
    if not isinstance(doc, dict) or "points" not in doc:
        raise LabError(f"profile {name} must be a mapping with a 'points' list.")
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise LabError(f"profile {name}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(TOP_KEYS))}).")
    settings = doc.get("settings") or {}
    if not isinstance(settings, dict):
        raise LabError(f"profile {name}: 'settings' must be a mapping.")
    entries = doc["points"]
    if not isinstance(entries, list) or not entries:
        raise LabError(f"profile {name}: 'points' must be a non-empty list.")
    points: list[Point] = []
    for i, entry in enumerate(entries, start=1):
        where = f"profile {name}, point {i}"
        if not isinstance(entry, dict):
            raise LabError(f"{where} must be a mapping such as {{rw: randread, bs: 4k}}.")
        merged = {**settings, **entry}
        unknown = set(merged) - POINT_KEYS
        if unknown:
            raise LabError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(POINT_KEYS))}).")
        points.extend(_expand(merged, where))
    ids = [p.point_id for p in points]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise LabError(f"profile {name}: point {dup} is listed twice (use 'repeat' to measure a point again).")
    return Profile(name=name, description=str(doc.get("description", "")), points=tuple(points), source=source)


def _expand(merged: dict[str, Any], where: str) -> list[Point]:
    if "rw" not in merged or "bs" not in merged:
        raise LabError(f"{where}: needs at least 'rw' and 'bs'.")
    group = str(merged.get("group", "points"))
    ioengine = merged.get("ioengine", "libaio")
    if ioengine not in IOENGINES:
        raise LabError(f"{where}: ioengine {ioengine!r} is not supported (use one of {', '.join(IOENGINES)}).")
    runtime_s = _number(merged.get("runtime_s", 5), "runtime_s", where)
    ramp_s = _number(merged.get("ramp_s", 1), "ramp_s", where)
    if runtime_s <= 0:
        raise LabError(f"{where}: runtime_s must be more than 0 seconds.")
    direct = _int(merged.get("direct", 1), "direct", where, 0, 1)
    repeats = _int(merged.get("repeat", 1), "repeat", where, 1, 100)
    out = []
    combos = itertools.product(
        _as_list(merged["rw"]), _as_list(merged["bs"]), _as_list(merged.get("iodepth", 1)),
        _as_list(merged.get("numjobs", 1)), _as_list(merged.get("rwmixread")),
    )
    for rw, bs, qd, nj, mix in combos:
        if rw not in RW_MODES:
            raise LabError(f"{where}: rw {rw!r} is not a fio workload (use one of {', '.join(RW_MODES)}).")
        bs_bytes = parse_size(bs, what=f"{where}: bs")
        qd = _int(qd, "iodepth", where, 1, 65536)
        nj = _int(nj, "numjobs", where, 1, 1024)
        if rw in MIXED_MODES:
            mix = 50 if mix is None else _int(mix, "rwmixread", where, 0, 100)
        elif mix is not None:
            raise LabError(f"{where}: rwmixread applies only to mixed workloads (rw, randrw), not {rw!r}.")
        for r in range(repeats):
            out.append(Point(group=group, rw=rw, bs_bytes=bs_bytes, iodepth=qd, numjobs=nj, rwmixread=mix,
                             ioengine=ioengine, runtime_s=runtime_s, ramp_s=ramp_s, direct=direct, repeat=r))
    return out
