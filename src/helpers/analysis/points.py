"""Shared per-point helpers for the views: decimal/binary throughput units, labels, flags, totals.

Throughput units: ``mb_per_s`` is decimal (1 MB = 10^6 bytes, as on spec sheets);
``mib_per_s`` is binary (1 MiB = 2^20 bytes, as fio's own 'MiB/s').
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.fio.latency import latency_name
from helpers.fio.options import MIXED_MODES
from helpers.fio.units import format_bytes

MB = 1_000_000
MIB = 1024**2
OPERATION_ORDER = ["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw"]
POINT_KEYS = ["run_id", "source_file", "run_index", "point_id", "job_index"]  # foreign files may reuse job names


PERCENTILE_LEVELS = (50.0, 90.0, 95.0, 99.0, 99.9, 99.99)
PERCENTILE_SUFFIXES = [f"p{p:g}_us".replace(".", "_") for p in PERCENTILE_LEVELS]  # with_latency's columns
TOTAL_LATENCY = latency_name("lat")
COMPLETION_LATENCY = latency_name("clat")


def percentile_suffix(p: float) -> str:
    """50 -> 'p50_us', 99.9 -> 'p99_9_us' (the schema's percentile column suffix)."""
    return f"p{p:g}_us".replace(".", "_")


@dataclass(frozen=True)
class LatencyColumns:
    """Which latency a view's percentiles are of: fio's total latency (``lat_p*_us``, slat + clat, what an
    application waits for; the lab's sweeps run with lat_percentiles=1) or, for files that only carry
    completion-latency percentiles, ``clat_p*_us`` labelled as such."""

    kind: str  # "lat" or "clat"
    name: str  # "total latency" or "completion latency (clat)"
    columns: dict[float, str]  # percentile -> column

    def column(self, p: float) -> str:
        return self.columns[p]

    def label(self, p: float) -> str:
        """'p99 total latency (µs)' / 'p99 completion latency (clat) (µs)'."""
        return f"p{p:g} {self.name} (µs)"


def latency_columns(df: pd.DataFrame) -> LatencyColumns:
    """The one place views choose their percentile columns: total-latency percentiles when every row that
    has percentiles has them (fio wrote lat_ns percentiles), else completion-latency (clat) percentiles
    for all rows, so one chart never mixes the two latencies."""
    lat = {p: f"lat_{percentile_suffix(p)}" for p in PERCENTILE_LEVELS}
    clat = {p: f"clat_{percentile_suffix(p)}" for p in PERCENTILE_LEVELS}
    lat_cols = [c for c in lat.values() if c in df.columns]
    clat_cols = [c for c in clat.values() if c in df.columns]
    if lat_cols and len(df):
        has_lat = df[lat_cols].notna().any(axis=1)
        has_clat = df[clat_cols].notna().any(axis=1) if clat_cols else pd.Series(False, index=df.index)
        if has_lat.any() and not (has_clat & ~has_lat).any():
            return LatencyColumns("lat", TOTAL_LATENCY, lat)
    return LatencyColumns("clat", COMPLETION_LATENCY, clat)


def with_latency(df: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``df`` with ``p50_us`` ... ``p99_99_us`` taken from the columns :func:`latency_columns`
    chooses and ``percentile_latency`` naming that latency (views label their axes with it)."""
    lc = latency_columns(df)
    out = df.copy()
    for p, c in lc.columns.items():
        out[percentile_suffix(p)] = pd.to_numeric(out[c], errors="coerce").astype("float64") if c in out.columns else np.nan
    out["percentile_latency"] = pd.Series(lc.name, index=out.index, dtype="string")
    return out


def percentile_latency(df: pd.DataFrame) -> str:
    """The latency name of a frame made by :func:`with_latency` (completion latency when unknown)."""
    if "percentile_latency" in df.columns and len(df) and pd.notna(df["percentile_latency"].iloc[0]):
        return str(df["percentile_latency"].iloc[0])
    return latency_columns(df).name


def is_flagged(df: pd.DataFrame) -> pd.Series:
    if "flag_reasons" not in df.columns:
        return pd.Series(False, index=df.index)
    return df["flag_reasons"].fillna("").astype(str) != ""


def point_label(row) -> str:
    """'4k randwrite QD32' (+ direction of a mixed workload, jobs, read share, rate, engine, buffered)."""
    rw, direction = str(row["rw"]), str(row["direction"])
    parts = [format_bytes(row["bs_bytes"]), rw]
    if rw in ("rw", "readwrite", "randrw", "trimwrite", "randtrimwrite") or direction == "trim":
        parts.append(direction)
    parts.append(f"QD{int(row['iodepth'])}")
    nj = row.get("numjobs")
    if nj is not None and not pd.isna(nj) and int(nj) != 1:
        parts.append(f"x{int(nj)} jobs")
    mix = row.get("rwmixread_pct")
    if mix is not None and not pd.isna(mix) and rw in MIXED_MODES:
        parts.append(f"{mix:g} % read")
    rate = row.get("rate_iops")
    if rate is not None and not pd.isna(rate):
        parts.append(f"@ {rate:,.0f} IOPS offered")
    if str(row.get("ioengine")) not in ("libaio", "None", "<NA>"):
        parts.append(str(row["ioengine"]))
    if row.get("direct") is not None and not pd.isna(row.get("direct")) and int(row["direct"]) == 0:
        parts.append("buffered")
    return " ".join(parts)


def engine_suffixes(df: pd.DataFrame, keys: list[str]) -> pd.Series:
    """", <engine>" for rows whose series (``keys`` without ``ioengine``) was measured with more than one engine,
    else "": a demand search measures libaio and io_uring at the same jobs and depth, and a label without the
    engine would draw and list both as one series (their points as repeats of each other)."""
    if "ioengine" not in keys or "ioengine" not in df.columns or df.empty:
        return pd.Series("", index=df.index, dtype="object")
    n = df.groupby([k for k in keys if k != "ioengine"], dropna=False)["ioengine"].transform("nunique")
    return pd.Series([f", {e}" if k > 1 and not pd.isna(e) else "" for e, k in zip(df["ioengine"], n)],
                     index=df.index, dtype="object")


def numeric_order(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``df`` sorted by ``keys`` (those present): by the settings' values (4k before 16k before 128k, QD 2
    before QD 16), not by the labels' text ('randread 128k' < 'randread 16k' < 'randread 4k')."""
    return df.sort_values([k for k in keys if k in df.columns], kind="stable", na_position="first"
                          ).reset_index(drop=True)


def operation_label(rw: str, mix: float) -> str:
    """``randread``; mixed modes carry their read share: ``randrw 70% read``."""
    return rw if rw not in MIXED_MODES or pd.isna(mix) else f"{rw} {mix:.0f}% read"


# What the views need to place a row: a row whose file does not state one of these (fio < 2.3 wrote no
# option blocks, terse text states none; see the results' config_note) cannot be put on any view's axes.
CONFIG_COLUMNS = ["rw", "bs_bytes", "iodepth", "numjobs"]


def split_configured(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows whose configuration is known, rows left out of the views because their file does not state
    it).  The views are built from the first; :func:`left_out_sentence` explains the second."""
    cols = [c for c in CONFIG_COLUMNS if c in df.columns]
    if df.empty or not cols:
        return df, df.iloc[0:0]
    known = df[cols].notna().all(axis=1)
    return df[known], df[~known]


def left_out_sentence(left_out: pd.DataFrame, total_rows: int | None = None) -> str:
    """One sentence saying how many rows the views leave out and why ('' when none)."""
    if left_out is None or left_out.empty:
        return ""
    why = "their files do not state the workload"
    if "config_note" in left_out.columns:
        notes = sorted(set(left_out["config_note"].dropna().astype(str)))
        if notes:
            why += f" ({'; '.join(notes[:2])}{'; ...' if len(notes) > 2 else ''})"
    of = f" of {total_rows:,}" if total_rows is not None else ""
    files = left_out["source_file"].nunique() if "source_file" in left_out.columns else None
    src = f" from {files:,} file{'s' if files != 1 else ''}" if files else ""
    return (f"{len(left_out):,}{of} result rows{src} are left out of these views: {why}, and a view cannot "
            f"place a row without its operation, block size, queue depth and job count.")


def with_units(df: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``df`` with ``mb_per_s``, ``mib_per_s``, ``bs_label``, ``operation`` and ``flagged``."""
    out = with_latency(df)
    out["mb_per_s"] = out["bw_bytes_per_s"] / MB
    out["mib_per_s"] = out["bw_bytes_per_s"] / MIB
    out["bs_label"] = [format_bytes(b) if pd.notna(b) else "bs not stated" for b in out["bs_bytes"]]
    out["operation"] = [operation_label(r, m) for r, m in zip(out["rw"], out["rwmixread_pct"])]
    out["flagged"] = is_flagged(out)
    if "flag_reasons" not in out.columns:
        out["flag_reasons"] = ""
    out["flag_reasons"] = out["flag_reasons"].fillna("").astype(str)
    return out


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """One ``direction == "total"`` row per point: IOPS and bandwidth summed over read and write,
    mean latency weighted by each direction's IOPS (percentiles cannot be combined: NaN)."""
    if df.empty:
        return df.assign(direction=pd.Series(dtype="string"))
    keys = [k for k in POINT_KEYS if k in df.columns]
    rows = []
    for _, g in df.groupby(keys, dropna=False, sort=False):
        first = g.iloc[0].copy()
        w = g["iops"].fillna(0)
        first["direction"] = "total"
        first["iops"] = g["iops"].sum()
        first["bw_bytes_per_s"] = g["bw_bytes_per_s"].sum()
        for col in ("io_bytes", "total_ios"):
            if col in g:
                first[col] = g[col].sum()
        for col in ("lat_mean_us", "clat_mean_us", "slat_mean_us"):
            if col in g:
                first[col] = float(np.average(g[col], weights=w)) if w.sum() > 0 else g[col].mean()
        pcols = [c for c in g.columns if c.startswith(("clat_p", "lat_p")) or c in PERCENTILE_SUFFIXES]
        for col in pcols + ["lat_stddev_us"]:
            if col in g:
                first[col] = np.nan
        if "lat_max_us" in g:
            first["lat_max_us"] = g["lat_max_us"].max()
            first["lat_min_us"] = g["lat_min_us"].min()
        if "flag_reasons" in g:
            sentences = [s for r in g["flag_reasons"].fillna("").astype(str) for s in r.split("; ") if s]
            first["flag_reasons"] = "; ".join(dict.fromkeys(sentences))  # each sentence once
        for col in [c for c in g.columns if c.startswith("flag_") and c != "flag_reasons"]:
            first[col] = bool(g[col].any())
        rows.append(first)
    return pd.DataFrame(rows).reset_index(drop=True)


def operations(df: pd.DataFrame) -> pd.DataFrame:
    """Each point once: pure modes as measured, mixed modes as their read+write total."""
    if df.empty:
        return with_units(df)
    mixed = df["rw"].isin(MIXED_MODES)
    return with_units(pd.concat([df[~mixed], totals(df[mixed])], ignore_index=True))


def operation_sort_key(op: str) -> tuple[int, str]:
    base = op.split(" ")[0]
    return (OPERATION_ORDER.index(base) if base in OPERATION_ORDER else len(OPERATION_ORDER), op)


def sorted_operations(ops) -> list[str]:
    return sorted(set(ops), key=operation_sort_key)
