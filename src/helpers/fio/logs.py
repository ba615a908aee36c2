"""fio's per-window log files: bandwidth, IOPS and latency logs, and completion-latency histogram logs.

File names (fio ``write_*_log=PREFIX``, one file per job, ``per_job_logs=1`` by default)::

    PREFIX_bw.N.log  PREFIX_iops.N.log  PREFIX_lat.N.log  PREFIX_clat.N.log  PREFIX_slat.N.log
    PREFIX_clat_hist.N.log          (N = the job's number, 1-based; without per_job_logs no ".N")

Stored gzipped by the lab when large (``.log.gz``).  Value logs are lines
``time (ms), value, direction (0 read, 1 write, 2 trim), block size (bytes)[, offset[, priority]]``:
the columns after the block size vary by fio version and are not used.  Units of the value: bw log
KiB/s, iops log I/O per second, lat/clat/slat logs ns (fio >= 3.0; fio 2.x wrote µs).  With
``log_avg_msec`` each line is one window's average and the block size is 0; without it every line is
one I/O (block size set) and the caller aggregates.

Histogram logs (``write_hist_log`` with ``log_hist_msec``) are lines
``time (ms), direction, block size, bin 0, ..., bin B-1`` with B = FIO_IO_U_PLAT_NR >> log_hist_coarseness
(fio >= 3.0: 29 groups x 64 = 1856 bins in ns; fio 2.x: 19 x 64 = 1216 bins in µs).  Each line holds
the I/O counts of its window only (fio writes the difference to the previous snapshot, iolog.c
``hist_sum``).  The bin index -> latency conversion is fio's stat.c ``plat_idx_to_val``; percentiles of a
window use :func:`helpers.fio.histogram.percentile_rows`, fio's own rule.

Measured on fio 3.33 here: logs start when ``ramp_time`` ends (times count from there); the bw/iops logs
(written by fio's helper thread, stat.c ``__add_samples``) never hold the job's last, partial window, while
the lat/clat/slat and histogram logs (written at I/O completions) flush it at the job's end.

Many logs at once: :func:`read_value_logs` parses a list of files in one pass (files with the same number of
columns concatenated and parsed together), so an archive of 100k small logs costs its bytes, not 100k
parser start-ups.
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

FIO_IO_U_PLAT_BITS = 6
FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS  # 64 bins per power of two
PLAT_GROUP_NR = {3: 29, 2: 19}  # FIO_IO_U_PLAT_GROUP_NR by fio major version (ns since 3.0, µs before)
VALUE_KINDS = ("bw", "iops", "lat", "clat", "slat")
HIST_KINDS = ("clat_hist", "lat_hist")
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
_SMALL = 1 << 20  # below this many bytes a log is split in Python (faster than pandas' parser start-up)

LOG_NAME_RE = _NAME_RE = re.compile(r"^(?P<prefix>.+)_(?P<kind>bw|iops|lat|clat|slat|clat_hist|lat_hist)"
                      r"(?:\.(?P<job>\d+))?\.log(?P<gz>\.gz)?$")


@dataclass(frozen=True)
class LogName:
    prefix: str  # fio's write_*_log value (basename)
    kind: str  # bw, iops, lat, clat, slat, clat_hist or lat_hist
    job: int  # fio's job number (1-based; 1 when the name has none)

    @property
    def is_hist(self) -> bool:
        return self.kind in HIST_KINDS


@functools.lru_cache(maxsize=1 << 17)  # an archive's ingest asks about each of its files more than once
def parse_log_name(name: str) -> LogName | None:
    """``'p_clat_hist.2.log.gz'`` -> LogName('p', 'clat_hist', 2); None for other files."""
    m = _NAME_RE.match(os.path.basename(os.fspath(name)))
    if not m:
        return None
    return LogName(m["prefix"], m["kind"], int(m["job"] or 1))


def read_text(path: Path) -> str:
    """A log file's text (``.gz`` decompressed)."""
    path = Path(path)
    if path.name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    return path.read_text(encoding="utf-8", errors="replace")


def _matrix(text: str) -> np.ndarray:
    """Comma-separated integer/float lines -> 2-D float array (rows of unequal length: the shortest wins)."""
    text = text.strip()
    if not text:
        return np.empty((0, 0))
    # numpy's C parser on the whole text and one reshape (fast); ragged rows or stray text fall through
    first = text[:text.find("\n")] if "\n" in text else text
    width = first.count(",") + 1
    lines = text.count("\n") + 1
    try:
        with warnings.catch_warnings():  # numpy warns (and stops) at text that is not a number
            warnings.simplefilter("ignore")
            flat = np.fromstring(text.replace("\n", ","), dtype=np.float64, sep=",")
    except ValueError:
        flat = np.empty(0)
    if flat.size == width * lines:
        return flat.reshape(lines, width)
    if len(text) < _SMALL:
        rows = [line.split(",") for line in text.splitlines() if line.strip()]
        width = min(len(r) for r in rows)
        try:
            return np.array([r[:width] for r in rows], dtype=np.float64)
        except ValueError:
            raise ValueError("not a fio log: a field is not a number.") from None
    try:  # large and ragged: pandas says where
        return pd.read_csv(io.StringIO(text), header=None, dtype=np.float64, engine="c").to_numpy()
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"not a fio log ({str(exc).splitlines()[0]}).") from None


def read_value_arrays(text: str) -> dict[str, np.ndarray]:
    """A bw/iops/lat/clat/slat log -> arrays time_ms (int64), value (float64, the log's own unit),
    direction (0/1/2) and bs_bytes (int64; 0 in averaged logs)."""
    return _arrays(_matrix(text))


def read_bytes(path: Path | str) -> bytes:
    """A log file's bytes (``.gz`` decompressed)."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return f.read()
    with open(path, "rb") as f:
        return f.read()


_EMPTY_VALUES = {"time_ms": np.empty(0, dtype=np.int64), "value": np.empty(0), "direction": np.empty(0, dtype=np.int64),
                 "bs_bytes": np.empty(0, dtype=np.int64)}


def _arrays(a) -> dict[str, np.ndarray]:
    """A 2-D array, or a list of its columns, -> the value-log arrays."""
    cols = list(a.T) if isinstance(a, np.ndarray) and a.ndim == 2 else a
    if isinstance(a, np.ndarray) and a.size == 0 or not len(cols) or not len(cols[0]):
        return dict(_EMPTY_VALUES)
    if len(cols) < 3:
        raise ValueError("not a fio value log: fewer than 3 columns (time, value, direction, ... expected).")
    bs = cols[3] if len(cols) > 3 else np.zeros(len(cols[0]))
    return {"time_ms": cols[0].astype(np.int64), "value": cols[1].astype(np.float64),
            "direction": cols[2].astype(np.int64), "bs_bytes": bs.astype(np.int64)}


def _bulk_columns(blob: bytes, width: int) -> list[np.ndarray] | None:
    """Comma-separated lines of ``width`` numeric fields -> their columns, float64 (pyarrow's multi-threaded CSV
    reader); None when the text is not that (ragged rows, stray text: callers fall back file by file)."""
    try:
        table = pacsv.read_csv(pa.py_buffer(blob), read_options=pacsv.ReadOptions(
            autogenerate_column_names=True, block_size=1 << 24), convert_options=pacsv.ConvertOptions(
            column_types={f"f{i}": pa.float64() for i in range(width)}))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.num_columns != width:
        return None
    return [c.to_numpy() for c in table.columns]


def read_value_logs(paths: list[Path]) -> list[dict[str, np.ndarray] | Exception]:
    """Many bw/iops/lat/clat/slat logs -> :func:`read_value_arrays` per file (in order), or the exception that
    file raised (unreadable, not a fio log).  Files with the same number of columns are parsed in one pass."""
    out: list = [None] * len(paths)
    by_width: dict[int, list[tuple[int, bytes]]] = {}
    for i, p in enumerate(paths):
        try:
            b = read_bytes(p).strip()
        except (OSError, EOFError) as exc:
            out[i] = exc
            continue
        if not b:
            out[i] = dict(_EMPTY_VALUES)
            continue
        nl = b.find(b"\n")
        by_width.setdefault((b[:nl] if nl >= 0 else b).count(b",") + 1, []).append((i, b))
    for width, items in by_width.items():
        blob = b"\n".join(b for _, b in items) + b"\n"
        counts = np.fromiter((b.count(b"\n") + 1 for _, b in items), dtype=np.int64, count=len(items))
        cols = _bulk_columns(blob, width) if width >= 3 else None
        if cols is not None and len(cols[0]) == int(counts.sum()):
            ends = np.cumsum(counts)
            t, v, d = cols[0].astype(np.int64), cols[1], cols[2].astype(np.int64)
            bs = cols[3].astype(np.int64) if width > 3 else np.zeros(len(t), dtype=np.int64)
            for (i, _), lo, hi in zip(items, ends - counts, ends):
                out[i] = {"time_ms": t[lo:hi], "value": v[lo:hi], "direction": d[lo:hi], "bs_bytes": bs[lo:hi]}
            continue
        for i, b in items:  # one file spoils the batch: each on its own, so only the bad one is left out
            try:
                out[i] = read_value_arrays(b.decode("utf-8", errors="replace"))
            except ValueError as exc:
                out[i] = exc
    return out


def read_value_log(text: str) -> pd.DataFrame:
    """:func:`read_value_arrays` as a DataFrame."""
    return pd.DataFrame(read_value_arrays(text))


def hist_bins(ncols: int) -> tuple[int, int, int]:
    """(leading columns, group count, coarseness) of a histogram log line with ``ncols`` fields."""
    for lead in (3, 4):  # time, direction, bs [, a priority column some versions add]
        n = ncols - lead
        for groups in PLAT_GROUP_NR.values():
            full = groups * FIO_IO_U_PLAT_VAL
            for coarse in range(0, 7):
                if n == full >> coarse:
                    return lead, groups, coarse
    raise ValueError(f"not a fio histogram log: {ncols} columns match no FIO_IO_U_PLAT_NR (1856 or 1216 bins, "
                     "any log_hist_coarseness) after 3 or 4 leading columns.")


def plat_idx_to_val(idx, groups: int = PLAT_GROUP_NR[3]) -> np.ndarray:
    """fio stat.c ``plat_idx_to_val``: the latency a histogram bin stands for, in fio's unit (ns for 3.x).

    Indices below 128 are exact values; above, bin k of group g spans 2^(g-1) values and fio returns
    base + (k + 0.5) * 2^(g-1), truncated to an integer (the same values as json+ ``bins`` keys)."""
    idx = np.asarray(idx, dtype=np.int64)
    if np.any((idx < 0) | (idx >= groups * FIO_IO_U_PLAT_VAL)):
        raise ValueError("histogram bin index out of range.")
    error_bits = np.maximum((idx >> FIO_IO_U_PLAT_BITS) - 1, 0)
    base = np.left_shift(np.int64(1), error_bits + FIO_IO_U_PLAT_BITS)
    k = idx % FIO_IO_U_PLAT_VAL
    val = np.floor(base + (k + 0.5) * np.left_shift(np.int64(1), error_bits)).astype(np.int64)
    return np.where(idx < (FIO_IO_U_PLAT_VAL << 1), idx, val)


def hist_bin_ns(nbins: int, groups: int, coarseness: int, lat_unit_ns: bool = True) -> np.ndarray:
    """Latency in ns of each column of a histogram log.  Coarse logs (bins merged 2^c at a time) use
    the middle of the merged range, as fio's tools/hist/fiologparser_hist.py does."""
    stride = 1 << coarseness
    first = np.arange(nbins, dtype=np.int64) * stride
    if stride == 1:
        vals = plat_idx_to_val(first, groups).astype(np.float64)
    else:
        lo = plat_idx_to_val(first, groups).astype(np.float64)
        hi = plat_idx_to_val(np.minimum(first + stride - 1, groups * FIO_IO_U_PLAT_VAL - 1), groups)
        vals = (lo + hi) / 2.0
    return np.round(vals * (1.0 if lat_unit_ns else 1000.0)).astype(np.int64)


@dataclass
class HistLog:
    time_ms: np.ndarray  # int64, end of each window
    direction: np.ndarray  # int64, 0 read / 1 write / 2 trim
    bs_bytes: np.ndarray  # int64
    bin_ns: np.ndarray  # int64, one per column of counts
    counts: np.ndarray  # int64, windows x bins: I/Os completed in the window per latency bin

    def __len__(self) -> int:
        return len(self.time_ms)


def read_hist_log(text: str, lat_unit_ns: bool = True) -> HistLog:
    """A clat histogram log -> :class:`HistLog` (``lat_unit_ns=False`` for fio 2.x, whose bins are µs)."""
    a = _matrix(text)
    if a.size == 0:
        e = np.empty(0, dtype=np.int64)
        return HistLog(e, e, e, e, np.empty((0, 0), dtype=np.int64))
    lead, groups, coarse = hist_bins(a.shape[1])
    counts = a[:, lead:].astype(np.int64)
    if np.any(counts < 0):
        raise ValueError("fio histogram log has negative counts.")
    return HistLog(a[:, 0].astype(np.int64), a[:, 1].astype(np.int64), a[:, lead - 1].astype(np.int64),
                   hist_bin_ns(counts.shape[1], groups, coarse, lat_unit_ns), counts)


def read_io_log(path: Path | str) -> pd.DataFrame:
    """A per-I/O value log written with ``log_offset=1`` (no ``log_avg_msec``): one row per I/O, columns
    time_ms (its completion, ms since the job began: fio stamps whole ms), value (the log's unit: ns for
    lat/clat/slat), direction (0 read, 1 write, 2 trim), bs_bytes and offset_bytes."""
    m = _matrix(read_text(Path(path)))
    if m.size == 0:
        return pd.DataFrame({k: pd.Series(dtype="int64" if k != "value" else "float64")
                             for k in ("time_ms", "value", "direction", "bs_bytes", "offset_bytes")})
    if m.shape[1] < 5:
        raise ValueError(f"{path} has no offsets: a per-I/O log written with log_offset=1 is needed.")
    return pd.DataFrame({"time_ms": m[:, 0].astype("int64"), "value": m[:, 1], "direction": m[:, 2].astype("int64"),
                         "bs_bytes": m[:, 3].astype("int64"), "offset_bytes": m[:, 4].astype("int64")})
