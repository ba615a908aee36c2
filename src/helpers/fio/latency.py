"""fio's three latencies and the one place their names are written.

fio measures submission latency (``slat``: until the kernel took the I/O), completion latency (``clat``:
from submission to completion) and total latency (``lat`` = slat + clat, what an application waits for).
Its percentiles are of clat unless the job ran with ``lat_percentiles=1`` (then of lat); its json+ bins
count whichever latency the percentiles are of (the histograms' ``latency`` column says ``lat`` or
``clat``).  Every table, axis and sentence names a latency through :func:`latency_name` /
:func:`latency_label` / :func:`column_label`, so a label can only say what the column holds.
"""

from __future__ import annotations

import re

LATENCY_NAMES = {"lat": "total latency", "clat": "completion latency (clat)", "slat": "submission latency (slat)"}
_COLUMN = re.compile(r"^(?P<kind>lat|clat|slat)_(?P<stat>mean|min|max|stddev|p\d+(?:_\d+)?)_(?P<unit>us|ns|ms)$")
UNITS = {"us": "µs", "ns": "ns", "ms": "ms"}


def latency_name(kind) -> str:
    """'lat' -> 'total latency', 'clat' -> 'completion latency (clat)', 'slat' -> 'submission latency (slat)';
    several kinds (a view holding both) -> joined with ' or '; unknown or none -> 'latency' (never a guess)."""
    kinds = [kind] if isinstance(kind, str) or kind is None else list(kind)
    names = [LATENCY_NAMES.get(str(k), "") for k in dict.fromkeys(kinds) if k is not None and str(k) in LATENCY_NAMES]
    return " or ".join(dict.fromkeys(names)) or "latency"


def latency_label(kind, stat: str = "", unit: str = "µs") -> str:
    """'p99 total latency (µs)', 'mean completion latency (clat) (µs)'; ``stat`` e.g. 'p99', 'p99.9', 'mean'
    (empty: the latency alone); ``unit`` empty: no unit."""
    text = f"{stat} {latency_name(kind)}".strip()
    return f"{text} ({unit})" if unit else text


def parse_column(column: str) -> tuple[str, str, str] | None:
    """'clat_p99_9_us' -> ('clat', 'p99.9', 'µs'); 'lat_mean_us' -> ('lat', 'mean', 'µs'); None when the
    column is not a latency column."""
    m = _COLUMN.match(str(column))
    if not m:
        return None
    return m["kind"], m["stat"].replace("_", "."), UNITS[m["unit"]]


def column_label(column: str) -> str:
    """The label of a latency column, read off its name ('lat_p99_us' -> 'p99 total latency (µs)');
    other columns are returned unchanged."""
    parsed = parse_column(column)
    if parsed is None:
        return column
    kind, stat, unit = parsed
    return latency_label(kind, stat, unit)
