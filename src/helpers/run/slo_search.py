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

The offered load is the total of all jobs (each job gets ``rate_iops`` = its share, :func:`per_job_rate`).  A load
that fails while fio used a whole CPU per job (:func:`host_limited`) says nothing about the device, whether it
failed on the achieved rate or on latency (a CPU-bound fio queues I/Os itself: zram, one libaio job offered 256k
IOPS achieved 254k at 100 % of a CPU and a p99 of 1,073 µs, 2 jobs met the SLO there): with ``numjobs: auto`` /
``ioengine: auto`` the same load is measured again with more jobs, then io_uring
(:func:`helpers.run.demand.more_demand`), and the host-limited step is kept in the record as ``superseded``.
A first failing load that was host-limited with no move left makes the capacity the host's limit, a lower bound
of the device's (the summary's ``host_limit`` and reason).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from helpers.errors import LabError
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.latency import latency_label
from helpers.fio.reader import PERCENTILE_KEYS, Result, read_result
from helpers.run.demand import CPU_BOUND_PCT, Config
from helpers.run.profiles import SloSearchSettings


@dataclass(frozen=True)
class RateStep:
    rate: int  # offered IOPS, all jobs together (each job: fio rate_iops = per_job_rate)
    achieved_iops: float
    latency_us: float
    meets: bool
    kind: str = "ladder"  # "ladder" or "bisect"
    latency: str = "clat"  # which latency latency_us is: "lat" (total) or "clat" (completion), see point_tail
    jobs: int = 1  # the configuration the load was offered with
    qd: int = 0
    ioengine: str = ""
    cpu_pct: float = float("nan")  # fio's usr + sys per job, the most of any job (NaN: not reported)
    superseded: bool = False  # host-limited, measured again with more jobs or io_uring (not in the bracket)

    @property
    def config(self) -> Config:
        return Config(self.jobs, self.qd, self.ioengine)


# achieved above offered by more than this: the capacity's sentence says fio did more than it was asked.  fio 3.33's
# rate_process=poisson overshoots at high rates per job (zram, one libaio job at QD 256, 2 s: asked 20k did +0.4 %,
# 64k +7 %, 128k +20 %, 256k +40 %; rate_process=linear within 0.1 % at each; measured 2026-11-29)
OVERSHOOT_PCT = 5.0


def per_job_rate(rate: int, jobs: int) -> int:
    """Each job's fio ``rate_iops`` for a total offered load ``rate`` over ``jobs`` jobs (rounded up)."""
    return max(1, math.ceil(rate / max(1, jobs)))


def host_limited(step: RateStep, s: SloSearchSettings) -> bool:
    """The load failed (on the achieved rate or on latency) while fio used a whole CPU per job
    (:data:`helpers.run.demand.CPU_BOUND_PCT`, the validity flag's rule): fio, not the device, may be what failed."""
    return not step.meets and step.cpu_pct >= CPU_BOUND_PCT


def live(history: list[RateStep]) -> list[RateStep]:
    """The steps the bracket is judged on: all but those measured again with more demand."""
    return [h for h in history if not h.superseded]


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
    """(largest load that met the SLO, smallest load above it that failed); None when unknown.  Superseded steps
    (host-limited, measured again with more demand) do not count."""
    history = live(history)
    good = [h.rate for h in history if h.meets]
    lo = max(good) if good else None
    bad = [h.rate for h in history if not h.meets and (lo is None or h.rate > lo)]
    return lo, (min(bad) if bad else None)


def next_rate(history: list[RateStep], s: SloSearchSettings) -> tuple[int, str] | None:
    """The next (offered rate, kind) to measure, or None when the search is done."""
    if len(history) >= s.max_steps:  # every point measured counts, superseded ones too
        return None
    history = live(history)
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


def step_record(h: RateStep) -> dict:
    """A step as the manifest keeps it (``cpu_pct`` None when fio did not report it)."""
    return {**h.__dict__, "cpu_pct": None if math.isnan(h.cpu_pct) else round(h.cpu_pct, 1)}


def summary(history: list[RateStep], s: SloSearchSettings, point_seconds: float) -> dict:
    """The search's result for the manifest: capacity, bracket, reason, device time vs a rate grid, the
    configuration the capacity was measured at (``setting``: jobs x QD, engine) and ``host_limit``: the first
    failing load (or, with none met, the lowest) failed while fio used a whole CPU per job, with no more jobs or engine
    left to try, so the capacity is the host's limit, a lower bound of the device's."""
    lo, hi = bracket(history)
    grid_points = math.ceil(math.log(s.max_rate / s.start_rate) / math.log(1 + s.tolerance_pct / 100)) + 1
    out = {"slo_us": s.slo_us, "percentile": s.percentile, "steps": [step_record(h) for h in history],
           "capacity_rate_iops": lo, "first_failing_rate_iops": hi,
           "device_seconds": round(len(history) * point_seconds, 2),
           "grid_points": grid_points, "grid_device_seconds": round(grid_points * point_seconds, 2),
           "superseded_steps": sum(h.superseded for h in history), "host_limit": False}
    total = any(h.latency == "lat" for h in history)
    lab = latency_label("lat" if total else "clat", f"p{s.percentile:g}", "")
    steps = live(history)
    failing = [h for h in steps if not h.meets and (lo is None or h.rate > lo)]
    first_bad = min(failing, key=lambda h: h.rate) if failing else None
    notes = ""  # sentences after the bracket: the host limit, fio overshooting the offered rate
    if first_bad is not None and host_limited(first_bad, s):
        out["host_limit"] = True
        at = f" at {first_bad.config.phrase()}" if first_bad.qd else ""
        out["host_sentence"] = (f"{first_bad.rate:,} IOPS failed while fio used {first_bad.cpu_pct:.0f} % of a CPU "
                                f"per job{at} (achieved {first_bad.achieved_iops:,.0f}, no more jobs or engine left "
                                "to try): the capacity is the host's limit, at least that for the device.")
        notes = " " + out["host_sentence"]
    if lo is None:
        out["reason"] = (f"no offered load down to {min(h.rate for h in steps) if steps else s.start_rate:,} IOPS "
                         f"met {lab} <= {s.slo_us:g} us with the achieved rate >= {s.saturation_fraction:.0%} of "
                         "offered." + notes)
        return out
    got = next(h for h in steps if h.rate == lo)
    if got.qd:
        out["setting"] = got.config.phrase()
    over = 100 * (got.achieved_iops / got.rate - 1) if got.rate else 0.0
    if over > OVERSHOOT_PCT:  # the load the capacity was measured at is what fio did, not what it was asked
        out["overshoot_pct"] = round(over, 1)
        notes += (f" fio ran {over:.0f} % above the {lo:,} IOPS offered there (fio's Poisson arrivals overshoot at high "
                 f"rates per job), so the load the SLO held at was the achieved {got.achieved_iops:,.0f} IOPS.")
    if hi is None:
        out["reason"] = (f"every load up to {lo:,} IOPS met {lab} <= {s.slo_us:g} us: the capacity is at least that "
                         f"(max_rate or max_steps reached)." + notes)
    else:
        out["achieved_iops"] = round(got.achieved_iops, 1)
        out["reason"] = (f"{lo:,} IOPS offered meets {lab} <= {s.slo_us:g} us ({got.latency_us:,.0f} us, achieved "
                         f"{got.achieved_iops:,.0f}); {hi:,} fails; bracket within {100 * (hi / lo - 1):.0f} %."
                         + notes)
    return out
