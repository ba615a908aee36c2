"""Ingest: raw fio result files (JSON, json+, normal and terse text) -> one row per job entry and
direction with I/O.

Reads what users really have: plain ``json`` and ``json+`` (clat ``bins`` go to the histograms
dataset), several jobs and numjobs clones per file, mixed and trim workloads, options in
``global options``, options left at fio's defaults, client/server output, fio 2.x latency keys (µs),
notes before the JSON, normal output after it, ``--status-interval`` objects, and trees written by
other tools (bench-fio/fio-plot) -- always from the JSON contents, never from file names.

Files and jobs that are not data points (truncated, empty, not fio, wrong schema, ``error != 0``,
no I/O, or a job of fio's ``latency_target`` mode, whose queue depth fio chose so that no configuration
column describes it) are never rows: they go to the quarantine list with file, job and a one-sentence
reason, and the rest of the batch ingests.

Files are parsed in batches (in a forked process pool for large inputs, with batches sized by bytes
that shrink towards the end); each batch becomes column arrays once, in the worker.  The command line
streams histograms and quarantine to Parquet batch by batch and writes the results once, after
computing the validity flags over the whole run (the repeat flag compares all of a run's rows), so
memory follows the batch size plus the run's result rows (~0.5 KB per row).

Files are recognised by content, never by name: every file below the given folders is considered
(hidden files, the run manifest and Parquet files excepted; ``--glob`` restricts the search), read
through one dispatch (:func:`read_results`: fio JSON first, else fio's normal or terse text), and
every file that is not a fio result gets a quarantine line.

Command line::

    python -m helpers.ingest PATH [PATH ...] --out DIR [--run RUN_ID] [--glob PATTERN]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from helpers import config
from helpers.fio.json_output import FioParseError, parse_fio_bytes
from helpers.fio.reader import EntryError, read_runs
from helpers.fio.text_output import NOT_FIO_TEXT, parse_fio_text
from helpers.ingest.files import _items
from helpers.ingest.files import raw_files as raw_files
from helpers.ingest.frames import (
    FIELDS,
    HIST_STATISTICS,
    Q_FIELDS,
    Batch,
    _columns,
    _flagged,
    _frames,
    _Packed,
)
from helpers.ingest.frames import FLAG_NAMES as FLAG_NAMES
from helpers.ingest.frames import HIST_FIELDS as HIST_FIELDS
from helpers.ingest.frames import _hist_frame as _hist_frame
from helpers.ingest.frames import _quarantine_frame as _quarantine_frame
from helpers.ingest.frames import _results_frame as _results_frame
from helpers.ingest.frames import to_frames as to_frames
from helpers.ingest.health import health_frame, ingest_health, throttled_points
from helpers.ingest.summary import _plural, quarantine_report, summary_line
from helpers.ingest.timeseries import ingest_timeseries
from helpers.processed import store
from helpers.run.manifest import read_manifest

BATCH_FILES = 256  # files per batch: bounds memory (one batch of parsed JSON per worker)
POOL_MIN_FILES = 2 * BATCH_FILES  # below this a process pool costs more than it saves
SNIFF_BYTES = 8192  # a NUL byte in the first 8 KiB: a binary file, not fio output
BIG_FILE = 16 << 20  # files larger than this are sniffed before they are read whole
BINARY_SUFFIXES = (".parquet", ".gz", ".xz", ".zst", ".bz2", ".zip", ".tar", ".png", ".jpg", ".jpeg", ".gif",
                   ".pdf", ".so", ".o", ".pyc", ".whl", ".bin", ".img", ".iso")  # not read at all


class PointFacts(NamedTuple):
    """What a lab run's manifest records about one point (:func:`manifest_facts`), carried by its rows."""

    group: str | None = None  # the profile's sweep group
    settled_after_s: float | None = None  # a settle-early probe ended once its IOPS settled, this many s in
    process_cpu_pct: float | None = None  # the whole fio process's CPU while it ran (helpers.run.cpu)


NO_FACTS = PointFacts()  # a point the manifest does not list (foreign files)

BadJob = EntryError  # a job entry (or file) that is not a data point; the message is one sentence


@dataclass
class IngestResult:
    results: pd.DataFrame
    quarantine: pd.DataFrame
    files: int = 0
    messages: list[str] = field(default_factory=list)
    histograms: pd.DataFrame | None = None
    rows: int | None = None  # when results were streamed to disk and not kept
    histogram_rows: int | None = None
    recognised: int = 0  # files that hold a fio result
    health: pd.DataFrame | None = None  # SMART/health captures (helpers.ingest.health)
    runs: int = 0  # fio results read: one per fio process (runs appended to one file count apart)
    multi_run: dict[str, int] = field(default_factory=dict)  # {source_file: its runs} of files holding several
    log_files: int = 0  # fio log files read into the timeseries dataset
    windows: int = 0  # their timeseries rows

    def summary(self) -> str:
        """What the ingest read, in one line (:func:`summary_line`)."""
        rows = len(self.results) if self.rows is None else self.rows
        return summary_line(self.files, self.runs, rows, self.multi_run, self.log_files, self.windows,
                            len(self.quarantine))


# --- one file ------------------------------------------------------------------------------------

class _Sink:
    """Column-oriented accumulators for one batch."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.bad: list[tuple] = []
        self.hist_meta: list[tuple] = []  # (run_id, source_file, run_index, point_id, job_name, job_index, direction,
        # latency)
        self.hist_bins: list[np.ndarray] = []
        self.hist_counts: list[np.ndarray] = []
        self.files = 0
        self.recognised = 0  # files holding a fio result (even if every job in them is quarantined)
        self.runs = 0  # fio runs (processes) in those files
        self.multi_run: dict[str, int] = {}  # {source_file: runs} of files holding several

    def pack(self) -> _Packed:
        """The batch as a worker sends it back: result columns (numbers as arrays) instead of rows, and
        the histograms' bins and counts as one array each (pickled many times faster)."""
        return _Packed(_columns(self.rows), self.hist_meta, np.array([len(b) for b in self.hist_bins], np.int64),
                       np.concatenate(self.hist_bins) if self.hist_bins else np.zeros(0, np.int64),
                       np.concatenate(self.hist_counts) if self.hist_counts else np.zeros(0, np.int64),
                       self.bad, self.files, self.recognised, self.runs, self.multi_run)


def read_results(data: bytes) -> list[dict]:
    """The fio result objects in a file's bytes: fio JSON first, else fio's normal or terse text.
    FioParseError (one sentence) when the bytes are neither."""
    try:
        return parse_fio_bytes(data)
    except FioParseError as exc:
        json_error = exc
    try:
        return parse_fio_text(data)
    except FioParseError as exc:
        if data.lstrip()[:1] == b"{" or b"\n{" in data:  # it meant to be JSON: say what is wrong with it
            raise json_error from None
        if not data or data.isspace():
            raise FioParseError("the file is empty.") from None
        if str(exc) == NOT_FIO_TEXT:  # the cause, said once
            raise
        raise FioParseError("the file holds no JSON object and is not fio text output "
                            f"({str(exc).rstrip('.')}).") from None


def _entry_rows(entry, res, ctx: dict, sink: _Sink) -> None:
    """Append the rows (and histograms) of one read job entry."""
    c = entry.config
    name = entry.name
    host = entry.hostname if entry.hostname is not None else ctx["host"]
    point = name
    facts = ctx["facts"].get(point, NO_FACTS)
    group = facts.group
    head = (ctx["run_id"], host, res.fio_version, ctx["source_file"], res.run_index, point, group, name, entry.index,
            c.rw)
    note, text_note = c.note, entry.text_note
    tail = (entry.usr_cpu_pct, entry.sys_cpu_pct, facts.process_cpu_pct, res.timestamp, *entry.disk, entry.source_format,
            entry.rounded_columns, "; ".join(n for n in (note, text_note) if n) or None if note or text_note else None)
    rows = []
    for x in entry.directions:
        d = x.direction
        rows.append((*head, d, c.bs_bytes(d), c.iodepth, c.numjobs, c.rwmixread_pct, c.rate_iops(d), c.ioengine,
                     c.direct, c.group_reporting, c.target_file, c.target_size_bytes, x.runtime_s, facts.settled_after_s, x.io_bytes, x.total_ios, x.iops, x.bw_bytes_per_s,
                     x.lat_mean_us, x.lat_stddev_us, x.lat_min_us, x.lat_max_us, x.clat_mean_us, x.slat_mean_us,
                     *x.clat_pct_us, *x.lat_pct_us, *tail))
    sink.rows.extend(rows)
    for x in entry.directions:
        if x.bins is not None:
            sink.hist_meta.append((ctx["run_id"], ctx["source_file"], res.run_index, point, name, entry.index,
                                   x.direction, x.bins_latency))
            sink.hist_bins.append(x.bins[0])
            sink.hist_counts.append(x.bins[1])


def latency_target_reason(entry) -> str:
    """Why a job run in fio's latency_target mode is not a results row: fio chose its queue depth."""
    t = entry.latency_target
    return (f"fio's latency_target mode chose this job's queue depth itself (it ended on QD {t.depth}; the "
            f"configured iodepth {entry.config.iodepth if entry.config else '?'} was only the upper limit), so no "
            f"configuration column describes its numbers; the SLO search's cross-check reads it from the raw file "
            f"(helpers.analysis.slo_cross_check).")


def add_file(data: bytes, run_id: str, source_file: str, sink: _Sink, host: str | None = None,
             facts: dict[str, PointFacts] | None = None) -> None:
    """Parse one raw file's bytes into ``sink`` (rows, histograms, quarantine). Never raises."""
    sink.files += 1

    def bad(job: Any, reason: str, run: int | None = None) -> None:
        sink.bad.append((run_id, source_file, run, None if job is None else str(job), reason))

    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with BOM: Windows PowerShell's '>' redirection
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return bad(None, "the file starts like UTF-16 text but does not decode as UTF-16 (not fio output).")
    if b"\0" in data[:SNIFF_BYTES]:
        return bad(None, "the file is binary (a NUL byte near its start), not fio output.")
    try:
        runs = read_runs(read_results(data), data)
    except FioParseError as exc:
        return bad(None, str(exc))
    except RecursionError:
        return bad(None, "the JSON is nested too deeply to be fio output (not a fio result).")
    except Exception as exc:  # noqa: BLE001 - a malformed file must never stop the batch
        return bad(None, f"the file's fields have an unexpected form ({type(exc).__name__}).")
    sink.recognised += 1
    sink.runs += len(runs)
    if len(runs) > 1:
        sink.multi_run[source_file] = len(runs)
    ctx = {"run_id": run_id, "source_file": source_file, "host": host, "facts": facts or {}}
    for res in runs:
        i = res.run_index
        for e in res.entries:
            if e.aggregate:  # client/server aggregate of the entries above
                continue
            if e.error is not None:
                bad(e.name, e.error, i)
                continue
            if e.latency_target is not None:
                bad(e.name, latency_target_reason(e), i)
                continue
            try:
                _entry_rows(e, res, ctx, sink)
            except EntryError as exc:
                bad(e.name, str(exc), i)
        if not res.entries:
            bad(None, "the file's job list is empty (no fio result).", i)


def rows_from_bytes(data: bytes, run_id: str, source_file: str, host: str | None = None,
                    facts: dict[str, PointFacts] | None = None) -> tuple[list[dict], list[dict]]:
    """(result rows, quarantine rows) for one raw file's bytes, as dicts (convenience for tests)."""
    sink = _Sink()
    add_file(data, run_id, source_file, sink, host, facts)
    return [dict(zip(FIELDS, r)) for r in sink.rows], [dict(zip(Q_FIELDS, b)) for b in sink.bad]


def _batch(items: list[tuple[str, str]], run_id: str, host: str | None, facts: dict,
           flags: bool = True) -> Batch:
    """Parse a batch of (path, source_file) into frames; without ``flags`` the results frame has
    only the fields (the caller flags the whole run)."""
    return _frames(_parse(items, run_id, host, facts), flags)


def _parse(items: list[tuple[str, str]], run_id: str, host: str | None, facts: dict) -> _Packed:
    """Read and parse a batch of (path, source_file) into columns (in a worker process: a packed sink
    pickles as numpy arrays and tuples, much faster than frames of Arrow strings)."""
    with _gc_paused():
        return _parse_files(items, run_id, host, facts).pack()


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: parsing allocates millions of short-lived objects
    without cycles (the decoded JSON, the entries and rows), and each collection would walk them all."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def _system_memory() -> Iterator[None]:
    """Arrow allocates from the C library's malloc, which reuses the memory of one batch for the next:
    pyarrow's default allocator (mimalloc) backs large buffers with transparent huge pages and returns
    them to the system between batches, so every batch's frames were zeroed afresh, 2 MiB at a time."""
    previous, system = pa.default_memory_pool(), pa.system_memory_pool()
    if previous.backend_name == system.backend_name:
        yield
        return
    pa.set_memory_pool(system)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def _parse_files(items: list[tuple[str, str]], run_id: str, host: str | None, facts: dict) -> _Sink:
    sink = _Sink()
    for path, rel in items:
        try:
            with open(path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size <= BIG_FILE:
                    data = fh.read()
                else:  # a big binary file (a fio target, an image) is not read further than its start
                    data = fh.read(SNIFF_BYTES)
                    if b"\0" not in data or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
                        data += fh.read()
        except OSError as exc:
            sink.files += 1
            sink.bad.append((run_id, rel, None, None, f"the file cannot be read ({exc.strerror or exc})."))
            continue
        add_file(data, run_id, rel, sink, host, facts)
    return sink


def iter_batches(items: list[tuple[str, str]], run_id: str, host: str | None = None,
                 facts: dict[str, PointFacts] | None = None, batch_files: int = BATCH_FILES,
                 workers: int | None = None, flags: bool = True, arrow: bool = False) -> Iterator[Batch]:
    """Batches in input order; a process pool (fork, at most 2 batches per worker in flight) for many
    files.  Each batch's results are flagged on their own unless ``flags`` is False; with ``arrow`` the
    histograms come as the Arrow table to write (:func:`_hist_table`), not a frame."""
    facts = facts or {}
    workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    pool = workers > 1 and len(items) >= POOL_MIN_FILES
    if pool:
        chunks = _pool_chunks(items, batch_files, workers)
    else:
        chunks = [items[i:i + batch_files] for i in range(0, len(items), batch_files)]
    if not pool or len(chunks) < 2:
        for c in chunks:
            yield _frames(_parse(c, run_id, host, facts), flags, arrow)
        return
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as ex:
        pending = []
        it = iter(chunks)
        for c in it:
            pending.append(ex.submit(_parse, c, run_id, host, facts))
            if len(pending) >= 2 * workers:
                break
        while pending:
            yield _frames(pending.pop(0).result(), flags, arrow)
            nxt = next(it, None)
            if nxt is not None:
                pending.append(ex.submit(_parse, nxt, run_id, host, facts))


def _pool_chunks(items: list[tuple[str, str]], batch_files: int, workers: int) -> list[list[tuple[str, str]]]:
    """Consecutive chunks of ``items`` for ``workers`` processes, sized by bytes (a file's work follows its
    size): each at most ``batch_files`` files (that bounds memory) and about a 1/(2 x workers) share of the
    bytes still to parse, but not under 1/(16 x workers) of all bytes.  Chunks shrink towards the end, so
    the workers finish together and the last batch, framed and written by the parent alone once the
    workers are done, is small."""
    sizes = []
    for path, _ in items:
        try:
            sizes.append(min(os.stat(path).st_size, BIG_FILE) + 1)  # (a big binary file is barely read)
        except OSError:
            sizes.append(1)
    left = total = sum(sizes)
    chunks, start = [], 0
    while start < len(items):
        target = max(left / (2 * workers), total / (16 * workers))
        end, got = start + 1, sizes[start]
        while end < len(items) and end - start < batch_files and got + sizes[end] <= target:
            got += sizes[end]
            end += 1
        chunks.append(items[start:end])
        left -= got
        start = end
    return chunks


# --- files, runs, entry points -------------------------------------------------------------------

def ingest_paths(paths: list[Path] | Path, run_id: str, out: Path | None = None, keep: bool = True,
                 host: str | None = None, facts: dict[str, PointFacts] | None = None, batch_files: int = BATCH_FILES,
                 workers: int | None = None, glob: str | None = None) -> IngestResult:
    """Ingest files and folders (recursive) as one run.

    Every file below a folder is considered, whatever its name (fio results are recognised by content;
    ``glob`` restricts the search to names or relative paths matching it); each file that is not a
    fio result gets a quarantine line with the reason.

    With ``out``, each dataset's ``run_id`` partition in ``out`` is replaced (histograms and quarantine
    streamed batch by batch, results written once after the run's validity flags).  With ``keep`` the
    frames are returned too; without it only counts and the quarantine list (memory then follows the
    batch size, plus the run's result rows -- not its parsed JSON or histograms).
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    items = _items(paths, glob)
    health = empty = None  # the device's health captures (the throttling flag reads them), typed empty frames
    res, hist, quar = [], [], []
    files = hrows = recognised = runs = 0
    multi_run: dict[str, int] = {}
    writers = {}
    if out is not None:
        writers = {ds: store.RunWriter(out, ds, run_id) for ds in (config.RESULTS_DATASET, config.QUARANTINE_DATASET)}
        writers[config.HISTOGRAM_DATASET] = store.RunWriter(out, config.HISTOGRAM_DATASET, run_id,
                                                            statistics=HIST_STATISTICS)
    try:
        # histograms (the bulk) and quarantine stream batch by batch; result rows (a few hundred bytes
        # per job and direction) are kept, so the validity flags are computed once over the whole run
        with _gc_paused(), _system_memory():  # (the worker processes forked here inherit both)
            # (not kept: histograms go to the writer as Arrow tables, their strings never materialised per bin)
            for b in iter_batches(items, run_id, host, facts, batch_files, workers, flags=False,
                                  arrow=out is not None and not keep):
                if empty is None:  # (read here, while the worker processes parse the next batches)
                    health, empty = health_frame(paths, run_id), _empty()
                files += b.files
                recognised += b.recognised
                runs += b.runs
                multi_run.update(b.multi_run)
                hrows += len(b.histograms)
                quar.append(b.quarantine)
                res.append(b.results)
                if keep:
                    hist.append(b.histograms)
                if writers:
                    writers[config.HISTOGRAM_DATASET].write(b.histograms)
                    writers[config.QUARANTINE_DATASET].write(b.quarantine)
            if empty is None:
                health, empty = health_frame(paths, run_id), _empty()
            results = _flagged(_concat(res), throttled_points(health)) if res else empty.results
            del res
            if writers:
                writers[config.RESULTS_DATASET].write(results)
                for ds, df in ((config.RESULTS_DATASET, empty.results), (config.HISTOGRAM_DATASET, empty.histograms),
                               (config.QUARANTINE_DATASET, empty.quarantine)):
                    writers[ds].close(empty=df)
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    log_files = windows = 0
    if out is not None:  # fio's per-window logs and the health captures next to the JSON (issue 12)
        log_files, windows = ingest_timeseries(paths, run_id, out)
        ingest_health(health, run_id, out)
    rows = len(results)
    return IngestResult(
        results=results if keep else empty.results, quarantine=_concat(quar) if quar else empty.quarantine,
        files=files, histograms=_concat(hist) if hist else empty.histograms,
        rows=None if keep else rows, histogram_rows=hrows, recognised=recognised, health=health, runs=runs,
        multi_run=multi_run, log_files=log_files, windows=windows,
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
    return ingest_paths([run_dir], run_id, host=manifest.get("host"), facts=manifest_facts(manifest))


def manifest_facts(manifest: dict) -> dict[str, PointFacts]:
    """{point id: what the run manifest records about it that its result rows carry} ({} for foreign folders
    without a manifest): the one place ingest reads a manifest's point entries."""
    out = {}
    for k, v in (manifest.get("points") or {}).items():
        settled, cpu = v.get("settled_after_s"), v.get("process_cpu_pct")
        out[k] = PointFacts((v.get("parameters") or {}).get("group"),
                            float(settled) if isinstance(settled, (int, float)) and settled >= 0 else None,
                            float(cpu) if isinstance(cpu, (int, float)) and cpu >= 0 else None)
    return out


def write_ingest(result: IngestResult, run_id: str, processed_dir: Path = config.PROCESSED_DIR) -> None:
    store.write_run(processed_dir, config.RESULTS_DATASET, run_id, result.results)
    if result.histograms is not None:
        store.write_run(processed_dir, config.HISTOGRAM_DATASET, run_id, result.histograms)
    store.write_run(processed_dir, config.QUARANTINE_DATASET, run_id, result.quarantine)
    if result.health is not None:
        ingest_health(result.health, run_id, processed_dir)


def ingest(run_id: str, raw_dir: Path = config.RAW_DIR, processed_dir: Path = config.PROCESSED_DIR) -> IngestResult:
    """Ingest ``raw_dir/<run_id>`` and replace that run's partitions in ``processed_dir``."""
    result = ingest_run(Path(raw_dir) / run_id, run_id=run_id)
    write_ingest(result, run_id, processed_dir)
    # fio logs (helpers.ingest.timeseries)
    result.log_files, result.windows = ingest_timeseries([Path(raw_dir) / run_id], run_id, processed_dir)
    return result


def run_id_of(path: Path) -> str:
    path = Path(path)
    if path.is_dir():
        return read_manifest(path).get("run_id") or path.resolve().name
    return path.stem


def description() -> str:
    """The command line's description: the module docstring's first paragraph, whole."""
    return " ".join(__doc__.split("\n\n")[0].split()) + (
        " Runs appended to one file (fio ... >> results.log) stay separate results; files and jobs that are "
        "not data points are quarantined with the reason. Prints what it read: files, results, rows, fio logs "
        "and windows, quarantined.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.ingest", description=description())
    ap.add_argument("paths", nargs="+", type=Path,
                    help="fio result files or folders (searched recursively; every file, recognised by content)")
    ap.add_argument("--glob", default=None, metavar="PATTERN",
                    help="consider only files whose name or relative path matches PATTERN (e.g. '*.out')")
    ap.add_argument("--out", type=Path, default=config.PROCESSED_DIR, help=f"processed data folder (default: {config.PROCESSED_DIR})")
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
    files = rows = hrows = recognised = runs = log_files = windows = 0
    multi_run: dict[str, int] = {}
    quarantined = []
    for run_id, paths in groups:
        manifest = read_manifest(paths[0]) if len(paths) == 1 and paths[0].is_dir() else {}
        res = ingest_paths(paths, run_id, out=args.out, keep=False, host=manifest.get("host"),
                           facts=manifest_facts(manifest), workers=args.workers, glob=args.glob)
        files, rows, hrows = files + res.files, rows + res.rows, hrows + (res.histogram_rows or 0)
        recognised += res.recognised
        runs, log_files, windows = runs + res.runs, log_files + res.log_files, windows + res.windows
        multi_run.update(res.multi_run)
        quarantined.append(res.quarantine)
    q = _concat(quarantined)
    run_ids = ", ".join(r for r, _ in groups)
    print(f"{summary_line(files, runs, rows, multi_run, log_files, windows, len(q))} "
          f"({_plural(hrows, 'histogram bin')}; run {run_ids}) -> {args.out}")
    for line in quarantine_report(q, multi_run=multi_run):
        print(line)
    if not recognised:
        where = ", ".join(str(p) for p in args.paths)
        looked = f"{files} file{'s' if files != 1 else ''}" + (f" matching {args.glob!r}" if args.glob else "")
        print(f"error: nothing in {where} was recognised as fio output ({looked} considered, none holds a fio "
              "result; see the quarantine lines above).", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
