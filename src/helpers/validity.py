"""Validity flags: results that should not be trusted are marked, never silently averaged in.

Each flag is a boolean column; ``flag_reasons`` joins one sentence per raised flag.
Computed at ingest time so the processed data carries them into every view.
"""

from __future__ import annotations

import pandas as pd

MIN_DEVICE_LATENCY_US = 5.0  # no SSD completes a read in under ~5 µs end to end; faster means memory
CPU_BOUND_PCT = 90.0  # usr+sys of one fio job near a full core

# (column, dtype, description) in schema format
FLAG_COLUMNS: list[tuple[str, str, str]] = [
    ("flag_page_cache", "bool", "Page cache suspected: direct=0, or mean read latency below 5 µs."),
    ("flag_cpu_bound", "bool", "fio itself near 100 % of a CPU per job: the number may measure the CPU, not the device."),
    ("flag_reasons", "string", "One sentence per raised flag, joined with '; ' (empty when the row is clean)."),
]


def add_flags(df: pd.DataFrame) -> pd.DataFrame:
    """Return ``df`` with the flag columns added (computed from the row's own fields)."""
    out = df.copy()
    reasons = pd.Series([[] for _ in range(len(out))], index=out.index, dtype=object)

    def flag(mask: pd.Series, text) -> pd.Series:
        mask = mask.fillna(False).astype(bool)
        for i in out.index[mask]:
            reasons[i].append(text(out.loc[i]) if callable(text) else text)
        return mask

    buffered = out["direct"].fillna(0).astype(int) == 0
    too_fast = (out["direction"] == "read") & (out["lat_mean_us"] < MIN_DEVICE_LATENCY_US)
    out["flag_page_cache"] = flag(buffered, "buffered I/O (direct=0): the page cache may serve it") | flag(
        too_fast & ~buffered,
        lambda r: f"mean read latency {r.lat_mean_us:.2f} µs is faster than any SSD (cache?)",
    )
    cpu = (out["usr_cpu_pct"] + out["sys_cpu_pct"]) / 1.0
    out["flag_cpu_bound"] = flag(cpu >= CPU_BOUND_PCT,
                                 lambda r: f"fio used {r.usr_cpu_pct + r.sys_cpu_pct:.0f} % of a CPU (CPU-bound)")
    out["flag_reasons"] = pd.Series(["; ".join(r) for r in reasons], index=out.index, dtype="string")
    return out
