"""Row sets -> the timeseries columns: the Arrow table written and the frame read."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from helpers.ingest.timeseries.windows import _NUMERIC, HIST_PERCENTILES, HIST_TAIL
from helpers.processed import schema, store
from helpers.processed.validity import PERCENTILE_LEVELS, TAIL_SAMPLES

COLUMNS = schema.column_names(schema.TIMESERIES_COLUMNS)


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.TIMESERIES_COLUMNS})


_SCALARS = {"job_index": np.int64, "run_index": np.int64, "log_job": np.int64, "direction": np.int64,
            "interval_ms": np.float64,
            "ramp_s": np.float64}
_STRINGS = ("point_id", "source_file", "log")


def _assemble(segments: list[dict]) -> dict:
    """Row sets -> column arrays: scalars repeated, arrays concatenated, missing value columns NaN (no work per row
    in Python)."""
    # rows in (source_file, log_job, direction, log) order, each set's rows already in time order
    segments = sorted(segments, key=lambda g: (g["source_file"], g["log_job"], g["direction"], g["log"]))
    ns = np.fromiter((len(g["t_ms"]) for g in segments), dtype=np.int64, count=len(segments))
    offs = np.r_[0, np.cumsum(ns)]
    b = {"n": int(offs[-1]), "seg_n": ns}
    for k, t in _SCALARS.items():
        b[k] = np.repeat(np.fromiter((g[k] for g in segments), dtype=t, count=len(segments)), ns)
    for k in _STRINGS:  # per segment: (sorted unique strings, their codes)
        vals = [g[k] for g in segments]
        uniq = sorted(set(vals))
        pos = {u: i for i, u in enumerate(uniq)}
        b[k] = (uniq, np.repeat(np.fromiter((pos[v] for v in vals), dtype=np.int32, count=len(vals)), ns))
    for k in ("t_ms", "start_ms", "end_ms"):
        b[k] = np.concatenate([g[k] for g in segments])
    b["from_json"] = np.zeros(b["n"], dtype=bool)
    for c in _NUMERIC:
        b[c] = np.full(b["n"], np.nan)
    for g, lo, hi in zip(segments, offs[:-1], offs[1:]):
        for c in _NUMERIC:
            if c in g:
                b[c][lo:hi] = g[c]
        if g["from_json"] is not None:
            b["from_json"][lo:hi] = g["from_json"]
    return b


def _strings(uniq: list[str], codes: np.ndarray) -> pd.Series:
    """Codes into a few distinct strings -> a string Series, built through a dictionary array (converting row by
    row costs ~0.2 µs a row and column)."""
    arr = pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), pa.array(uniq, type=pa.string()))
    return pd.Series(pd.arrays.ArrowStringArray(arr.cast(pa.string())))


def _table(b: dict) -> pa.Table:
    """Assembled rows -> the Arrow table :func:`helpers.processed.store.arrow_table` would give for
    :func:`_finish`'s frame (string columns as dictionaries, which the store writes as their values), built
    straight from the arrays: a pandas frame of a pass costs as much again as the Parquet it becomes."""
    meta = store.arrow_table(empty_frame()).schema
    total = b["hist_ios"].astype(np.float64)
    few = _few_codes(b, total)
    dirs = ["read", "write", "trim", "unknown"]
    cols = {
        "point_id": b["point_id"], "source_file": b["source_file"], "log": b["log"],
        "direction": (dirs, np.clip(b["direction"], 0, 3)),
        "unreliable_percentiles": (_few_labels(), few),
    }
    arrays = []
    for f in meta:
        name = f.name
        if name in cols:
            uniq, codes = cols[name]
            arrays.append(pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()),
                                                         pa.array(uniq, type=f.type)))
        elif name == "hist_ios":
            arrays.append(pa.array(np.nan_to_num(total).astype(np.int64), mask=np.isnan(total)))
        elif name == "flag_few_ios":
            arrays.append(pa.array(few != 0))
        elif name in ("window_start_s", "window_end_s", "interval_s"):
            key = {"window_start_s": "start_ms", "window_end_s": "end_ms", "interval_s": "interval_ms"}[name]
            arrays.append(pa.array(b[key].astype(np.float64) / 1000.0))
        else:
            arrays.append(pa.array(np.asarray(b[name]).astype(f.type.to_pandas_dtype())))
    fields = [pa.field(f.name, a.type) for f, a in zip(meta, arrays)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=meta.metadata))


def _few_labels() -> list[str]:
    names_p = list(HIST_PERCENTILES.values())
    return [",".join(c for j, c in enumerate(names_p) if k >> j & 1) for k in range(1 << len(names_p))]


def _few_codes(b: dict, total: np.ndarray) -> np.ndarray:
    """Per row, bit j set when percentile column j has too few I/Os behind it (the few-I/O rule of results,
    validity.TAIL_SAMPLES: percentile p needs hist_ios x (1 - p) >= 10)."""
    code = np.zeros(len(total), dtype=np.int32)
    for j, c in enumerate(HIST_PERCENTILES.values()):
        code |= (~np.isnan(b[c]) & (total * (1.0 - PERCENTILE_LEVELS[c]) < TAIL_SAMPLES)).astype(np.int32) << j
    return code


def _finish(b: dict, run_id: str) -> pd.DataFrame:
    n = b["n"]
    out = pd.DataFrame(index=range(n))
    out["run_id"] = _strings([run_id], np.zeros(n, dtype=np.int32))
    for k in ("point_id", "source_file"):
        out[k] = _strings(*b[k])
    out["run_index"] = b["run_index"].astype("int64")
    out["job_index"] = b["job_index"].astype("int64")
    out["log_job"] = b["log_job"].astype("int64")
    out["direction"] = _strings(["read", "write", "trim", "unknown"], np.clip(b["direction"], 0, 3).astype(np.int32))
    out["log"] = _strings(*b["log"])
    out["t_ms"] = b["t_ms"].astype(np.int64)
    out["window_start_s"] = b["start_ms"].astype(np.float64) / 1000.0
    out["window_end_s"] = b["end_ms"].astype(np.float64) / 1000.0
    out["interval_s"] = b["interval_ms"].astype(np.float64) / 1000.0
    out["from_json"] = b["from_json"].astype(bool)
    out["ramp_s"] = b["ramp_s"].astype(np.float64)
    for c in ("iops", "bytes_per_s", "lat_mean_us", "clat_mean_us", "slat_mean_us", *HIST_PERCENTILES.values(),
              *HIST_TAIL.values()):
        out[c] = b[c].astype(np.float64)
    total = b["hist_ios"].astype(np.float64)
    out["hist_ios"] = pd.arrays.IntegerArray(np.nan_to_num(total).astype(np.int64), np.isnan(total))
    code = _few_codes(b, total)
    out["unreliable_percentiles"] = _strings(_few_labels(), code)
    out["flag_few_ios"] = code != 0
    return out[COLUMNS]


# --- a run ---------------------------------------------------------------------------------------------
