"""A point of a profile and the facts a profile is checked against: fio's operations and engines, the keys a profile may hold, the Point itself, the QD ladder, and the small value checks every section of a profile uses (one sentence per problem)."""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import asdict, dataclass
from typing import Any

from helpers.errors import LabError
from helpers.fio.units import format_bytes, parse_size

RW_MODES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite")


WRITE_MODES = ("write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite")


IOENGINES = ("libaio", "io_uring", "psync", "sync", "pvsync", "pvsync2", "posixaio", "mmap")


POINT_KEYS = {"group", "rw", "bs", "iodepth", "numjobs", "rwmixread", "ioengine", "runtime_s", "ramp_s",
              "direct", "repeat", "rate_iops", "rate_process", "log_avg_msec", "log_hist_msec",
              "volume", "settle_windows", "settle_pct", "settle_window_ms"}


TOP_KEYS = {"description", "settings", "points", "mode", "adaptive", "steady_state", "precondition", "slo", "pts",
            "burst"}


MODES = ("grid", "adaptive", "steady-state", "slo", "pts", "characterize", "replay", "burst")


# modes whose points include QD series searched by the adaptive ladder (an ``adaptive`` section applies)
SEARCH_MODES = ("adaptive", "characterize")


RATE_PROCESSES = ("poisson", "linear")


PREFILL_MIB_PER_S = 200  # assumed sequential write speed for duration estimates of fills


PER_POINT_OVERHEAD_S = 0.7  # fio start-up and file open, measured on a 2-core VM


LOG_AVG_MSEC = 1000  # fio bw/iops/lat logs: one averaged sample per direction every second (0: no logs)


LOG_HIST_MSEC = 1000  # fio completion-latency histogram log: one histogram per direction per second (0: none)


SETTLE_DEFAULTS = {"settle_windows": 0, "settle_pct": 5.0, "settle_window_ms": 1000}  # grid points: off


# Adaptive probes end once settled unless the profile sets these keys (settle_windows: 0 turns it off): a probe
# only has to show whether a doubling of QD paid off, so three quarter-second windows that agree within the
# search's gain_pct (filled in by parse_profile) are enough, and runtime_s is the most a probe may take.  The
# search shortens the windows (down to AdaptiveSettings.min_window_ms) once IOPS fill them (adaptive.probe_window_ms).
ADAPTIVE_SETTLE = {"settle_windows": 3, "settle_pct": None, "settle_window_ms": 250}


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
    rate_iops: int | None = None  # open loop: offered load in I/O per second (fio rate_iops)
    rate_process: str | None = None  # "poisson" (default with rate_iops) or "linear"
    round: int = 0  # steady-state round (1, 2, ...); 0 outside steady-state profiles
    log_avg_msec: int = LOG_AVG_MSEC  # window of fio's bw/iops/lat logs in ms; 0 = no such logs
    log_hist_msec: int = LOG_HIST_MSEC  # window of fio's clat histogram log in ms; 0 = no histogram log
    settle_windows: int = 0  # >0: stop the point once settled (runner.SettleMonitor: N windows within settle_pct)
    settle_pct: float = 5.0
    settle_window_ms: int = 1000  # the windows of the settle check (fio --status-interval)
    volume: float | None = None  # size-based point: write/read this multiple of the target size (runtime_s caps it)
    # fio's latency_target mode (the SLO search's cross-check, never in profiles): fio picks the queue depth
    # (1..iodepth) holding latency_percentile % of each latency_window_s window's I/Os within latency_target_us
    latency_target_us: float | None = None
    latency_percentile: float = 100.0
    latency_window_s: float = 1.0
    # demand intensity (helpers.run.demand): ``numjobs: auto`` / ``ioengine: auto`` let a search add jobs or switch
    # to io_uring where a probe is CPU-bound; ``fio_extra``: the options such a probe adds (pinning, registered files)
    jobs_auto: bool = False
    engine_auto: bool = False
    fio_extra: tuple[tuple[str, str], ...] = ()
    bssplit: str | None = None  # fio bssplit (a block-size mix; bs_bytes names its most frequent size)
    random_distribution: str | None = None  # fio random_distribution (e.g. zoned:50/5:30/15:20/80)
    rest_s: float = 0.0  # burst mode: the drain after a rest of this many seconds (0: the first drain)
    # burst mode: > 0 ends the point once its rate has stayed below drop_ratio x its burst for this many windows
    drop_windows: int = 0
    drop_ratio: float = 0.7

    @property
    def point_id(self) -> str:
        parts = [self.group, self.rw, f"bs{format_bytes(self.bs_bytes)}", f"qd{self.iodepth}", f"nj{self.numjobs}"]
        if self.rwmixread is not None:
            parts.append(f"mix{self.rwmixread}")
        if self.ioengine != "libaio":
            parts.append(self.ioengine)
        if any(k == "cpus_allowed" for k, _ in self.fio_extra):
            parts.append("pin")
        if any(k == "registerfiles" for k, _ in self.fio_extra):
            parts.append("fixed")
        if self.direct != 1:
            parts.append(f"direct{self.direct}")
        if self.volume is not None:
            parts.append(f"vol{self.volume:g}x")
        if self.rate_iops is not None:
            parts.append(f"rate{self.rate_iops}")
            if self.rate_process and self.rate_process != "poisson":
                parts.append(self.rate_process)
        if self.latency_target_us is not None:
            parts.append(f"lt{self.latency_target_us:g}us")
        if self.bssplit:
            parts.append("bssplit")
        if self.random_distribution:
            parts.append(self.random_distribution.split(":")[0])
        if self.rest_s:  # helpers.analysis.burst.REST_RE reads it back
            parts.append(f"rest{self.rest_s:g}s")
        if self.repeat:
            parts.append(f"r{self.repeat}")
        if self.round:
            parts.append(f"round{self.round}")
        return "-".join(parts)

    @property
    def seconds(self) -> float:
        return self.runtime_s + self.ramp_s + PER_POINT_OVERHEAD_S

    @property
    def typical_seconds(self) -> float:
        """Expected seconds when the point ends once settled: its ramp plus one window more than the settle
        check needs (at most its runtime); :attr:`seconds` otherwise."""
        if self.settle_windows <= 0:
            return self.seconds
        settle = (self.settle_windows + 1) * self.settle_window_ms / 1000
        return min(self.runtime_s, settle) + self.ramp_s + PER_POINT_OVERHEAD_S

    @property
    def writes(self) -> bool:
        return self.rw in WRITE_MODES

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "point_id": self.point_id}


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def qd_ladder(start: int, stop: int) -> list[int]:
    """start, 2*start, 4*start, ... up to stop (inclusive)."""
    out, q = [], max(1, int(start))
    while q <= stop:
        out.append(q)
        q *= 2
    return out


def _unknown(keys: set[str], known: set[str]) -> str:
    """"unknown key 'iodpeth' (did you mean 'iodepth'?)" for every unknown key, the known ones when no
    close match."""
    parts = []
    for k in sorted(map(str, keys)):
        close = difflib.get_close_matches(k, sorted(known), n=1)
        parts.append(f"unknown key {k!r} (did you mean {close[0]!r}?)" if close else
                     f"unknown key {k!r} (known: {', '.join(sorted(known))})")
    return "; ".join(parts)


def _problems(name: str, errors: list[str]) -> LabError:
    """One sentence for one problem; every problem, numbered, for several (a profile with typos)."""
    errors = [e.rstrip(".") for e in errors]
    if len(errors) == 1:
        return LabError(errors[0] + ".")
    prefix = f"profile {name}, "
    items = "; ".join(f"({i}) {e.removeprefix(prefix)}" for i, e in enumerate(errors, start=1))
    return LabError(f"profile {name} has {len(errors)} problems: {items}.")


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


def _section(raw: Any, cls: type, name: str, key: str) -> Any:
    """Validate a settings mapping against a dataclass (unknown keys and wrong types are one sentence)."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise LabError(f"profile {name}: '{key}' must be a mapping.")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    alias = {"bs": "bs_bytes"}
    out = {}
    for k, v in raw.items():
        field_name = alias.get(k, k)
        if field_name not in fields:
            known = ", ".join(sorted("bs" if f == "bs_bytes" else f for f in fields))
            raise LabError(f"profile {name}: unknown key {k!r} in '{key}' (known: {known}).")
        default = fields[field_name].default
        if field_name == "bs_bytes":
            v = parse_size(v, what=f"profile {name}, {key}: bs")
        elif isinstance(default, bool):
            if not isinstance(v, bool):
                raise LabError(f"profile {name}: {key}.{k} {v!r} must be true or false.")
        elif isinstance(default, int):
            v = _int(v, k, f"profile {name}, {key}", 1, 1 << 20)
        elif isinstance(default, float) or default is None:
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0):
                raise LabError(f"profile {name}: {key}.{k} {v!r} must be a number (0 or more).")
            v = None if v is None else float(v)
        elif isinstance(default, str) and not isinstance(v, str):
            raise LabError(f"profile {name}: {key}.{k} {v!r} must be text.")
        out[field_name] = v
    return cls(**out)
