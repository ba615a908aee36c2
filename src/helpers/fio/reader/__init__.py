"""The one reader of a fio result: per job entry and direction, the measured numbers and the stated
configuration.  Used by the ingest, the adaptive search / steady-state loop (``run.adaptive``) and the
multi-host labelling (``run.hosts``); nothing else interprets fio's result objects.

Input: the result objects of one file (:func:`helpers.fio.json_output.parse_fio_bytes`, or the
fio-JSON-shaped objects of the text parser).  :func:`read_runs` returns one :class:`Result` per fio
process in the file (runs appended with ``>>`` stay apart, :func:`~helpers.fio.json_output.split_runs`;
``run_index`` says which), :func:`read_result` the last one's; a Result's ``entries`` are every job entry
of its final object (status-interval objects merged by :func:`~helpers.fio.json_output.final_jobs`), each
with its :class:`Config` and one :class:`Direction` per direction that did I/O, or the one-sentence reason
why it is not a data point.

What fio versions wrote, and how it is read (each a test in ``tests/test_fio_reader.py``):

* fio >= 3.0 writes latencies in ns under ``*_ns``; fio 2.x in µs under ``clat``/``lat``/``slat`` and
  ``io_bytes`` in KiB (no ``io_kbytes``), without ``bw_bytes`` (``bw`` KiB/s is then used).
* fio < 2.1.14 wrote no ``total_ios``: a direction did I/O when ``io_bytes`` or ``iops`` is positive,
  and its total_ios is unknown (None), not 0.
* fio < 2.3 wrote no option blocks: configuration is None with the reason in ``Config.note``;
  options absent from a file that has option blocks are fio's defaults.
* client/server: entries in ``client_stats`` with hostname/port, an ``All clients`` aggregate;
  fio >= 3.39 writes ``global options`` as a list of per-client blocks (with hostname/port), matched to
  each client's entries; older fio adds every client's global options to one object (duplicate keys,
  see :func:`helpers.fio.json_output.parse_fio_bytes`): a value all clients set alike is known, else
  None with the reason.
* latency blocks with ``N: 0`` (fio >= 3) or all zeros (older fio) were not measured (gtod_reduce,
  slat on sync engines): None/NaN, never 0 µs; their percentiles likewise.
* an error job is explained with fio's own text when the file has it, else only by fio's number -- never
  with this host's strerror (the file may come from another OS).
* a job run in fio's ``latency_target`` mode carries ``latency_depth`` (the queue depth fio ended on),
  ``latency_target`` (ns, 0 for every other job), ``latency_percentile`` and ``latency_window`` (µs)
  (fio >= 3.42 also ``latency_target_ns``/``latency_window_us``): :class:`LatencyTarget` on the entry.
  fio holds each I/O's TOTAL latency (submission + completion, io_u.c: ``tnsec`` from ``start_time``)
  against the target.
"""

from __future__ import annotations

import math

from helpers.fio.json_output import final_jobs, split_runs
from helpers.fio.options import ALL_CLIENTS, NAN
from helpers.fio.reader.disks import DISK_FIELDS as DISK_FIELDS
from helpers.fio.reader.disks import disk_ios
from helpers.fio.reader.entry import _direction as _direction
from helpers.fio.reader.entry import _direction_any as _direction_any
from helpers.fio.reader.entry import _direction_ns as _direction_ns
from helpers.fio.reader.entry import _entry
from helpers.fio.reader.entry import error_sentence as error_sentence
from helpers.fio.reader.job_config import NOT_RECORDED as NOT_RECORDED
from helpers.fio.reader.job_config import _client_count, _Globals
from helpers.fio.reader.records import _NO_DISK, Entry, Result
from helpers.fio.reader.records import Config as Config
from helpers.fio.reader.records import Direction as Direction
from helpers.fio.reader.records import LatencyTarget as LatencyTarget
from helpers.fio.reader.values import PERCENTILE_KEYS as PERCENTILE_KEYS
from helpers.fio.reader.values import TERSE_PERCENTILES_ASSUMED as TERSE_PERCENTILES_ASSUMED
from helpers.fio.reader.values import EntryError
from helpers.fio.reader.values import _bins as _bins
from helpers.fio.reader.values import latency_block as latency_block


def read_runs(objs: list[dict], data: bytes = b"") -> list[Result]:
    """One :class:`Result` per fio process in a file's result objects
    (:func:`~helpers.fio.json_output.split_runs`: runs appended to one file stay apart), in file order,
    each with its ``run_index`` and the file's number of ``runs``."""
    runs = split_runs(objs)
    out = []
    for i, run in enumerate(runs):
        res = read_result(run, data, whole=True)
        res.run_index, res.runs = i, len(runs)
        out.append(res)
    return out


def read_result(objs: list[dict], data: bytes = b"", whole: bool = False) -> Result:
    """Every job entry of the last fio run in a file's result objects (the final numbers), read (the
    whole of ``objs`` with ``whole``: the objects of one run, :func:`read_runs`).  ``data`` (the file's
    bytes) lets error sentences quote fio's own text around the JSON.  Raises
    :class:`~helpers.fio.json_output.FioParseError` when the job list itself is malformed; a bad entry
    becomes an Entry with ``error`` set."""
    if not whole and len(objs) > 1:
        runs = split_runs(objs)
        objs = runs[-1]
    obj = objs[-1]  # status-interval output: the final object holds the final numbers
    jobs = final_jobs(objs)
    client = "client_stats" in obj and "jobs" not in obj
    ts = obj.get("timestamp")
    version = obj.get("fio version")
    res = Result(None if version is None else str(version), ts if type(ts) is int and 0 <= ts < 2**63 else None,
                 client, [])
    keys = [(str(j.get("jobname")), str(j.get("groupid")), str(j.get("hostname")), str(j.get("port")))
            if type(j) is dict else None for j in jobs]
    counts: dict[tuple, int] = {}
    for k in keys:
        if k is not None:
            counts[k] = counts.get(k, 0) + 1
    glob = _Globals(obj, _client_count(obj, jobs) if client else 1)
    disk = disk_ios(obj, client)
    plus = False
    cache: dict = {}
    first = jobs[0] if jobs and type(jobs[0]) is dict else {}
    lab = first.get("lab_text")  # the text parser marks every entry it makes
    text_format = str(lab.get("format")) if isinstance(lab, dict) else None
    for i, job in enumerate(jobs):
        if type(job) is not dict:
            res.entries.append(Entry(i, None, None, None, error=f"job entry {i} is not an object (wrong schema)."))
            continue
        name = job.get("jobname")
        host, port = job.get("hostname"), job.get("port")
        e = Entry(i, None if name is None else str(name), None if host is None else str(host),
                  None if port is None else str(port), aggregate=name == ALL_CLIENTS, job=job,
                  source_format=text_format or "json")
        e.disk = disk.get((str(host), str(port)) if client else None, _NO_DISK)
        try:
            _entry(e, job, glob, res, counts[keys[i]], data, cache)
        except EntryError as exc:
            e.error = str(exc)
            e.directions = []
        except Exception as exc:  # noqa: BLE001 - a malformed entry must never stop the file
            e.error = f"the job's fields have an unexpected form ({type(exc).__name__})."
            e.directions = []
        if not plus:
            for x in e.directions:
                if x.bins is not None:
                    plus = True
                    break
        res.entries.append(e)
    if plus:
        for e in res.entries:
            if e.source_format == "json":
                e.source_format = "json+"
    return res


# --- small readers for the sweep ---------------------------------------------------------------

def point_totals(result: Result) -> dict[str, float]:
    """Total IOPS over all directions (all hosts: the 'All clients' entry when present, else the sum
    of the entries) and the IOPS-weighted mean completion latency in µs (NaN when not measured)."""
    agg = [e for e in result.entries if e.aggregate and not e.error]
    use = agg or [e for e in result.entries if not e.aggregate and not e.error]
    iops = lat = w = 0.0
    for e in use:
        for x in e.directions:
            iops += x.iops
            if not math.isnan(x.clat_mean_us):
                lat += x.iops * x.clat_mean_us
                w += x.iops
    return {"iops": iops, "lat_mean_us": lat / w if w else NAN}


def client_entries(result: Result, default_port: int) -> dict[str, str]:
    """{job_index: 'hostname:port'} of every per-host entry of a client/server result."""
    if not result.client:
        return {}
    return {str(e.index): f"{e.hostname}:{e.port if e.port is not None else default_port}"
            for e in result.entries if not e.aggregate and e.job is not None}
