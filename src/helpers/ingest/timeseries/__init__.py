"""fio's logs -> the ``timeseries`` dataset: one row per log entry fio wrote (point, job, direction, entry).

Log files (``PREFIX_{bw,iops,lat,clat,slat}.N.log``, ``PREFIX_clat_hist.N.log``, optionally ``.gz``; see
:mod:`helpers.fio.logs`) are matched to the fio JSON they belong to, in this order:

1. the JSON in the same folder named ``PREFIX.json`` (lab sweeps: ``<point_id>.json`` and
   ``<point_id>_iops.1.log`` side by side);
2. the JSON in the same folder whose ``write_*_log`` option ends in ``PREFIX`` (foreign trees such as
   bench-fio/fio-plot folders, whose logs and JSON are named differently);
3. the only JSON in that folder.

Rows.  Every entry of an averaged log (``log_avg_msec`` > 0) is a row with fio's own time stamp
(``t_ms``); logs fio writes together (bw and iops at one helper-thread tick; lat, clat and slat at one
completion) share a row when their entries pair up one to one with the same time stamps, and the ``log``
column names them.  Nothing is snapped to a grid, averaged or dropped: a late entry, two entries in one interval and
the job's final partial entry each keep their own row.

Windows.  An entry's window is the time since fio's previous call for its job: fio >= 3.18 (``stat.c``
``__add_samples``: ``*parent_tv = *t``) computes each bw/iops rate over that time, and a call at which no
I/O of a direction completed writes no entry for it but still moves on.  Usually that is the previous entry
of the same log, job and direction (the first starts at 0, the end of the ramp: fio starts its samples
there, ``bw_sample_time = epoch``); the exceptions (the job's other direction logged in between, a stall
fio called through, a helper thread that did not call) are :func:`tick_starts`'s; where no log tells the
two apart, the JSON's io_bytes/total_ios do (:func:`_reconcile`).  fio before 3.18 moved
its sample time on by exactly the interval at each call instead; the same rule reads those logs
approximately (exactly where fio called on time).

The final partial window.  fio never writes the bw/iops entry of the time after its last tick (it ends
the job without a last ``__add_samples``), so the JSON's ``io_bytes``/``total_ios`` minus what the logs
hold is added as one more row per job and direction, ``[last entry, the JSON's runtime]``, with
``from_json`` = True (numjobs clones grouped by group_reporting share their entry's remainder in
proportion to each one's last rate x its remaining time).  A point that ended before fio's first tick
(fio 3.33 logged nothing for the first ~140 ms of a job, whatever log_avg_msec) has no bw/iops entry at all:
its one row per job and direction is ``[0, the JSON's runtime]``, from_json, the JSON's totals shared
equally by the entry's clones.  Not for logs with Unix-epoch time stamps
(``log_unix_epoch=1``: several jobs may write one stream).  Then, for every point,
sum(bytes_per_s x window width) = the JSON's io_bytes.

Logs written per I/O (no ``log_avg_msec``) are aggregated into 1 s windows from 0 (IOPS = I/Os / width,
bytes/s = sum of block sizes / width, latency = mean), the last one ending at the JSON's runtime; their
``t_ms`` is the window's end.  Histogram windows give the per-window percentiles (fio's rule,
:func:`helpers.fio.histogram.percentile_rows`) with the I/O count behind them, flagged by the few-I/O rule of
:mod:`helpers.processed.validity`.

Called by ingest after the results are written (``ingest_timeseries``); on its own::

    python -m helpers.ingest.timeseries PATH --out DIR --run RUN_ID
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.fio import logs as fio_logs
from helpers.ingest.timeseries.logfiles import find_log_groups
from helpers.ingest.timeseries.point import EPOCH_MS_MIN as EPOCH_MS_MIN
from helpers.ingest.timeseries.point import _averaged_items, _point_logs, _point_segments
from helpers.ingest.timeseries.reconcile import GUESS_SHARE as GUESS_SHARE
from helpers.ingest.timeseries.table import COLUMNS as COLUMNS
from helpers.ingest.timeseries.table import _assemble, _finish, _table, empty_frame
from helpers.ingest.timeseries.windows import CALL_MS as CALL_MS
from helpers.ingest.timeseries.windows import FAMILIES as FAMILIES
from helpers.ingest.timeseries.windows import HIST_PERCENTILES as HIST_PERCENTILES
from helpers.ingest.timeseries.windows import HIST_TAIL as HIST_TAIL
from helpers.ingest.timeseries.windows import PAIR_MS as PAIR_MS
from helpers.ingest.timeseries.windows import PER_IO_WINDOW_MS as PER_IO_WINDOW_MS
from helpers.ingest.timeseries.windows import VALUE_COLUMNS as VALUE_COLUMNS
from helpers.ingest.timeseries.windows import _averaged_batch
from helpers.ingest.timeseries.windows import tick_starts as tick_starts
from helpers.processed import store

# row-group min/max written for the columns a reader filters on (all 23: 40 % of the Parquet write's time)
STATISTICS = ["point_id", "source_file", "direction", "log", "log_job", "t_ms", "window_end_s"]
BULK_FILES = 4000  # value logs parsed per pass (bounds the text held at once; one parse per pass)


def timeseries_batches(paths: list[Path] | Path, run_id: str, tables: bool = False, counts: dict | None = None):
    """Every matched log group below ``paths`` -> timeseries frames, one per pass of about BULK_FILES value logs,
    in source_file order (memory follows the pass, not the archive); ``tables``: as the Arrow tables written
    (:func:`_table`), without building frames.  ``counts["log_files"]``: the fio log files matched to a JSON."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    parsed_json: dict = {}
    groups = find_log_groups(paths, parsed_json)
    if counts is not None:
        counts["log_files"] = sum(len(files) for _, _, files in groups)
    i = 0
    while i < len(groups):  # groups in passes of about BULK_FILES value logs, each pass parsed at once
        batch, nfiles = [], 0
        while i < len(groups) and (not batch or nfiles + len(groups[i][2]) <= BULK_FILES):
            batch.append(groups[i])
            nfiles += len(groups[i][2])
            i += 1
        values = [f for _, _, files in batch for f in files
                  if (n := fio_logs.parse_log_name(os.path.basename(f))) is not None and n.kind in fio_logs.VALUE_KINDS]
        parsed = dict(zip(values, fio_logs.read_value_logs(values)))
        preps = []
        for j, rel, files in batch:
            prep = _point_logs(j, files, parsed, parsed_json)
            parsed_json.pop(j, None)
            if prep is not None:
                preps.append((rel, prep, _averaged_items(prep)))
        averaged = _averaged_batch([it for _, _, items in preps for it in items])  # the batch's at once
        segments, k = [], 0
        for rel, prep, items in preps:
            for g in _point_segments(prep, averaged[k:k + len(items)]) or []:
                g["source_file"] = rel
                segments.append(g)
            k += len(items)
        if segments:
            yield _table(_assemble(segments)) if tables else _finish(_assemble(segments), run_id)


def timeseries_frame(paths: list[Path] | Path, run_id: str) -> pd.DataFrame:
    """Every matched log group below ``paths`` -> one timeseries frame (empty when there are no logs)."""
    counts: dict = {}
    frames = list(timeseries_batches(paths, run_id, counts=counts))
    df = empty_frame() if not frames else frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    df.attrs["log_files"] = counts.get("log_files", 0)  # the fio log files read (the ingest's summary line)
    return df


def ingest_timeseries(paths: list[Path] | Path, run_id: str,
                      processed_dir: Path = config.PROCESSED_DIR) -> tuple[int, int]:
    """Replace the run's ``timeseries`` partition (written even when empty: 'no logs' is an answer), streamed
    a pass at a time; (fio log files read, rows written)."""
    counts: dict = {}
    w = store.RunWriter(Path(processed_dir), config.TIMESERIES_DATASET, run_id, statistics=STATISTICS)
    try:
        for table in timeseries_batches(paths, run_id, tables=True, counts=counts):
            w.write(table)
    except BaseException:
        w.abort()
        raise
    w.close(empty=empty_frame())
    return counts.get("log_files", 0), w.rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.ingest.timeseries", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=config.PROCESSED_DIR)
    ap.add_argument("--run", required=True)
    args = ap.parse_args(argv)
    logs, rows = ingest_timeseries(args.paths, args.run, args.out)
    print(f"{logs} fio logs, {rows} timeseries windows (run {args.run}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

