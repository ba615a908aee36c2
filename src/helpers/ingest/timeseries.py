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
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

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
HIST_TAIL = {99.999: "clat_p99_999_us", 100.0: "clat_max_us"}  # PTS WSAT's per-window tail (no few-I/O flag)
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

def find_log_groups(paths: list[Path], parsed_json: dict | None = None) -> list[tuple[Path, str, list[str]]]:
    """(JSON file, its source_file as ingest names it, its log files' paths) for every matched log group.
    ``parsed_json``, when given, collects the JSON files parsed on the way ({path: objects}) for reuse."""
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases])) if bases else Path(".")
    logs_by_dir: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    jsons_by_dir: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        if p.is_file():
            folder = str(p.parent)
            jsons_by_dir[folder].append(str(p))
            for fname in sorted(os.listdir(folder)):
                m = fio_logs.LOG_NAME_RE.match(fname)
                if m and not fname.startswith(".") and fname.startswith(p.stem + "_"):
                    logs_by_dir[folder][m["prefix"]].append(os.path.join(folder, fname))
            continue
        for folder, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            for fname in sorted(files):
                if fname.startswith("."):
                    continue
                if fname.endswith(".json"):
                    if fname != MANIFEST_NAME:
                        jsons_by_dir[folder].append(os.path.join(folder, fname))
                    continue
                m = fio_logs.LOG_NAME_RE.match(fname)
                if m:
                    logs_by_dir[folder][m["prefix"]].append(os.path.join(folder, fname))
    out = []
    for folder, groups in logs_by_dir.items():
        jsons = jsons_by_dir.get(folder, [])
        stems = {os.path.splitext(os.path.basename(j))[0]: j for j in reversed(jsons)}
        by_option: dict[str, list[str]] | None = None
        for prefix, files in sorted(groups.items()):
            j = stems.get(prefix)
            if j is None:
                if by_option is None:  # every JSON of the folder read once, not once per log group
                    by_option = defaultdict(list)
                    for js in jsons:
                        for pre in _log_prefixes(Path(js), parsed_json):
                            by_option[pre].append(js)
                hits = by_option.get(prefix, [])
                j = hits[0] if len(hits) == 1 else (jsons[0] if len(jsons) == 1 else None)
            if j is not None:
                out.append((Path(j), os.path.relpath(os.path.realpath(j), base), files))
    return sorted(out, key=lambda t: t[1])


def _log_prefixes(j: Path, parsed_json: dict | None = None) -> set[str]:
    try:
        text = j.read_bytes()
        if b"_log" not in text:
            return set()
        objs = parse_fio_bytes(text)
    except (OSError, FioParseError):
        return set()
    if parsed_json is not None:
        parsed_json[j] = objs
    out = set()
    for obj in objs:
        opts = [obj.get("global options")] + [job.get("job options") for job in obj.get("jobs") or []
                                              if isinstance(job, dict)]
        for o in opts:
            if isinstance(o, dict):
                out.update(os.path.basename(str(o[k])) for k in _LOG_OPTIONS if o.get(k))
    return out


# --- one point ---------------------------------------------------------------------------------------

def _point_info(json_path: Path, parsed_json: dict | None = None) -> dict | None:
    """Job names, options, fio version and per-entry totals of a raw JSON (None when not a usable result)."""
    try:
        runs = split_runs((parsed_json or {}).get(json_path) or parse_fio_bytes(json_path.read_bytes()))
        objs = runs[-1]  # fio rewrites its logs on every run: they belong to the file's last run
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
    totals = []  # per entry: {direction code: (io bytes, I/Os or nan, runtime ms)}
    for j in jobs:
        t = {}
        for code, name in enumerate(("read", "write", "trim")):
            d = j.get(name)
            if not isinstance(d, dict):
                continue
            b = d.get("io_bytes", d.get("io_kbytes", 0) * 1024 if "io_kbytes" in d else None)
            if isinstance(b, (int, float)) and b > 0 and isinstance(d.get("runtime"), (int, float)):
                ios = d.get("total_ios")
                t[code] = (float(b), float(ios) if isinstance(ios, (int, float)) else np.nan, float(d["runtime"]))
        totals.append(t)
    return {"jobs": [str(j.get("jobname", "")) for j in jobs], "options": opts, "lat_unit_ns": major >= 3,
            "totals": totals, "run_index": len(runs) - 1}


CALL_MS = 2.0  # one fio call's entries: time stamps taken apart by up to LOG_MSEC_SLACK (1-2 ms)
PAIR_MS = 0  # entries of logs written together share a row only when fio gave them the same time stamps
FAMILIES = {"iops": "rate", "bw": "rate", "lat": "lat", "clat": "lat", "slat": "lat"}
_NUMERIC = ["iops", "bytes_per_s", "lat_mean_us", "clat_mean_us", "slat_mean_us", "hist_ios",
            *HIST_PERCENTILES.values(), *HIST_TAIL.values()]


def _quiet_ms(done: np.ndarray, interval_ms: float, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How long, within each (lo, hi), no I/O completed by the lat log's own evidence: fio writes an averaged
    lat entry at the first completion at least a window after the previous entry's window (``avg_last``, the
    previous entry's time rounded down to the interval), so between entries w and w' nothing completed in
    (floor(w / interval) interval + interval, w')."""
    w = np.unique(done)
    b = np.floor(w[:-1] / interval_ms) * interval_ms + interval_ms + CALL_MS
    e = w[1:] - CALL_MS
    keep = e > b
    b, e = b[keep], e[keep]  # disjoint and in order (each b is past the entry that ends the interval before)
    if not len(b):
        return np.zeros(len(lo))
    upto = np.r_[0.0, np.cumsum(e - b)]

    def quiet_before(x: np.ndarray) -> np.ndarray:  # quiet time in (-inf, x)
        k = np.searchsorted(b, x, side="right")  # intervals starting before x
        return upto[k] - np.clip(e[np.maximum(k - 1, 0)] - x, 0.0, None) * (k > 0)

    return quiet_before(np.asarray(hi, dtype=np.float64)) - quiet_before(np.asarray(lo, dtype=np.float64))


def tick_starts(t: np.ndarray, interval_ms: float, values: np.ndarray | None = None,
                completions: np.ndarray | None = None, calls: np.ndarray | None = None,
                guesses: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Window starts (ms) of one bw/iops log's entries ``t`` (ms, ascending; ``values``: their rates).

    fio (>= 3.18, ``stat.c`` ``__add_samples``) computes an entry's rate over the time since its previous
    *call* (``*parent_tv = *t``), and a call logs nothing for a direction in which no I/O completed.  Known
    calls: this log's entries and ``calls``, the same job's entries in its other directions (one call logs
    every direction that moved).  An entry whose last known call q is less than 1.5 ticks back (c: the
    median spacing) starts at q.  After a longer gap it depends on calls fio made without logging, decided
    by the same job and direction's lat/clat/slat entries (``completions``, each written at a completion):

    - I/O completed in (q, t - c) (an entry there): any call after it would have logged, so there was none:
      the start is q (fio's helper thread was stopped or starved: seen with SIGSTOP), or the last tick on the
      rhythm before that completion when the lat log shows nothing completed from q till that tick;
    - otherwise a stall (fio called every tick, nothing completed, the entry covers its last tick, t - c) or a
      helper thread that did not call (q).  The lat log also tells where nothing completed
      (:func:`_quiet_ms`): the entry's bytes must have completed in the rest of the window, and the
      hypothesis that needs more than 1.5 x the log's 90th-percentile rate for that is dropped (a 0.6 s
      thinktime: the whole gap would need 68 MB/s from a job limited to 32 MiB/s);
    - with no lat evidence either way: a gap of k ticks within k x max(3 ms, 2 %) is a stall, any other
      length a helper thread that did not call.  These are guesses (a starved helper thread also calls
      exactly a tick or two late); ``guesses=True`` returns ``(start, other)`` with the other hypothesis's
      start for each of them (NaN elsewhere), for :func:`_reconcile` to decide by the JSON's totals."""
    t = np.asarray(t, dtype=np.float64)
    prev = np.r_[0.0, t[:-1]]
    gap = t - prev
    steady = np.sort(gap[(gap > 0.5 * interval_ms) & (gap < 1.5 * interval_ms)])
    m = len(steady)
    c = float(steady[m // 2] + steady[(m - 1) // 2]) / 2.0 if m else float(interval_ms)  # the median
    start = prev.copy()
    other = np.full(len(t), np.nan)
    wide = np.flatnonzero(gap > 1.5 * c)  # a shorter gap cannot hold a call (each is >= a tick after the last)
    if not len(wide):
        return (start, other) if guesses else start
    tw, qw = t[wide], prev[wide]
    if calls is not None and len(calls):  # the latest call another direction logged, inside the gap
        known = np.sort(np.asarray(calls, dtype=np.float64))
        i = np.searchsorted(known, tw - CALL_MS, side="left") - 1
        y = np.where(i >= 0, known[np.maximum(i, 0)], -np.inf)
        qw = np.where(y > qw + CALL_MS, y, qw)
    k = np.rint((tw - qw) / c)
    stall = np.abs(tw - qw - k * c) <= k * max(3.0, 0.02 * c)  # on the rhythm: the default without evidence
    guessed = np.ones(len(wide), dtype=bool)
    ticks = np.zeros(len(wide))
    if completions is not None and len(completions):
        done = np.sort(np.asarray(completions, dtype=np.float64))
        j = np.searchsorted(done, qw + CALL_MS, side="right")
        first = np.where(j < len(done), done[np.minimum(j, len(done) - 1)], np.inf)
        before = first < tw - c - CALL_MS  # I/O completed before the last tick: no call after it
        ticks = np.where(before, np.floor((first - qw + CALL_MS) / c), 0.0)
        if (ticks >= 1).any():  # fio ticked on before that completion only if nothing completed till then
            quiet = _quiet_ms(done, interval_ms, qw, qw + ticks * c)
            ticks = np.where(quiet >= ticks * c - 4 * CALL_MS, ticks, 0.0)
        stall &= ~before
        guessed &= ~before
        if values is not None and len(values) and (~before).any():
            v = np.asarray(values, dtype=np.float64)
            ceiling = 1.5 * float(np.percentile(v, 90))
            vw = v[wide]
            busy_whole = np.maximum((tw - qw) - _quiet_ms(done, interval_ms, qw, tw), 1.0)
            busy_tick = np.maximum(c - _quiet_ms(done, interval_ms, tw - c, tw), 1.0)
            whole_ok = vw * (tw - qw) / busy_whole <= ceiling
            tick_ok = vw * c / busy_tick <= ceiling
            stall = np.where(~before & (whole_ok != tick_ok), tick_ok, stall)
            guessed &= whole_ok == tick_ok
    still = tw - qw > 1.5 * c
    start[wide] = np.where(still & stall, tw - c, np.where(still & (ticks >= 1), qw + ticks * c, qw))
    if not guesses:
        return start
    other[wide] = np.where(still & guessed, np.where(stall, qw, tw - c), np.nan)
    return start, other


def _directions(d: np.ndarray) -> list[int]:
    if len(d) and d[0] == d[-1] and (d == d[0]).all():  # the common case: one direction
        return [int(d[0])] if 0 <= d[0] <= 2 else []
    return sorted(int(x) for x in np.unique(d) if 0 <= x <= 2)


_KINDS = ("iops", "bw", "lat", "clat", "slat")
_FAMILY = np.array([0, 0, 1, 1, 1])  # rate (helper-thread ticks), lat (completions)


def _averaged_batch(items: list[tuple[dict, int, float]]) -> list[list[dict]]:
    """Row sets ({'dir', 'family', 'log', 't', 'start', 'interval', column: values}) of many jobs' averaged value
    logs at once (each item: one job's value logs, log_avg_msec, latency factor), in whole-batch array
    operations.  Per job and direction, the first log of a family (iops of
    bw+iops, lat of lat+clat+slat) anchors it and another log of the family shares its rows when it has the
    same time stamps, entry for entry."""
    out: list[list[dict]] = [[] for _ in items]
    ts_, vs_, ds_, meta = [], [], [], []
    for ii, (logs, _, _) in enumerate(items):
        for ki, kind in enumerate(_KINDS):
            log = logs.get(kind)
            if log is not None and len(log["time_ms"]):
                ts_.append(log["time_ms"])
                vs_.append(log["value"])
                ds_.append(log["direction"])
                meta.append((ii, ki))
    if not meta:
        return out
    lens = np.fromiter((len(t) for t in ts_), dtype=np.int64, count=len(ts_))
    T = np.concatenate(ts_).astype(np.int64)
    V = np.concatenate(vs_).astype(np.float64)
    D = np.concatenate(ds_).astype(np.int64)
    F = np.repeat(np.arange(len(meta)), lens)
    keep = (D >= 0) & (D <= 2)
    if not keep.all():
        T, V, D, F = T[keep], V[keep], D[keep], F[keep]
    S = F * 3 + D  # one series per file and direction
    key = S * (1 << 40) + (T - T.min())
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():
        order = np.argsort(key, kind="stable")
        T, V, D, F, S = T[order], V[order], D[order], F[order], S[order]
    meta_a = np.array(meta, dtype=np.int64)
    item_of, kind_of = meta_a[F, 0], meta_a[F, 1]
    lat_f = np.array([it[2] for it in items], dtype=np.float64)
    V = V * np.where(kind_of == 1, 1024.0, np.where(kind_of >= 2, lat_f[item_of], 1.0))  # bw KiB/s; lat ns/µs
    starts = np.flatnonzero(np.r_[True, S[1:] != S[:-1]])
    ends = np.r_[starts[1:], len(S)]
    s_item, s_kind, s_dir = item_of[starts], kind_of[starts], D[starts]
    n_series = len(starts)
    # anchors and the series that join them (same length, then the same time stamps, checked below)
    group = (s_item * 3 + s_dir) * 2 + _FAMILY[s_kind]
    _, first, inverse = np.unique(group, return_index=True, return_inverse=True)
    anchor = first[inverse]  # the first series of its job, direction and family
    leader = np.arange(n_series)
    cj = np.flatnonzero((anchor != leader) & (ends - starts == (ends - starts)[anchor]))
    if len(cj):
        ca = anchor[cj]
        ln = ends[cj] - starts[cj]
        pair = np.repeat(np.arange(len(cj)), ln)
        pos = np.arange(int(ln.sum())) - np.repeat(np.cumsum(ln) - ln, ln)
        differ = np.abs(T[starts[cj][pair] + pos] - T[starts[ca][pair] + pos]) > PAIR_MS
        same = np.bincount(pair, weights=differ, minlength=len(cj)) == 0
        leader[cj[same]] = ca[same]
    # window starts: the previous entry of the series (0 for the first); bw/iops gaps of whole ticks: tick_starts
    prev = np.r_[0, T[:-1]].astype(np.float64)
    prev[starts] = 0.0
    avg = np.array([it[1] for it in items], dtype=np.float64)
    row_series = np.repeat(np.arange(n_series), ends - starts)
    is_rate_lead = (leader == np.arange(n_series)) & (_FAMILY[s_kind] == 0)
    wide = (T - prev > 1.4 * avg[item_of]) & is_rate_lead[row_series]
    start = prev
    other = np.full(len(T), np.nan)
    late = np.unique(row_series[wide])
    by_job: dict[tuple[int, int], list[int]] = defaultdict(list)  # (job, family) -> its series
    if len(late):
        for j in range(n_series):
            by_job[(int(s_item[j]), int(_FAMILY[s_kind[j]]))].append(j)
    for i in late.tolist():
        done = [T[starts[j]:ends[j]] for j in by_job[(int(s_item[i]), 1)] if s_dir[j] == s_dir[i]]
        calls = [T[starts[j]:ends[j]] for j in by_job[(int(s_item[i]), 0)] if s_dir[j] != s_dir[i]]
        start[starts[i]:ends[i]], other[starts[i]:ends[i]] = tick_starts(
            T[starts[i]:ends[i]], avg[s_item[i]], V[starts[i]:ends[i]], np.concatenate(done) if done else None,
            np.concatenate(calls) if calls else None, guesses=True)
    sets: dict[int, dict] = {}
    for i, lo, hi, it, kd, dr, ld in zip(range(n_series), starts.tolist(), ends.tolist(), s_item.tolist(),
                                         s_kind.tolist(), s_dir.tolist(), leader.tolist()):
        kind = _KINDS[kd]
        if ld == i:
            sets[i] = st = {"dir": dr, "family": "rate" if kd < 2 else "lat", "log": [kind], "t": T[lo:hi],
                            "start": start[lo:hi], "interval": float(avg[it])}
            if kd < 2 and not np.isnan(other[lo:hi]).all():
                st["other_start"] = other[lo:hi]
            out[it].append(st)
        else:
            st = sets[ld]
            st["log"].append(kind)
        st[VALUE_COLUMNS[kind]] = V[lo:hi]
    return out


def _per_io_sets(logs: dict[str, dict], lat_factor: float, end_ms: dict[int, float]) -> list[dict]:
    """Logs written per I/O -> one row set per direction of PER_IO_WINDOW_MS windows (the last ends at the
    JSON's runtime, or at the last I/O)."""
    sets: dict[int, dict] = {}
    w = PER_IO_WINDOW_MS
    for kind in ("iops", "bw", "lat", "clat", "slat"):
        log = logs.get(kind)
        if log is None or not len(log["time_ms"]):
            continue
        for d in _directions(log["direction"]):
            sel = log["direction"] == d
            t = log["time_ms"][sel]
            key = t // w
            last = max(float(t.max()), end_ms.get(d, 0.0))
            s = sets.get(d)
            if s is None:  # windows up to the one holding the last I/O; it ends at the JSON's runtime at most
                s = sets[d] = {"dir": d, "family": "per-I/O", "log": [], "nwin": int(key.max()) + 1, "last": last}
            n = max(s["nwin"], int(key.max()) + 1)
            if kind == "iops":
                vals = np.bincount(key, minlength=n).astype(np.float64)
            elif kind == "bw":
                vals = np.bincount(key, weights=log["bs_bytes"][sel].astype(np.float64), minlength=n)
            else:
                cnt = np.bincount(key, minlength=n)
                vals = np.bincount(key, weights=log["value"][sel] * lat_factor, minlength=n) / np.where(cnt, cnt, 1)
                vals[cnt == 0] = np.nan
            s["log"].append(kind)
            s[VALUE_COLUMNS[kind]] = (kind, vals)
    out = []
    for d, s in sets.items():
        n = max(len(v[1]) for k, v in s.items() if k in VALUE_COLUMNS.values())
        end = np.minimum((np.arange(n) + 1.0) * w, max(s["last"], (n - 1) * w + 1.0))  # >= 1 ms wide
        start = np.arange(n) * float(w)
        width_s = (end - start) / 1000.0
        row = {"dir": d, "family": "per-I/O", "log": s["log"], "t": end.astype(np.int64), "start": start,
               "end": end, "interval": float(w)}
        for col in VALUE_COLUMNS.values():
            if col in s:
                kind, vals = s[col]
                vals = np.r_[vals, np.zeros(n - len(vals)) if kind in ("iops", "bw") else np.full(n - len(vals), np.nan)]
                row[col] = vals / width_s if kind in ("iops", "bw") else vals
        out.append(row)
    return out


def _hist_sets(h: fio_logs.HistLog, hist_ms: int) -> list[dict]:
    """A histogram log -> one row set per direction: I/O count and percentiles (µs) of each entry."""
    out = []
    for d in _directions(h.direction):
        sel = np.flatnonzero(h.direction == d)
        sel = sel[np.argsort(h.time_ms[sel], kind="stable")]
        t = h.time_ms[sel]
        counts = h.counts[sel]
        pct = percentile_rows(h.bin_ns, counts, [*HIST_PERCENTILES, *HIST_TAIL]) / 1000.0
        s = {"dir": d, "family": "hist", "log": ["clat_hist"], "t": t, "start": np.r_[0.0, t[:-1].astype(np.float64)],
             "interval": float(hist_ms if hist_ms > 0 else PER_IO_WINDOW_MS),
             "hist_ios": counts.sum(axis=1).astype(np.float64)}
        for j, col in enumerate([*HIST_PERCENTILES.values(), *HIST_TAIL.values()]):
            s[col] = pct[:, j]
        out.append(s)
    return out


GUESS_SHARE = 0.6  # a guess is turned when it explains at least this share of the bytes still missing


def _reconcile(sets_by_job: dict[int, list[dict]], job_entry: dict[int, int], totals: list[dict], epoch: bool,
               shared: bool) -> None:
    """Decide :func:`tick_starts`'s guesses (a stall fio called through, or a call fio made late) by the JSON's
    totals: bytes (or I/Os) the logs miss beyond the expected final partial windows were written in guessed
    stalls that were late calls (and the other way round).  Shortest gaps first (a starved helper thread is
    late by a tick or two far more often than a device stalls that long); a guess is turned only when that
    explains >= GUESS_SHARE of its bytes.  ``shared`` (per_job_logs=0): every job writes the one stream;
    ``epoch``: no runtime to place the final windows at, so half a tick of each job at the stream's median."""
    if shared:
        groups = [(list(sets_by_job), list(range(len(totals))))]
    else:
        by_entry: dict[int, list[int]] = defaultdict(list)
        for job, e in job_entry.items():
            by_entry[e].append(job)
        groups = [(jobs, [e]) for e, jobs in by_entry.items()]
    for jobs, entries in groups:
        for d in sorted({d for e in entries for d in totals[e]}):
            rate = [s for j in jobs for s in sets_by_job.get(j, [])
                    if s["dir"] == d and s["family"] == "rate" and len(s["t"])]
            for col, k in (("bytes_per_s", 0), ("iops", 1)):  # a bw+iops row set is decided by its bytes
                sets = [s for s in rate if col in s and (col == "bytes_per_s" or "bytes_per_s" not in s)]
                if any("other_start" in s for s in sets):
                    _turn_guesses(sets, col, sum(totals[e][d][k] for e in entries if d in totals[e]), epoch,
                                  len(entries), max(totals[e][d][2] for e in entries if d in totals[e]))
    for sets in sets_by_job.values():
        for s in sets:
            s.pop("other_start", None)


def _turn_guesses(sets: list[dict], col: str, total: float, epoch: bool, n_jobs: int, runtime: float) -> None:
    """:func:`_reconcile` for one column of one direction's row sets (``total``: the JSON's, over ``n_jobs``
    jobs that ran ``runtime`` ms)."""
    if np.isnan(total):
        return
    missing = total - sum(float(np.sum(s[col] * (s["end"] - s["start"]))) / 1000.0 for s in sets)
    if epoch:
        v = np.concatenate([s[col] for s in sets])
        missing -= 0.5 * float(np.median(v)) * sets[0]["interval"] / 1000.0 * n_jobs
    else:
        missing -= sum(float(s[col][-1]) * max(runtime - float(s["t"][-1]), 0.0) / 1000.0 for s in sets)
    cand = [(float(s["t"][i] - min(s["start"][i], s["other_start"][i])), n, int(i))
            for n, s in enumerate(sets) if "other_start" in s
            for i in np.flatnonzero(~np.isnan(s["other_start"]))]
    for _, n, i in sorted(cand):
        s = sets[n]
        delta = float(s[col][i]) * (s["start"][i] - s["other_start"][i]) / 1000.0
        if delta != 0 and missing / delta >= GUESS_SHARE and abs(missing - delta) < abs(missing):
            s["start"][i] = s["other_start"][i]
            missing -= delta


def _final_windows(sets_by_job: dict[int, list[dict]], job_entry: dict[int, int], totals: list[dict],
                   rate_logs: dict[int, list[str]] | None = None, interval_ms: float = 0.0) -> None:
    """Append each job's final partial bw/iops window (fio does not log it): the JSON's totals minus what the
    logs hold, from the last entry to the JSON's runtime (clones of one entry share it; module text).  An entry
    none of whose jobs logged a bw/iops entry at all (a point shorter than fio's first tick) gets one window
    [0, runtime] per job and direction, the JSON's totals shared equally by its jobs, in the logs each job has
    (``rate_logs``: job -> its 'iops'/'bw' logs; ``interval_ms``: their log_avg_msec)."""
    for entry, tot in enumerate(totals):
        jobs = [j for j, e in job_entry.items() if e == entry]
        if not any(s["family"] == "rate" and len(s["t"]) for j in jobs for s in sets_by_job.get(j, [])):
            for j in jobs:
                kinds = (rate_logs or {}).get(j) or []
                for d, (io_bytes, ios, runtime) in tot.items() if kinds else ():
                    if runtime <= 0:
                        continue
                    s = {"dir": d, "family": "rate", "log": kinds, "t": np.array([runtime], dtype=np.int64),
                         "start": np.zeros(1), "end": np.array([runtime], dtype=np.float64),
                         "interval": float(interval_ms), "from_json": np.ones(1, dtype=bool)}
                    for kind, total in (("iops", ios), ("bw", io_bytes)):
                        if kind in kinds:
                            s[VALUE_COLUMNS[kind]] = np.array([total / len(jobs) / (runtime / 1000.0)])
                    sets_by_job.setdefault(j, []).append(s)
            continue
        for d, (io_bytes, ios, runtime) in tot.items():
            rate_sets = [(j, s) for j in jobs for s in sets_by_job.get(j, [])
                         if s["dir"] == d and s["family"] == "rate" and len(s["t"])]
            if not rate_sets:
                continue
            for col, total in (("bytes_per_s", io_bytes), ("iops", ios)):
                have = [(j, s) for j, s in rate_sets if col in s]
                if not have or np.isnan(total):
                    continue
                logged = sum(float(np.sum(s[col] * (s["end"] - s["start"]))) / 1000.0 for _, s in have)
                rest = total - logged
                gaps = np.array([runtime - float(s["t"][-1]) for _, s in have])
                if rest <= 0 or not np.any(gaps > 0):
                    continue
                est = np.array([float(s[col][-1]) for _, s in have]) * np.maximum(gaps, 0.0)
                share = est / est.sum() if est.sum() > 0 else (gaps > 0) / np.sum(gaps > 0)
                for (_, s), gap, part in zip(have, gaps, share):
                    if gap <= 0 or part <= 0:
                        continue
                    s.setdefault("tail", {})[col] = (rest * part) / (gap / 1000.0)
                    s["tail_end"] = runtime
    for sets in sets_by_job.values():
        for s in sets:
            tail = s.pop("tail", None)
            if not tail:
                continue
            end = s.pop("tail_end")
            n = len(s["t"])
            s["t"] = np.r_[s["t"], np.int64(end)]
            s["start"] = np.r_[s["start"], float(s["t"][n - 1])]
            s["end"] = np.r_[s["end"], float(end)]
            for col in ("iops", "bytes_per_s"):
                if col in s:
                    s[col] = np.r_[s[col], tail.get(col, np.nan)]
            s["from_json"] = np.r_[np.zeros(n, dtype=bool), True]


def _averaged_items(prep: dict) -> list[tuple[dict, int, float]]:
    """The jobs of a prepared point whose value logs are averaged (for :func:`_averaged_batch`), in job order."""
    if prep["avg_ms"] <= 0:
        return []
    return [({k: v for k, v in logs.items() if k != "clat_hist"}, prep["avg_ms"], prep["lat_factor"])
            for _, logs in sorted(prep["parsed"].items())]


def _point_logs(json_path: Path, log_files: list[Path], parsed_values: dict[Path, object] | None = None,
                parsed_json: dict | None = None) -> dict | None:
    """A point's JSON facts and its logs parsed per job, time stamps made relative (None: not a usable result)."""
    info = _point_info(Path(json_path), parsed_json)
    if info is None:
        return None
    opts = info["options"]
    avg_ms = _int_opt(opts.get("log_avg_msec", 0))
    hist_ms = _int_opt(opts.get("log_hist_msec", 0))
    max_values = _truthy(opts["log_max_value"]) if "log_max_value" in opts else False
    lat_factor = 1e-3 if info["lat_unit_ns"] else 1.0
    parsed: dict[int, dict[str, object]] = defaultdict(dict)
    for f in log_files:
        name = fio_logs.parse_log_name(os.path.basename(f))
        if name is None or name.kind == "lat_hist" or (max_values and name.kind in ("lat", "clat", "slat")):
            continue  # log_max_value: the window's maximum, not its mean: not a mean latency
        if name.kind == "clat_hist":
            try:
                log = fio_logs.read_hist_log(fio_logs.read_text(f), info["lat_unit_ns"])
            except (OSError, ValueError, EOFError):
                continue
        else:
            log = parsed_values.get(f) if parsed_values is not None else None
            if log is None:
                log = fio_logs.read_value_logs([f])[0]
            if isinstance(log, Exception):
                continue  # an unreadable log is left out; the point's other logs still count
        parsed[name.job][name.kind] = log
    # log_unix_epoch=1 (e.g. several stonewalled jobs writing one log stream): Unix ms time stamps, made
    # relative to the point's first window here
    times = [log.time_ms if isinstance(log, fio_logs.HistLog) else log["time_ms"]
             for logs_ in parsed.values() for log in logs_.values()]
    firsts = [int(t.min()) for t in times if len(t)]
    epoch = bool(firsts) and min(firsts) > EPOCH_MS_MIN
    step_v = avg_ms if avg_ms > 0 else PER_IO_WINDOW_MS
    step_h = hist_ms if hist_ms > 0 else PER_IO_WINDOW_MS
    shift = min(firsts) - min(step_v, step_h) if epoch else 0
    for logs in parsed.values():
        if shift:
            for log in logs.values():
                if isinstance(log, fio_logs.HistLog):
                    log.time_ms = log.time_ms - shift
                else:
                    log["time_ms"] = log["time_ms"] - shift
    return {"info": info, "opts": opts, "avg_ms": avg_ms, "hist_ms": hist_ms, "lat_factor": lat_factor,
            "parsed": parsed, "epoch": epoch, "shift": shift}


def _point_segments(prep: dict, averaged: list[list[dict]]) -> list[dict] | None:
    """A prepared point's row sets; ``averaged``: :func:`_averaged_batch` of its :func:`_averaged_items`."""
    info, opts, avg_ms, hist_ms = prep["info"], prep["opts"], prep["avg_ms"], prep["hist_ms"]
    parsed, epoch, shift, lat_factor = prep["parsed"], prep["epoch"], prep["shift"], prep["lat_factor"]
    jobs = info["jobs"]
    job_entry = {job: min(job - 1, len(jobs) - 1) for job in parsed}  # group_reporting: one entry for all clones
    sets_by_job: dict[int, list[dict]] = {}
    for n, (job, logs) in enumerate(sorted(parsed.items())):
        values = {k: v for k, v in logs.items() if k != "clat_hist"}
        ends = {d: r for d, (_, _, r) in info["totals"][job_entry[job]].items()} if not epoch else {}
        sets = averaged[n] if avg_ms > 0 else _per_io_sets(values, lat_factor, ends)
        if "clat_hist" in logs and len(logs["clat_hist"]):
            sets += _hist_sets(logs["clat_hist"], hist_ms)
        for s in sets:
            s.setdefault("end", s["t"].astype(np.float64))
        sets_by_job[job] = sets
    if avg_ms > 0:
        _reconcile(sets_by_job, job_entry, info["totals"], epoch, not _truthy(opts.get("per_job_logs", 1)))
    if avg_ms > 0 and not epoch:
        _final_windows(sets_by_job, job_entry, info["totals"],
                       {job: [k for k in ("iops", "bw") if k in logs] for job, logs in parsed.items()}, avg_ms)
    segments = []  # one per row set: scalars of its rows and the arrays it has (the rest NaN when assembled)
    ramp = _seconds(opts.get("ramp_time"))
    for job, sets in sets_by_job.items():
        for s in sets:
            if not len(s["t"]):
                continue
            seg = {c: s[c] for c in _NUMERIC if c in s}
            seg.update({"point_id": jobs[job_entry[job]], "job_index": job_entry[job],
                        "run_index": info["run_index"], "log_job": job,
                        "log": ",".join(s["log"]), "direction": s["dir"], "interval_ms": s["interval"], "ramp_s": ramp,
                        "t_ms": s["t"].astype(np.int64) + shift, "start_ms": np.maximum(s["start"], 0.0),
                        "end_ms": s["end"], "from_json": s.get("from_json")})
            segments.append(seg)
    return segments or None


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

