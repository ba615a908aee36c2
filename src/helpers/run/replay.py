"""Replay planning: the fio iolog the lab writes for a trace, fitted to the target or refused before any I/O.

Takes the I/Os of a trace (the traces dataset's ``t_s``, ``op``, ``offset_bytes``, ``size_bytes``) and the
target; returns the iolog text (v3 with µs time stamps, as fio 3.33 reads and writes them; v2 for a trace
without times) and one sentence saying how offsets were fitted.  A trace that cannot be replayed on the
target (offsets beyond it with fitting off, writes on a read-only target) raises :class:`ReplayRefused`
with one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from helpers.errors import LabError

FITS = ("refuse", "wrap", "scale")
ALIGN = 512


class ReplayRefused(LabError):
    """The trace cannot be replayed on this target (one sentence, said before any I/O)."""


@dataclass
class ReplayPlan:
    iolog: str  # the text of the fio iolog
    ios: int
    note: str  # one sentence: how the trace's offsets were fitted to the target


def fit_offsets(ios: pd.DataFrame, target_size_bytes: int, fit: str = "refuse") -> tuple[np.ndarray, str]:
    """The trace's offsets on a target of ``target_size_bytes``: unchanged when every I/O fits, else wrapped
    (offset modulo the room left for the I/O) or scaled (offsets times target / trace span), 512-aligned;
    ``fit='refuse'`` raises :class:`ReplayRefused`."""
    if fit not in FITS:
        raise LabError(f"fit must be one of {', '.join(FITS)}, not {fit!r}.")
    off = ios["offset_bytes"].to_numpy(dtype="int64")
    size = ios["size_bytes"].to_numpy(dtype="int64")
    if (size > target_size_bytes).any():
        raise ReplayRefused(f"The trace has I/Os of up to {int(size.max()):,} bytes, larger than the target's "
                            f"{target_size_bytes:,} bytes: refused before any I/O.")
    top = int((off + size).max()) if len(off) else 0
    if top <= target_size_bytes:
        return off, f"Offsets as traced (the trace reaches {top:,} of the target's {target_size_bytes:,} bytes)."
    if fit == "refuse":
        raise ReplayRefused(f"The trace reaches {top:,} bytes, beyond the target's {target_size_bytes:,}, and "
                            "offsets are neither wrapped nor scaled (fit: wrap or scale): refused before any I/O.")
    room = target_size_bytes - size
    if fit == "wrap":
        new = off % np.maximum(room, 1)
        note = f"Offsets wrapped into the target's {target_size_bytes:,} bytes (the trace reaches {top:,})."
    else:
        new = (off.astype("float64") * (target_size_bytes / top)).astype("int64")
        note = f"Offsets scaled by {target_size_bytes / top:.4g} into the target's {target_size_bytes:,} bytes."
    new = np.minimum(new // ALIGN * ALIGN, room // ALIGN * ALIGN)
    return new, note


def plan(ios: pd.DataFrame, target: Path, target_size_bytes: int, fit: str = "refuse", writable: bool = True
         ) -> ReplayPlan:
    """The iolog replaying ``ios`` (in issue order) on ``target``; refused in one sentence when it cannot be."""
    ios = ios.sort_values("seq") if "seq" in ios else ios
    writes = int(ios["op"].isin(["write", "trim"]).sum())
    if writes and not writable:
        raise ReplayRefused(f"The trace has {writes:,} writes or trims and the target {target} is read-only: "
                            "refused before any I/O.")
    off, note = fit_offsets(ios, target_size_bytes, fit)
    name = str(target)
    op = ios["op"].to_numpy()
    size = ios["size_bytes"].to_numpy(dtype="int64")
    if ios["t_s"].notna().all() and len(ios):
        t_us = np.round(ios["t_s"].to_numpy() * 1e6).astype("int64")
        body = [f"{t} {name} {o} {f} {s}" for t, o, f, s in zip(t_us, op, off, size, strict=True)]
        end = int(t_us[-1])
        lines = ["fio version 3 iolog", f"0 {name} add", f"0 {name} open", *body, f"{end} {name} close"]
    else:
        body = [f"{name} {o} {f} {s}" for o, f, s in zip(op, off, size, strict=True)]
        lines = ["fio version 2 iolog", f"{name} add", f"{name} open", *body, f"{name} close"]
    return ReplayPlan("\n".join(lines) + "\n", len(ios), note)


ZONE_TOLERANCE = 0.25  # a range joins the zone before it when its I/Os are within 25 % of the zone's mean per range
ZONE_NOISE_SIGMAS = 2.0  # ... or within 2 Poisson standard deviations of it (sparse traces: counts are noisy)


def whole_percents(weights) -> np.ndarray:
    """Integer shares of ``weights`` summing to 100 (Hamilton's method: floors, then the largest remainders get the
    rest, ties to the earlier entry), as fio wants bssplit and zoned percentages; zeros without weight."""
    w = np.asarray(weights, dtype="float64")
    if not len(w) or w.sum() <= 0:
        return np.zeros(len(w), dtype="int64")
    exact = w / w.sum() * 100
    out = np.floor(exact + 1e-9).astype("int64")
    out[np.argsort(-(exact - out), kind="stable")[:100 - int(out.sum())]] += 1
    return out


def zoned_from_counts(counts) -> str:
    """fio's ``random_distribution=zoned:...`` from the I/O counts of equal address ranges in address order:
    consecutive ranges of like density merged into zones (a range joins the zone before it while its count is
    within :data:`ZONE_TOLERANCE` of the zone's mean per range or :data:`ZONE_NOISE_SIGMAS` Poisson standard
    deviations of it: a uniform random trace of few I/Os is one zone, not one per range of its counting noise;
    from the traces2 branch), access % / range % each summing to 100."""
    merged: list[list[int]] = []  # [ranges, ios]
    for c in np.asarray(counts, dtype="int64"):
        if merged:
            mean = merged[-1][1] / merged[-1][0]
            if abs(c - mean) <= max(ZONE_TOLERANCE * mean, ZONE_NOISE_SIGMAS * np.sqrt(mean)) or mean == c == 0:
                merged[-1][0] += 1
                merged[-1][1] += int(c)
                continue
        merged.append([1, int(c)])
    acc = whole_percents([m[1] for m in merged])
    rng = whole_percents([m[0] for m in merged])
    return "zoned:" + ":".join(f"{int(a)}/{int(r)}" for a, r in zip(acc, rng, strict=True))


def queue_depth(ios: pd.DataFrame, percentile: float = 99.0) -> int | None:
    """The I/Os in flight the trace stays at or below for ``percentile`` % of its time (time-weighted: issue
    ``t_s``, completion ``t_s`` + ``latency_us``), at least 1; None without latencies."""
    x = ios.dropna(subset=["t_s", "latency_us"]) if "latency_us" in ios else ios.iloc[:0]
    if len(x) < 2:
        return None
    t = np.concatenate([x["t_s"].to_numpy(), x["t_s"].to_numpy() + x["latency_us"].to_numpy() / 1e6])
    step = np.concatenate([np.ones(len(x), "int64"), -np.ones(len(x), "int64")])
    order = np.lexsort((step, t))  # at one instant the completion first: an I/O done as another starts is not both
    counts = np.cumsum(step[order])[:-1]
    widths = np.diff(t[order])
    if widths.sum() <= 0:
        return max(int(counts.max()), 1)
    by = np.argsort(counts, kind="stable")
    cum = np.cumsum(widths[by]) / widths.sum()
    return max(int(counts[by][np.searchsorted(cum, percentile / 100.0 - 1e-12)]), 1)


def bssplit_of(sizes: pd.Series, min_pct: float = 0.0) -> str:
    """fio's bssplit of a set of I/O sizes: the sizes holding at least ``min_pct`` % of the I/Os (all of them when
    none does), whole percentages by largest remainder summing to 100 (fio's rule; the rarer sizes folded into the
    others in proportion); '' without I/Os."""
    counts = sizes.value_counts().sort_index()
    if counts.empty:
        return ""
    kept = counts[100 * counts / counts.sum() >= min_pct]
    kept = kept if len(kept) else counts
    pct = whole_percents(kept.to_numpy())
    return ":".join(f"{size_text(int(s))}/{int(p)}" for s, p in zip(kept.index, pct, strict=True) if p > 0)


def size_text(n: int) -> str:
    """A size as fio writes it in a bssplit: 4k, 1m, or bytes."""
    return next((f"{n // m}{u}" for u, m in (("m", 1 << 20), ("k", 1 << 10)) if n % m == 0), str(n))


def clone_options(ios: pd.DataFrame, character: dict) -> dict[str, str]:
    """The fio options of the clone beyond rw/bs/iodepth: rwmixread, bssplit per direction, percentage_random
    (100 - the per-direction sequential share: fio keeps one position per direction), the zoned distribution,
    and the arrival rate per direction: poisson arrivals (the trace's inter-arrival CV near 1) as ``rate_iops``
    (fio draws poisson gaps from rate_iops x the smallest size / the smallest size: the IOPS asked; ``rate`` in
    bytes/s there ran 791 of 167 IOPS asked, the bytes over the 4k minimum of a 4k-64k bssplit, measured), else
    ``rate`` in bytes/s, the IOPS at the direction's mean size (linear pacing counts bytes: ``rate_iops`` with
    several sizes caps bandwidth at rate_iops x the smallest size, fio's HOWTO)."""
    read_pct = float(character["read_pct"])
    iops = float(character["iops"])
    ops = [o for o in ("read", "write") if (ios["op"] == o).any()]
    out = {}
    if len(ops) == 2:
        out["rwmixread"] = str(round(read_pct))
    splits = {o: bssplit_of(ios.loc[ios["op"] == o, "size_bytes"]) for o in ops}
    out["bssplit"] = ",".join(splits.get(o) or splits[ops[0]] for o in ("read", "write")) if len(ops) == 2 \
        else splits[ops[0]]
    seq = float(character.get("sequential_per_op_pct") or 0.0)
    out["percentage_random"] = str(max(0, min(100, round(100 - seq))))
    out["random_distribution"] = str(character["zoned"])
    if np.isfinite(iops) and iops > 0:
        cv = character.get("interarrival_cv")
        poisson = cv is not None and np.isfinite(cv) and 0.7 <= cv <= 1.3
        rates = []
        for o in ("read", "write"):
            d = ios[ios["op"] == o]
            share = len(d) / max(1, int(ios["op"].isin(["read", "write"]).sum()))
            # fio paces poisson arrivals at (rate in bytes/s) / the smallest size, linear ones by bytes
            rates.append(max(1, round(iops * share * (1 if poisson else float(d["size_bytes"].mean()))))
                         if len(d) else 0)
        out["rate_iops" if poisson else "rate"] = ",".join(str(r) for r in rates) if len(ops) == 2 \
            else str(max(rates))
        if poisson:
            out["rate_process"] = "poisson"
    return out


def clone_job(ios: pd.DataFrame, character: dict, target: Path, size_bytes: int, runtime_s: float,
              name: str = "clone", ioengine: str = "psync") -> str:
    """A fio job file reproducing a characterized trace (``analysis.workload.summary``'s dict) without the
    trace: :func:`clone_options`, iodepth from the trace's p99 in-flight I/Os (:func:`queue_depth`; 1 without
    latencies), time based for ``runtime_s``.  What fio cannot express is named in its header: the order of
    the I/Os and the burstiness of their arrivals beyond poisson."""
    ops = sorted(set(ios["op"]) & {"read", "write"})
    rw = "randrw" if len(ops) == 2 else f"rand{ops[0]}"
    depth = queue_depth(ios) or 1
    lines = [f"# cloned from {len(ios):,} I/Os of a trace by SSD Performance Lab (helpers.run.replay.clone_job);",
             "# not reproduced: the order of the I/Os, trims, and burstiness beyond poisson arrivals",
             f"[{name}]", f"filename={target}", f"size={size_bytes}", "direct=1", f"ioengine={ioengine}",
             f"iodepth={depth}", f"rw={rw}", *(f"{k}={v}" for k, v in clone_options(ios, character).items()),
             "time_based=1", f"runtime={runtime_s:g}s", "randrepeat=0"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ReplaySettings:
    """``mode: replay`` (a profile's ``replay`` section, :mod:`helpers.run.replay_sweep`): the trace fio replays on
    the target and the clone run after it."""

    trace: str = ""  # the trace file (any format helpers.ingest.traces recognises); relative: to the project
    fit: str = "refuse"  # offsets beyond the target: refuse, wrap or scale (:func:`fit_offsets`)
    time_scale_pct: int = 100  # fio replay_time_scale: 100 = the trace's rate, 50 = half (times x 2), 200 = twice
    no_stall: bool = False  # fio replay_no_stall: as fast as the target allows, the trace's times ignored
    # psync: fio 3.33's libaio replay with the trace's delays held each I/O ~90 ms before the device saw it
    # (clat 84-95 ms on a loop trace whose own latencies are 0.04-3 ms; measured here), and lost 15 of 334 of its
    # per-I/O log entries; a sync engine replays one I/O at a time, in order
    ioengine: str = "psync"
    clone: bool = True  # run the clone job (the characterization as a fio job) after the replay
    clone_runtime_s: float = 0.0  # 0: the trace's duration, at least 1 s


def check_settings(s: ReplaySettings, name: str) -> None:
    """One sentence for a replay section that cannot work (no trace named, an unknown fit, a scale of 0)."""
    if not s.trace:
        raise LabError(f"profile {name}: replay.trace must name the trace file to replay.")
    if s.fit not in FITS:
        raise LabError(f"profile {name}: replay.fit must be one of {', '.join(FITS)}, not {s.fit!r}.")
    if s.time_scale_pct < 1:
        raise LabError(f"profile {name}: replay.time_scale_pct must be 1 or more (100 = the trace's own times).")
