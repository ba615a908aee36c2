"""Sweep profiles: plain YAML files listing fio points, validated before any I/O.

A profile has optional ``settings`` (applied to every point) and ``points``: each
entry may give lists for ``rw``, ``bs``, ``iodepth``, ``numjobs`` and ``rwmixread``,
which expand into their cartesian product.  ``log_avg_msec`` (default 1000) and ``log_hist_msec``
(default 1000) set the windows of the fio logs recorded with every point (0 turns them off).  ``volume``
makes a point size-based: it transfers that multiple of the target size (``runtime_s`` is then only
its upper limit), as the sustained-write profile does.  ``settle_windows: N`` (with ``settle_pct``,
default 5, and ``settle_window_ms``, default 1000) ends a point early once, after the ramp, its last N
per-window IOPS lie within ``settle_pct`` % of their mean, or its windows alternate and their last N two-window
spans lie within half that (a throttled device's rhythm; :class:`helpers.run.runner.SettleMonitor`),
``runtime_s`` staying the maximum.  Grid points run their full runtime unless a profile asks; adaptive profiles
settle their probes by default (:data:`ADAPTIVE_SETTLE`; ``settle_windows: 0`` turns it off).  Example::

    description: 4k random-read queue-depth sweep
    settings: {ioengine: libaio, runtime_s: 5, ramp_s: 1}
    points:
      - {group: qd, rw: randread, bs: 4k, iodepth: [1, 2, 4, 8, 16, 32, 64, 128]}
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from helpers import config
from helpers.errors import LabError
from helpers.fio.options import MIXED_MODES
from helpers.fio.units import format_bytes, parse_size
from helpers.run.profile_point import ADAPTIVE_SETTLE as ADAPTIVE_SETTLE
from helpers.run.profile_point import IOENGINES as IOENGINES
from helpers.run.profile_point import LOG_AVG_MSEC as LOG_AVG_MSEC
from helpers.run.profile_point import LOG_HIST_MSEC as LOG_HIST_MSEC
from helpers.run.profile_point import MODES as MODES
from helpers.run.profile_point import PER_POINT_OVERHEAD_S as PER_POINT_OVERHEAD_S
from helpers.run.profile_point import POINT_KEYS as POINT_KEYS
from helpers.run.profile_point import PREFILL_MIB_PER_S as PREFILL_MIB_PER_S
from helpers.run.profile_point import RATE_PROCESSES as RATE_PROCESSES
from helpers.run.profile_point import RW_MODES as RW_MODES
from helpers.run.profile_point import SEARCH_MODES as SEARCH_MODES
from helpers.run.profile_point import SETTLE_DEFAULTS as SETTLE_DEFAULTS
from helpers.run.profile_point import TOP_KEYS as TOP_KEYS
from helpers.run.profile_point import Point as Point
from helpers.run.profile_point import _as_list as _as_list
from helpers.run.profile_point import _int as _int
from helpers.run.profile_point import _minutes as _minutes
from helpers.run.profile_point import _number as _number
from helpers.run.profile_point import _problems as _problems
from helpers.run.profile_point import _section as _section
from helpers.run.profile_point import _unknown as _unknown
from helpers.run.profile_point import qd_ladder as qd_ladder
from helpers.run.profile_settings import PTS_CLASSES as PTS_CLASSES
from helpers.run.profile_settings import PTS_DIRTH_TQ as PTS_DIRTH_TQ
from helpers.run.profile_settings import PTS_IOPS_BS as PTS_IOPS_BS
from helpers.run.profile_settings import PTS_IOPS_MIXES as PTS_IOPS_MIXES
from helpers.run.profile_settings import PTS_IOPS_TRACKED as PTS_IOPS_TRACKED
from helpers.run.profile_settings import PTS_LAT_BS as PTS_LAT_BS
from helpers.run.profile_settings import PTS_LAT_MIXES as PTS_LAT_MIXES
from helpers.run.profile_settings import PTS_TESTS as PTS_TESTS
from helpers.run.profile_settings import PTS_TP_BS as PTS_TP_BS
from helpers.run.profile_settings import AdaptiveSettings as AdaptiveSettings
from helpers.run.profile_settings import BurstSettings as BurstSettings
from helpers.run.profile_settings import PreconditionSettings as PreconditionSettings
from helpers.run.profile_settings import PtsSettings as PtsSettings
from helpers.run.profile_settings import SloSearchSettings as SloSearchSettings
from helpers.run.profile_settings import SteadyStateSettings as SteadyStateSettings
from helpers.run.profile_settings import parse_pts as parse_pts
from helpers.run.replay import ReplaySettings, check_settings


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    points: tuple[Point, ...]
    source: str  # the YAML text, stored in the manifest
    mode: str = "grid"
    adaptive: AdaptiveSettings | None = None
    steady_state: SteadyStateSettings | None = None
    precondition: PreconditionSettings | None = None
    slo: SloSearchSettings | None = None
    pts: PtsSettings | None = None
    burst: BurstSettings | None = None
    # characterize mode: the point ids (at start_qd) of the QD series the adaptive ladder searches; the other
    # points run as listed (helpers.run.sweep runs reads, then the sustained write, then writes and mixes)
    searched: tuple[str, ...] = ()
    replay: ReplaySettings | None = None  # mode replay: the trace (points made from it, helpers.run.replay_sweep)

    @property
    def series(self) -> tuple[Point, ...]:
        """The searched QD series' starting points (every point in adaptive mode, ``searched`` in characterize)."""
        if self.mode == "adaptive":
            return self.points
        return tuple(p for p in self.points if p.point_id in self.searched)

    @property
    def listed(self) -> tuple[Point, ...]:
        """The points run as listed (not searched): none in adaptive mode, all in the other modes but
        characterize."""
        searched = {p.point_id for p in self.series} if self.mode in SEARCH_MODES else set()
        return tuple(p for p in self.points if p.point_id not in searched)

    @property
    def estimated_seconds(self) -> float:
        """Expected seconds of fio (without the fill of a new scratch file)."""
        base = sum(p.seconds for p in self.points)
        if self.mode == "pts" and self.pts and self.pts.test_limit_s:  # each test stopped at its time limit
            return self.pts.limited_seconds
        if self.mode == "pts" and self.pts:  # every test steady after its first window (WSAT: its time cap)
            s = self.pts
            return sum(s.round_seconds(t) * s.window for t in s.test_names if t not in ("wsat", "xsr")) + s.extra_seconds
        if self.mode == "slo" and self.slo:
            return base * self.slo.typical_steps + sum(self.slo.cross_check_seconds(p) for p in self.points)
        if self.mode in SEARCH_MODES and self.adaptive:  # probes that settle end early (typical_seconds)
            a = self.adaptive
            extra = 2 * (a.confirm_runtime_s + PER_POINT_OVERHEAD_S) if a.confirm_runtime_s else 0.0
            fixed = sum(p.seconds for p in self.listed)
            return sum(p.typical_seconds * a.typical_steps + extra for p in self.series) + fixed
        if self.mode == "steady-state" and self.steady_state:
            return base * self.steady_state.window
        if self.mode == "burst" and self.burst:  # every drain to its time limit, and the rests
            return base * (1 + len(self.burst.rests_s)) + sum(self.burst.rests_s) * len(self.points)
        return base

    @property
    def max_seconds(self) -> float:
        """Worst case: adaptive search up to max_qd, steady state taking every round."""
        if self.mode in SEARCH_MODES and self.adaptive:
            a = self.adaptive
            steps = len(qd_ladder(a.start_qd, a.max_qd)) + (1 if a.refine else 0) + (a.max_reprobes if a.reprobe else 0)
            extra = 2 * (a.confirm_runtime_s + PER_POINT_OVERHEAD_S) if a.confirm_runtime_s else 0.0
            fixed = sum(p.seconds for p in self.listed)
            return sum(p.seconds * steps + extra for p in self.series) + fixed
        if self.mode == "steady-state" and self.steady_state:
            return sum(p.seconds for p in self.points) * self.steady_state.max_rounds
        if self.mode == "pts" and self.pts and self.pts.test_limit_s:
            return self.pts.limited_seconds
        if self.mode == "pts" and self.pts:
            s = self.pts
            return sum(s.round_seconds(t) * (1 if t == "wsat" else s.max_rounds) for t in s.test_names
                       if t != "xsr") + s.extra_seconds
        if self.mode == "slo" and self.slo:
            cap = [self.slo.cross_check_point(p).seconds if self.slo.cross_check else 0.0 for p in self.points]
            return sum(p.seconds for p in self.points) * self.slo.max_steps + sum(cap)
        return self.estimated_seconds

    def fill_seconds(self, size_bytes: int) -> float:
        passes = self.precondition.passes if self.precondition else 0
        if self.mode == "pts" and self.pts:  # preconditioning per test (not WSAT) and WSAT's volume
            s = self.pts
            passes = s.precondition_volume * sum(1 for t in s.test_names if t not in ("wsat", "xsr")) + (
                s.wsat_volume if "wsat" in s.test_names else 0)
        return passes * size_bytes / (PREFILL_MIB_PER_S * 1024**2)

    def volume_seconds(self, size_bytes: int) -> float:
        """Size-based points (``volume``): their transfer at the assumed fill speed instead of their runtime cap."""
        return sum(min(p.runtime_s, p.volume * size_bytes / (PREFILL_MIB_PER_S * 1024**2)) - p.runtime_s
                   for p in self.points if p.volume is not None)

    def estimate_text(self, size_bytes: int | None = None) -> str:
        """One phrase for the announcement printed before a sweep starts."""
        est = self.estimated_seconds + (self.fill_seconds(size_bytes) if size_bytes else 0.0)
        if size_bytes and self.mode in ("grid", "characterize"):
            est += self.volume_seconds(size_bytes)
        text = f"about {_minutes(est)} of fio"
        if self.max_seconds > self.estimated_seconds * 1.05:
            worst = self.max_seconds + (self.fill_seconds(size_bytes) if size_bytes else 0.0)
            what = {"adaptive": "if the search goes to the largest QD", "characterize": "if every search goes to the "
                    "largest QD", "slo": "if the search takes every step"}.get(
                self.mode, "if steady state needs every round")
            text += f" (at most {_minutes(worst)} {what})"
        if self.precondition and size_bytes:
            text += f", including {self.precondition.passes} fill passes of {format_bytes(size_bytes)}"
        return text

    @property
    def writes(self) -> bool:
        return any(p.writes for p in self.points)

    def with_runtime(self, runtime_s: float | None) -> Profile:
        """Same points with every point's runtime replaced (the RUNTIME override)."""
        if runtime_s is None:
            return self
        if runtime_s <= 0:
            raise LabError(f"runtime {runtime_s!r} must be a positive number of seconds.")
        if self.mode == "pts" and self.pts:  # every fio point at most RUNTIME s; WSAT keeps its volume and time cap
            r, s = float(runtime_s), self.pts
            settings = replace(s, round_s=r, dirth_prewrite_s=min(s.dirth_prewrite_s, r),
                               dirth_hist_s=min(s.dirth_hist_s, r), xsr_sample_s=min(s.xsr_sample_s, r),
                               hir_write_s=min(s.hir_write_s, r))
            points = tuple(p for t in settings.test_names for p in settings.test_points(t, 0 if t == "wsat" else 1))
            return replace(self, pts=settings, points=points)
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
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise LabError(f"profile {path.name} is not valid YAML{at}: {problem} ({path}).") from None
    return parse_profile(doc, name=path.stem, source=text, point_lines=_point_lines(text),
                         settings_lines=_key_lines(text, "settings"))


def _key_lines(text: str, section: str) -> dict[str, int]:
    """The line (1-based) of each key of the top-level mapping ``section`` (e.g. settings), for messages about
    a key ({} when the text has no such mapping)."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(root, yaml.MappingNode):
        return {}
    for key, value in root.value:
        if getattr(key, "value", None) == section and isinstance(value, yaml.MappingNode):
            return {str(k.value): k.start_mark.line + 1 for k, _ in value.value}
    return {}


def _point_lines(text: str) -> list[int]:
    """The line (1-based) where each entry of ``points`` starts, for messages about a point."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "points" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def parse_profile(doc: Any, name: str = "profile", source: str = "", point_lines: list[int] | None = None,
                  settings_lines: dict[str, int] | None = None) -> Profile:
    """Validate a parsed YAML document and expand it into points; every problem is reported at once.  An
    unknown key of ``settings`` is reported once, at its own line (``settings_lines``), not at every point it
    would be merged into."""
    if isinstance(doc, dict) and doc.get("mode") == "pts":
        unknown = set(doc) - {"description", "mode", "pts"}
        if unknown:
            raise LabError(f"profile {name}: {_unknown(unknown, {'description', 'mode', 'pts'})} (a pts profile "
                           "has description, mode and pts).")
        pts = parse_pts(doc.get("pts"), name)
        points = tuple(p for t in pts.test_names for p in pts.test_points(t, 0 if t == "wsat" else 1))
        return Profile(name=name, description=str(doc.get("description", "")), points=points, source=source,
                       mode="pts", pts=pts)
    if isinstance(doc, dict) and doc.get("mode") == "replay":
        unknown = set(doc) - {"description", "mode", "replay"}
        if unknown:
            raise LabError(f"profile {name}: {_unknown(unknown, {'description', 'mode', 'replay'})} (a replay "
                           "profile has description, mode and replay).")
        settings = _section(doc.get("replay"), ReplaySettings, name, "replay")
        check_settings(settings, name)
        return Profile(name=name, description=str(doc.get("description", "")), points=(), source=source,
                       mode="replay", replay=settings)
    if not isinstance(doc, dict) or "points" not in doc:
        raise LabError(f"profile {name} must be a mapping with a 'points' list.")
    errors: list[str] = []
    unknown = set(doc) - TOP_KEYS
    if unknown:
        errors.append(f"profile {name}: {_unknown(unknown, TOP_KEYS)}")
    settings = doc.get("settings") or {}
    if not isinstance(settings, dict):
        errors.append(f"profile {name}: 'settings' must be a mapping")
        settings = {}
    for k in sorted(set(settings) - POINT_KEYS, key=str):
        line = (settings_lines or {}).get(str(k))
        errors.append(f"profile {name}, settings: {_unknown({k}, POINT_KEYS)}" + (f" (line {line})" if line else ""))
    settings = {k: v for k, v in settings.items() if k in POINT_KEYS}
    entries = doc["points"]
    if not isinstance(entries, list) or not entries:
        raise _problems(name, [*errors, f"profile {name}: 'points' must be a non-empty list"])
    points: list[Point] = []
    lines = point_lines or []
    settle = _settle_defaults(doc, name)
    searched: list[Point] = []  # characterize: the entries without an iodepth are QD series to search
    for i, entry in enumerate(entries, start=1):
        where = f"profile {name}, point {i}"
        at = f" (line {lines[i - 1]})" if len(lines) >= i else ""
        if not isinstance(entry, dict):
            errors.append(f"{where} must be a mapping such as {{rw: randread, bs: 4k}}{at}")
            continue
        merged = {**settings, **entry}
        unknown = set(merged) - POINT_KEYS
        if unknown:
            errors.append(f"{where}: {_unknown(unknown, POINT_KEYS)}{at}")
            merged = {k: v for k, v in merged.items() if k in POINT_KEYS}
        search = isinstance(doc, dict) and doc.get("mode") == "characterize" and "iodepth" not in merged
        expanded, point_errors = _expand(merged, where, settle if search or doc.get("mode") != "characterize"
                                         else SETTLE_DEFAULTS)
        (searched if search else points).extend(expanded)
        errors.extend(e.rstrip(".") + at for e in point_errors)
    mode = doc.get("mode", "grid")
    if mode not in MODES:
        errors.append(f"profile {name}: mode {mode!r} is not known (use one of {', '.join(MODES)})")
    adaptive = steady = pre = slo = burst = None
    try:
        if mode == "slo":
            slo = _section(doc.get("slo"), SloSearchSettings, name, "slo")
            if slo.slo_us <= 0 or slo.factor <= 1 or slo.tolerance_pct <= 0 or slo.max_rate < slo.start_rate:
                raise LabError(f"profile {name}: slo needs slo_us > 0, factor > 1, tolerance_pct > 0 and "
                               "max_rate >= start_rate.")
            if slo.cross_check and slo.latency_window_s < 0.001:
                raise LabError(f"profile {name}: slo.latency_window_s {slo.latency_window_s:g} is too short for "
                               "fio's latency_target windows (at least 0.001 s; 1 s holds enough I/Os for a p99).")
            if any(p.rate_iops is not None for p in points):
                raise LabError(f"profile {name}: an slo search sets rate_iops itself; remove it from the points.")
        elif "slo" in doc:
            raise LabError(f"profile {name}: an 'slo' section needs mode: slo.")
        if mode == "adaptive":
            adaptive = _section(doc.get("adaptive"), AdaptiveSettings, name, "adaptive")
            points = _adaptive_series(points, adaptive)
        elif mode == "characterize":
            adaptive = _section(doc.get("adaptive"), AdaptiveSettings, name, "adaptive")
            searched = _adaptive_series(searched, adaptive)
            if not searched:
                raise LabError(f"profile {name}: a characterize profile needs at least one QD series (a point "
                               "without iodepth: the adaptive ladder searches its depths).")
            if not any(p.volume is not None and p.writes for p in points) and any(p.writes for p in searched):
                raise LabError(f"profile {name}: a characterize profile with write series needs a sustained write "
                               "(a point with volume: 1 or more) to precondition the target before them.")
            points = searched + points
        elif "adaptive" in doc:
            raise LabError(f"profile {name}: an 'adaptive' section needs mode: adaptive or characterize.")
        if mode == "steady-state":
            steady = _section(doc.get("steady_state"), SteadyStateSettings, name, "steady_state")
            if steady.window < 2 or steady.max_rounds < steady.window:
                raise LabError(f"profile {name}: steady_state needs window >= 2 and max_rounds >= window.")
            pre = _section(doc.get("precondition"), PreconditionSettings, name, "precondition")
        elif "steady_state" in doc:
            raise LabError(f"profile {name}: a 'steady_state' section needs mode: steady-state.")
        elif "precondition" in doc:
            pre = _section(doc.get("precondition"), PreconditionSettings, name, "precondition")
        if mode == "burst":
            burst = _burst_section(doc.get("burst"), name)
            points = [replace(p, group="burst" if p.group == "points" else p.group, drop_windows=burst.low_windows,
                              drop_ratio=burst.drop_ratio, settle_windows=0, settle_window_ms=p.log_avg_msec or 1000)
                      for p in points]
            if any(p.log_avg_msec <= 0 for p in points):
                raise LabError(f"profile {name}: a burst drain needs per-window logs (log_avg_msec > 0).")
        elif "burst" in doc:
            raise LabError(f"profile {name}: a 'burst' section needs mode: burst.")
    except LabError as exc:
        errors.append(str(exc))
    if errors:
        raise _problems(name, errors)
    ids = [p.point_id for p in points]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise LabError(f"profile {name}: point {dup} is listed twice (use 'repeat' to measure a point again).")
    return Profile(name=name, description=str(doc.get("description", "")), points=tuple(points), source=source,
                   mode=mode, adaptive=adaptive, steady_state=steady, precondition=pre, slo=slo, burst=burst,
                   searched=tuple(p.point_id for p in searched) if mode == "characterize" else ())


def _burst_section(raw: Any, name: str) -> BurstSettings:
    """The ``burst`` section: rests_s a list of seconds (> 0), low_windows, drop_ratio in (0, 1)."""
    raw = {} if raw is None else raw
    b = _section({k: v for k, v in raw.items() if k != "rests_s"} if isinstance(raw, dict) else raw, BurstSettings,
                 name, "burst")
    rests = raw.get("rests_s", BurstSettings.rests_s)
    if not isinstance(rests, (list, tuple)) or not all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and r > 0 for r in rests):
        raise LabError(f"profile {name}: burst.rests_s {rests!r} must be a list of rest times in seconds (> 0), "
                       "e.g. [10, 30, 120].")
    if not 0 < b.drop_ratio < 1:
        raise LabError(f"profile {name}: burst.drop_ratio {b.drop_ratio:g} must be between 0 and 1 (the rate after "
                       "the drop over the burst's).")
    return replace(b, rests_s=tuple(float(r) for r in rests))


def _adaptive_series(points: list[Point], a: AdaptiveSettings) -> list[Point]:
    """One starting point per (rw, bs, numjobs, mix, ...) series: the search decides the depths."""
    seen: dict[str, Point] = {}
    for p in points:
        q = replace(p, iodepth=a.start_qd, group=p.group if p.group != "points" else "adaptive")
        seen.setdefault(q.point_id, q)
    return list(seen.values())


def _settle_defaults(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """The settle keys a point gets when the profile does not set them: off in grid and the other modes, on
    for adaptive probes with the search's ``gain_pct`` as the tolerance (:data:`ADAPTIVE_SETTLE`)."""
    if doc.get("mode") not in SEARCH_MODES:
        return SETTLE_DEFAULTS
    try:
        gain = _section(doc.get("adaptive"), AdaptiveSettings, name, "adaptive").gain_pct
    except LabError:  # reported once, where the adaptive section is read
        gain = AdaptiveSettings.gain_pct
    return {**ADAPTIVE_SETTLE, "settle_pct": gain if 0 < gain <= 100 else SETTLE_DEFAULTS["settle_pct"]}


def _expand(merged: dict[str, Any], where: str,
            settle: dict[str, Any] | None = None) -> tuple[list[Point], list[str]]:
    """The points of one profile entry, and every problem found in it (each a sentence naming ``where``);
    ``settle``: the settle keys' defaults (:func:`_settle_defaults`)."""
    settle = {**SETTLE_DEFAULTS, **(settle or {})}
    if "rw" not in merged or "bs" not in merged:
        return [], [f"{where}: needs at least 'rw' and 'bs'"]
    errors: list[str] = []

    def check(fn, *args):
        try:
            return fn(*args)
        except LabError as exc:
            errors.append(str(exc))
            return None

    group = str(merged.get("group", "points"))
    ioengine = merged.get("ioengine", "libaio")
    engine_auto = ioengine == "auto"  # libaio, io_uring where the engine is the limit (helpers.run.demand)
    ioengine = "libaio" if engine_auto else ioengine
    if ioengine not in IOENGINES:
        errors.append(f"{where}: ioengine {ioengine!r} is not supported (use one of {', '.join(IOENGINES)})")
    runtime_s = check(_number, merged.get("runtime_s", 5), "runtime_s", where)
    ramp_s = check(_number, merged.get("ramp_s", 1), "ramp_s", where)
    if runtime_s is not None and runtime_s <= 0:
        errors.append(f"{where}: runtime_s must be more than 0 seconds")
    direct = check(_int, merged.get("direct", 1), "direct", where, 0, 1)
    repeats = check(_int, merged.get("repeat", 1), "repeat", where, 1, 100)
    process = merged.get("rate_process")
    if process is not None and process not in RATE_PROCESSES:
        errors.append(f"{where}: rate_process {process!r} is not supported (use one of {', '.join(RATE_PROCESSES)})")
    if process is not None and merged.get("rate_iops") is None:
        errors.append(f"{where}: rate_process needs rate_iops (the offered load in I/O per second)")
    log_avg = check(_int, merged.get("log_avg_msec", LOG_AVG_MSEC), "log_avg_msec", where, 0, 3_600_000)
    log_hist = check(_int, merged.get("log_hist_msec", LOG_HIST_MSEC), "log_hist_msec", where, 0, 3_600_000)
    settle_n = check(_int, merged.get("settle_windows", settle["settle_windows"]), "settle_windows", where, 0, 3600)
    settle_ms = check(_int, merged.get("settle_window_ms", settle["settle_window_ms"]), "settle_window_ms", where,
                      100, 3_600_000)
    settle_pct = merged.get("settle_pct", settle["settle_pct"])
    if isinstance(settle_pct, bool) or not isinstance(settle_pct, (int, float)) or not 0 < settle_pct <= 100:
        errors.append(f"{where}: settle_pct {settle_pct!r} must be a percentage above 0")
    volume = merged.get("volume")
    if volume is not None and (isinstance(volume, bool) or not isinstance(volume, (int, float)) or not 0 < volume <= 1000):
        errors.append(f"{where}: volume {volume!r} must be a multiple of the target size (e.g. 1 or 2.5)")
    rws = _as_list(merged["rw"])
    for rw in rws:
        if rw not in RW_MODES:
            errors.append(f"{where}: rw {rw!r} is not a fio workload (use one of {', '.join(RW_MODES)})")
    sizes = {bs: check(parse_size, bs, f"{where}: bs") for bs in dict.fromkeys(map(str, _as_list(merged["bs"])))}
    depths = [check(_int, q, "iodepth", where, 1, 65536) for q in _as_list(merged.get("iodepth", 1))]
    jobs_auto = merged.get("numjobs") == "auto"  # 1 job, more where a probe is CPU-bound (helpers.run.demand)
    jobs = [1] if jobs_auto else [check(_int, n, "numjobs", where, 1, 1024) for n in _as_list(merged.get("numjobs", 1))]
    rates = [None if r is None else check(_int, r, "rate_iops", where, 1, 100_000_000)
             for r in _as_list(merged.get("rate_iops"))]
    mixes = _as_list(merged.get("rwmixread"))
    if any(rw in MIXED_MODES for rw in rws):
        mixes = [m if m is None else check(_int, m, "rwmixread", where, 0, 100) for m in mixes]
    bad_pure = [rw for rw in rws if rw in RW_MODES and rw not in MIXED_MODES]
    if bad_pure and any(m is not None for m in mixes):
        errors.append(f"{where}: rwmixread applies only to mixed workloads (rw, randrw), not {bad_pure[0]!r}")
    if errors:
        return [], errors
    out = []
    for rw, bs, qd, nj, mix, rate in itertools.product(rws, _as_list(merged["bs"]), depths, jobs, mixes, rates):
        if rw in MIXED_MODES:
            mix = 50 if mix is None else mix
        for r in range(repeats):
            out.append(Point(group=group, rw=rw, bs_bytes=sizes[str(bs)], iodepth=qd, numjobs=nj, rwmixread=mix,
                             ioengine=ioengine, runtime_s=runtime_s, ramp_s=ramp_s, direct=direct, repeat=r,
                             rate_iops=rate, rate_process=(process or "poisson") if rate is not None else None,
                             log_avg_msec=log_avg, log_hist_msec=log_hist,
                             volume=None if volume is None else float(volume), settle_windows=settle_n,
                             settle_pct=float(settle_pct), settle_window_ms=settle_ms, jobs_auto=jobs_auto,
                             engine_auto=engine_auto))
    return out, []
