"""Bursts that run out: a token bucket's size and refill from per-window rates (issue 33).

``token_bucket(t_s, rate, rest_s=None, after_rest=None, unit="IOPS")`` takes one drain's per-window series (each
window's end time in seconds and its rate, IOPS or bytes/s) and, optionally, the drains run after rests of
``rest_s`` seconds (``after_rest``: one ``(t_s, rate)`` pair per rest, in the same order):

* the burst and the drop are found by the lab's change-point rule (:func:`helpers.analysis.cliff.change_segments`,
  neighbours within ``MERGE_PCT`` merged): the burst is every window before the first phase below
  ``DROP_RATIO`` x the rate before it that stays low to the end of the drain; ``burst_rate`` is those windows'
  rate (what they did over the time they took), ``baseline_rate`` that of the windows after the drop (the two
  windows either side of the drop, one of which the bucket emptied in, left out of both);
* ``bucket_size`` is what the burst did above the baseline: sum of (rate - baseline) x width over the windows up to
  and including the first one after the drop (the window the bucket emptied in counts its part), so
  ``seconds_to_empty`` = bucket_size / (burst - baseline) -- the (burst - baseline) x time-to-empty of a bucket
  that refills at the baseline rate while it is spent; its 95 % interval (``bucket_low``, ``bucket_high``) comes
  from the windows' scatter (the burst windows' sum, the baseline's mean over the burst's time, and where in its
  window the drop fell);
* ``refill_rate``: each drain after a rest is integrated the same way against the first drain's baseline (from its
  start to the first window from which the mean of the next 3 windows, or a tenth of the drain, is back within the
  baseline's noise and stays there); the refill rate is the least-squares slope through
  the origin of what each rest gave back against its length, rests that gave back the whole bucket (>= 90 %)
  left out.  ``refill_linear`` says whether every rest's own rate is within ``LINEAR_PCT`` % of it (or its noise);
  when not, ``refill_reason`` says so in a sentence with each rest's numbers.

``reason`` is always one sentence: the bucket ("bursts at 3,000 IOPS for 60 s (a bucket of ≈ 162 k I/Os), then
300 IOPS; refills at ≈ 300 I/Os per s of rest"), or why there is none ("no burst found: the rate held within 4 %
for 120 s"), or what the series cannot show (too few windows; a drop too close to the end to see the baseline).
A rest too short to give back anything a window can see is said in ``refill_reason``.

On a run's per-window series (:func:`helpers.analysis.point_series`): :func:`burst_series` gathers each
sustained-write point and each ``burst`` drain with the drains after its rests (point ids ending ``-rest<S>s``,
:attr:`helpers.run.profiles.Point.point_id`), in IOPS for random I/O and bytes/s for sequential;
:func:`burst_buckets` is one table row per drain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analysis.cliff import MERGE_PCT, SUSTAINED_GROUP, change_segments, merge_close

DROP_RATIO = 0.7  # a phase below 70 % of the rate before it is the drop (the write cliff's rule; noise ~9 % CV)
MIN_WINDOWS = 6  # fewer windows cannot show a burst, a drop and a baseline
MIN_PHASE_WINDOWS = 2  # the burst and the baseline after it last at least 2 windows each
FULL_REFILL = 0.9  # a rest that gave back >= 90 % of the bucket refilled it: it says nothing of the refill rate
LINEAR_PCT = 20.0  # each rest's own refill rate within 20 % of the fit (or 3 of its standard errors): linear
Z95 = 1.96
BURST_GROUP = "burst"  # the burst profile's drains (point ids start with it)
REST_RE = re.compile(r"-rest(\d+(?:\.\d+)?)s(?=-|$)")  # the drain after a rest of S seconds (Point.point_id)
SLICES = 10  # "held within X %": the largest departure of a tenth of the drain from the whole drain's rate
SLICE_WINDOWS = 5  # ... a tenth of at least 5 windows (fewer slices on a short drain: one window is noise)


@dataclass
class Refill:
    rest_s: float
    refilled: float | None  # I/Os or bytes the rest gave back (None: the drain after it showed no burst)
    refilled_se: float | None  # its standard error from the windows' scatter
    reason: str = ""  # why nothing was measured, or that it refilled the whole bucket


@dataclass
class TokenBucket:
    burst_rate: float | None  # the burst's rate (rate_unit)
    baseline_rate: float | None  # the rate after the drop (rate_unit)
    seconds_to_empty: float | None  # how long the burst lasted from the drain's start (s, at the burst rate)
    bucket_size: float | None  # (burst - baseline) x seconds_to_empty (size_unit)
    bucket_low: float | None  # its 95 % interval from the window scatter
    bucket_high: float | None
    refill_rate: float | None  # size_unit per second of rest (None: no rest measured one)
    reason: str  # one sentence: the bucket, or why there is none
    rate_unit: str = "IOPS"
    size_unit: str = "I/Os"
    drop_s: float | None = None  # the drain's time (s from its start) of the first window after the drop
    duration_s: float = 0.0
    refill_linear: bool | None = None  # None: fewer than 2 rests measured a refill
    refill_reason: str = ""  # a sentence on the refill when it is not simply the rate (not linear, rests too short)
    refills: list[Refill] = field(default_factory=list)
    phases: list[dict] = field(default_factory=list)  # start_s, end_s, rate, windows

    @property
    def found(self) -> bool:
        return self.bucket_size is not None


def _widths(t: np.ndarray) -> np.ndarray:
    """Each window's width from the end times: the gap to the previous end; the first window as wide as the
    median gap (a log's first entry covers one interval)."""
    if len(t) < 2:
        return np.ones_like(t)
    d = np.diff(t)
    return np.r_[float(np.median(d)), d]


def _clean(t_s, rate) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t_s, dtype=float)
    y = np.asarray(rate, dtype=float)
    if t.shape != y.shape:
        raise ValueError("t_s and rate must have the same length (one sample per window).")
    ok = ~np.isnan(t) & ~np.isnan(y)
    order = np.argsort(t[ok], kind="stable")
    return _trim(t[ok][order], y[ok][order])


def _trim(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The windows without a last one under half the usual width: the lab stopped fio (a burst drain's drop
    check) inside it, and fio's rate over that fraction of a window is noise (2,400 IOPS at a 500 IOPS baseline,
    seen)."""
    if len(t) >= 3 and t[-1] - t[-2] < 0.5 * float(np.median(np.diff(t))):
        return t[:-1], y[:-1]
    return t, y


def _num(x: float) -> str:
    """3 significant figures with k / M / G (162 k, 5.4 M)."""
    for div, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def _rate(x: float, unit: str) -> str:
    if unit == "bytes/s":
        return f"{x / 1e6:,.0f} MB/s" if x >= 1e7 else f"{x / 1e6:.3g} MB/s"
    return f"{x:,.0f} {unit}" if x >= 100 else f"{x:.3g} {unit}"


def _size(x: float, unit: str) -> str:
    if unit == "bytes":
        num = _num(x)
        return f"{num}B" if num[-1].isalpha() else f"{num} B"
    return f"{_num(x)} {unit}"


def _end(x: float, unit: str) -> str:
    """An interval's end: bytes with their unit, I/Os as a bare number (the size before it names them)."""
    return _size(x, unit) if unit == "bytes" else _num(x)


def _secs(x: float) -> str:
    return f"{x:,.0f} s" if x >= 100 else f"{x:.3g} s"


def _held(t: np.ndarray, w: np.ndarray, y: np.ndarray) -> float:
    """The largest departure (%) of a tenth of the series (of at least SLICE_WINDOWS windows, at least 2 parts;
    time-weighted) from the whole series' rate."""
    whole = float((y * w).sum() / w.sum())
    parts = [p for p in np.array_split(np.arange(len(y)), max(2, min(SLICES, len(y) // SLICE_WINDOWS))) if len(p)]
    return max(abs(float((y[p] * w[p]).sum() / w[p].sum()) / whole - 1) for p in parts) * 100


def token_bucket(t_s, rate, rest_s=None, after_rest=None, unit: str = "IOPS") -> TokenBucket:
    """The token bucket behind one drain's per-window rates (see the module text).  ``unit``: "IOPS" (the bucket
    in I/Os) or "bytes/s" (in bytes)."""
    size_unit = "bytes" if unit == "bytes/s" else "I/Os"
    t, y = _clean(t_s, rate)
    n = len(y)
    rests = [] if rest_s is None else [float(r) for r in rest_s]
    drains = [] if after_rest is None else list(after_rest)
    if len(rests) != len(drains):
        raise ValueError("rest_s and after_rest must have the same length (one drain after each rest).")

    def none(reason: str, **kw) -> TokenBucket:
        return TokenBucket(None, None, None, None, None, None, None, reason, unit, size_unit,
                           duration_s=float(t[-1] - t[0] + w[0]) if n else 0.0, **kw)

    w = _widths(t)
    if n < MIN_WINDOWS or not np.median(y) > 0:
        took = f" over {_secs(float(t[-1] - t[0] + w[0]))}" if n else ""
        return none(f"too few windows ({n}{took}) to see a burst, its drop and the baseline after it: drain for "
                    f"at least {MIN_WINDOWS} windows, and until the rate has dropped and stayed low.")
    start = t - w  # each window's start

    def mean(a: int, b: int) -> float:  # windows a..b's rate: what they did over the time they took
        return float((y[a:b] * w[a:b]).sum() / w[a:b].sum()) if b > a else float("nan")

    segs = merge_close(change_segments(y), mean)
    phases = [{"start_s": float(start[a] - start[0]), "end_s": float(t[b - 1] - start[0]), "rate": mean(a, b),
               "windows": b - a} for a, b in segs]
    duration = float(t[-1] - start[0])
    drop = None
    for i in range(1, len(segs)):
        before = mean(0, segs[i][0])
        if all(mean(*segs[j]) < DROP_RATIO * before for j in range(i, len(segs))):
            drop = segs[i][0]
            break
    if drop is None:
        held = _held(t, w, y)
        what = (f"the rate held at {_rate(mean(0, n), unit)} within {held:.0f} % for {_secs(duration)}"
                if held <= MERGE_PCT else
                f"the rate varied by up to {held:.0f} % over {_secs(duration)} but never dropped below "
                f"{DROP_RATIO * 100:.0f} % of the rate before it for the rest of the drain")
        return none(f"no burst found: {what} (a bucket lasting longer than that at this rate would not show).",
                    phases=phases)
    if drop < MIN_PHASE_WINDOWS:
        return none(f"the rate dropped after {drop} window{'s' * (drop != 1)} ({_secs(float(t[drop - 1] - start[0]))})"
                    f": too short a burst to size; log narrower windows (log_avg_msec) to see it.", phases=phases)
    if n - drop < MIN_PHASE_WINDOWS + 1:  # the burst is seen, the baseline (and so the bucket) is not
        # a fall in the last windows may be a burst running out or a stall of the device: not called a burst
        tb = none(f"the rate held at {_rate(mean(0, drop), unit)} for {_secs(float(start[drop] - start[0]))}, then fell "
                  f"for the last {n - drop} window{'s' * (n - drop != 1)} before the drain ended: too short to tell a "
                  "burst running out from a stall or to see a baseline, so no bucket size; drain for longer.",
                  phases=phases)
        tb.burst_rate, tb.drop_s = mean(0, drop), float(start[drop] - start[0])
        return tb
    # the windows either side of the drop (the bucket emptied in one of them) are left out of both rates
    burst, base = mean(0, drop - 1 if drop > MIN_PHASE_WINDOWS else drop), mean(drop + 1, n)
    k = drop + 1  # the bucket emptied inside the first window after the drop at the latest
    size = float(((y[:k] - base) * w[:k]).sum())
    tail = y[k:] if n - k >= 2 else y[drop:]
    sd_base = float(np.std(tail, ddof=1)) if len(tail) > 1 else 0.0
    sd_burst = float(np.std(y[:drop], ddof=1)) if drop > 1 else 0.0
    burst_time = float(w[:k].sum())
    wm = float(np.median(w))
    se = np.sqrt(float((w[:drop] ** 2).sum()) * sd_burst**2 + (w[drop] * sd_base) ** 2
                 + (burst_time * sd_base / np.sqrt(len(tail))) ** 2 + ((burst - base) * wm) ** 2 / 12)
    seconds = size / (burst - base)
    tb = TokenBucket(burst, base, seconds, size, size - Z95 * se, size + Z95 * se, None, "", unit, size_unit,
                     drop_s=float(start[drop] - start[0]), duration_s=duration, phases=phases)
    if rests:
        _refill(tb, rests, drains, sd_base)
    tb.reason = _sentence(tb)
    return tb


def _refill(tb: TokenBucket, rests: list[float], drains: list, sd_base: float) -> None:
    """What each rest gave back, the refill rate through the origin, and whether it is linear (module text)."""
    base = tb.baseline_rate
    above = base + max(3 * sd_base, 0.1 * base)  # a window above this is still spending the bucket
    cv = sd_base / base
    for r, d in zip(rests, drains):
        t, y = _clean(*d)
        if len(y) < 2:
            tb.refills.append(Refill(r, None, None, f"the drain after the {_secs(r)} rest logged {len(y)} "
                                     "window(s): too few to see what the rest gave back."))
            continue
        w = _widths(t)
        # the drain is back at the baseline where the mean of the next `run` windows is, and stays, back within its
        # noise to the end of the drain (a stall inside the burst and the catch-up after it cancel out: 0.3 s at
        # 440-1,280 IOPS inside a 2,000 IOPS burst, seen; one noisy window does not prolong it)
        run = min(max(MIN_PHASE_WINDOWS + 1, len(y) // 10), len(y))
        high = np.flatnonzero(np.convolve(y, np.ones(run) / run, "valid") >= above)
        back = int(high[-1]) + 1 if len(high) else 0
        low = np.arange(back, len(y) - run + 1)
        if not len(low):
            tb.refills.append(Refill(r, None, None, f"the drain after the {_secs(r)} rest never came back down to "
                                     f"the baseline ({_rate(base, tb.rate_unit)}): drain longer after each rest."))
            continue
        m = int(low[0]) + 1
        got = float(((y[:m] - base) * w[:m]).sum())
        se = float(np.sqrt(((y[:m] * w[:m]) ** 2).sum()) * cv)  # each window's scatter: the baseline's CV
        floor = 2 * (above - base) * float(np.median(w))
        if m == 1 and got < floor:
            tb.refills.append(Refill(r, None, None, f"the {_secs(r)} rest gave back less than one window can see "
                                     f"(< {_size(floor, tb.size_unit)}): rest longer."))
            continue
        full = got >= FULL_REFILL * tb.bucket_size
        tb.refills.append(Refill(r, got, se, f"the {_secs(r)} rest refilled the whole bucket" if full else ""))
    fit = [f for f in tb.refills if f.refilled is not None and not f.reason]
    notes = [f.reason for f in tb.refills if f.reason]
    if fit:
        x = np.array([f.rest_s for f in fit])
        a = np.array([f.refilled for f in fit])
        tb.refill_rate = float((x * a).sum() / (x * x).sum())
        if len(fit) >= 2:
            off = [abs(f.refilled / f.rest_s - tb.refill_rate) for f in fit]
            tb.refill_linear = all(o <= max(LINEAR_PCT / 100 * tb.refill_rate, 3 * f.refilled_se / f.rest_s)
                                   for o, f in zip(off, fit))
            if not tb.refill_linear:
                each = ", ".join(f"{_secs(f.rest_s)} gave back {_size(f.refilled, tb.size_unit)} "
                                 f"({_num(f.refilled / f.rest_s)}/s)" for f in fit)
                notes.insert(0, f"the refill is not linear in the rest time ({each}): the rate is a least-squares "
                                "fit, not a constant")
    elif tb.refills:
        notes.append("no rest gave back a measurable part of the bucket: no refill rate")
    tb.refill_reason = "; ".join(n.rstrip(".") for n in notes) + "." if notes else ""


def _sentence(tb: TokenBucket) -> str:
    s = (f"bursts at {_rate(tb.burst_rate, tb.rate_unit)} for {_secs(tb.seconds_to_empty)} (a bucket of "
         f"≈ {_size(tb.bucket_size, tb.size_unit)}, 95 % {_end(max(tb.bucket_low, 0.0), tb.size_unit)}–{_end(tb.bucket_high, tb.size_unit)}), "
         f"then {_rate(tb.baseline_rate, tb.rate_unit)}")
    if tb.refill_rate is not None:
        s += f"; refills at ≈ {_size(tb.refill_rate, tb.size_unit)} per s of rest"
    return s + "."


@dataclass
class BurstSeries:
    """One drain of a run (and the drains after its rests) with its bucket, for the table and the figure."""

    run_id: str
    point_id: str
    unit: str  # "IOPS" or "bytes/s"
    t_s: np.ndarray  # window end times (s from the drain's start: its first window's start)
    rate: np.ndarray
    rests: list[tuple[float, np.ndarray, np.ndarray]]  # (rest_s, t_s, rate) of each drain after a rest
    bucket: TokenBucket
    direction: str = "write"  # the I/O direction read (writes, or reads for a read burst)


BUCKET_COLUMNS = ["run_id", "point_id", "rate_unit", "burst_rate", "baseline_rate", "seconds_to_empty", "size_unit",
                  "bucket_size", "bucket_low", "bucket_high", "refill_rate", "rests_s", "reason", "refill_reason"]


def _unit(point_id: str) -> str:
    """IOPS for random I/O, bytes/s for sequential (the rw is the id's second part: Point.point_id)."""
    parts = str(point_id).split("-")
    return "IOPS" if len(parts) > 1 and parts[1].startswith("rand") else "bytes/s"


def _rates(g: pd.DataFrame, unit: str) -> tuple[np.ndarray, np.ndarray]:
    col = "iops" if unit == "IOPS" else "bytes_per_s"  # fio's iops and bw logs may not pair up: each on its own
    r = g[g[col].notna()].sort_values("window_end_s", kind="stable")
    t, y = _trim(r["window_end_s"].to_numpy(dtype=float), r[col].to_numpy(dtype=float))
    return (t - t[0] + _widths(t)[0] if len(t) else t), y  # from the drain's start


def _seen(manifests: dict | None, run: str, point: str, rest: float) -> float:
    """The rest the device saw (the run's manifest: ``burst.<point>.rests_seen_s``, helpers.run.burst), else the
    nominal one."""
    seen = (((manifests or {}).get(run) or {}).get("burst") or {}).get(point, {}).get("rests_seen_s") or {}
    v = seen.get(f"{rest:g}")
    return float(v) if isinstance(v, (int, float)) and v > 0 else rest


def burst_series(series: pd.DataFrame | None, manifests: dict | None = None) -> list[BurstSeries]:
    """Every sustained-write point and burst drain of a ``point_series`` frame (their I/O direction: writes, or
    reads for a read burst), with the drains after its rests and its :func:`token_bucket`.  ``manifests`` (run id
    -> its sweep manifest): the rests as the device saw them (fio's exit and start-up added), when recorded."""
    if series is None or series.empty:
        return []
    ids = series["point_id"].astype(str)
    w = series[ids.str.startswith(SUSTAINED_GROUP) & (series["direction"] == "write")
               | ids.str.startswith(BURST_GROUP)]
    out = []
    for run, g in w.groupby("run_id", sort=True):
        pids = g["point_id"].astype(str)
        first = sorted({p for p in pids if not REST_RE.search(p)})
        for point in first:
            unit = _unit(point)
            own = g[pids == point]
            direction = "write" if (own["direction"] == "write").any() else str(own["direction"].iloc[0])
            t, y = _rates(own[own["direction"] == direction], unit)
            rests = []
            for p in sorted({p for p in pids if REST_RE.search(p) and REST_RE.sub("", p) == point},
                            key=lambda p: float(REST_RE.search(p).group(1))):
                d = g[(pids == p) & (g["direction"] == direction)]
                rests.append((_seen(manifests, str(run), point, float(REST_RE.search(p).group(1))), *_rates(d, unit)))
            tb = token_bucket(t, y, [r for r, _, _ in rests] or None, [(a, b) for _, a, b in rests] or None,
                              unit=unit)
            out.append(BurstSeries(str(run), point, unit, t, y, rests, tb, direction))
    return out


def burst_buckets(series: pd.DataFrame | None, manifests: dict | None = None) -> pd.DataFrame:
    """One row per drain of :func:`burst_series`: its bucket's numbers, the rests measured (as the device saw
    them) and the sentences."""
    rows = [(b.run_id, b.point_id, b.bucket.rate_unit, b.bucket.burst_rate, b.bucket.baseline_rate,
             b.bucket.seconds_to_empty, b.bucket.size_unit, b.bucket.bucket_size, b.bucket.bucket_low,
             b.bucket.bucket_high, b.bucket.refill_rate, ", ".join(f"{r:.3g}" for r, _, _ in b.rests),
             b.bucket.reason, b.bucket.refill_reason) for b in burst_series(series, manifests)]
    return pd.DataFrame(rows, columns=BUCKET_COLUMNS)


def burst_card_metrics(series: pd.DataFrame | None, manifest: dict | None = None) -> list[dict]:
    """The device card's entries for a run that measured a burst (``mode: burst``; its last drain): the burst rate
    and the baseline side by side (IOPS, or MB/s for sequential I/O), each with the bucket's sentence; without a
    bucket both read None with the sentence saying why.  Fields of :class:`helpers.analysis.card.Metric`."""
    runs = {} if series is None or series.empty else {str(r): manifest for r in series["run_id"].unique()}
    drains = [b for b in burst_series(series, runs) if b.point_id.startswith(BURST_GROUP)]
    if not drains:
        return []
    b = drains[-1]
    tb, (div, unit) = b.bucket, ((1e6, "MB/s") if b.unit == "bytes/s" else (1.0, "IOPS"))
    return [{"name": name, "value": None if v is None else v / div, "unit": unit, "detail": tb.reason,
             "title": f"{name} ({b.point_id})"}
            # a burst rate only beside the baseline it fell to: a fall in a drain's last windows may be a stall
            for name, v in (("Burst rate", tb.burst_rate if tb.baseline_rate is not None else None),
                            ("Baseline rate after the burst", tb.baseline_rate))]

