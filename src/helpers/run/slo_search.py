"""SLO search: the largest offered load (fio ``rate_iops``, open loop) whose p99 latency stays within an
SLO, found with few points instead of a full rate grid.

Per series (a profile point without a rate) the search

1. climbs a geometric ladder from ``start_rate`` (x ``factor`` per step) while the load *meets* the SLO:
   achieved IOPS >= ``saturation_fraction`` x offered and the p``percentile`` completion latency <= ``slo_us``;
2. at the first load that fails, bisects in log space (geometric midpoints) between the last load that
   met and the first that failed, until their ratio is at most 1 + ``tolerance_pct`` / 100;
3. stops at ``max_rate`` (met everywhere: "at least"), when ``start_rate`` already fails (then it
   bisects down to ``min_rate``), or after ``max_steps`` points;
4. (``cross_check``, on by default) runs one point in fio's own ``latency_target`` mode with the same
   target, percentile and latency: a closed loop where fio moves the queue depth (1..iodepth) until
   the percentile of each ``latency_window_s`` window meets the target (:func:`cross_check_result`;
   the two answers are compared by ``helpers.analysis.slo_cross_check``).

:func:`next_rate` is a pure function of the history (resumed sweeps re-read their raw files and take
the same path).  The latency is the worst direction's percentile of total latency (fio's
``lat_percentiles=1``, which the lab's points set), or of completion latency (clat) for points
without it -- what fio's latency_target holds too (total latency per I/O).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from helpers.errors import LabError
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.latency import latency_label
from helpers.fio.reader import PERCENTILE_KEYS, Result, read_result
from helpers.run.profiles import SloSearchSettings


@dataclass(frozen=True)
class RateStep:
    rate: int  # offered IOPS (per job: fio rate_iops)
    achieved_iops: float
    latency_us: float
    meets: bool
    kind: str = "ladder"  # "ladder" or "bisect"
    latency: str = "clat"  # which latency latency_us is: "lat" (total) or "clat" (completion), see point_tail


def percentile_key(percentile: float) -> str:
    return f"{percentile:.6f}"


def _read(raw: Path) -> Result:
    data = Path(raw).read_bytes()
    return read_result(parse_fio_bytes(data), data)


def _tail(result: Result, percentile: float) -> dict[str, float]:
    i = list(PERCENTILE_KEYS).index(percentile_key(percentile))
    dirs = [x for e in result.entries if not e.aggregate and not e.error for x in e.directions]
    use_lat = any(not math.isnan(x.lat_pct_us[i]) for x in dirs)
    values = [x.lat_pct_us[i] if use_lat else x.clat_pct_us[i] for x in dirs]
    values = [v for v in values if not math.isnan(v)]
    return {"iops": sum(x.iops for x in dirs), "latency_us": max(values) if values else float("nan"),
            "latency": "lat" if use_lat else "clat"}


def point_tail(raw: Path, percentile: float = 99.0) -> dict[str, float]:
    """Total IOPS (all directions, jobs and hosts) and the worst direction's latency percentile in µs of one
    raw fio output file, read by the one fio reader: total latency when fio measured its percentiles
    (lat_percentiles=1, as the lab's points do), else completion latency -- the latency the analysis holds
    against the SLO (helpers.analysis.slo).  NaN when fio reported neither."""
    return _tail(_read(raw), percentile)


def cross_check_result(raw: Path, percentile: float = 99.0) -> dict:
    """What fio's latency_target mode settled on, from the cross-check point's raw file (the one fio reader):
    ``depth`` (the queue depth fio ended on; ``max_depth`` the configured iodepth it searched up to),
    ``iops`` and the p``percentile`` ``latency_us`` of fio's final statistics (as :func:`point_tail`),
    fio's ``target_us``/``percentile``/``window_s``, ``stats_s`` (the time those statistics cover) and
    ``settled``: they cover one window (fio found the depth, reset its statistics, ran one more window
    at it and stopped); more means a later window failed and the depth moved again, less that the
    runtime cap cut the search (statistics then mix depths).  Raises LabError when the file holds no
    latency_target job."""
    result = _read(raw)
    entries = [e for e in result.entries if not e.aggregate and not e.error and e.latency_target is not None]
    if not entries:
        raise LabError(f"{Path(raw).name} holds no fio latency_target job.")
    t = entries[0].latency_target
    window_s = t.window_us / 1e6
    stats_s = max(x.runtime_s for e in entries for x in e.directions)
    return {**_tail(result, percentile), "depth": max(e.latency_target.depth for e in entries),
            "max_depth": entries[0].config.iodepth if entries[0].config else None, "jobs": len(entries),
            "target_us": t.target_us, "percentile": t.percentile, "window_s": window_s, "stats_s": stats_s,
            "settled": bool(0.9 * window_s <= stats_s < 2 * window_s)}


def meets(rate: float, achieved: float, latency_us: float, s: SloSearchSettings) -> bool:
    return achieved >= s.saturation_fraction * rate and not math.isnan(latency_us) and latency_us <= s.slo_us


def bracket(history: list[RateStep]) -> tuple[int | None, int | None]:
    """(largest load that met the SLO, smallest load above it that failed); None when unknown."""
    good = [h.rate for h in history if h.meets]
    lo = max(good) if good else None
    bad = [h.rate for h in history if not h.meets and (lo is None or h.rate > lo)]
    return lo, (min(bad) if bad else None)


def next_rate(history: list[RateStep], s: SloSearchSettings) -> tuple[int, str] | None:
    """The next (offered rate, kind) to measure, or None when the search is done."""
    if len(history) >= s.max_steps:
        return None
    measured = {h.rate for h in history}
    lo, hi = bracket(history)
    if hi is None:  # every load so far met the SLO: climb
        nxt = s.start_rate if not history else int(round(max(measured) * s.factor))
        if history and max(measured) >= s.max_rate:
            return None
        return min(nxt, s.max_rate), "ladder"
    low = lo if lo is not None else s.min_rate
    if hi / low <= 1 + s.tolerance_pct / 100:
        return None
    mid = int(round(math.sqrt(low * hi)))
    if mid in measured or not low < mid < hi:
        return None
    if lo is None and mid < s.min_rate:
        return None
    return mid, "bisect"


def summary(history: list[RateStep], s: SloSearchSettings, point_seconds: float) -> dict:
    """The search's result for the manifest: capacity, bracket, reason, device time vs a rate grid."""
    lo, hi = bracket(history)
    grid_points = math.ceil(math.log(s.max_rate / s.start_rate) / math.log(1 + s.tolerance_pct / 100)) + 1
    out = {"slo_us": s.slo_us, "percentile": s.percentile, "steps": [h.__dict__ for h in history],
           "capacity_rate_iops": lo, "first_failing_rate_iops": hi,
           "device_seconds": round(len(history) * point_seconds, 2),
           "grid_points": grid_points, "grid_device_seconds": round(grid_points * point_seconds, 2)}
    total = any(h.latency == "lat" for h in history)
    lab = latency_label("lat" if total else "clat", f"p{s.percentile:g}", "")
    if lo is None:
        out["reason"] = (f"no offered load down to {min(h.rate for h in history) if history else s.start_rate:,} IOPS "
                         f"met {lab} <= {s.slo_us:g} us with the achieved rate >= {s.saturation_fraction:.0%} of offered.")
    elif hi is None:
        out["reason"] = (f"every load up to {lo:,} IOPS met {lab} <= {s.slo_us:g} us: the capacity is at least that "
                         f"(max_rate or max_steps reached).")
    else:
        got = next(h for h in history if h.rate == lo)
        out["achieved_iops"] = round(got.achieved_iops, 1)
        out["reason"] = (f"{lo:,} IOPS offered meets {lab} <= {s.slo_us:g} us ({got.latency_us:,.0f} us, achieved "
                         f"{got.achieved_iops:,.0f}); {hi:,} fails; bracket within {100 * (hi / lo - 1):.0f} %.")
    return out
