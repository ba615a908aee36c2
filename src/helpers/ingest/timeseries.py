"""fio's per-window logs -> the ``timeseries`` dataset (one row per point, job, direction and window).

Log files (``PREFIX_{bw,iops,lat,clat,slat}.N.log``, ``PREFIX_clat_hist.N.log``, optionally ``.gz``; see
:mod:`helpers.fio.logs`) are matched to the fio JSON they belong to, in this order:

1. the JSON in the same folder named ``PREFIX.json`` (lab sweeps: ``<point_id>.json`` and
   ``<point_id>_iops.1.log`` side by side);
2. the JSON in the same folder whose ``write_*_log`` option ends in ``PREFIX`` (foreign trees such as
   bench-fio/fio-plot folders, whose logs and JSON are named differently);
3. the only JSON in that folder.

Windows: averaged logs (``log_avg_msec`` > 0) give one line per direction and window, keyed by fio's
time stamp rounded to the interval; logs written per I/O (no ``log_avg_msec``) are aggregated into
1 s windows (IOPS = I/Os / s, bytes = sum of block sizes, latency = mean).  Histogram windows give
the per-window percentiles (fio's rule, :func:`helpers.fio.histogram.percentile_rows`) with the I/O
count behind them, flagged by the few-I/O rule of :mod:`helpers.processed.validity`.  Nothing is
downsampled: every window fio wrote is a row.

Called by ingest after the results are written (``ingest_timeseries``); on its own::

    python -m helpers.ingest.timeseries PATH --out DIR --run RUN_ID
"""

from __future__ import annotations

import argparse
import os
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from helpers import config
from helpers.fio import logs as fio_logs
from helpers.fio.histogram import percentile_rows
from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes, split_runs
from helpers.processed import schema, store
from helpers.processed.validity import PERCENTILE_LEVELS, TAIL_SAMPLES
from helpers.run.manifest import MANIFEST_NAME

COLUMNS = schema.column_names(schema.TIMESERIES_COLUMNS)
EPOCH_MS_MIN = 10**11  # time stamps above this (1973 in Unix ms, 3 years in point time) are log_unix_epoch
PER_IO_WINDOW_MS = 1000  # logs written per I/O (no log_avg_msec) are aggregated into 1 s windows
HIST_PERCENTILES = {50.0: "clat_p50_us", 99.0: "clat_p99_us", 99.9: "clat_p99_9_us"}
VALUE_COLUMNS = {"iops": "iops", "bw": "bytes_per_s", "lat": "lat_mean_us", "clat": "clat_mean_us",
                 "slat": "slat_mean_us"}
_LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log")
_TIME_RE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(us|ms|s|m|h|d)?\s*$", re.IGNORECASE)
_TIME_UNIT_S = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.TIMESERIES_COLUMNS})


def _seconds(v) -> float:
    """fio time option ('1', '0.5s', '500ms', '2m') -> seconds; 0 when absent or unreadable."""
    m = _TIME_RE.match(str(v)) if v is not None else None
    return float(m.group(1)) * _TIME_UNIT_S[(m.group(2) or "").lower() or None] if m else 0.0


def _int_opt(v) -> int:
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return 0


def _truthy(v) -> bool:
    return str(v).strip().lower() in ("1", "true", "yes", "on", "")


# --- finding logs and their JSON --------------------------------------------------------------------

def find_log_groups(paths: list[Path]) -> list[tuple[Path, str, list[Path]]]:
    """(JSON file, its source_file as ingest names it, its log files) for every matched log group."""
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases])) if bases else Path(".")
    logs_by_dir: dict[Path, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    jsons_by_dir: dict[Path, list[Path]] = defaultdict(list)
    for p in paths:
        if p.is_file():
            jsons_by_dir[p.parent].append(p)
            for f in sorted(p.parent.iterdir()):
                name = fio_logs.parse_log_name(f.name)
                if name and not f.name.startswith(".") and f.name.startswith(p.stem + "_"):
                    logs_by_dir[p.parent][name.prefix].append(f)
            continue
        for folder, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            fd = Path(folder)
            for fname in sorted(files):
                if fname.startswith("."):
                    continue
                if fname.endswith(".json") and fname != MANIFEST_NAME:
                    jsons_by_dir[fd].append(fd / fname)
                    continue
                name = fio_logs.parse_log_name(fname)
                if name:
                    logs_by_dir[fd][name.prefix].append(fd / fname)
    out = []
    for folder, groups in logs_by_dir.items():
        jsons = jsons_by_dir.get(folder, [])
        stems = {j.stem: j for j in reversed(jsons)}
        for prefix, files in sorted(groups.items()):
            j = stems.get(prefix) or _match(prefix, jsons)
            if j is not None:
                out.append((j, os.path.relpath(os.path.realpath(j), base), files))
    return sorted(out, key=lambda t: t[1])


def _match(prefix: str, jsons: list[Path]) -> Path | None:
    by_stem = [j for j in jsons if j.stem == prefix]
    if by_stem:
        return by_stem[0]
    by_option = [j for j in jsons if prefix in _log_prefixes(j)]
    if len(by_option) == 1:
        return by_option[0]
    return jsons[0] if len(jsons) == 1 else None


def _log_prefixes(j: Path) -> set[str]:
    try:
        text = j.read_bytes()
        if b"_log" not in text:
            return set()
        objs = parse_fio_bytes(text)
    except (OSError, FioParseError):
        return set()
    out = set()
    for obj in objs:
        opts = [obj.get("global options")] + [job.get("job options") for job in obj.get("jobs") or []
                                              if isinstance(job, dict)]
        for o in opts:
            if isinstance(o, dict):
                out.update(os.path.basename(str(o[k])) for k in _LOG_OPTIONS if o.get(k))
    return out


# --- one point ---------------------------------------------------------------------------------------

def _point_info(json_path: Path) -> dict | None:
    """Job names, options and fio version of a raw JSON (None when it is not a usable fio result)."""
    try:
        runs = split_runs(parse_fio_bytes(json_path.read_bytes()))
        objs = runs[-1]
        jobs = [j for j in final_jobs(objs) if isinstance(j, dict)]
    except (OSError, FioParseError):
        return None
    if not jobs or all(j.get("error", 0) not in (0, None) for j in jobs):
        return None
    obj = objs[-1]  # (objs: the file's last fio run, which wrote the logs)
    g = obj.get("global options")
    g = g[0] if isinstance(g, list) and len(g) == 1 else g
    opts = {**(g if isinstance(g, dict) else {}), **(jobs[0].get("job options") or {})}
    version = str(obj.get("fio version", ""))
    m = re.search(r"(\d+)\.", version)
    major = int(m.group(1)) if m else 3
    return {"jobs": [str(j.get("jobname", "")) for j in jobs], "options": opts, "lat_unit_ns": major >= 3,
            "run_index": len(runs) - 1}


_DIR_SHIFT = 40  # window code = direction << 40 | window key (keys are window ends / interval, far below 2^40)
_HIST_ROW = 1 << 50  # histogram windows of a different interval than the value logs: rows of their own


def _reduce(direction: np.ndarray, key: np.ndarray, values: np.ndarray | None, how: str):
    """(codes, reduced values) per (direction, window key): 'mean', 'sum' or 'count' of ``values``."""
    code = (direction.astype(np.int64) << _DIR_SHIFT) | key.astype(np.int64)
    u, inv = np.unique(code, return_inverse=True)
    n = np.bincount(inv, minlength=len(u)).astype(np.float64)
    if how == "count":
        return u, n
    total = np.bincount(inv, weights=values, minlength=len(u))
    return u, total / n if how == "mean" else total


def _value_windows(df: dict[str, np.ndarray], kind: str, interval_ms: int, lat_factor: float):
    """One value log's lines (:func:`helpers.fio.logs.read_value_arrays`) -> (codes, values of its column)."""
    t = np.asarray(df["time_ms"])
    d = np.asarray(df["direction"])
    v = np.asarray(df["value"], dtype=np.float64)
    if interval_ms > 0:  # averaged windows: time stamps sit within a few ms of multiples of the interval
        codes, vals = _reduce(d, np.rint(t / interval_ms).astype(np.int64), v, "mean")
    else:  # one line per I/O: aggregate into PER_IO_WINDOW_MS windows
        key = t // PER_IO_WINDOW_MS + 1
        per_s = 1000.0 / PER_IO_WINDOW_MS
        if kind == "iops":
            codes, vals = _reduce(d, key, None, "count")
            return codes, vals * per_s
        if kind == "bw":
            codes, vals = _reduce(d, key, np.asarray(df["bs_bytes"], dtype=np.float64), "sum")
            return codes, vals * per_s
        codes, vals = _reduce(d, key, v, "mean")
    if kind == "bw":
        vals = vals * 1024.0  # KiB/s -> bytes/s
    elif kind in ("lat", "clat", "slat"):
        vals = vals * lat_factor
    return codes, vals


def _hist_windows(h: fio_logs.HistLog, interval_ms: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Histogram log -> {column: (codes, values)}: I/O count and percentiles (µs) of each window."""
    if not len(h):
        return {}
    step = interval_ms if interval_ms > 0 else PER_IO_WINDOW_MS
    key = np.rint(h.time_ms / step).astype(np.int64)
    code = (h.direction.astype(np.int64) << _DIR_SHIFT) | key
    order = np.argsort(code, kind="stable")
    c = code[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    counts = h.counts[order]
    if len(starts) < len(c):
        counts = np.add.reduceat(counts, starts, axis=0)  # one histogram per window (duplicates add)
    pct = percentile_rows(h.bin_ns, counts, list(HIST_PERCENTILES)) / 1000.0
    codes = c[starts]
    out = {"hist_ios": (codes, counts.sum(axis=1).astype(np.float64))}
    for j, col in enumerate(HIST_PERCENTILES.values()):
        out[col] = (codes, pct[:, j])
    return out


_NUMERIC = ["iops", "bytes_per_s", "lat_mean_us", "clat_mean_us", "slat_mean_us", "hist_ios",
            *HIST_PERCENTILES.values()]


def _point_block(json_path: Path, log_files: list[Path]) -> dict | None:
    """Column arrays of one raw JSON's log windows (point_id/ramp per row), or None when nothing is usable."""
    info = _point_info(Path(json_path))
    if info is None:
        return None
    opts = info["options"]
    avg_ms = _int_opt(opts.get("log_avg_msec", 0))
    hist_ms = _int_opt(opts.get("log_hist_msec", 0))
    max_values = _truthy(opts["log_max_value"]) if "log_max_value" in opts else False
    lat_factor = 1e-3 if info["lat_unit_ns"] else 1.0
    step_v = avg_ms if avg_ms > 0 else PER_IO_WINDOW_MS
    step_h = hist_ms if hist_ms > 0 else PER_IO_WINDOW_MS
    by_job: dict[int, list[tuple[str, Path]]] = defaultdict(list)
    for f in log_files:
        name = fio_logs.parse_log_name(f.name)
        if name:
            by_job[name.job].append((name.kind, f))
    parsed: dict[int, list[tuple[str, object]]] = defaultdict(list)
    for job, files in sorted(by_job.items()):
        for kind, f in sorted(files):
            if kind == "lat_hist" or (max_values and kind in ("lat", "clat", "slat")):
                continue  # log_max_value: the window's maximum, not its mean: not a mean latency
            try:
                text = fio_logs.read_text(f)
                log = (fio_logs.read_hist_log(text, info["lat_unit_ns"]) if kind == "clat_hist"
                       else fio_logs.read_value_arrays(text))
            except (OSError, ValueError, EOFError):
                continue  # an unreadable log is left out; the point's other logs still count
            parsed[job].append((kind, log))
    # log_unix_epoch=1 (e.g. several stonewalled jobs writing one log stream): Unix ms time stamps, made
    # relative to the point's first window here
    times = [log.time_ms if isinstance(log, fio_logs.HistLog) else log["time_ms"]
             for logs_ in parsed.values() for _, log in logs_]
    firsts = [int(t.min()) for t in times if len(t)]
    epoch = bool(firsts) and min(firsts) > EPOCH_MS_MIN
    shift = min(firsts) - min(step_v, step_h) if epoch else 0
    blocks = []
    for job, items in sorted(parsed.items()):
        cols: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for kind, log in items:
            if kind == "clat_hist":
                if shift:
                    log.time_ms = log.time_ms - shift
                hist = _hist_windows(log, hist_ms)
                off = 0 if step_h == step_v else _HIST_ROW
                cols.update({k: (c + off, v) for k, (c, v) in hist.items()})
                continue
            if shift:
                log["time_ms"] = log["time_ms"] - shift
            cols[VALUE_COLUMNS[kind]] = _value_windows(log, kind, avg_ms, lat_factor)
        if not cols:
            continue
        codes = np.unique(np.concatenate([c for c, _ in cols.values()]))
        n = len(codes)
        block = {c: np.full(n, np.nan) for c in _NUMERIC}
        for col, (c, v) in cols.items():
            block[col][np.searchsorted(codes, c)] = v
        hist_rows = (codes & _HIST_ROW) != 0
        plain = codes & ~_HIST_ROW
        jobs = info["jobs"]
        entry = min(job - 1, len(jobs) - 1)  # group_reporting: one entry for all clones
        block.update({
            "point_id": np.full(n, jobs[entry], dtype=object),
            "job_index": np.full(n, entry, dtype=np.int64),
            "run_index": np.full(n, info["run_index"], dtype=np.int64),
            "log_job": np.full(n, job, dtype=np.int64),
            "direction": plain >> _DIR_SHIFT,
            "key": plain & ((1 << _DIR_SHIFT) - 1),
            "step": np.where(hist_rows, step_h, step_v).astype(np.float64),
            "ramp_s": np.full(n, _seconds(opts.get("ramp_time"))),
        })
        blocks.append(block)
    if not blocks:
        return None
    return {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}


def point_timeseries(json_path: Path, log_files: list[Path], run_id: str, source_file: str) -> pd.DataFrame:
    """The timeseries rows of one raw JSON's log files (empty when nothing in them is usable)."""
    block = _point_block(json_path, log_files)
    if block is None:
        return empty_frame()
    block["source_file"] = np.full(len(block["key"]), source_file, dtype=object)
    return _finish(block, run_id)


def _finish(b: dict, run_id: str) -> pd.DataFrame:
    n = len(b["key"])
    out = pd.DataFrame(index=range(n))
    out["run_id"] = pd.Series([run_id] * n, dtype="string")
    out["point_id"] = pd.Series(b["point_id"], dtype="string")
    out["source_file"] = pd.Series(b["source_file"], dtype="string")
    out["run_index"] = b["run_index"].astype("int64")
    out["job_index"] = b["job_index"].astype("int64")
    out["log_job"] = b["log_job"].astype("int64")
    names = np.array(["read", "write", "trim"] + ["unknown"] * 8, dtype=object)
    out["direction"] = pd.Series(names[np.clip(b["direction"], 0, 10)], dtype="string")
    end = b["key"].astype(np.float64) * b["step"] / 1000.0
    out["window_start_s"] = np.maximum(end - b["step"] / 1000.0, 0.0)
    out["window_end_s"] = end
    out["ramp_s"] = b["ramp_s"].astype(np.float64)
    for c in ("iops", "bytes_per_s", "lat_mean_us", "clat_mean_us", "slat_mean_us", *HIST_PERCENTILES.values()):
        out[c] = b[c].astype(np.float64)
    total = b["hist_ios"]
    out["hist_ios"] = pd.array(np.where(np.isnan(total), 0, total).astype(np.int64), dtype="Int64")
    out.loc[np.isnan(total), "hist_ios"] = pd.NA
    # the few-I/O rule of results (validity.TAIL_SAMPLES): percentile p needs hist_ios x (1 - p) >= 10
    names_p = list(HIST_PERCENTILES.values())
    few = np.zeros((n, len(names_p)), dtype=bool)
    for j, c in enumerate(names_p):
        few[:, j] = ~np.isnan(b[c]) & (total * (1.0 - PERCENTILE_LEVELS[c]) < TAIL_SAMPLES)
    labels = {}
    out["unreliable_percentiles"] = pd.Series(
        [labels.setdefault(row.tobytes(), ",".join(c for c, x in zip(names_p, row) if x)) for row in few],
        dtype="string")
    out["flag_few_ios"] = few.any(axis=1)
    out = out.sort_values(["source_file", "log_job", "direction", "window_end_s"], kind="stable")
    return out[COLUMNS].reset_index(drop=True)


# --- a run ---------------------------------------------------------------------------------------------

def timeseries_frame(paths: list[Path] | Path, run_id: str) -> pd.DataFrame:
    """Every matched log group below ``paths`` -> one timeseries frame (empty when there are no logs)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    blocks = []
    log_files = 0
    for j, rel, files in find_log_groups(paths):
        b = _point_block(j, files)
        if b is not None:
            b["source_file"] = np.full(len(b["key"]), rel, dtype=object)
            blocks.append(b)
            log_files += len(files)
    df = _finish({k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}, run_id) if blocks else empty_frame()
    df.attrs["log_files"] = log_files  # the fio log files read (the ingest's summary line counts them)
    return df


def ingest_timeseries(paths: list[Path] | Path, run_id: str,
                      processed_dir: Path = config.PROCESSED_DIR) -> tuple[int, int]:
    """Replace the run's ``timeseries`` partition (written even when empty: 'no logs' is an answer);
    (fio log files read, rows written)."""
    df = timeseries_frame(paths, run_id)
    store.write_run(Path(processed_dir), config.TIMESERIES_DATASET, run_id, df)
    return df.attrs.get("log_files", 0), len(df)


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

