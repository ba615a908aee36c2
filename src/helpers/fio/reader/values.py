"""Reading fio's numbers: values checked as they are read (EntryError, one sentence, when one has
the wrong form), latency blocks, their percentiles and json+ bins."""

from __future__ import annotations

import math
import operator
import re
from typing import Any

import numpy as np

from helpers.fio.latency import latency_name
from helpers.fio.options import NAN, show

# fio's percentile keys (its default list) -> column suffix
PERCENTILE_KEYS: dict[str, str] = {
    "50.000000": "p50", "90.000000": "p90", "95.000000": "p95", "99.000000": "p99",
    "99.900000": "p99_9", "99.990000": "p99_99",
}
TERSE_PERCENTILES_ASSUMED = (f"terse percentiles taken as {latency_name('clat')}, as fio documents them; fio >= 3.1 "
                             "writes total latency there when the job set lat_percentiles=1, which terse does not record")
_NAN6 = (NAN,) * len(PERCENTILE_KEYS)
_NAN4 = (NAN,) * 4
_INT6 = (int,) * len(PERCENTILE_KEYS)
_PCTS = operator.itemgetter(*PERCENTILE_KEYS)  # (KeyError when one is missing)
_STATS = operator.itemgetter("mean", "stddev", "min", "max")
_DIR_NS = operator.itemgetter("io_bytes", "iops", "runtime", "bw_bytes", "lat_ns", "clat_ns", "slat_ns")


class EntryError(ValueError):
    """A job entry (or file) that is not a data point; the message is one sentence."""


# --- values ------------------------------------------------------------------------------------

def _what(what: str | tuple) -> str:
    """``what`` may be a tuple of parts (joined only when a message needs it: no formatting cost on the
    fast path)."""
    return what if isinstance(what, str) else "".join(what)


def _num(v: Any, what: str | tuple) -> float:
    if (type(v) is float or type(v) is int) and _isfinite(v):  # bool is not a number here
        return float(v)
    raise EntryError(f"{_what(what)} is {show(v)}, not a finite number (wrong schema).")


def _count(v: Any, what: str | tuple) -> int:
    if type(v) is int and 0 <= v < 2**63:
        return v
    if type(v) is float and v.is_integer() and 0 <= v < 2**63:
        return int(v)
    raise EntryError(f"{_what(what)} is {show(v)}, not a count (wrong schema).")


_isfinite = math.isfinite
_INT64_MAX = 2**63 - 1
_NS = 1000.0  # ns per µs
_NUMBER = (float, int)  # type(v) in _NUMBER: a JSON number (bool is not one here)
_NUMBER_TYPES = frozenset(_NUMBER)


def _req(d: dict, key: str, direction: str) -> Any:
    try:
        return d[key]
    except KeyError:
        raise EntryError(f"the job's '{direction}' entry has no '{key}' key (wrong schema).") from None


def _version_before(version: str | None, major: int, minor: int, patch: int = 0) -> bool:
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if not m:
        return False
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) < (major, minor, patch)


# --- latency -------------------------------------------------------------------------------------

def latency_block(d: dict, name: str) -> tuple[dict | None, float]:
    """The latency stats block ``name`` (lat, clat, slat) and its divisor to µs (fio >= 3: ``*_ns``, 1000;
    fio 2.x: µs, 1); (None, NaN) when absent or not measured (``N: 0``, or all zeros in older fio).
    Dividing (not multiplying by 1e-3) gives the correctly rounded µs of fio's integer ns."""
    blk = d.get(f"{name}_ns")
    factor = 1000.0
    if blk is None:
        blk = d.get(name)
        factor = 1.0
        if blk is None:
            return None, NAN
    if type(blk) is not dict:
        raise EntryError(f"the '{name}' latency entry is not an object (wrong schema).")
    n = blk.get("N")
    if n is not None:
        if n == 0:
            return None, NAN
    elif not blk.get("max") and not blk.get("mean") and not blk.get("min"):
        return None, NAN
    return blk, factor


def _stats(block: dict | None, factor: float, name: str) -> tuple[float, float, float, float]:
    """(mean, stddev, min, max) of a latency block in µs (NaN when absent)."""
    if block is None:
        return NAN, NAN, NAN, NAN
    g = block.get
    vals = (g("mean"), g("stddev"), g("min"), g("max"))
    if all(type(v) is float or type(v) is int for v in vals) and all(map(_isfinite, vals)):  # the usual case
        return tuple(map(factor.__rtruediv__, vals))
    out = []
    for key in ("mean", "stddev", "min", "max"):
        v = block.get(key)
        out.append(NAN if v is None else _num(v, (name, " ", key)) / factor)
    return tuple(out)


def _percentiles(block: dict | None, factor: float, what: str) -> tuple:
    if block is None:
        return _NAN6
    pct = block.get("percentile")
    if not pct:
        return _NAN6
    if type(pct) is not dict:
        raise EntryError(f"the {what} 'percentile' entry is not an object (wrong schema).")
    try:
        vals = [pct[k] for k in PERCENTILE_KEYS]
    except KeyError:
        vals = None
    if vals is not None and all(type(v) is int for v in vals):  # the usual case: fio's integer ns (or µs)
        return tuple(map(factor.__rtruediv__, vals))
    out = []
    for k in PERCENTILE_KEYS:
        v = pct.get(k)
        out.append(NAN if v is None else _num(v, (what, " percentile ", k)) / factor)
    return tuple(out)


def _bins(block: dict, what: str) -> tuple[np.ndarray, np.ndarray] | None:
    bins = block.get("bins")
    if bins is None:
        return None
    if type(bins) is not dict:
        raise EntryError(f"the {what} 'bins' entry is not an object (wrong schema).")
    n = len(bins)
    digits = True  # keys read from plain digit strings (the table, _digit_keys): never negative
    try:  # fio's bins are its fixed latency buckets: their keys recur in every file (one C-level lookup of all)
        keys = np.fromiter(operator.itemgetter(*bins)(_BIN_KEYS) if n > 1 else map(_BIN_KEYS.__getitem__, bins),
                           dtype=np.int64, count=n)
    except (KeyError, TypeError):
        keys = _digit_keys(bins, n)
        if keys is not None and len(_BIN_KEYS) < _BIN_KEYS_MAX:
            _BIN_KEYS.update(zip(bins, keys.tolist()))
    try:
        if keys is None:
            digits = False
            keys = np.fromiter(map(int, bins), dtype=np.int64, count=n)  # int(): as numpy's str cast
        counts = np.fromiter(bins.values(), dtype=np.int64, count=n)
    except (ValueError, TypeError, OverflowError):
        raise EntryError(f"the {what} 'bins' keys or counts are not integers (wrong schema).") from None
    if n and ((not digits and keys.min() < 0) or counts.min() < 0):
        raise EntryError(f"the {what} 'bins' hold negative latencies or counts (wrong schema).")
    return keys, counts


_NOT_DIGITS = b"0123456789 "
_BIN_KEYS: dict[str, int] = {}  # bin key -> its value, for keys :func:`_digit_keys` read (plain digits)
_BIN_KEYS_MAX = 1 << 16  # fio has 1856 buckets (FIO_IO_U_PLAT_NR); a bound all the same


def _digit_keys(bins: dict, n: int) -> np.ndarray | None:
    """The keys of ``bins`` as int64 in one C pass when every key is a plain ASCII digit string (what
    fio writes), else None (the caller converts them one by one).  The keys joined with single spaces
    hold only digits and single spaces, neither first nor last, and parse to ``n`` numbers exactly when
    each key is a non-empty run of digits; a number beyond int64 (numpy saturates it) is left to the
    caller too."""
    try:
        s = " ".join(bins)
    except TypeError:
        return None
    if not s or not s.isascii() or s.encode().translate(None, _NOT_DIGITS) or "  " in s or s[0] == " " \
            or s[-1] == " ":
        return None
    keys = np.fromstring(s, dtype=np.int64, sep=" ")
    return keys if len(keys) == n and keys.max() < _INT64_MAX else None

