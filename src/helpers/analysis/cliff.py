"""The sustained-write cliff: where write throughput drops once an SSD's write cache is full.

``find_write_cliff(gb_written, bytes_per_s)`` takes one sample per log window (GB written by the end of
the window, decimal GB; the window's bytes per second) and finds change points in the throughput
with ``ruptures`` (binary segmentation -- PELT is quadratic here, seconds per 1,000 windows --
least-squares cost, penalty from the series' own noise: 3 sigma^2 log n with
sigma from the median absolute first difference, floored at 1 % of the median).  Adjacent segments
whose means differ by less than ``MERGE_PCT`` are merged (noise), then the cliff is the first boundary
where the mean falls below ``CLIFF_RATIO`` x the mean of the last lasting phase before it and of every window
before it, and the phases from there stay below that for at least 3 windows and 2 % of the series together (or to
the end), after at least as many windows: shorter dips are stalls, not the cache running out, and a short burst at
the start is fio catching up; the rate after the cliff is that whole low stretch's; later segments well above it
are reported as recovery phases (e.g. the cache freed by idle garbage collection).  A phase's
rate is the bytes it wrote over the time it took, from its first window's start to its last one's end (a
stall in which fio logged nothing counts; a catch-up burst of two 50 ms windows weighs 0.1 s, not two votes); the rate before the cliff is that of every window before
it (the GB the sentence names were written at that rate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

CLIFF_RATIO = 0.7  # a drop to below 70 % of the rate before it is a cliff (noise here is ~9 % CV)
MERGE_PCT = 15.0  # neighbouring segments closer than 15 % are one phase
RECOVERY_RATIO = 1.3  # a later phase 30 % above the post-cliff rate is a recovery
MIN_CLIFF_WINDOWS = 3  # the phase after a cliff lasts at least 3 windows (and 2 % of the series) ...
MIN_WINDOWS = 4  # fewer windows cannot show a phase before and after a change
SUSTAINED_GROUP = "sustained"  # point ids of the sustained-write profile start with this group
# "no cliff" is a finding only about a write that lasted: a shorter one (a characterize run's 1 GiB in 0.5 s)
# cannot have exhausted a write cache (an SLC cache takes tens of GB, tens of seconds at full speed)
MIN_VERDICT_S = 30.0
INCONCLUSIVE = "inconclusive"  # how a sentence that concludes nothing begins


@dataclass
class WriteCliff:
    cliff_gb: float | None  # GB written when the throughput dropped (None: no cliff)
    before_bytes_per_s: float | None  # the rate of every window before the cliff (bytes / time)
    after_bytes_per_s: float | None  # the mean of the phase after it
    reason: str
    total_gb: float = 0.0
    segments: list[dict] = field(default_factory=list)  # phases: start_gb, end_gb, mean_bytes_per_s
    recoveries: list[dict] = field(default_factory=list)  # later phases well above the post-cliff rate

    @property
    def conclusive(self) -> bool:
        """False when the series cannot say whether there is a cliff (too few windows, too short, still rising)."""
        return self.cliff_gb is not None or not (self.reason.startswith(INCONCLUSIVE)
                                                 or self.reason.startswith("too few windows"))

    @property
    def slowdown(self) -> float | None:
        if self.cliff_gb is None or not self.after_bytes_per_s:
            return None
        return self.before_bytes_per_s / self.after_bytes_per_s


def _mb(x: float) -> str:
    return f"{x / 1e6:,.0f} MB/s" if x >= 1e7 else f"{x / 1e6:,.3g} MB/s"


def _gb(x: float) -> str:
    return f"{x:,.0f} GB" if x >= 100 else f"{x:.3g} GB"


def change_segments(y) -> list[list[int]]:
    """The segments ``[a, b)`` of a series of window rates between the change points ruptures' binary segmentation
    finds on it (least squares on the series over its median; penalty 3 sigma^2 log n, sigma from the median
    absolute first difference, floored at 1 %).  The one change-point rule of the lab (the write cliff, bursts)."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    z = y / float(np.median(y))
    sigma = max(float(np.median(np.abs(np.diff(z)))) / (0.6745 * np.sqrt(2)), 0.01)
    jump = max(1, n // 2000)  # bounds the cost on very long series; position error <= n/2000 windows
    min_size = max(2, n // 200)
    # heavy (~0.3-1 s): imported where used, so a notebook kernel that never calls this starts faster
    import ruptures as rpt

    bkps = rpt.Binseg(model="l2", min_size=min_size, jump=jump).fit(z.reshape(-1, 1)).predict(
        pen=3 * sigma**2 * np.log(n))
    bounds = [0, *bkps]
    return [[a, b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def merge_close(segs: list[list[int]], rate, merge_pct: float = MERGE_PCT) -> list[list[int]]:
    """Neighbouring segments whose rates (``rate(a, b)``) are within ``merge_pct`` % merged into one phase."""
    segs = [list(s) for s in segs]
    merged = True
    while merged and len(segs) > 1:  # merge neighbours whose means are within MERGE_PCT
        merged = False
        for i in range(len(segs) - 1):
            m1, m2 = rate(*segs[i]), rate(*segs[i + 1])
            if abs(m1 - m2) <= merge_pct / 100 * max(m1, m2):
                segs[i] = [segs[i][0], segs[i + 1][1]]
                del segs[i + 1]
                merged = True
                break
    return segs


def find_write_cliff(gb_written, bytes_per_s, cliff_ratio: float = CLIFF_RATIO, window_start_s=None,
                     window_end_s=None) -> WriteCliff:
    """Change-point detection on sustained-write throughput (see the module text).  The windows' times
    (seconds) give the phases' rates over the time they took, stalls inside a phase included."""
    x = np.asarray(gb_written, dtype=float)
    y = np.asarray(bytes_per_s, dtype=float)
    t0 = None if window_start_s is None else np.asarray(window_start_s, dtype=float)
    t1 = None if window_end_s is None else np.asarray(window_end_s, dtype=float)
    if x.shape != y.shape or any(t is not None and t.shape != x.shape for t in (t0, t1)):
        raise ValueError("gb_written, bytes_per_s and the window times must have the same length (one sample per "
                         "window).")
    ok = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[ok], y[ok]
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    timed = t0 is not None and t1 is not None
    if timed:
        t0, t1 = t0[ok][order], t1[ok][order]
        timed = bool((np.diff(t1) >= 0).all() and (t1 >= t0).all())  # else several streams: no wall time
    n = len(y)
    total = float(x[-1]) if n else 0.0
    if n < MIN_WINDOWS or not np.nanmedian(y) > 0:
        took = f" in {float(t1[-1] - t0[0]):.2g} s" if timed and n else ""
        what = f": {_gb(total)} written{took}" if n else ""
        return WriteCliff(None, None, None, f"too few windows ({n}) to look for a write cliff{what}.", total)
    med = float(np.median(y))
    segs = change_segments(y)
    dx = np.diff(np.r_[0.0, x])  # GB each window wrote
    pos = y > 0

    def rate(a: int, b: int) -> float:
        """Windows a..b's rate: the bytes they wrote over the time they took -- from the first one's start to the
        last one's end when the window times are known, else the sum of each window's bytes / its rate (the
        arithmetic mean where a window wrote nothing: its time is not known)."""
        if b <= a:
            return float("nan")
        d = dx[a:b]
        if timed and t1[b - 1] > t0[a] and d.sum() > 0:  # over the time from its first start to its last end
            return float(d.sum() * 1e9 / (t1[b - 1] - t0[a]))
        if not pos[a:b].all() or not d.sum() > 0:
            return float(y[a:b].mean())
        return float(d.sum() / (d / y[a:b]).sum())

    segs = merge_close(segs, rate)
    phases = [{"start_gb": float(x[a - 1]) if a else 0.0, "end_gb": float(x[b - 1]),
               "mean_bytes_per_s": rate(a, b), "windows": b - a} for a, b in segs]
    # a cliff is a lasting drop: a phase of a few windows below the rate before it is a stall, not a cliff
    # and so is a burst before it (fio's rate limiter catching up after a stall: 116 MB/s for two 50 ms windows
    # against 64 MiB/s, seen beside busy CPU loops): the drop is measured against the rate of every window
    # before it (the rate the sentence names), which must span as many windows
    lasting = max(MIN_CLIFF_WINDOWS, n // 50)

    def low_until(i: int) -> int:
        """The end (exclusive) of the run of phases from i that all stay below cliff_ratio x the rate before i."""
        limit = cliff_ratio * rate(0, segs[i][0])
        j = i
        while j < len(phases) and phases[j]["mean_bytes_per_s"] < limit:
            j += 1
        return j

    def lasting_before(i: int) -> float:
        """The rate of the last phase before i that lasted (a short stall or burst between is not 'the phase
        before': a 2-window dip right at the cliff hid it once, and the cliff was placed after a later burst)."""
        return next((phases[k]["mean_bytes_per_s"] for k in range(i - 1, -1, -1) if phases[k]["windows"] >= lasting),
                    phases[i - 1]["mean_bytes_per_s"])

    cliff = end = None
    for i in range(1, len(phases)):
        if segs[i][0] < lasting or not phases[i]["mean_bytes_per_s"] < cliff_ratio * lasting_before(i):
            continue
        j = low_until(i)
        windows = segs[j - 1][1] - segs[i][0] if j > i else 0
        if windows >= lasting or (j == len(phases) and windows >= 2):
            cliff, end = i, j
            break
    if cliff is None:
        took = float(t1[-1] - t0[0]) if timed else None
        return WriteCliff(None, None, None, _no_cliff(phases, total, med, took, lasting), total, phases)
    # "X GB at Y MB/s": Y is the rate of every window before the cliff, not only of the phase right before it,
    # which can be a short burst (fio's rate limiter catching up after a stall read 93 MB/s against 64 MiB/s);
    # "then Z": the rate of the whole low stretch from the cliff (its phases may differ: a stall, then steady)
    before, after = rate(0, segs[cliff][0]), rate(segs[cliff][0], segs[end - 1][1])
    cliff_gb = phases[cliff]["start_gb"]
    recoveries = [p for p in phases[end:] if p["mean_bytes_per_s"] > RECOVERY_RATIO * after]
    reason = (f"≈ {_gb(cliff_gb)} at {_mb(before)} before the write cache ran out, then {_mb(after)} "
              f"({before / after:.1f}× slower)")
    if recoveries:
        reason += "; recovered to " + ", ".join(f"{_mb(p['mean_bytes_per_s'])} at ≈ {_gb(p['start_gb'])}"
                                                for p in recoveries)
    return WriteCliff(cliff_gb, before, after, reason + ".", total, phases, recoveries)


def _no_cliff(phases: list[dict], total: float, med: float, took: float | None, lasting: int) -> str:
    """'no write cliff detected over X GB' only for a write that could have shown one: one that lasted
    :data:`MIN_VERDICT_S` (when its time is known) and whose rate did not step up between its lasting phases (a
    rate still rising never settled: a cache was filling, or fio was catching up).  Otherwise 'inconclusive', with
    what was written, in how long, and how much more to write."""
    long = [p for p in phases if p["windows"] >= lasting] or phases
    rose = long[-1]["mean_bytes_per_s"] > (1 + MERGE_PCT / 100) * long[0]["mean_bytes_per_s"]
    short = took is not None and took < MIN_VERDICT_S
    if not (rose or short):
        return f"no write cliff detected over {_gb(total)} ({_mb(med)} median throughout)."
    why = [f"{_gb(total)} written" + (f" in {took:.2g} s" if took is not None else "") + f" ({_mb(med)} median)"]
    if rose:
        why.append(f"its rate stepped up from {_mb(long[0]['mean_bytes_per_s'])} to "
                   f"{_mb(long[-1]['mean_bytes_per_s'])}, so it never settled")
    more = (f"write ≥ {int(np.ceil(MIN_VERDICT_S / took))}× more (a larger SIZE), or use a block device"
            if short and took > 0 else "write more, or use a block device")
    what = " and ".join(w for w, on in (("this short", short), ("still speeding up", rose)) if on)
    return (f"{INCONCLUSIVE}: {'; '.join(why)}; a write {what} cannot show that a write cache ran out, nor that "
            f"none would: {more}.")


def gb_written(series: pd.DataFrame) -> pd.Series:
    """GB (10^9 bytes) written by the end of each window of one point's write series: each window's bytes/s x
    its own width (``window_end_s - window_start_s``), cumulative, in window order (rows without bytes/s, e.g.
    latency log entries, count 0).

    The widths are the ones :mod:`helpers.ingest.timeseries` gives fio's entries: the time each entry's rate
    covers, a gap in which fio ticked and no I/O completed counting nothing and a late entry its whole gap,
    plus the job's final partial window from the JSON; so the last value is the JSON's io_bytes."""
    s = series.sort_values("window_end_s", kind="stable")
    width = s["window_end_s"].astype(float) - s["window_start_s"].astype(float)
    return (s["bytes_per_s"].astype(float).fillna(0.0) * width).cumsum() / 1e9


def rate_rows(series: pd.DataFrame) -> pd.DataFrame:
    """The rows of a (point_)series that carry bytes/s (the bw log's entries), in window order."""
    return series[series["bytes_per_s"].notna()].sort_values("window_end_s", kind="stable")


def point_cliff(series: pd.DataFrame) -> WriteCliff:
    """The write cliff of one point's write series (its bw-log rows, any order): GB written by each window's
    end, each window's rate and the windows' times (:func:`find_write_cliff`)."""
    g = rate_rows(series)
    return find_write_cliff(gb_written(g), g["bytes_per_s"], window_start_s=g["window_start_s"],
                            window_end_s=g["window_end_s"])


def sustained_write_cliffs(series: pd.DataFrame, results: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per sustained-write point (point_id starting with 'sustained') of a ``point_series``
    frame: run_id, point_id, cliff_gb, before/after bytes per s, total_gb and the sentence (with the run's
    ``results``, saying when a write-back cache absorbed the point's writes: :func:`cache_absorbed_reason`)."""
    cols = ["run_id", "point_id", "cliff_gb", "before_bytes_per_s", "after_bytes_per_s", "total_gb", "reason"]
    if series is None or series.empty:
        return pd.DataFrame(columns=cols)
    w = series[series["point_id"].astype(str).str.startswith(SUSTAINED_GROUP) & (series["direction"] == "write")]
    rows = []
    for (run, point), g in w.groupby(["run_id", "point_id"], sort=True):
        c = point_cliff(g)
        rows.append((run, point, c.cliff_gb, c.before_bytes_per_s, c.after_bytes_per_s, c.total_gb,
                     cache_absorbed_reason(c.reason, results, run, point)))
    return pd.DataFrame(rows, columns=cols)


def write_cliff_sentence(series: pd.DataFrame, results: pd.DataFrame | None = None) -> str | None:
    """The device card's sentence ("Sustained write: ≈ X GB at Y MB/s before ...") when a sustained-write
    point ran; None otherwise.  With the run's ``results``, a point whose writes validity flagged as faster than
    the device sustains (``flag_implausible``) is said to have gone to a write-back cache: whatever its windows
    show (no cliff, most often) is that cache's, not the drive's."""
    cliffs = sustained_write_cliffs(series, results)
    if cliffs.empty:
        return None
    return f"Sustained write: {cliffs['reason'].iloc[-1]}"


def preconditioning_note(series: pd.DataFrame, results: pd.DataFrame | None = None,
                         manifest: dict | None = None) -> str | None:
    """What the sustained write means for the series measured after it, on a run where it preconditioned the
    target (a characterize run: its manifest names a ``writes`` phase): when it showed no cliff and no absence of
    one (too short, still speeding up, or a write-back cache took it), the write series after it measured a target
    written once over, not one past its cache; None otherwise."""
    phases = ((manifest or {}).get("characterize") or {}).get("phases") or {}
    cliffs = sustained_write_cliffs(series, results)
    if "writes" not in phases or cliffs.empty:
        return None
    reason = str(cliffs["reason"].iloc[-1])
    cached = "write-back cache" in reason
    if not (reason.startswith((INCONCLUSIVE, "too few windows")) or cached):
        return None
    return ("The write and mixed series after it were measured on a target this write went over once, not one it "
            "showed past its write cache: their numbers may include that cache; measure with a larger SIZE (or a "
            "block device) for the drive's own write levels.")


def cache_absorbed_reason(reason: str, results: pd.DataFrame | None, run: str, point: str) -> str:
    """A sustained-write point's cliff ``reason``, with its implausibly-fast-writes flag (the flag's own numbers,
    processed.validity) when the run's ``results`` raise it for the point: what the windows show is then a
    write-back cache's, not the drive's."""
    need = {"run_id", "point_id", "flag_implausible", "flag_reasons"}
    if results is None or not need <= set(results.columns):
        return reason
    r = results[(results["run_id"] == run) & (results["point_id"] == point)
                & results["flag_implausible"].fillna(False).astype(bool)]
    why = next((x for x in "; ".join(r["flag_reasons"].fillna("").astype(str)).split("; ")
                if x.startswith("writes at ")), "")
    if not why:
        return reason
    return (f"{reason.rstrip('.')}; its {why.split(':')[0]} went to a write-back cache, not the drive's flash: "
            "measure with a larger SIZE (several times any cache).")
