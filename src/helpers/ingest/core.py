"""Ingest: raw fio JSON files -> one row per job entry and direction with I/O.

Reads what users really have: plain ``json`` and ``json+`` (clat ``bins`` go to the histograms
dataset), several jobs and numjobs clones per file, mixed and trim workloads, options in
``global options``, options left at fio's defaults, client/server output, fio 2.x latency keys (µs),
notes before the JSON, normal output after it, ``--status-interval`` objects, and trees written by
other tools (bench-fio/fio-plot) -- always from the JSON contents, never from file names.

Files and jobs that are not data points (truncated, empty, not fio, wrong schema, ``error != 0``,
no I/O) are never rows: they go to the quarantine list with file, job and a one-sentence reason,
and the rest of the batch ingests.

Files are parsed in batches (in a forked process pool for large inputs); each batch becomes column
arrays once.  The command line streams histograms and quarantine to Parquet batch by batch and writes
the results once, after computing the validity flags over the whole run (the repeat flag compares all
of a run's rows), so memory follows the batch size plus the run's result rows (~0.5 KB per row).

Command line::

    python -m helpers.ingest PATH [PATH ...] --out DIR [--run RUN_ID]
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from helpers import config
from helpers.errors import LabError
from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes
from helpers.fio.units import parse_size
from helpers.ingest.timeseries import ingest_timeseries
from helpers.processed import schema, store
from helpers.processed.validity import FLAG_COLUMNS, add_flags
from helpers.run.manifest import MANIFEST_NAME, latest_raw_run, read_manifest

DIRECTIONS = ("read", "write", "trim")
MIXED = ("rw", "readwrite", "randrw")  # read/write mixes governed by rwmixread
NAN = float("nan")
ALL_CLIENTS = "All clients"
BATCH_FILES = 256  # files per batch: bounds memory (one batch of parsed JSON per worker)
POOL_MIN_FILES = 2 * BATCH_FILES  # below this a process pool costs more than it saves
UNKNOWN = "\0unknown"  # an option set in a 'global options' block we cannot attribute to the job

FLAG_NAMES = schema.column_names(FLAG_COLUMNS)
FIELDS = [c for c in schema.column_names() if c not in FLAG_NAMES]  # what _job_rows produces, in order
_DTYPES = schema.dtypes()
HIST_FIELDS = schema.column_names(schema.HISTOGRAM_COLUMNS)
Q_FIELDS = schema.column_names(schema.QUARANTINE_COLUMNS)


class BadJob(Exception):
    """A job entry (or file) that is not a data point; the message is one sentence."""


@dataclass
class IngestResult:
    results: pd.DataFrame
    quarantine: pd.DataFrame
    files: int = 0
    messages: list[str] = field(default_factory=list)
    histograms: pd.DataFrame | None = None
    rows: int | None = None  # when results were streamed to disk and not kept
    histogram_rows: int | None = None

    def summary(self) -> str:
        rows = len(self.results) if self.rows is None else self.rows
        return f"{self.files} files, {rows} rows, {len(self.quarantine)} quarantined"


# --- values ------------------------------------------------------------------------------------

def _num(v: Any, what: str) -> float:
    if (type(v) is int or type(v) is float) and math.isfinite(v):  # bool is not a number here
        return float(v)
    raise BadJob(f"{what} is {_show(v)}, not a finite number (wrong schema).")


def _count(v: Any, what: str) -> int:
    if type(v) is int and 0 <= v < 2**63:
        return v
    if type(v) is float and v.is_integer() and 0 <= v < 2**63:
        return int(v)
    raise BadJob(f"{what} is {_show(v)}, not a count (wrong schema).")


def _show(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _int_option(v: Any) -> int:
    s = str(v).strip().lower()
    if s in ("", "true", "yes", "on"):  # a flag option given without a value
        return 1
    if s in ("false", "no", "off"):
        return 0
    try:
        n = int(s)
    except ValueError:
        n = parse_size(s)
    if not 0 <= n < 2**63:
        raise ValueError(s)
    return n


def _size(part: str) -> int:
    return parse_size(part) if part else 4096


def _opt(options: dict, keys: tuple[str, ...], default: Any, conv, what: str) -> Any:
    """Option value converted, ``default`` when absent (fio default), None when unattributable."""
    for k in keys:
        if k in options:
            v = options[k]
            if v == UNKNOWN:
                return None
            try:
                return conv(v)
            except (ValueError, TypeError, LabError, OverflowError):
                raise BadJob(f"option {k}={_show(v)} cannot be read as {what}.") from None
    return default


def _direction_part(raw: Any, direction: str) -> str:
    """fio's per-direction value 'r,w,t': a missing trailing part repeats the last ('' = fio's default)."""
    parts = [p.strip() for p in str(raw).split(",")]
    i = DIRECTIONS.index(direction)
    return parts[i] if i < len(parts) else parts[-1]


def _bs(options: dict, direction: str) -> int | None:
    """Block size of one direction; an empty part is fio's default 4k."""
    return _opt(options, ("bs", "blocksize"), 4096, lambda raw: _size(_direction_part(raw, direction)),
                "a block size")


def _rate_iops(options: dict, direction: str) -> float | None:
    """rate_iops cap of one direction; an empty part or 0 is no cap (NaN), as is an absent option."""
    def conv(raw: Any) -> float:
        part = _direction_part(raw, direction)
        n = _int_option(part) if part else 0
        return float(n) if n > 0 else NAN
    return _opt(options, ("rate_iops",), NAN, conv, "an IOPS rate")


def _rwmixread(options: dict, rw: str | None) -> float | None:
    if rw is None:
        return None
    if rw not in MIXED:
        return NAN
    if "rwmixread" in options:
        return _opt(options, ("rwmixread",), 50.0, lambda v: _pct(v), "a percentage")
    w = _opt(options, ("rwmixwrite",), 50.0, lambda v: _pct(v), "a percentage")
    return None if w is None else 100.0 - w


def _pct(v: Any) -> float:
    x = float(str(v).strip())
    if not 0.0 <= x <= 100.0:
        raise ValueError(v)
    return x


def _options(obj: dict, job: dict, unattributable: bool) -> dict:
    g = obj.get("global options")
    if isinstance(g, list):  # some fio versions/tools emit a one-item list
        g = g[0] if len(g) == 1 else None
    if g is None:
        g = {}
    if not isinstance(g, dict):
        raise BadJob("the file's 'global options' is not an object (wrong schema).")
    j = job.get("job options")
    if j is None:
        j = {}
    if not isinstance(j, dict):
        raise BadJob("the job's 'job options' is not an object (wrong schema).")
    if unattributable:  # several clients: the one 'global options' block belongs to only one of them
        g = dict.fromkeys(g, UNKNOWN)
    for k, v in (*g.items(), *j.items()):
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            raise BadJob(f"option {k}={_show(v)} is not a string (wrong schema).")
    return {**g, **j}


def _latency(d: dict, name: str) -> tuple[dict | None, float]:
    """The latency stats block and its factor to microseconds (fio >= 3: *_ns; fio 2.x: µs)."""
    blk = d.get(f"{name}_ns")
    if isinstance(blk, dict):
        return blk, 1e-3
    blk = d.get(name)
    if isinstance(blk, dict):
        return blk, 1.0
    return None, NAN


def _stat(block: dict | None, factor: float, key: str, what: str) -> float:
    if block is None or key not in block:
        return NAN
    return _num(block[key], what) * factor


# --- disk_util -----------------------------------------------------------------------------------

DISK_FIELDS = ("read_ios", "write_ios", "read_merges", "write_merges")


def _disk_ios(obj: dict, client: bool) -> dict:
    """{(hostname, port) or None: (read_ios, write_ios, read_merges, write_merges)} from disk_util;
    {} when the file has no usable disk_util.

    Plain files: the sum over all entries.  Client/server files: per host:port, a disk repeated once
    per client connection counts once (its largest numbers), distinct disks are summed.
    """
    du = obj.get("disk_util")
    if not isinstance(du, list) or not du:
        return {}
    try:
        per: dict[Any, dict[Any, list[int]]] = {}
        for i, e in enumerate(du):
            vals = [_count(e.get(k, 0) if k.endswith("merges") else e[k], k) for k in DISK_FIELDS]
            host = (str(e.get("hostname")), str(e.get("port"))) if client else None
            disk = str(e.get("name")) if client else i
            cur = per.setdefault(host, {}).setdefault(disk, [0, 0, 0, 0])
            cur[:] = [max(a, b) for a, b in zip(cur, vals)]
        return {h: tuple(sum(v[k] for v in d.values()) for k in range(4)) for h, d in per.items()}
    except (BadJob, KeyError, TypeError, AttributeError):
        return {}  # ancillary numbers: unusable disk stats leave the columns <NA>, not the result


# --- one file ------------------------------------------------------------------------------------

class _Sink:
    """Column-oriented accumulators for one batch."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.bad: list[tuple] = []
        self.hist_meta: list[tuple] = []  # (run_id, source_file, point_id, job_name, job_index, direction)
        self.hist_bins: list[np.ndarray] = []
        self.hist_counts: list[np.ndarray] = []
        self.files = 0


def _bins(clat: dict) -> tuple[np.ndarray, np.ndarray] | None:
    bins = clat.get("bins")
    if bins is None:
        return None
    if not isinstance(bins, dict):
        raise BadJob("the clat 'bins' entry is not an object (wrong schema).")
    try:
        keys = np.fromiter(map(int, bins), dtype=np.int64, count=len(bins))  # int(): as numpy's str cast
        counts = np.fromiter(bins.values(), dtype=np.int64, count=len(bins))
    except (ValueError, TypeError, OverflowError):
        raise BadJob("the clat 'bins' keys or counts are not integers (wrong schema).") from None
    if len(keys) and (keys.min() < 0 or counts.min() < 0):
        raise BadJob("the clat 'bins' hold negative latencies or counts (wrong schema).")
    return keys, counts


def _job_rows(obj: dict, job: dict, index: int, ctx: dict, sink: _Sink) -> None:
    """Append the rows (and histograms) of one job entry; BadJob when it is not a data point."""
    name = job.get("jobname")
    name = None if name is None else str(name)
    err = job.get("error", 0)
    if err != 0:
        if type(err) is int:
            detail = f" ({os.strerror(err)})" if 0 < err < 200 else ""
            raise BadJob(f"fio reported error {err}{detail} for this job, so its numbers are not a measurement.")
        raise BadJob(f"the job's error field is {_show(err)}, not a number (wrong schema).")
    options = _options(obj, job, ctx["unattributable"])
    rw = _opt(options, ("rw", "readwrite"), "read", lambda v: str(v).split(":")[0].strip(), "an rw mode")
    iodepth = _opt(options, ("iodepth",), 1, _int_option, "a queue depth")
    numjobs = _opt(options, ("numjobs",), 1, _int_option, "a job count")
    rwmix = _rwmixread(options, rw)
    ioengine = _opt(options, ("ioengine",), "psync", str, "an engine name")
    direct = _opt(options, ("direct",), 0, _int_option, "0 or 1")
    grouped = bool(_opt(options, ("group_reporting",), 0, _int_option, "0 or 1")) or (
        (numjobs or 1) > 1 and ctx["name_count"].get(ctx["key"], 0) < numjobs)
    host = job.get("hostname", ctx["host"])
    host = None if host is None else str(host)
    disk = ctx["disk"].get((str(job.get("hostname")), str(job.get("port"))) if ctx["client"] else None,
                           (None,) * len(DISK_FIELDS))
    usr = _num(job["usr_cpu"], "usr_cpu") if "usr_cpu" in job else NAN
    sys_ = _num(job["sys_cpu"], "sys_cpu") if "sys_cpu" in job else NAN
    point = name
    rows = []
    hists = []
    for direction in DIRECTIONS:
        d = job.get(direction)
        if d is None:
            continue
        if not isinstance(d, dict):
            raise BadJob(f"the job's '{direction}' entry is not an object (wrong schema).")
        ios = _count(d.get("total_ios", 0), f"{direction}.total_ios")
        if ios == 0:
            continue
        runtime_ms = _num(d.get("runtime"), f"{direction}.runtime")
        legacy = "io_kbytes" not in d  # fio 2.x: io_bytes in KiB, no bw_bytes
        io_bytes = _count(d.get("io_bytes"), f"{direction}.io_bytes") * (1024 if legacy else 1)
        if runtime_ms <= 0 or io_bytes <= 0:
            raise BadJob(f"the job reports {ios} {direction} I/Os but {io_bytes} bytes in {runtime_ms:g} ms "
                         "(inconsistent, not a data point).")
        iops = _num(d.get("iops"), f"{direction}.iops")
        bw = _num(d["bw_bytes"], f"{direction}.bw_bytes") if "bw_bytes" in d else \
            _num(d.get("bw"), f"{direction}.bw") * 1024.0
        lat, lf = _latency(d, "lat")
        clat, cf = _latency(d, "clat")
        slat, sf = _latency(d, "slat")
        pct = (clat or {}).get("percentile") or {}
        if not isinstance(pct, dict):
            raise BadJob("the clat 'percentile' entry is not an object (wrong schema).")
        p = [_num(pct[k], f"percentile {k}") * cf if k in pct else NAN for k in schema.PERCENTILES]
        lpct = (lat or {}).get("percentile") or {}
        if not isinstance(lpct, dict):
            raise BadJob("the lat 'percentile' entry is not an object (wrong schema).")
        p += [_num(lpct[k], f"lat percentile {k}") * lf if k in lpct else NAN for k in schema.LAT_PERCENTILES]
        rows.append((
            ctx["run_id"], host, ctx["fio_version"], ctx["source_file"], point, ctx["groups"].get(point),
            name, index, rw, direction, _bs(options, direction), iodepth, numjobs, rwmix,
            _rate_iops(options, direction), ioengine, direct,
            grouped, runtime_ms / 1000.0, io_bytes, ios, iops, bw,
            _stat(lat, lf, "mean", "lat mean"), _stat(lat, lf, "stddev", "lat stddev"),
            _stat(lat, lf, "min", "lat min"), _stat(lat, lf, "max", "lat max"),
            _stat(clat, cf, "mean", "clat mean"), _stat(slat, sf, "mean", "slat mean"),
            *p, usr, sys_, ctx["timestamp"], *disk,
        ))
        if clat is not None and cf == 1e-3:
            b = _bins(clat)
            if b is not None and len(b[0]):
                hists.append(((ctx["run_id"], ctx["source_file"], point, name, index, direction), b))
    if not rows:
        raise BadJob("the job completed no I/O in any direction (not a data point).")
    sink.rows.extend(rows)
    for meta, (keys, counts) in hists:
        sink.hist_meta.append(meta)
        sink.hist_bins.append(keys)
        sink.hist_counts.append(counts)


def add_file(data: bytes, run_id: str, source_file: str, sink: _Sink, host: str | None = None,
             groups: dict[str, str] | None = None) -> None:
    """Parse one raw file's bytes into ``sink`` (rows, histograms, quarantine). Never raises."""
    sink.files += 1

    def bad(job: Any, reason: str) -> None:
        sink.bad.append((run_id, source_file, None if job is None else str(job), reason))

    try:
        objs = parse_fio_bytes(data)
        obj = objs[-1]  # status-interval output: the final object holds the final numbers
        jobs = final_jobs(objs)
    except FioParseError as exc:
        return bad(None, str(exc))
    except RecursionError:
        return bad(None, "the JSON is nested too deeply to be fio output (not a fio result).")
    client = "client_stats" in obj and "jobs" not in obj
    names = [j.get("jobname") for j in jobs if isinstance(j, dict)]
    ts = obj.get("timestamp")
    ctx = {
        "run_id": run_id, "source_file": source_file, "host": host, "groups": groups or {},
        "fio_version": None if obj.get("fio version") is None else str(obj.get("fio version")),
        "timestamp": ts if type(ts) is int and 0 <= ts < 2**63 else None,
        "client": client, "unattributable": client and ALL_CLIENTS in names,
        "disk": _disk_ios(obj, client),
    }
    counts: dict[tuple, int] = {}
    for j in jobs:
        if isinstance(j, dict):
            k = tuple(str(j.get(x)) for x in ("jobname", "groupid", "hostname", "port"))
            counts[k] = counts.get(k, 0) + 1
    ctx["name_count"] = counts
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            bad(None, f"job entry {i} is not an object (wrong schema).")
            continue
        if job.get("jobname") == ALL_CLIENTS:  # client/server aggregate of the entries above
            continue
        ctx["key"] = tuple(str(job.get(x)) for x in ("jobname", "groupid", "hostname", "port"))
        try:
            _job_rows(obj, job, i, ctx, sink)
        except BadJob as exc:
            bad(job.get("jobname"), str(exc))
        except Exception as exc:  # noqa: BLE001 - a malformed job must never stop the batch
            bad(job.get("jobname"), f"the job's fields have an unexpected form ({type(exc).__name__}).")
    if not jobs:
        bad(None, "the file's job list is empty (no fio result).")


def rows_from_bytes(data: bytes, run_id: str, source_file: str, host: str | None = None,
                    groups: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    """(result rows, quarantine rows) for one raw file's bytes, as dicts (convenience for tests)."""
    sink = _Sink()
    add_file(data, run_id, source_file, sink, host, groups)
    return [dict(zip(FIELDS, r)) for r in sink.rows], [dict(zip(Q_FIELDS, b)) for b in sink.bad]


# --- frames --------------------------------------------------------------------------------------

def _column(values: list | tuple, dtype: str) -> Any:
    if dtype == "float64":
        return np.array(values, dtype=float) if values else np.zeros(0)
    if dtype == "int64":
        if any(v is None for v in values):
            return pd.array(values, dtype="Int64")
        return np.array(values, dtype=np.int64) if values else np.zeros(0, np.int64)
    if dtype == "bool":
        return np.array(values, dtype=bool) if values else np.zeros(0, bool)
    if dtype == "string":
        return _strings(list(values))
    return pd.array(values, dtype=dtype)


def _results_frame(rows: list[tuple], flags: bool = True) -> pd.DataFrame:
    """The results frame of ``rows``; without ``flags`` only the fields (see :func:`_flagged`)."""
    cols = list(zip(*rows)) if rows else [()] * len(FIELDS)
    df = pd.DataFrame({name: _column(col, _DTYPES[name]) for name, col in zip(FIELDS, cols)})
    return _flagged(df) if flags else df


def _flagged(df: pd.DataFrame) -> pd.DataFrame:
    """The validity flag columns added, in schema order.  Applied to a whole run's rows at once: the
    repeat flag compares every row of the run with the same configuration, whatever the batches."""
    df = add_flags(df)
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


def _hist_frame(sink: _Sink) -> pd.DataFrame:
    n = np.array([len(b) for b in sink.hist_bins], dtype=np.int64)
    meta = list(zip(*sink.hist_meta)) if sink.hist_meta else [()] * 6
    take = np.repeat(np.arange(len(n)), n)
    out = {}
    for name, col in zip(HIST_FIELDS[:6], meta):
        if name == "job_index":
            out[name] = np.array(col, dtype=np.int64)[take]
        else:
            out[name] = _strings(list(col), take)
    out["bin_ns"] = np.concatenate(sink.hist_bins) if sink.hist_bins else np.zeros(0, np.int64)
    out["count"] = np.concatenate(sink.hist_counts) if sink.hist_counts else np.zeros(0, np.int64)
    return pd.DataFrame(out)


def _quarantine_frame(bad: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(bad, columns=Q_FIELDS).astype(schema.dtypes(schema.QUARANTINE_COLUMNS))


def to_frames(rows: list[dict], bad: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Result and quarantine frames from :func:`rows_from_bytes` dicts."""
    return (_results_frame([tuple(r.get(c) for c in FIELDS) for r in rows]),
            _quarantine_frame([tuple(b.get(c) for c in Q_FIELDS) for b in bad]))


@dataclass
class Batch:
    results: pd.DataFrame
    histograms: pd.DataFrame
    quarantine: pd.DataFrame
    files: int


def _batch(items: list[tuple[str, str]], run_id: str, host: str | None, groups: dict,
           flags: bool = True) -> Batch:
    """Parse a batch of (path, source_file) into frames; without ``flags`` the results frame has
    only the fields (the caller flags the whole run)."""
    return _frames(_parse(items, run_id, host, groups), flags)


def _parse(items: list[tuple[str, str]], run_id: str, host: str | None, groups: dict) -> _Sink:
    """Read and parse a batch of (path, source_file) into column-oriented rows (in a worker process:
    a sink pickles as plain tuples and numpy arrays, much faster than frames of Arrow strings)."""
    sink = _Sink()
    for path, rel in items:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            sink.files += 1
            sink.bad.append((run_id, rel, None, f"the file cannot be read ({exc.strerror or exc})."))
            continue
        add_file(data, run_id, rel, sink, host, groups)
    return sink


def _frames(sink: _Sink, flags: bool = True) -> Batch:
    return Batch(_results_frame(sink.rows, flags), _hist_frame(sink), _quarantine_frame(sink.bad), sink.files)


def iter_batches(items: list[tuple[str, str]], run_id: str, host: str | None = None,
                 groups: dict | None = None, batch_files: int = BATCH_FILES,
                 workers: int | None = None, flags: bool = True) -> Iterator[Batch]:
    """Batches in input order; a process pool (fork, at most 2 batches per worker in flight) for many
    files.  Each batch's results are flagged on their own unless ``flags`` is False."""
    groups = groups or {}
    workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    pool = workers > 1 and len(items) >= POOL_MIN_FILES
    if pool:  # smaller batches keep the workers evenly busy (the batch size still bounds memory)
        batch_files = max(1, min(batch_files, -(-len(items) // (4 * workers))))
    chunks = [items[i:i + batch_files] for i in range(0, len(items), batch_files)]
    if not pool or len(chunks) < 2:
        for c in chunks:
            yield _batch(c, run_id, host, groups, flags)
        return
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as ex:
        pending = []
        it = iter(chunks)
        for c in it:
            pending.append(ex.submit(_parse, c, run_id, host, groups))
            if len(pending) >= 2 * workers:
                break
        while pending:
            yield _frames(pending.pop(0).result(), flags)
            nxt = next(it, None)
            if nxt is not None:
                pending.append(ex.submit(_parse, nxt, run_id, host, groups))


# --- files, runs, entry points -------------------------------------------------------------------

def raw_files(path: Path) -> list[Path]:
    """``path`` itself when it is a file; else every ``*.json`` below it (recursive, manifest excluded)."""
    path = Path(path)
    if path.is_file():
        return [path]
    return [path / rel for rel, _ in _json_files(str(path))]


def _json_files(root: str) -> list[tuple[str, bool]]:
    """(path relative to ``root``, is a symlink) of the raw files below ``root``, in Path order: what
    ``Path(root).rglob("*.json")`` finds (symlinked folders not entered, unreadable ones skipped) less
    hidden files and the manifest, with one scandir per folder instead of a stat per file."""
    found: list[tuple[tuple[str, ...], bool]] = []
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except PermissionError:
            continue
        for e in entries:
            name = e.name
            if name.endswith(".json") and name != MANIFEST_NAME and not name.startswith("."):
                try:
                    if e.is_file():
                        found.append(((*parts, name), e.is_symlink()))
                except OSError:
                    pass
            try:
                if e.is_dir() and not e.is_symlink():
                    stack.append((e.path, (*parts, name)))
            except OSError:
                pass
    found.sort(key=lambda f: f[0])
    return [("/".join(p), link) for p, link in found]


def _items(paths: list[Path]) -> list[tuple[str, str]]:
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases])) if bases else Path(".")
    out = []
    rel_dirs: dict[str, str] = {}  # directory -> its resolved path relative to base
    for p in paths:
        if p.is_file():
            out.append((str(p), p.name if len(paths) == 1 else _rel(str(p), os.path.islink(p), base, rel_dirs)))
            continue
        sp = str(p)
        for rel, link in _json_files(sp):
            f = rel if sp == "." else os.path.join(sp, rel)  # str(p / rel)
            out.append((f, _rel(f, link, base, rel_dirs)))
    return out


def _rel(f: str, link: bool, base: Path, rel_dirs: dict[str, str]) -> str:
    """``os.path.relpath(Path(f).resolve(), base)``, resolving each folder once: a file that is not a
    symlink resolves to its resolved folder joined with its name."""
    if link:
        return os.path.relpath(os.path.realpath(f), base)
    d, name = os.path.split(f)
    rd = rel_dirs.get(d)
    if rd is None:
        rd = rel_dirs[d] = os.path.relpath(os.path.realpath(d or "."), base)
    return name if rd == "." else os.path.join(rd, name)


def ingest_paths(paths: list[Path] | Path, run_id: str, out: Path | None = None, keep: bool = True,
                 host: str | None = None, groups: dict | None = None, batch_files: int = BATCH_FILES,
                 workers: int | None = None) -> IngestResult:
    """Ingest files and folders (recursive) as one run.

    With ``out``, each dataset's ``run_id`` partition in ``out`` is replaced (histograms and quarantine
    streamed batch by batch, results written once after the run's validity flags).  With ``keep`` the
    frames are returned too; without it only counts and the quarantine list (memory then follows the
    batch size, plus the run's result rows -- not its parsed JSON or histograms).
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    items = _items(paths)
    res, hist, quar = [], [], []
    files = hrows = 0
    writers = {}
    empty = _empty()  # typed empty frames
    if out is not None:
        writers = {ds: store.RunWriter(out, ds, run_id) for ds in
                   (config.RESULTS_DATASET, config.HISTOGRAM_DATASET, config.QUARANTINE_DATASET)}
    try:
        # histograms (the bulk) and quarantine stream batch by batch; result rows (a few hundred bytes
        # per job and direction) are kept, so the validity flags are computed once over the whole run
        for b in iter_batches(items, run_id, host, groups, batch_files, workers, flags=False):
            files += b.files
            hrows += len(b.histograms)
            quar.append(b.quarantine)
            res.append(b.results)
            if keep:
                hist.append(b.histograms)
            if writers:
                writers[config.HISTOGRAM_DATASET].write(b.histograms)
                writers[config.QUARANTINE_DATASET].write(b.quarantine)
        results = _flagged(_concat(res)) if res else empty.results
        del res
        if writers:
            writers[config.RESULTS_DATASET].write(results)
            for ds, df in ((config.RESULTS_DATASET, empty.results), (config.HISTOGRAM_DATASET, empty.histograms),
                           (config.QUARANTINE_DATASET, empty.quarantine)):
                writers[ds]._empty = df
                writers[ds].close()
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    if out is not None:  # fio's per-window logs next to the JSON (helpers.ingest.timeseries, issue 12)
        ingest_timeseries(paths, run_id, out)
    rows = len(results)
    return IngestResult(
        results=results if keep else empty.results, quarantine=_concat(quar) if quar else empty.quarantine,
        files=files, histograms=_concat(hist) if hist else empty.histograms,
        rows=None if keep else rows, histogram_rows=hrows,
    )


@functools.lru_cache(maxsize=1)
def _empty_batch() -> Batch:
    return _batch([], "", None, {})


def _empty() -> Batch:
    """Typed empty frames (fresh copies: callers may change what they get)."""
    b = _empty_batch()
    return Batch(b.results.copy(), b.histograms.copy(), b.quarantine.copy(), 0)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def ingest_run(run_dir: Path, run_id: str | None = None) -> IngestResult:
    """Ingest every raw file of one run folder (DataFrames only; nothing is written)."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir) if run_dir.is_dir() else {}
    run_id = run_id or manifest.get("run_id") or (run_dir.name if run_dir.is_dir() else run_dir.stem)
    groups = {k: (v.get("parameters") or {}).get("group") for k, v in (manifest.get("points") or {}).items()}
    return ingest_paths([run_dir], run_id, host=manifest.get("host"), groups=groups)


def write_ingest(result: IngestResult, run_id: str, processed_dir: Path = config.PROCESSED_DIR) -> None:
    store.write_run(processed_dir, config.RESULTS_DATASET, run_id, result.results)
    if result.histograms is not None:
        store.write_run(processed_dir, config.HISTOGRAM_DATASET, run_id, result.histograms)
    store.write_run(processed_dir, config.QUARANTINE_DATASET, run_id, result.quarantine)


def ingest(run_id: str, raw_dir: Path = config.RAW_DIR, processed_dir: Path = config.PROCESSED_DIR) -> IngestResult:
    """Ingest ``raw_dir/<run_id>`` and replace that run's partitions in ``processed_dir``."""
    result = ingest_run(Path(raw_dir) / run_id, run_id=run_id)
    write_ingest(result, run_id, processed_dir)
    ingest_timeseries([Path(raw_dir) / run_id], run_id, processed_dir)  # fio logs (helpers.ingest.timeseries)
    return result


def ingest_from_parameters(run_id: str = "", raw_dir: str = "", processed_dir: str = "") -> IngestResult:
    """Notebook parameters ("" meaning "the default"; run "" = newest raw run) -> :func:`ingest`."""
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    return ingest(run_id or latest_raw_run(rdir), rdir, Path(processed_dir) if processed_dir else config.PROCESSED_DIR)


def run_id_of(path: Path) -> str:
    path = Path(path)
    if path.is_dir():
        return read_manifest(path).get("run_id") or path.resolve().name
    return path.stem


def quarantine_report(q: pd.DataFrame, limit: int = 50) -> list[str]:
    lines = [f"  quarantined {r.source_file} [{'' if pd.isna(r.job_name) else r.job_name}]: {r.reason}"
             for r in q.head(limit).itertuples()]
    if len(q) > limit:
        lines.append(f"  ... and {len(q) - limit} more (see the quarantine dataset)")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.ingest", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path, help="fio JSON files or folders (searched recursively)")
    ap.add_argument("--out", type=Path, default=config.PROCESSED_DIR, help="processed data folder")
    ap.add_argument("--run", default=None,
                    help="run id for all PATHs together (default: one run per PATH, named by its manifest "
                         "run_id, folder name or file stem)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: CPU count)")
    args = ap.parse_args(argv)
    for p in args.paths:
        if not p.exists():
            print(f"error: {p} does not exist.", file=sys.stderr)
            return 2
    groups = [(args.run, args.paths)] if args.run else [(run_id_of(p), [p]) for p in args.paths]
    files = rows = hrows = 0
    quarantined = []
    for run_id, paths in groups:
        manifest = read_manifest(paths[0]) if len(paths) == 1 and paths[0].is_dir() else {}
        pg = {k: (v.get("parameters") or {}).get("group") for k, v in (manifest.get("points") or {}).items()}
        res = ingest_paths(paths, run_id, out=args.out, keep=False, host=manifest.get("host"), groups=pg,
                           workers=args.workers)
        files, rows, hrows = files + res.files, rows + res.rows, hrows + (res.histogram_rows or 0)
        quarantined.append(res.quarantine)
    q = _concat(quarantined)
    runs = ", ".join(r for r, _ in groups)
    print(f"{files} files, {rows} rows, {len(q)} quarantined ({hrows} histogram bins; run {runs}) -> {args.out}")
    for line in quarantine_report(q):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
