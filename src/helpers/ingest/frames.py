"""Parsed batches -> the results, histogram and quarantine frames (and the histograms' Arrow table as written):
the columns in schema order, the validity flags added once per run."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from helpers.processed import schema, store
from helpers.processed.validity import FLAG_COLUMNS, add_flags

FLAG_NAMES = schema.column_names(FLAG_COLUMNS)
FIELDS = [c for c in schema.column_names() if c not in FLAG_NAMES]  # what _entry_rows produces, in order
_DTYPES = schema.dtypes()
_FIELD_DTYPES = [_DTYPES[c] for c in FIELDS]
HIST_FIELDS = schema.column_names(schema.HISTOGRAM_COLUMNS)
Q_FIELDS = schema.column_names(schema.QUARANTINE_COLUMNS)
_ROW_ORDER = [
    "run_id", "host", "fio_version", "source_file", "run_index", "point_id", "group", "job_name", "job_index", "rw", "direction",
    "bs_bytes", "iodepth", "numjobs", "rwmixread_pct", "rate_iops", "ioengine", "direct", "group_reporting",
    "target_file", "target_size_bytes", "runtime_s", "settled_after_s", "io_bytes", "total_ios", "iops", "bw_bytes_per_s", "lat_mean_us", "lat_stddev_us", "lat_min_us",
    "lat_max_us", "clat_mean_us", "slat_mean_us", *schema.PERCENTILES.values(), *schema.LAT_PERCENTILES.values(),
    "usr_cpu_pct", "sys_cpu_pct", "process_cpu_pct", "timestamp_s", "disk_read_ios", "disk_write_ios", "disk_read_merges",
    "disk_write_merges", "source_format", "rounded_columns", "config_note",
]
assert _ROW_ORDER == FIELDS, "the row tuple of _entry_rows must follow the schema's column order"


@dataclass
class _Packed:
    """A parsed batch (see :meth:`_Sink.pack`)."""

    columns: list  # per field of FIELDS: numbers as numpy (or nullable pandas) arrays, strings as tuples
    hist_meta: list[tuple]
    hist_lengths: np.ndarray  # bins per histogram
    hist_bins: np.ndarray
    hist_counts: np.ndarray
    bad: list[tuple]
    files: int
    recognised: int
    runs: int
    multi_run: dict[str, int]


# --- frames --------------------------------------------------------------------------------------

def _column(values: list | tuple, dtype: str) -> Any:
    if dtype == "float64":
        return np.array(values, dtype=float) if values else np.zeros(0)
    if dtype == "int64":
        if None in values:  # (a C loop; numbers never equal None)
            return pd.array(values, dtype="Int64")
        return np.array(values, dtype=np.int64) if values else np.zeros(0, np.int64)
    if dtype == "bool":
        return np.array(values, dtype=bool) if values else np.zeros(0, bool)
    if dtype == "string":
        return _strings(list(values))
    return pd.array(values, dtype=dtype)


def _columns(rows: list[tuple]) -> list:
    """The fields of ``rows`` column by column: numbers as arrays of their dtype, strings as tuples (turned
    into Arrow strings by :func:`_columns_frame`, where the frame is made)."""
    cols = list(zip(*rows)) if rows else [()] * len(FIELDS)
    return [col if dtype == "string" else _column(col, dtype) for col, dtype in zip(cols, _FIELD_DTYPES)]


def _results_frame(rows: list[tuple], flags: bool = True) -> pd.DataFrame:
    """The results frame of ``rows``; without ``flags`` only the fields (see :func:`_flagged`)."""
    return _columns_frame(_columns(rows), flags)


def _columns_frame(columns: list, flags: bool = True) -> pd.DataFrame:
    df = pd.DataFrame({name: _column(col, dtype) if dtype == "string" else col
                       for name, col, dtype in zip(FIELDS, columns, _FIELD_DTYPES)})
    return _flagged(df) if flags else df


def _flagged(df: pd.DataFrame, throttled: dict[str, str] | None = None) -> pd.DataFrame:
    """The validity flag columns added, in schema order.  Applied to a whole run's rows at once: the
    repeat flag compares every row of the run with the same configuration, whatever the batches;
    ``throttled``: the points whose device throttled (:func:`helpers.ingest.health.throttled_points`)."""
    df = add_flags(df, throttled)
    for col in FLAG_NAMES:
        dtype = _DTYPES[col]
        df[col] = df[col].fillna(False).astype(bool) if dtype == "bool" else df[col].astype(dtype)
    return df[schema.column_names()]


def _strings(values: Any, take: np.ndarray | None = None) -> Any:
    """``pd.array(values, dtype="string")`` (optionally of ``values[take]``), built through Arrow when
    every value is a str or None (the same array, without pandas' per-element pass)."""
    try:
        arr = pa.array(values, type=pa.large_string(), from_pandas=True)
    except Exception:  # noqa: BLE001 - other values (ints from a manifest, ...): pandas converts them
        arr = None
    if arr is None:
        vals = np.array(values, dtype=object) if take is None or len(values) else np.zeros(0, object)
        return pd.array(vals if take is None else vals[take], dtype="string")
    return pd.arrays.ArrowStringArray(pa.chunked_array([arr if take is None else arr.take(take)]))


def _hist_frame(p: _Packed) -> pd.DataFrame:
    """The histograms of a batch as a frame: :func:`_hist_table` decoded (one string per bin), with run_id."""
    t = _hist_table(p)
    df = t.cast(store.decoded_schema(t.schema)).to_pandas()
    runs = [m[0] for m in p.hist_meta]
    df.insert(0, "run_id", _strings(runs, np.repeat(np.arange(len(runs)), p.hist_lengths)))
    return df


def _hist_table(p: _Packed) -> pa.Table:
    """The histograms of a batch as :class:`~helpers.processed.store.RunWriter` writes them (no run_id):
    the string columns dictionary-encoded -- each histogram's value once, repeated over its bins by
    index, never one string per bin -- which the writer puts into Parquet's dictionary pages as they
    are; the file reads back as the decoded frame (:func:`_hist_frame`)."""
    meta = list(zip(*p.hist_meta)) if p.hist_meta else [()] * 8
    take = pa.array(np.repeat(np.arange(len(p.hist_lengths), dtype=np.int32), p.hist_lengths))
    arrays = []
    for name, col in zip(HIST_FIELDS[1:8], meta[1:]):
        if name in ("run_index", "job_index"):
            arrays.append(pa.array(np.array(col, dtype=np.int64)).take(take))
            continue
        try:
            values = pa.array(col, type=pa.large_string(), from_pandas=True)
        except Exception:  # noqa: BLE001 - other values: converted as the frame would convert them
            values = _strings(list(col))._pa_array.combine_chunks()
        enc = values.dictionary_encode()
        arrays.append(pa.DictionaryArray.from_arrays(enc.indices.take(take), enc.dictionary))
    arrays += [pa.array(p.hist_bins), pa.array(p.hist_counts)]
    return pa.Table.from_arrays(arrays, schema=_hist_schema())


@functools.lru_cache(maxsize=1)
def _hist_schema() -> pa.Schema:
    """The schema of :func:`_hist_table`: the written frame's (with its pandas metadata), strings as
    dictionaries."""
    plain = store.arrow_table(pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.HISTOGRAM_COLUMNS})).schema
    return pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), f.type)) if f.type == pa.large_string() else f
                      for f in plain], metadata=plain.metadata)


# the histograms' columns whose row-group statistics are written: direction and latency (a few values,
# all in every row group) would never let a reader skip one
HIST_STATISTICS = [c for c in HIST_FIELDS[1:] if c not in ("direction", "latency")]


def _quarantine_frame(bad: list[tuple]) -> pd.DataFrame:
    if not bad:  # (most batches)
        return _empty_quarantine().copy()
    return pd.DataFrame(bad, columns=Q_FIELDS).astype(schema.dtypes(schema.QUARANTINE_COLUMNS))


@functools.lru_cache(maxsize=1)
def _empty_quarantine() -> pd.DataFrame:
    return pd.DataFrame([], columns=Q_FIELDS).astype(schema.dtypes(schema.QUARANTINE_COLUMNS))


def to_frames(rows: list[dict], bad: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Result and quarantine frames from :func:`rows_from_bytes` dicts."""
    return (_results_frame([tuple(r.get(c) for c in FIELDS) for r in rows]),
            _quarantine_frame([tuple(b.get(c) for c in Q_FIELDS) for b in bad]))


@dataclass
class Batch:
    results: pd.DataFrame
    histograms: pd.DataFrame | pa.Table  # a table (as written, no run_id) from iter_batches(arrow=True)
    quarantine: pd.DataFrame
    files: int
    recognised: int = 0
    runs: int = 0
    multi_run: dict[str, int] = field(default_factory=dict)


def _frames(p: _Packed, flags: bool = True, arrow: bool = False) -> Batch:
    """The frames of a parsed batch; with ``arrow`` the histograms as the table written (:func:`_hist_table`)."""
    return Batch(_columns_frame(p.columns, flags), _hist_table(p) if arrow else _hist_frame(p),
                 _quarantine_frame(p.bad), p.files, p.recognised, p.runs, p.multi_run)


