"""The one table formatter of the lab's pages: numbers people can read, headers that carry their unit.

:func:`format_table` turns any results-like DataFrame into text cells: thousands separators, about three
significant digits, block sizes in fio's spelling, bandwidth in decimal MB/s, no ``None``/``nan``/``<NA>``
text (a missing value is an en dash), and headers with their unit and, for latency, which latency it is
(total latency lat = slat + clat, or completion latency clat).  The notebook layer renders the result as
an HTML table (``helpers.figures.html_table.table``), the one table renderer of the pages (no plotly SVG tables).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from helpers.fio.latency import latency_name
from helpers.fio.units import format_bytes

MISSING = "–"
MB = 1_000_000

# headers of known columns (unit and latency named); other columns get a generic header from their suffix
HEADERS: dict[str, str] = {
    "run_id": "run", "point_id": "point", "series": "series", "rw": "operation", "direction": "direction",
    "operation": "operation", "host": "host", "hosts": "hosts", "fio_version": "fio version",
    "bs_bytes": "block size", "bs_label": "block size", "iodepth": "queue depth (QD)", "numjobs": "jobs",
    "outstanding_io": "outstanding I/O (QD × jobs)", "rwmixread_pct": "read share (%)",
    "ioengine": "ioengine", "direct": "direct I/O",
    "iops": "IOPS", "iops_total": "IOPS (all directions)", "bw_bytes_per_s": "bandwidth (MB/s)",
    "mb_per_s": "bandwidth (MB/s, 10^6 B/s)", "mib_per_s": "bandwidth (MiB/s, 2^20 B/s)",
    "lat_mean_us": "mean total latency (µs)", "lat_stddev_us": "total latency std dev (µs)",
    "lat_min_us": "min total latency (µs)", "lat_max_us": "max total latency (µs)",
    "clat_mean_us": "mean completion latency, clat (µs)", "slat_mean_us": "mean submission latency, slat (µs)",
    "runtime_s": "runtime (s)", "total_ios": "I/Os", "io_bytes": "bytes",
    "flag_reasons": "flags", "unreliable_percentiles": "percentiles with too few I/Os",
    "flagged_rows": "flagged rows", "few_ios_percentile_rows": "rows with too few I/Os for deep percentiles",
    "rows": "rows", "quarantined": "quarantined", "sample": "bundled sample",
    "value": "value", "unit": "unit", "measured at": "measured at", "flags": "flags",
    "knee_qd": "knee (QD)", "knee_iops": "IOPS at the knee", "fraction_of_peak": "knee IOPS / peak IOPS",
    "knee_lat_mean_us": "mean total latency at the knee (µs)", "peak_iops": "peak IOPS", "peak_qd": "peak at QD",
    "latency_knee_qd": "latency knee (QD)", "latency_knee_iops": "IOPS at the latency knee",
    "littles_l": "L̂ = IOPS × mean total latency (I/Os)", "littles_ratio": "L̂ / outstanding I/O",
    "littles_flag": "off by > 10 %", "littles_reason": "likely reason",
    "x": "N is", "lam": "λ: IOPS at N = 1", "sigma": "σ: contention", "kappa": "κ: coherency", "r2": "R²",
    "n_star": "N*: peak concurrency", "x_peak": "IOPS at N*", "reason": "reason", "n_points": "points",
    "n_min": "smallest N", "n_max": "largest N", "extrapolate": "extended beyond the measured range",
    "credibility": "why (not)", "plateau_bs_bytes": "bandwidth plateau from block size",
    "peak_mb_per_s": "peak bandwidth (MB/s)", "plateau_mb_per_s": "bandwidth at the plateau (MB/s)",
    "measured_at": "measured at", "spec_workload": "spec measured at", "comparison": "why no ratio",
    "ratio": "measured / spec", "drive": "reference drive", "metric": "metric", "measured": "measured",
    "spec": "spec", "source": "spec source", "what": "what", "in_linear_region": "in linear region",
    "fall_bs_bytes": "larger block furthest below the peak", "fall_pct": "below the peak there (%)",
    "kappa_low": "κ: 95 % interval from", "decline_measured": "decline measured",
    "windows": "log windows", "iops_median": "median IOPS per window", "iops_cv_pct": "CV of window IOPS (%)",
    "within_band_pct": "windows within ±10 % of the median (%)", "worst_iops": "worst window (IOPS)",
    "worst_start_s": "worst window from (s)", "stalls": "stalls (windows below half the median)",
    "stall_s": "stalled (s)", "settled": "settled?", "settle_reason": "why",
    "peak_bs_bytes": "block size at the peak", "max_qd": "deepest QD measured",
    "max_iops": "most IOPS within the SLO", "max_iops_low": "most IOPS: 95 % interval from",
    "max_iops_high": "most IOPS: 95 % interval to", "at_iodepth": "at queue depth (QD)",
    "at_rate_iops": "at offered IOPS (rate_iops)", "limited_by": "limited by", "interpolated": "interpolated",
    # the sustained-write cliff (its sheet read "cliff gb", "before bytes (/s)")
    "cliff_gb": "cliff at (GB written, 10^9 B)", "total_gb": "written in all (GB, 10^9 B)",
    "before_bytes_per_s": "bandwidth before the cliff (bytes/s)",
    "after_bytes_per_s": "bandwidth after the cliff (bytes/s)",
}
# the settings a view may name as a value (the USL is fitted against one of them)
SETTING_COLUMNS = ("outstanding_io", "numjobs", "iodepth", "bs_bytes", "rwmixread_pct")
_PCT = re.compile(r"^(c?lat_|[a-z_]+_)?p(\d+(?:_\d+)?)_us$")
_SUFFIX_UNITS = [("_mb_per_s", "MB/s"), ("_mib_per_s", "MiB/s"), ("_per_s", "/s"), ("_us", "µs"), ("_ns", "ns"),
                 ("_pct", "%"), ("_bytes", "bytes"), ("_s", "s")]


def header(column: str, latency: str = "") -> str:
    """Human header with unit: ``lat_p99_us`` -> 'p99 total latency (µs)', ``clat_p99_us`` -> 'p99
    completion latency, clat (µs)', ``p99_us`` -> 'p99 <latency> (µs)' (``latency`` names it)."""
    column = str(column)
    if column in HEADERS:
        return HEADERS[column]
    m = _PCT.match(column)
    if m:
        prefix = m.group(1) or ""
        which = {"lat_": "total latency", "clat_": "completion latency, clat"}.get(prefix, latency or "latency")
        where = "" if prefix in ("", "lat_", "clat_") else " at the " + prefix.strip("_").replace("_", " ")
        return f"p{m.group(2).replace('_', '.')} {which}{where} (µs)"
    for suffix, unit in _SUFFIX_UNITS:
        if column.endswith(suffix) and len(column) > len(suffix):
            return f"{column[: -len(suffix)].replace('_', ' ')} ({unit})"
    return column.replace("_", " ")


def format_number(v) -> str:
    """About three significant digits with thousands separators: 9,973 · 812 · 45.8 · 2.35 · 0.0123."""
    if v is None or v is pd.NA or v is pd.NaT:
        return MISSING
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return MISSING
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    a = abs(x)
    if a >= 100 or a == 0 or (x.is_integer() and a >= 10):
        return f"{x:,.0f}"
    if a < 1e-4:  # 4.63e-19, not 0.000000000000000000463 (a column nobody can read, and wide)
        return f"{x:.3g}"
    decimals = 2 - int(math.floor(math.log10(a)))  # 3 significant digits
    return f"{x:,.{decimals}f}"


def label_with_unit(label: str, unit: str) -> str:
    """'p99 total latency (µs)'; the label alone when it already names its unit ('IOPS', never 'IOPS (IOPS)')."""
    label, unit = str(label), str(unit or "").strip()
    return label if not unit or unit.lower() in label.lower() else f"{label} ({unit})"


def format_cell(column: str, v) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    if isinstance(v, str) and v in SETTING_COLUMNS:  # a column named as a value (the USL's x): its header
        return HEADERS[v]
    if column.endswith("bs_bytes") and not isinstance(v, str):  # bs_bytes, peak_/plateau_/fall_bs_bytes: 128k
        return format_bytes(int(v))
    if column == "bw_bytes_per_s":
        return format_number(float(v) / MB)
    if (column in ("iodepth", "numjobs", "at_iodepth") or column.endswith("_qd")) and float(v).is_integer():
        return format_number(int(v))  # a depth held as a float (NaN beside it): QD 8, never 8.00
    if column == "unreliable_percentiles" and isinstance(v, str):  # 'clat_p99_99_us' -> 'p99.99'
        return ", ".join("p" + c.split("_p", 1)[-1].removesuffix("_us").replace("_", ".") for c in v.split(",") if c)
    if isinstance(v, str):
        return v if v.strip() else ""
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    return format_number(v)


def format_table(df: pd.DataFrame, latency: str = "") -> pd.DataFrame:
    """Text cells and human headers for ``df`` (a named index becomes leading columns).  A
    ``percentile_latency`` column (from :func:`helpers.analysis.points.with_latency`) names the latency of
    ``p*_us`` columns and is then dropped; ``latency`` overrides it."""
    d, latency = _named_latency(df, latency)
    out = pd.DataFrame({i: [format_cell(str(c), v) for v in d[c].tolist()] for i, c in enumerate(d.columns)},
                       index=range(len(d)))
    out.columns = [header(c, latency) for c in d.columns]
    return out


# full-precision CSV: columns the HTML shows converted keep their stored unit, which the header then names
CSV_HEADERS = {"bs_bytes": "block size (bytes)", "bw_bytes_per_s": "bandwidth (bytes/s)",
               "peak_bs_bytes": "block size at the peak (bytes)",
               "plateau_bs_bytes": "bandwidth plateau from block size (bytes)",
               "fall_bs_bytes": "larger block furthest below the peak (bytes)",
               "unreliable_percentiles": "percentiles with too few I/Os (columns)"}


def csv_table(df: pd.DataFrame, latency: str = "") -> pd.DataFrame:
    """``df``'s values at full precision (nothing rounded or converted) under :func:`format_table`'s headers
    with their unit: what a table's CSV download holds.  A ``percentile_latency`` column names the latency
    of ``p*_us`` headers, as in the HTML table."""
    d, latency = _named_latency(df, latency)
    for c in d.columns:  # a settings column named as a value (the USL's x) reads as its header, as in the HTML
        if not pd.api.types.is_numeric_dtype(d[c]) and d[c].isin(SETTING_COLUMNS).any():
            d[c] = d[c].map(lambda v: HEADERS[v] if isinstance(v, str) and v in SETTING_COLUMNS else v)
    d.columns = [CSV_HEADERS.get(str(c)) or header(c, latency) for c in d.columns]
    return d


def _named_latency(df: pd.DataFrame, latency: str) -> tuple[pd.DataFrame, str]:
    """(``df`` flat, without its ``percentile_latency`` column; the latency its ``p*_us`` columns hold: ``latency``
    or, when empty, the names in that column)."""
    d = _flat(df).copy()
    if "percentile_latency" in d.columns:
        if not latency:
            latency = " or ".join(str(x) for x in dict.fromkeys(d["percentile_latency"].dropna()))
        d = d.drop(columns="percentile_latency")
    return d, latency.replace(latency_name("clat"), "completion latency, clat")  # no nested parentheses in a header


def _flat(df: pd.DataFrame) -> pd.DataFrame:
    return df.reset_index() if not isinstance(df.index, pd.RangeIndex) or any(
        n is not None for n in df.index.names) else df


def long_text_positions(cells: pd.DataFrame, chars: int = 40) -> list[int]:
    """Positions of the columns holding sentences (a cell longer than ``chars``): they get room to wrap."""
    return [i for i in range(cells.shape[1]) if cells.iloc[:, i].map(len).max() > chars] if len(cells) else []


def numeric_positions(df: pd.DataFrame) -> list[int]:
    """Positions (in :func:`format_table`'s columns) of the columns holding numbers (right-aligned)."""
    d = _flat(df).drop(columns=[c for c in ("percentile_latency",) if c in df.columns], errors="ignore")
    return [i for i, c in enumerate(d.columns)
            if not str(c).endswith("bs_bytes") and pd.api.types.is_numeric_dtype(d[c]) and not pd.api.types.is_bool_dtype(d[c])]
