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


def clone_job(character: dict, target: Path, size_bytes: int, runtime_s: float, name: str = "clone") -> str:
    """A fio job file reproducing a characterized trace (``analysis.workload.summary``'s dict) without the
    trace: rwmixread, bssplit per direction, percentage_random from the per-direction sequential share (fio
    keeps one position per direction), random_distribution=zoned, the arrival rate as rate_iops per direction
    (poisson arrivals when the trace's inter-arrival CV is near 1) and iodepth from the mean I/Os in flight."""
    read_pct = float(character["read_pct"])
    iops = float(character["iops"])
    read_iops = max(1, round(iops * read_pct / 100))
    write_iops = max(1, round(iops * (100 - read_pct) / 100))
    seq = float(character.get("sequential_per_op_pct") or 0.0)
    depth = max(1, int(np.ceil(float(character.get("mean_outstanding") or 1.0))))
    split = ",".join(s or "4k/100" for s in (character["bssplit_read"], character["bssplit_write"]))
    lines = [f"[{name}]", f"filename={target}", f"size={size_bytes}", "direct=1", "ioengine=psync" if depth == 1
             else "ioengine=libaio", f"iodepth={depth}", "rw=randrw", f"rwmixread={round(read_pct)}",
             f"bssplit={split}", f"percentage_random={max(0, min(100, round(100 - seq)))}",
             f"random_distribution={character['zoned']}", f"rate_iops={read_iops},{write_iops}",
             "time_based=1", f"runtime={runtime_s:g}s", "randrepeat=0"]
    cv = character.get("interarrival_cv")
    if cv is not None and np.isfinite(cv) and 0.7 <= cv <= 1.3:
        lines.append("rate_process=poisson")
    return "\n".join(lines) + "\n"
