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

import dataclasses
import difflib
import itertools
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from helpers import config
from helpers.errors import LabError
from helpers.fio.options import MIXED_MODES
from helpers.fio.units import format_bytes, parse_size
from helpers.run.replay import ReplaySettings, check_settings

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
