"""Adaptive queue-depth search: find the plateau of a (rw, bs) series with few fio runs.

Per series the search doubles QD from ``start_qd`` (1, 2, 4, ...) and stops when

* the last ``flat_steps`` doublings each added less than ``gain_pct`` % IOPS over the best
  depth measured before the first of them ("flat"; a probe that ran its full runtime without settling never
  counts as flat: its number may come from a slow phase of the device, so the ladder goes on), or
* the mean completion latency exceeded ``lat_limit_us`` (when set), or
* ``max_qd`` was measured.

A ladder probe that reads more than ``gain_pct`` % below the best shallower depth (a "dip": closed-loop IOPS
do not fall with QD until the device is overloaded, and on the bench's disk such a dip was mostly a short slow
phase, see :func:`reprobe_due`) is measured again at once (kind ``"reprobe"``), and a third time when the two
readings disagree by more than ``gain_pct`` (a dip that did not settle is not: it never counts as flat
anyway); the ladder then judges that depth by the median of its readings, so a drop that persists is
kept.  At most ``max_reprobes`` such runs per series.

With ``check_doublings`` (the characterize profile: 2), a plateau so found is checked by one more ladder probe
that many doublings past the last flat one before the ladder stops (:func:`check_due`): a slow rise hidden in the
noise of short probes shows there, and the ladder doubles on from the check.

A series may be seeded (``seed: true``, :class:`Seed`) by the series of its operation measured before it with a
smaller block: it measures ``start_qd`` (QD 1: its own QD1 latency), then doubles from one step below the depth the
seeding series' plateau began at, skipping the depths between.  Only where its ladder starts comes from the other
series: every number it reports is its own probe, and it confirms its own plateau with ``flat_steps`` flat doublings
of its own (a series that is still rising doubles on past the seeded depths as any ladder does).  When the seeded
jump was the last doubling that paid off, the refine step goes into the depths it skipped instead.

It then refines between the last depth that still paid off and the first flat (or too slow)
depth by measuring their geometric midpoint, and optionally re-measures the peak with a longer
runtime.  :func:`next_depth` is a pure function of the history, so a resumed sweep re-reads the
raw files it already has and takes exactly the same path.

Each probe (ladder and refine steps) ends once its IOPS has settled, by default (profile settings
``settle_windows``/``settle_pct``/``settle_window_ms``, see :mod:`helpers.run.profiles`), with
``runtime_s`` as the most it may take; a confirm run always takes its full ``confirm_runtime_s``.
Every step records the seconds it drove the device and when it settled, so the reported peak says
how settled the measurement behind it was.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import point_totals, read_result
from helpers.run.profiles import AdaptiveSettings, qd_ladder


@dataclass(frozen=True)
class Step:
    qd: int
    iops: float
    lat_mean_us: float
    kind: str = "ladder"  # "ladder", "reprobe" (a ladder depth measured again), "refine" or "confirm"
    runtime_s: float | None = None  # the most the step could run (its runtime_s)
    device_s: float | None = None  # seconds it drove the device: ramp + the runtime it took
    settled_s: float | None = None  # it ended early, settled, this many seconds in (ramp included); None: ran it all
    settle_check: bool = False  # it could have ended early once settled (settle_windows > 0)

    @property
    def unsettled(self) -> bool:
        """It had a settle check and ran its full runtime without settling: its IOPS moved by more than the
        tolerance from window to window, so the number may come from a passing slow (or fast) phase."""
        return self.settle_check and self.settled_s is None and self.kind != "confirm"


# a settle window must hold at least this many I/Os before the search shortens it: their count alone then moves
# by about 1/sqrt(1000) = 3 % from window to window, well inside the default 10 % tolerance
WINDOW_IOS = 1000


def probe_window_ms(history: list[Step], a: AdaptiveSettings, window_ms: int) -> int:
    """The settle window of the next probe: the profile's ``window_ms``, shortened (to ``a.min_window_ms`` at
    the least, in 10 ms steps) when the last measured step's IOPS put :data:`WINDOW_IOS` I/Os into a
    shorter one.  QD only doubles, so the next probe's IOPS are at least about that high; a probe only has to
    show whether its doubling paid off.  A pure function of the history, like :func:`next_depth`."""
    if not history or history[-1].iops <= 0:
        return window_ms
    need = math.ceil(WINDOW_IOS * 1000 / history[-1].iops / 10) * 10
    return min(window_ms, max(a.min_window_ms, need))


def point_metrics(raw: Path) -> dict[str, float]:
    """Total IOPS (all directions; all hosts in client/server mode) and mean completion latency (µs),
    read by the one fio reader (fio 2.x µs keys and 3.x ns keys alike)."""
    return point_totals(read_result(parse_fio_bytes(Path(raw).read_bytes())))


def step_of(qd: int, kind: str, raw: Path, entry: dict) -> Step:
    """The search's record of one measured point: its numbers from the raw file, its device time and
    settle time from its manifest entry (``device_s``, ``settled_after_s``; planned ramp + runtime when
    the entry predates them)."""
    m = point_metrics(raw)
    p = entry.get("parameters", {})
    runtime = float(p.get("runtime_s", 0))
    device = entry.get("device_s", runtime + float(p.get("ramp_s", 0)))
    return Step(qd, m["iops"], m["lat_mean_us"], kind, runtime, device, entry.get("settled_after_s"),
                int(p.get("settle_windows", 0) or 0) > 0)


def settle_text(step: Step) -> str:
    """How settled the measurement of a step is, in words."""
    if step.settled_s is not None:
        return f"settled after {step.settled_s:g} s"
    full = f" {step.runtime_s:g} s" if step.runtime_s else ""
    return f"ran its full{full} runtime without settling" if step.kind != "confirm" else \
        f"confirm run of{full} (no settle-stop)"


def summary(history: list[Step], a: AdaptiveSettings, seed: Seed | None = None) -> dict:
    """The manifest's record of one series: every step, why the ladder stopped, the peak (a measured step)
    and how settled it was, the plateau's probes and their median IOPS (:func:`plateau_iops`; None when the
    ladder did not end on a plateau), the seconds the series drove the device, the ladder's largest depth and the
    seed its ladder started from (:meth:`Seed.record`; None: unseeded)."""
    pk = peak(history)
    return {"steps": [s.__dict__ for s in history], "stop_reason": stop_reason(history, a),
            "peak_qd": pk.qd, "peak_iops": round(pk.iops, 1), "peak_kind": pk.kind,
            "peak_settled_after_s": pk.settled_s, "peak_how": settle_text(pk),
            "plateau_qds": [s.qd for s in plateau(history, a)],
            "plateau_iops": None if (pl := plateau_iops(history, a)) is None else round(pl, 1),
            "device_s": round(sum(s.device_s or 0.0 for s in history), 3), "max_qd": a.max_qd,
            "settled_steps": sum(s.settled_s is not None for s in history),
            "seed": None if seed is None else seed.record(a)}


def _flat_run(ladder: list[Step], gain: float) -> int:
    """Number of trailing ladder steps that together stayed flat: each gained less than ``gain`` over the best
    step measured before the first of them, so a curve that creeps up by a little less than ``gain`` per
    doubling (7 %, then 7 % more) is still rising.  A step that did not settle (:attr:`Step.unsettled`)
    never counts as flat: it ends the run as a step that paid off does, so a flat verdict rests only on
    settled (or settle-free) measurements and the ladder goes on through a slow phase instead of calling its
    dip a plateau."""
    n = 0
    for i in range(len(ladder) - 1, 0, -1):  # try the run ladder[i:]
        base = max(s.iops for s in ladder[:i])
        if all(s.iops < base * (1 + gain) and not s.unsettled for s in ladder[i:]):
            n = len(ladder) - i
        else:
            break
    return n


# the step kinds that are probes of the curve (a confirm run re-measures the peak instead): the plateau's readings
PROBE_KINDS = ("ladder", "reprobe", "refine")


def readings(history: list[Step], qd: int) -> list[Step]:
    """The ladder probe at ``qd`` and its re-probes, in the order measured."""
    return [s for s in history if s.qd == qd and s.kind in ("ladder", "reprobe")]


def ladder_steps(history: list[Step]) -> list[Step]:
    """The ladder as the search judges it: one step per ladder depth, a re-probed depth by the median of its
    readings (of two, their mean: what one probe twice as long would read; of three, the middle one, so a single
    reading off by more than ``gain_pct`` from the other two counts for nothing, whichever way it is off), its
    latency likewise, its device time the sum of theirs; it counts as settled when one of its readings settled."""
    out = []
    for s in history:
        if s.kind != "ladder":
            continue
        rs = readings(history, s.qd)
        if len(rs) == 1:
            out.append(s)
            continue
        settled = [r.settled_s for r in rs if r.settled_s is not None]
        out.append(replace(s, iops=statistics.median(r.iops for r in rs),
                           lat_mean_us=statistics.median(r.lat_mean_us for r in rs),
                           device_s=sum(r.device_s or 0.0 for r in rs) if s.device_s is not None else None,
                           settled_s=settled[0] if settled else None,
                           settle_check=any(r.settle_check for r in rs)))
    return out


def reprobe_due(history: list[Step], a: AdaptiveSettings) -> int | None:
    """The depth to measure again now (kind ``"reprobe"``), or None.  Only the deepest ladder depth, right after
    it was measured:

    * once, when its probe settled (or had no settle check) and read more than ``gain_pct`` % below the best
      shallower depth (as :func:`ladder_steps` judges them).  Closed-loop IOPS do not fall as QD doubles until
      the device is overloaded, so such a dip is a short slow phase or a real drop past overload, and one
      reading cannot tell them apart.  On the bench's disk (2026-11-23/24, 47 searches) 37 of 386 ladder probes
      past QD 1 (9.6 %) dipped so, against 11 of 464 (2.4 %) of the grids' 3 s points at QD 2..256, and 30 of
      the 37 read more than 5 % below the grids' points at the same depth (median 10.6 % below): mostly the
      probe's reading had dropped, not the device's curve.  A settled dip counts as flat and can end the ladder
      before the curve levels off (bench 2026-11-23 23:41 round 1: QD 32 read 30 % below the grids, the
      ladder stopped at QD 32, knee QD 8 against the grids' 32).  A dip that did not settle is not re-probed:
      it never counts as flat (:func:`_flat_run`), so the ladder goes on past it anyway; it ran its full
      runtime (twice a settled probe's); and the slow phase that kept it from settling mostly lasts through a
      re-probe (bench 2026-11-24 01:46 round 4: such a dip at QD 4 and its two re-probes all ran in full at
      11-16k IOPS, 2.2 s that changed nothing and took the round to 28.7 % of the grid's device time);
    * a second time when the re-probe and the first reading disagree by more than ``gain_pct`` % (the larger
      over the smaller): the median of three then decides, so a dip that the re-probe contradicts, and that a
      third reading does not back, is dropped, and one that a third reading backs is kept.  Two readings that
      agree stand as their mean (a drop that persists is real, or a slow phase longer than a probe: consecutive
      probes' deviations from the grids correlated at 0.53 in those 47 searches, so a re-probe right after is
      not a fully independent reading).

    The rule looks only at whether the readings disagree, never at which of them is higher, and every reading is
    kept in the history (the plateau's level is the median of ALL its readings, :func:`plateau_iops`).  At most
    ``max_reprobes`` re-probe runs per series (none when ``reprobe`` is off): the device time it may add is
    bounded by that many probes."""
    if not a.reprobe or sum(s.kind == "reprobe" for s in history) >= a.max_reprobes:
        return None
    ladder = [s for s in history if s.kind == "ladder"]
    if len(ladder) < 2 or any(s.kind in ("refine", "confirm") for s in history):
        return None
    qd = ladder[-1].qd
    rs = readings(history, qd)
    if len(rs) == 1:
        best = max(s.iops for s in ladder_steps(history)[:-1])
        return qd if rs[0].iops < best * (1 - a.gain_pct / 100) and not rs[0].unsettled else None
    if len(rs) == 2:
        lo, hi = sorted(r.iops for r in rs)
        return qd if hi > lo * (1 + a.gain_pct / 100) else None
    return None


def check_due(ladder: list[Step], a: AdaptiveSettings) -> int | None:
    """The depth of the plateau check still due, or None (``check_doublings`` > 0).

    Once ``flat_steps`` doublings in a row were flat, one more ladder probe goes ``check_doublings`` doublings past
    the last of them (at most to ``max_qd``) before the ladder stops: a curve that still rises slowly, by less
    than ``gain_pct`` over the flat run's few doublings and under the noise of short probes, shows it there.  The
    bench behind a 40,000 IOPS ceiling (2026-11-26 17:03, rw 16k) read 59.9k, 56.2k and 64.2k IOPS at QD 8, 16 and
    32 and stopped on "2 flat doublings" while both grids' level was 80k from QD 64 on: two doublings deeper, at
    QD 128, the ladder would have seen it.  When the check reads ``gain_pct`` over the depths before the flat run,
    the run is broken (:func:`_flat_run`) and the ladder doubles on from the check; when it reads flat, it is one
    more reading of the plateau (:func:`plateau_iops`).  None when the check is off, the ladder is not flat, the
    last flat doubling is already the check (the last step came ``check_doublings`` doublings after the one before
    it and the flat run holds it) or no deeper depth is left."""
    if a.check_doublings <= 0 or len(ladder) < 2:
        return None
    flat = _flat_run(ladder, a.gain_pct / 100)
    if flat < a.flat_steps:
        return None
    last = ladder[-1]
    if flat > a.flat_steps and last.qd >= ladder[-2].qd << a.check_doublings:
        return None  # checked
    if last.qd * 2 > a.max_qd:
        return None
    qd = last.qd << a.check_doublings
    while qd > a.max_qd:
        qd //= 2
    return qd


def ladder_stop(ladder: list[Step], a: AdaptiveSettings) -> str | None:
    """Why the doubling stops after these steps (None: keep doubling, or the plateau check is due:
    :func:`check_due`)."""
    if not ladder:
        return None
    last = ladder[-1]
    if a.lat_limit_us is not None and last.lat_mean_us > a.lat_limit_us:
        return f"mean latency {last.lat_mean_us:.0f} us at QD {last.qd} exceeds the limit {a.lat_limit_us:.0f} us"
    if (flat := _flat_run(ladder, a.gain_pct / 100)) >= a.flat_steps and check_due(ladder, a) is None:
        checked = "" if flat == a.flat_steps or a.check_doublings <= 0 else \
            f"; the check deeper, at QD {last.qd}, read flat too"
        first = ladder[-flat - 1 + a.flat_steps].qd if checked else last.qd
        return (f"{a.flat_steps} doublings in a row added less than {a.gain_pct:g} % IOPS over the depths before "
                f"them (up to QD {first}{checked})")
    if last.qd * 2 > a.max_qd:
        unsettled = sum(s.unsettled for s in ladder)
        note = f" ({unsettled} of {len(ladder)} doublings did not settle)" if unsettled else ""
        return f"reached the largest queue depth {last.qd}{note}"
    return None


def refine_bracket(ladder: list[Step], a: AdaptiveSettings) -> tuple[int, int] | None:
    """(last depth that still paid off, first flat or too-slow depth); when the ladder reached the last depth that
    paid off by a jump of more than one doubling (a seeded ladder's jump from QD 1, :class:`Seed`, or a plateau
    check that found the curve still rising, :func:`check_due`), the jump instead: the knee lies anywhere in it,
    where the ladder measured nothing (unseeded and unchecked, it would have measured every doubling there)."""
    if len(ladder) < 2:
        return None
    last = ladder[-1]
    if a.lat_limit_us is not None and last.lat_mean_us > a.lat_limit_us:
        return ladder[-2].qd, last.qd
    flat = _flat_run(ladder, a.gain_pct / 100)
    if flat == 0:
        return None  # still rising at max_qd: nothing to refine
    first_flat = len(ladder) - flat
    lo = ladder[first_flat - 1]
    if first_flat >= 2 and lo.qd > 2 * ladder[first_flat - 2].qd:
        return ladder[first_flat - 2].qd, lo.qd
    return lo.qd, ladder[first_flat].qd


@dataclass(frozen=True)
class Seed:
    """What a finished search tells the next series of its operation (same ``rw``, read share and jobs) with the same
    or a larger block: that series saturates at the same or a lower depth (a larger block moves more bytes per I/O,
    so a bandwidth or per-I/O limit is reached with fewer I/Os in flight), so its ladder can skip the rising depths
    the seeding series had to climb.  The seeded ladder measures ``a.start_qd`` (QD 1: its QD1 latency is reported),
    then ``start_qd``, ``2 * start_qd``, ... as usual, ``start_qd`` being one doubling below ``plateau_qd``, the depth
    the seeding series' plateau was measured from (so a series that saturates where the seeding one did still shows
    its last rising doubling).  The seed decides depths only, never a number."""

    from_series: str  # the seeding series (its id in the manifest's ``adaptive`` section)
    plateau_qd: int  # the depth its plateau began at (the best ladder depth before its flat doublings)
    start_qd: int  # the seeded ladder's second depth

    def depths(self, a: AdaptiveSettings) -> list[int]:
        """The seeded ladder: ``a.start_qd``, then doublings from ``start_qd`` to ``a.max_qd``."""
        return [a.start_qd] + qd_ladder(self.start_qd, a.max_qd)

    def skipped(self, a: AdaptiveSettings) -> list[int]:
        """The depths of the unseeded ladder the seeded one leaves out."""
        return [q for q in qd_ladder(a.start_qd, a.max_qd) if a.start_qd < q < self.start_qd]

    def record(self, a: AdaptiveSettings) -> dict:
        """The series summary's record of the seed (manifest ``adaptive.<series>.seed``)."""
        return {"seeded_from": self.from_series, "expected_plateau_qd": self.plateau_qd, "start_qd": self.start_qd,
                "skipped_qds": self.skipped(a)}


def seed_from(history: list[Step], a: AdaptiveSettings, series: str) -> Seed | None:
    """The seed a finished search gives the next series of its operation, or None: seeding is off, the search did
    not end on a plateau of its own (still rising at ``max_qd``, stopped by the latency limit: nothing to say about
    the next), or its plateau began so shallow that the seeded ladder would skip nothing.  A pure function of the
    history, so a resumed sweep seeds exactly as the first pass did."""
    if not a.seed:
        return None
    steps = plateau(history, a)
    if not steps:
        return None
    base = min(s.qd for s in steps if s.kind != "refine")  # the depth the flat run was measured against
    start = base // 2
    if start <= 2 * a.start_qd:
        return None
    return Seed(series, base, start)


def ladder_depths(a: AdaptiveSettings, seed: Seed | None = None) -> list[int]:
    """The depths the ladder doubles through: ``start_qd`` .. ``max_qd``, or the seeded ladder (:class:`Seed`)."""
    return seed.depths(a) if seed is not None else qd_ladder(a.start_qd, a.max_qd)


def next_depth(history: list[Step], a: AdaptiveSettings, seed: Seed | None = None) -> tuple[int, str] | None:
    """The next (QD, kind) to measure, or None when the search is done; ``seed``: where a seeded ladder goes."""
    if (again := reprobe_due(history, a)) is not None:
        return again, "reprobe"
    ladder = ladder_steps(history)
    if (check := check_due(ladder, a)) is not None:
        return check, "ladder"
    if ladder_stop(ladder, a) is None:
        depths = ladder_depths(a, seed)
        return next(q for q in depths if not ladder or q > ladder[-1].qd), "ladder"
    measured = {s.qd for s in history}
    if a.refine and not any(s.kind == "refine" for s in history):
        br = refine_bracket(ladder, a)
        if br and br[1] - br[0] >= 2:
            mid = round(math.sqrt(br[0] * br[1]))
            if mid not in measured and br[0] < mid < br[1]:
                return mid, "refine"
    if a.confirm_runtime_s and not any(s.kind == "confirm" for s in history):
        return peak(history).qd, "confirm"
    return None


def peak(history: list[Step]) -> Step:
    return max(history, key=lambda s: s.iops)


def plateau(history: list[Step], a: AdaptiveSettings) -> list[Step]:
    """The probes on the plateau the ladder ended on, when it stopped on ``flat_steps`` flat doublings (empty
    otherwise: still rising at ``max_qd``, or stopped by the latency limit): the ladder and refine steps from
    the depth the flat run was measured against (the best step before it) upwards, re-probes included (every
    reading of a re-probed depth is one probe here)."""
    ladder = ladder_steps(history)
    flat = _flat_run(ladder, a.gain_pct / 100)
    if flat < a.flat_steps:
        return []
    base = max(ladder[:len(ladder) - flat], key=lambda s: s.iops)
    return [s for s in history if s.kind in PROBE_KINDS and s.qd >= base.qd]


def plateau_iops(history: list[Step], a: AdaptiveSettings) -> float | None:
    """The median IOPS of the :func:`plateau` probes: the plateau's level from a few short probes, none of which
    is picked for being high (:func:`peak`, the best single probe, is the best of several noisy ones).  A re-probed
    depth counts with each of its readings, the low one that triggered the re-probe included: a re-probe adds a
    fresh reading, it replaces none, so re-measuring only low readings does not lift the level."""
    steps = plateau(history, a)
    return statistics.median(s.iops for s in steps) if steps else None


def curve_level(curve: dict[int, float], a: AdaptiveSettings) -> tuple[float, list[int]]:
    """The level of a measured IOPS-vs-QD curve (a grid's points) by the search's own rule, and the depths behind
    it: the curve's points as ladder steps, the median IOPS of their :func:`plateau`; the best point when the curve
    did not end on a plateau (as the search falls back to its best probe).  A grid's peak so taken can be compared
    with the search's ``plateau_iops`` like for like: neither is the best of several noisy readings."""
    steps = [Step(q, v, 0.0) for q, v in sorted(curve.items())]
    if not steps:
        raise ValueError("an empty curve has no level")
    level = plateau_iops(steps, a)
    if level is not None:
        return level, [s.qd for s in plateau(steps, a)]
    best = peak(steps)
    return best.iops, [best.qd]


def concluded_curve(history: list[Step], a: AdaptiveSettings) -> tuple[list[int], list[float]]:
    """The IOPS-vs-QD curve the search concluded, over its whole ladder ``start_qd``..``max_qd``: its ladder and
    refine probes and, when the ladder ended on a plateau, the plateau's level (:func:`plateau_iops`) at the
    ladder depths past the last one measured -- the search stopped there because it judged the curve flat from
    the plateau on.  Without a plateau (still rising at ``max_qd``, stopped by the latency limit) the probes
    alone.  A knee method that scales QD to the range it is given (Kneedle, :func:`helpers.analysis.find_knee`)
    so answers on the same range as a grid to ``max_qd``: on the probes alone, which end at QD 128 or 256, it
    can put the knee a step or two lower than on the same device's full curve (a grid cut at the search's last
    depth can, too)."""
    probes = ladder_steps(history) + [s for s in history if s.kind == "refine"]
    qd, iops = [s.qd for s in probes], [s.iops for s in probes]
    level = plateau_iops(history, a)
    if level is not None and probes:
        top = max(qd)
        extra = [q for q in qd_ladder(a.start_qd, a.max_qd) if q > top]
        qd, iops = qd + extra, iops + [level] * len(extra)
    return qd, iops


def stop_reason(history: list[Step], a: AdaptiveSettings) -> str:
    return ladder_stop(ladder_steps(history), a) or "not finished"


def device_seconds(manifest_points: dict) -> float:
    """Seconds the device was driven (ramp + runtime of every successful point) in a manifest: each point's
    recorded ``device_s`` (fio's own runtime for points that ended early: settled IOPS, fio's latency_target
    mode), else the seconds its fio process ran (at most its planned ramp + runtime), else the plan."""
    total = 0.0
    for v in manifest_points.values():
        p = v.get("parameters", {})
        if v.get("status") == "ok":
            nominal = float(p.get("runtime_s", 0)) + float(p.get("ramp_s", 0))
            ran = v.get("seconds")
            total += float(v["device_s"]) if v.get("device_s") is not None else \
                min(nominal, float(ran)) if ran is not None else nominal
    return total
