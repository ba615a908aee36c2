"""The settings sections of a profile, one dataclass each: adaptive search, SLO search, steady state, burst, preconditioning and SNIA PTS (its tests, classes and matrices, with the specification's constants)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from helpers.errors import LabError
from helpers.fio.units import parse_size
from helpers.run.profile_point import (
    IOENGINES,
    PER_POINT_OVERHEAD_S,
    Point,
    _as_list,
    _int,
    _number,
    _section,
)


@dataclass(frozen=True)
class AdaptiveSettings:
    """Adaptive queue-depth search (see :mod:`helpers.run.adaptive`)."""

    gain_pct: float = 10.0  # a doubling of QD that adds less than this % of IOPS is "flat"
    flat_steps: int = 2  # stop after this many flat doublings in a row
    # > 0: a plateau so found is checked by one more probe this many doublings past the last flat depth before the
    # ladder stops (a curve still rising slowly under the noise of short probes shows there; adaptive.check_due)
    check_doublings: int = 0
    start_qd: int = 1
    max_qd: int = 1024
    lat_limit_us: float | None = None  # stop when mean completion latency exceeds this
    refine: bool = True  # measure the geometric midpoint between the last two depths before the plateau
    confirm_runtime_s: float = 0.0  # >0: re-measure the knee and the peak at this runtime
    # a ladder probe reading more than gain_pct below the best shallower depth is measured again (and once more when
    # the two readings disagree by more than gain_pct); at most max_reprobes such runs per series (adaptive.py)
    reprobe: bool = True
    max_reprobes: int = 2
    # probes whose previous step's IOPS fill a shorter settle window with helpers.run.adaptive.WINDOW_IOS I/Os
    # use it, down to this many ms (the profile's settle_window_ms is the longest; see adaptive.probe_window_ms)
    min_window_ms: int = 150
    # seed: a finished series that ended on a plateau seeds the next series of the same operation with a larger block
    # (a larger block saturates at the same or a lower depth): its ladder measures QD start_qd, then doubles from one
    # step below the plateau depth the seeding series found, skipping the depths between (helpers.run.adaptive.Seed)
    seed: bool = False
    typical_steps: int = 8  # for the duration estimate


@dataclass(frozen=True)
class SloSearchSettings:
    """SLO search on offered load (see :mod:`helpers.run.slo_search`)."""

    slo_us: float = 1000.0  # the latency SLO in microseconds
    percentile: float = 99.0  # completion-latency percentile held against it (must be in fio's percentile_list)
    start_rate: int = 1000  # first offered load (IOPS per job)
    factor: float = 4.0  # ladder step while the SLO holds
    max_rate: int = 1_000_000  # (profile values up to 1,048,576)
    min_rate: int = 100  # lowest load tried when start_rate already fails
    tolerance_pct: float = 10.0  # stop when the bracket (last good, first bad) is this close
    saturation_fraction: float = 0.95  # achieved below this x offered: the device did not keep up
    max_steps: int = 16
    typical_steps: int = 8  # for the duration estimate
    # the cross-check: after the search, one point in fio's own latency_target mode (closed loop: fio moves
    # the queue depth between 1 and the point's iodepth until the same percentile of each window's total
    # latency meets slo_us), capped at cross_check_windows windows of latency_window_s
    cross_check: bool = True
    latency_window_s: float = 1.0
    cross_check_windows: int = 30

    def cross_check_point(self, series: Point) -> Point:
        """The series' point in fio's latency_target mode: no rate, no ramp (fio restarts its search when a
        ramp ends), no logs (the depth moves: per-window logs would mix depths), runtime = the cap."""
        return replace(series, rate_iops=None, rate_process=None, ramp_s=0.0, settle_windows=0, log_avg_msec=0,
                       log_hist_msec=0, runtime_s=self.cross_check_windows * self.latency_window_s,
                       latency_target_us=self.slo_us, latency_percentile=self.percentile,
                       latency_window_s=self.latency_window_s)

    def cross_check_seconds(self, series: Point) -> float:
        """Expected seconds of the cross-check: fio doubles the depth from 1 to iodepth, bisects back and runs a
        final window (about 2 log2(iodepth) + 2 windows), at most the cap."""
        if not self.cross_check:
            return 0.0
        windows = min(self.cross_check_windows, 2 * math.log2(max(series.iodepth, 1)) + 2)
        return windows * self.latency_window_s + PER_POINT_OVERHEAD_S


@dataclass(frozen=True)
class SteadyStateSettings:
    """SNIA PTS steady state: rounds until the last ``window`` rounds are within limits."""

    window: int = 5
    max_rounds: int = 25
    range_pct: float = 20.0  # max - min of the window <= this % of the window mean
    slope_pct: float = 10.0  # |least-squares slope| x (window - 1) <= this % of the mean
    metric: str = "iops"  # tracked per round: iops of the first point


@dataclass(frozen=True)
class BurstSettings:
    """Burst bucket (``mode: burst``, see :mod:`helpers.run.burst`): each point drains at full rate with per-window
    logging until its rate has stayed below ``drop_ratio`` x its burst for ``low_windows`` windows (or its runtime_s,
    the time limit), then rests ``rests_s`` seconds, each rest followed by a drain of its own."""

    rests_s: tuple = (10.0, 30.0, 120.0)
    low_windows: int = 10
    drop_ratio: float = 0.7


@dataclass(frozen=True)
class PreconditionSettings:
    """Sequential fill of the whole target, ``passes`` times, before the first round."""

    passes: int = 2
    bs_bytes: int = 128 * 1024
    iodepth: int = 32


PTS_TESTS = ("iops", "tp", "lat", "wsat", "dirth", "xsr", "hir", "cbw")  # the SNIA PTS 2.0.2 tests the lab runs


# CBW (formerly ECW): the block-size mix and the access zones (50 % of I/Os to the first 5 % of the LBAs, 30 % to the
# next 15 %, 20 % to the remaining 80 %), as Alan-ADATA/SSS-PTS-TEST's BlockStorageTestCbw.php gives them
PTS_CBW_BSSPLIT = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"


PTS_CBW_ZONES = "zoned:50/5:30/15:20/80"


PTS_CBW_MIX = 40


# PTS 2.0.2 test settings per device class: (numjobs, iodepth per job, ActiveRange % of the capacity)
PTS_CLASSES = {"enterprise": (4, 32, 100.0), "client": (2, 16, 75.0)}


PTS_IOPS_BS = ("1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512")


PTS_IOPS_MIXES = (100, 95, 65, 50, 35, 5, 0)  # read % of R/W 100/0 ... 0/100


PTS_IOPS_TRACKED = (("4k", 0), ("64k", 65), ("1024k", 100))  # (bs, read %) whose IOPS decide steady state


PTS_TP_BS = ("128k", "1024k")


PTS_LAT_BS = ("8k", "4k", "512")


PTS_LAT_MIXES = (100, 65, 0)


PTS_DIRTH_TQ = (32, 16, 8, 6, 4, 2, 1)  # DIRTH: thread counts and queue depths, high to low outstanding I/O


@dataclass(frozen=True)
class PtsSettings:
    """SNIA PTS 2.0.2 procedure (``mode: pts``, see :mod:`helpers.run.pts`): the tests, their matrices, the
    round length, the steady-state limits and the device class (``pts_class``; ``numjobs``, ``iodepth`` and
    ``active_range_pct`` override it, 0 = the class's value)."""

    tests: tuple[str, ...] = PTS_TESTS
    pts_class: str = "enterprise"
    numjobs: int = 0
    iodepth: int = 0
    active_range_pct: float = 0.0
    ioengine: str = "libaio"
    round_s: float = 60.0  # seconds per point per round (the PTS: 1 minute)
    ramp_s: float = 0.0
    window: int = 5
    max_rounds: int = 25
    max_range_pct: float = 20.0
    max_excursion_pct: float = 10.0
    purge: bool = True  # block devices: purge before every test (files: recreated and trimmed)
    precondition_volume: float = 2.0  # x the capacity, sequential writes (workload-independent preconditioning)
    precondition_bs: str = "128k"
    precondition_iodepth: int = 32
    iops_bs: tuple[str, ...] = PTS_IOPS_BS
    iops_mixes: tuple[int, ...] = PTS_IOPS_MIXES
    tp_bs: tuple[str, ...] = PTS_TP_BS
    lat_bs: tuple[str, ...] = PTS_LAT_BS
    lat_mixes: tuple[int, ...] = PTS_LAT_MIXES
    wsat_volume: float = 4.0  # x the capacity written by WSAT (or wsat_max_s, whichever comes first)
    wsat_max_s: float = 24 * 3600.0
    wsat_window_s: float = 60.0  # one IOPS sample per window
    # DIRTH (helpers.run.pts_dirth): per round a pre-write of random writes at the largest threads x QD, then
    # every threads x QD at dirth_mix; the three operating points run dirth_hist_s each with their histogram
    dirth_threads: tuple[int, ...] = PTS_DIRTH_TQ
    dirth_qds: tuple[int, ...] = PTS_DIRTH_TQ
    dirth_bs: str = "4k"
    dirth_mix: int = 65
    dirth_prewrite_s: float = 300.0  # PTS: 5 minutes of T32/Q32 random writes before every round
    dirth_hist_s: float = 600.0  # PTS: 10 minutes at each operating point, per-I/O response times
    dirth_art_limit_us: float = 5000.0  # the max operating point's mean response-time ceiling (PTS: 5 ms)
    # XSR (helpers.run.pts_xsr): sequential 1 MiB writes, random 8 KiB writes, sequential 1 MiB writes again, at
    # 1 thread x QD xsr_qd, one fio point per sample of xsr_sample_s (PTS: 1 minute; 8 h, 6 h, 8 h)
    xsr_qd: int = 32
    xsr_sample_s: float = 60.0
    xsr_seq_samples: int = 480
    xsr_rnd_samples: int = 360
    # HIR (helpers.run.pts_hir): rounds of random 4k writes (jobs x QD of the class) to steady state, then per wait
    # state hir_cycles x (hir_write_s of writes + the wait), then hir_cycles x hir_write_s of writes without waits
    hir_waits: tuple[float, ...] = (5.0, 10.0, 15.0, 25.0, 50.0)
    hir_cycles: int = 360
    hir_write_s: float = 5.0
    # a time limit per test (0: none): a test's rounds, XSR samples and HIR cycles stop once they add up to it (at
    # least one round; recorded and listed as a deviation); for trying the full procedure on a small target
    test_limit_s: float = 0.0

    @property
    def jobs(self) -> int:
        return self.numjobs or PTS_CLASSES[self.pts_class][0]

    @property
    def qd(self) -> int:
        return self.iodepth or PTS_CLASSES[self.pts_class][1]

    @property
    def active_range(self) -> float:
        return self.active_range_pct or PTS_CLASSES[self.pts_class][2]

    def active_bytes(self, size_bytes: int) -> int:
        """The ActiveRange of a target of ``size_bytes``: a whole number of 1 MiB, at least 1 MiB."""
        mib = 1024**2
        return max(mib, int(size_bytes * self.active_range / 100) // mib * mib)

    def test_points(self, test: str, rnd: int = 0) -> list[Point]:
        """The points of one round of ``test`` ("iops", "tp-<bs>", "lat", "wsat"), in the PTS test loop's order:
        IOPS and LAT run every block size (as listed: largest first) of one R/W mix (100/0 first) before the next mix."""
        base = {"ioengine": self.ioengine, "runtime_s": self.round_s, "ramp_s": self.ramp_s, "round": rnd,
                "log_avg_msec": 0, "log_hist_msec": 0}
        if test == "iops":
            return [Point(group="pts-iops", rw="randrw", bs_bytes=parse_size(bs), rwmixread=m, iodepth=self.qd,
                          numjobs=self.jobs, **base) for m in self.iops_mixes for bs in self.iops_bs]
        if test.startswith("tp-"):
            bs = parse_size(test.removeprefix("tp-"))
            return [Point(group="pts-tp", rw=rw, bs_bytes=bs, iodepth=self.qd, numjobs=self.jobs, **base)
                    for rw in ("write", "read")]
        if test == "lat":
            return [Point(group="pts-lat", rw="randrw", bs_bytes=parse_size(bs), rwmixread=m, iodepth=1, numjobs=1,
                          **base) for m in self.lat_mixes for bs in self.lat_bs]
        if test == "wsat":  # io_size is per job, of the active range it writes in: the jobs together write
            # wsat_volume x the CAPACITY (PTS: 4 x the user capacity, within the ActiveRange), not x the active range
            return [Point(group="pts-wsat", rw="randwrite", bs_bytes=4096, iodepth=self.qd, numjobs=self.jobs,
                          ioengine=self.ioengine, runtime_s=self.wsat_max_s, ramp_s=0.0,
                          volume=self.wsat_volume * 100.0 / self.active_range / self.jobs,
                          log_avg_msec=int(self.wsat_window_s * 1000),
                          log_hist_msec=int(self.wsat_window_s * 1000))]  # per-window 99.999 % and maximum
        if test in ("dirth", "cbw"):  # CBW: DIRTH's flow at 40/60 with the block-size mix and the access zones
            bs, mix, extra = parse_size(self.dirth_bs), self.dirth_mix, {}
            if test == "cbw":
                bs, mix, extra = 4096, PTS_CBW_MIX, {"bssplit": PTS_CBW_BSSPLIT, "random_distribution": PTS_CBW_ZONES}
            pre = Point(group=f"pts-{test}-prewrite", rw="randwrite", bs_bytes=bs, iodepth=max(self.dirth_qds),
                        numjobs=max(self.dirth_threads), **{**base, "runtime_s": self.dirth_prewrite_s}, **extra)
            return [pre] + [Point(group=f"pts-{test}", rw="randrw", bs_bytes=bs, rwmixread=mix, iodepth=q,
                                  numjobs=t, **base, **extra) for t in self.dirth_threads for q in self.dirth_qds]
        if test == "hir":  # the preconditioning rounds: random 4k writes at the class's jobs x QD
            return [Point(group="pts-hir", rw="randwrite", bs_bytes=4096, iodepth=self.qd, numjobs=self.jobs, **base)]
        if test == "xsr":  # every sample of the three segments (round = the sample's number in the test)
            segs = [(1, "write", "1024k", self.xsr_seq_samples), (2, "randwrite", "8k", self.xsr_rnd_samples),
                    (3, "write", "1024k", self.xsr_seq_samples)]
            out, n = [], 0
            for seg, rw, bs, count in segs:
                for _ in range(count):
                    n += 1
                    out.append(Point(group=f"pts-xsr{seg}", rw=rw, bs_bytes=parse_size(bs), iodepth=self.xsr_qd,
                                     numjobs=1, **{**base, "runtime_s": self.xsr_sample_s, "round": n}))
            return out
        raise LabError(f"PTS test {test!r} is not known (use one of {', '.join(PTS_TESTS)}).")

    @property
    def test_names(self) -> list[str]:
        """The tests in run order, TP once per block size (each with its own preconditioning)."""
        out: list[str] = []
        for t in self.tests:
            out.extend(f"tp-{bs}" for bs in self.tp_bs) if t == "tp" else out.append(t)
        return out

    def round_seconds(self, test: str) -> float:
        return sum(p.seconds for p in self.test_points(test, 1))

    @property
    def extra_seconds(self) -> float:
        """Seconds outside the rounds: DIRTH's three operating points, XSR's samples, HIR's wait states."""
        dirth = 3 * (self.dirth_hist_s + self.ramp_s + PER_POINT_OVERHEAD_S) * len({"dirth", "cbw"} & set(self.tests))
        hir = self.hir_cycles * sum(2 * (self.hir_write_s + PER_POINT_OVERHEAD_S) + w for w in self.hir_waits)
        return dirth + (self.round_seconds("xsr") if "xsr" in self.tests else 0.0) + (hir if "hir" in self.tests else 0)


    @property
    def limited_seconds(self) -> float:
        """Seconds of fio with ``test_limit_s``: per test its limit or one round, whichever is longer (WSAT: its
        volume, counted by the fill estimate), DIRTH's and CBW's operating points, one HIR cycle beyond it."""
        lim = self.test_limit_s
        per = sum(max(lim, self.round_seconds(t)) for t in self.test_names if t not in ("wsat", "xsr", "hir"))
        ops = 3 * (self.dirth_hist_s + PER_POINT_OVERHEAD_S) * len({"dirth", "cbw"} & set(self.tests))
        hir = 2 * max(lim, self.round_seconds("hir")) + max(self.hir_waits) if "hir" in self.tests else 0.0
        return per + ops + hir + (lim + self.xsr_sample_s if "xsr" in self.tests else 0.0)


def parse_pts(raw: Any, name: str) -> PtsSettings:
    """The ``pts`` section of a profile, validated (every list a list, the class known, the tests known)."""
    raw = dict(raw or {})
    if "class" in raw:
        raw["pts_class"] = raw.pop("class")
    lists = {k: raw.pop(k) for k in ("tests", "iops_bs", "iops_mixes", "tp_bs", "lat_bs", "lat_mixes",
                                     "dirth_threads", "dirth_qds", "hir_waits") if k in raw}
    settings = _section(raw, PtsSettings, name, "pts")
    if settings.pts_class not in PTS_CLASSES:
        raise LabError(f"profile {name}: pts.class {settings.pts_class!r} is not known (use enterprise or client).")
    if settings.ioengine not in IOENGINES:
        raise LabError(f"profile {name}: pts.ioengine {settings.ioengine!r} is not supported.")
    out: dict[str, Any] = {}
    for key, value in lists.items():
        items = _as_list(value)
        if not items:
            raise LabError(f"profile {name}: pts.{key} must list at least one value.")
        if key == "tests":
            bad = [t for t in items if t not in PTS_TESTS]
            if bad:
                raise LabError(f"profile {name}: pts.tests {bad[0]!r} is not known (use {', '.join(PTS_TESTS)}).")
        elif key.endswith("mixes"):
            for m in items:
                _int(m, key, f"profile {name}, pts", 0, 100)
        elif key == "hir_waits":
            items = [float(_number(v, key, f"profile {name}, pts")) for v in items]
        elif key.startswith("dirth_"):
            items = sorted({_int(v, key, f"profile {name}, pts", 1, 1024) for v in items}, reverse=True)
        else:
            items = [str(b) for b in items]
            for b in items:
                parse_size(b, what=f"profile {name}, pts.{key}")
        out[key] = tuple(items)
    settings = replace(settings, **out)
    if settings.window < 2 or settings.max_rounds < settings.window:
        raise LabError(f"profile {name}: pts needs window >= 2 and max_rounds >= window.")
    if settings.round_s <= 0 or settings.wsat_window_s <= 0:
        raise LabError(f"profile {name}: pts.round_s and pts.wsat_window_s must be more than 0 seconds.")
    if not 0 <= settings.active_range_pct <= 100:
        raise LabError(f"profile {name}: pts.active_range_pct must be a percentage (0 = the class's).")
    _int(settings.dirth_mix, "dirth_mix", f"profile {name}, pts", 0, 100)
    if settings.test_limit_s < 0:
        raise LabError(f"profile {name}: pts.test_limit_s must be 0 (no limit) or a number of seconds.")
    if min(settings.dirth_prewrite_s, settings.dirth_hist_s, settings.dirth_art_limit_us) <= 0:
        raise LabError(f"profile {name}: pts.dirth_prewrite_s, dirth_hist_s and dirth_art_limit_us must be more "
                       "than 0.")
    return settings
