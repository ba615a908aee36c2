"""Reading fio's JSON output as it really appears in files.

fio may print notes or errors before the JSON, normal text after it
(``--output-format=json,normal``), or several JSON objects one after another
(``--status-interval``), or the objects of several fio runs appended to one file
(``fio --output-format=json job >> all.json``).  :func:`parse_fio_bytes` returns every fio result object
found; :func:`split_runs` groups them by fio process (one list per run); :func:`final_jobs` keeps the final
entry of each job across one run's status-interval objects.

A run is a fio process.  ``--status-interval`` objects of one process are cumulative snapshots (the last
is the result); a later object starts another run when it cannot be a later snapshot of the same process:

* the text parser says so (``lab_run_start``: a new ``fio-x.y`` banner, job definition lines, or
  another ``pid=`` for the same job);
* another fio version, or an output time stamp earlier than the previous one;
* fio's process start moved: ``timestamp_ms - elapsed`` (``elapsed`` is whole seconds since fio started,
  the same for every job) differs by more than its rounding allows (1 s, plus 1 s when the file has only
  ``timestamp`` in seconds, plus 0.5 s of slack): runs more than ~1.5 s apart are always told apart;
* it shares no job (jobname, groupid, host, occurrence) with the previous object;
* a counter that only grows within a process went back for a shared job: ``job_runtime``, ``elapsed``,
  per direction ``runtime``/``io_bytes``/``total_ios``, the maximum latency (the minimum going up),
  ``ctx``/``majf``/``minf``, or a disk's ``read_ios``/``write_ios``.  Not after a snapshot without any
  latency sample (``N: 0``; terse prints zeros): fio records latencies, and resets a job's other numbers,
  only when its ramp_time ends, so only time stamps and disks count there;
* fio's bandwidth/IOPS samples of a direction went back (fewer samples, a higher minimum, a lower maximum,
  or another minimum, maximum or mean from the same number of samples);
* a direction's bytes grew while its runtime did not, or grew more than 8x faster than the job's own
  average rate allows (a repeat of the same job appended: a few ms more runtime, a whole run's bytes more).

Limits.  Terse output has neither time stamps nor pids, so only the counters tell its runs apart; JSON
runs less than ~1.5 s apart likewise.  Two such runs of the same job whose every counter happens to line up
as a continuation (the second longer, as fast, with a higher maximum latency, more context switches, more
disk I/Os and its bandwidth samples extending the first's) cannot be told from status-interval snapshots
and read as one run; so do such runs of a job without latency samples (gtod_reduce).

Client/server output of fio before 3.39 adds every client's global options to one ``global options``
object, so its keys repeat (duplicate JSON keys).  Decoders keep only the last duplicate; for
client/server results the objects are decoded again keeping every value: an object with repeated
keys is a :class:`DuplicateKeys` dict (last value, as any decoder) whose ``duplicates`` attribute
lists every value of each repeated key in file order.
"""

from __future__ import annotations

import json

import orjson


class FioParseError(ValueError):
    """The bytes hold no usable fio JSON result; the message is one sentence."""


DUPLICATES = "duplicates"  # attribute of a DuplicateKeys object: {key: [every value, in file order]}


class DuplicateKeys(dict):
    """A JSON object whose keys repeat: the last value per key, and every value in ``duplicates``."""

    __slots__ = (DUPLICATES,)


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    d = dict(pairs)
    if len(d) == len(pairs):
        return d
    out = DuplicateKeys(d)
    seen: dict[str, list] = {}
    for k, v in pairs:
        seen.setdefault(k, []).append(v)
    out.duplicates = {k: v for k, v in seen.items() if len(v) > 1}
    return out


_DECODER = json.JSONDecoder()
_PAIRS_DECODER = json.JSONDecoder(object_pairs_hook=_pairs)
_CLIENT = b'"client_stats"'


def _is_fio_result(obj: object) -> bool:
    return isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj)


def parse_fio_bytes(data: bytes) -> list[dict]:
    """All fio result objects in ``data``, in file order; FioParseError when there is none."""
    if not data or data.isspace():  # (bytes.isspace: the ASCII whitespace bytes.strip removes; no copy)
        raise FioParseError("the file is empty.")
    start, end = data.find(b"{"), data.rfind(b"}")
    if start < 0:
        raise FioParseError("the file contains no JSON object (not fio JSON output).")
    if end < start:
        raise FioParseError("the JSON is truncated or malformed (no complete object could be read).")
    truncated = False
    try:
        obj = orjson.loads(memoryview(data)[start:end + 1])  # fast path: one object, maybe with text around it
    except orjson.JSONDecodeError:
        objs, truncated = _scan(data[start:], _PAIRS_DECODER if _CLIENT in data else _DECODER)
    else:
        if type(obj) is dict and "client_stats" in obj and "global options" in obj:  # keys may repeat
            obj = _PAIRS_DECODER.decode(data[start:end + 1].decode("utf-8", errors="replace"))
        objs = [obj]
        truncated = b"\n{" in data[end + 1:]  # another object starts after the last '}': cut short
    results = [o for o in objs if _is_fio_result(o)]
    if not results:
        if objs:
            raise FioParseError("the JSON has neither 'jobs' nor 'client_stats' (not a fio result).")
        raise FioParseError("the JSON is truncated or malformed (no complete object could be read).")
    if truncated:
        raise FioParseError("the last JSON object is truncated, so only interim (status-interval) numbers "
                            "would be left.")
    return results


def _scan(data: bytes, decoder: json.JSONDecoder = _DECODER) -> tuple[list[object], bool]:
    """Slow path: every complete top-level object that starts a line, and whether an object
    starting on a line after the last complete one could not be read (a truncated tail)."""
    text = data.decode("utf-8", errors="replace")
    out: list[object] = []
    pos = 0
    broken = False
    while True:
        i = text.find("{", pos)
        if i < 0:
            return out, broken
        if i > 0 and text[i - 1] not in "\n\r}":  # objects of fio start on a new line
            pos = i + 1
            continue
        try:
            obj, end = decoder.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
            broken = True
            pos = i + 1
            continue
        out.append(obj)
        broken = False
        pos = end


RUN_START = "lab_run_start"  # text parser: True when a new fio process printed the object, False for a report


def split_runs(objs: list[dict]) -> list[list[dict]]:
    """``objs`` (one file's result objects, in file order) grouped by fio process: one list per run, each
    holding that process's status-interval objects, its final numbers last (see the module docstring)."""
    runs: list[list[dict]] = []
    prev = None
    for obj in objs:
        if prev is None or _new_process(prev, obj):
            runs.append([obj])
        else:
            runs[-1].append(obj)
        prev = obj
    return runs


_RUN_SLACK_MS = 500
_GROWTH = 8.0  # an increment more than this many times the job's average rate: not the same job's I/O


def _new_process(a: dict, b: dict) -> bool:
    """Whether object ``b`` cannot be a later snapshot of the process that printed ``a``."""
    marker = b.get(RUN_START)
    if type(marker) is bool:
        return marker
    va, vb = a.get("fio version"), b.get("fio version")
    if va is not None and vb is not None and va != vb:
        return True
    try:
        ja, jb = _keyed(a), _keyed(b)
    except FioParseError:
        return False  # (the reader says what is wrong with the job list)
    shared = [k for k in jb if k in ja]
    if ja and jb and not shared:
        return True
    ta, tb, tol = _stamp_ms(a), _stamp_ms(b), 1000 + _RUN_SLACK_MS
    if ta is not None and tb is not None:
        if tb < ta - tol:
            return True
        if "timestamp_ms" not in a or "timestamp_ms" not in b:
            tol += 1000
        ea, eb = _elapsed_ms(ja), _elapsed_ms(jb)
        if ea is not None and eb is not None and abs((tb - eb) - (ta - ea)) > tol:
            return True
    if any(_in_ramp(ja[k]) for k in shared):
        return _disks_went_back(a, b)  # fio resets a job's numbers when its ramp_time ends (not the disks')
    return any(_went_back(ja[k], jb[k]) for k in shared) or _disks_went_back(a, b)


def _in_ramp(job: dict) -> bool:
    """Whether a job entry may be a snapshot taken during its ramp_time (or right at its end): no direction
    holds a latency sample yet (fio >= 3 counts them in ``N``; terse prints zeros, which the text parser
    leaves out).  fio records latencies, and resets the job's other numbers, only when the ramp ends.  A job
    run with gtod_reduce never records one: its runs are told apart by time stamps and disks alone."""
    for d in ("read", "write", "trim"):
        x = job.get(d)
        if not isinstance(x, dict):
            continue
        for k in ("lat_ns", "clat_ns", "lat", "clat"):
            blk = x.get(k)
            if isinstance(blk, dict) and (blk.get("N") or ("N" not in blk and blk.get("max"))):
                return False
    return True


def _keyed(obj: dict) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    seen: dict[tuple, int] = {}
    for job in _entries(obj):
        if isinstance(job, dict):
            key = tuple(str(job.get(k)) for k in ("jobname", "groupid", "hostname", "port"))
            n = seen[key] = seen.get(key, -1) + 1
            out[(*key, n)] = job
    return out


def _number(v: object) -> float | None:
    return float(v) if type(v) in (int, float) and v == v else None


def _stamp_ms(obj: dict) -> float | None:
    ms = _number(obj.get("timestamp_ms"))
    if ms is not None:
        return ms
    s = _number(obj.get("timestamp"))
    return None if s is None else s * 1000.0


def _elapsed_ms(jobs: dict[tuple, dict]) -> float | None:
    for job in jobs.values():
        e = _number(job.get("elapsed"))
        if e is not None:
            return e * 1000.0
    return None


def _grows(a: dict, b: dict, key: str) -> bool | None:
    """Whether ``b[key] >= a[key]`` (None when either is not a number)."""
    x, y = _number(a.get(key)), _number(b.get(key))
    return None if x is None or y is None else y >= x


def _went_back(a: dict, b: dict) -> bool:
    """Whether job entry ``b`` holds a counter below the same job's ``a`` (or an impossible increment)."""
    for key in ("job_runtime", "elapsed", "ctx", "majf", "minf"):
        if _grows(a, b, key) is False:
            return True
    for d in ("read", "write", "trim", "mixed"):
        da, db = a.get(d), b.get(d)
        if not isinstance(da, dict) or not isinstance(db, dict):
            continue
        if any(_grows(da, db, k) is False for k in ("runtime", "io_bytes", "total_ios")):
            return True
        for lat in ("lat_ns", "clat_ns", "lat", "clat"):
            la, lb = da.get(lat), db.get(lat)
            if isinstance(la, dict) and isinstance(lb, dict) and la.get("N", 1) and lb.get("N", 1):
                if _grows(la, lb, "max") is False or _grows(lb, la, "min") is False:
                    return True
        if any(_samples_went_back(da, db, kind) for kind in ("bw", "iops")):
            return True
        rt_a, rt_b = _number(da.get("runtime")), _number(db.get("runtime"))
        io_a, io_b = _number(da.get("io_bytes")), _number(db.get("io_bytes"))
        if None in (rt_a, rt_b, io_a, io_b) or io_b <= io_a:
            continue
        if rt_b <= rt_a:
            return True  # bytes without runtime
        rate = max(io_a / rt_a if rt_a else 0.0, io_b / rt_b)
        if (io_b - io_a) / (rt_b - rt_a) > _GROWTH * rate:
            return True
    return False


def _samples_went_back(da: dict, db: dict, kind: str) -> bool:
    """fio's bandwidth / IOPS samples (every 500 ms by default) of one direction: within a process their
    count only grows, their minimum only falls, their maximum only rises, and while no sample was added
    their minimum, maximum and mean stay exactly the same."""
    n_a, n_b = _number(da.get(f"{kind}_samples")), _number(db.get(f"{kind}_samples"))
    lo, hi, mean = f"{kind}_min", f"{kind}_max", f"{kind}_mean"
    if n_a is not None and n_b is not None:
        if n_b < n_a:
            return True
        if n_a == 0:
            return False
        if n_a == n_b and any(_number(da.get(k)) != _number(db.get(k)) for k in (lo, hi, mean)):
            return True
    elif not _number(da.get(hi)) or not _number(db.get(hi)):
        return False  # (no sample count, as in terse v3: no maximum, no samples)
    return _grows(db, da, lo) is False or _grows(da, db, hi) is False


def _disks_went_back(a: dict, b: dict) -> bool:
    da, db = a.get("disk_util"), b.get("disk_util")
    if not isinstance(da, list) or not isinstance(db, list):
        return False
    before = {(str(d.get("name")), str(d.get("hostname"))): d for d in da if isinstance(d, dict)}
    for d in db:
        if isinstance(d, dict):
            p = before.get((str(d.get("name")), str(d.get("hostname"))))
            if p is not None and (_grows(p, d, "read_ios") is False or _grows(p, d, "write_ios") is False):
                return True
    return False


def final_jobs(objs: list[dict]) -> list[dict]:
    """Job entries of the last object, plus any job only an earlier (status-interval) object holds.

    Entries are matched by (jobname, groupid, hostname, occurrence of that key), so numjobs
    clones with one name stay apart; the last object's order comes first.
    """
    if len(objs) == 1:
        return _entries(objs[0])
    final: dict[tuple, object] = {}
    for obj in objs:
        seen: dict[tuple, int] = {}
        for job in _entries(obj):
            key = tuple(str(job.get(k)) for k in ("jobname", "groupid", "hostname")) if isinstance(job, dict) else ()
            n = seen[key] = seen.get(key, -1) + 1
            final.pop((key, n), None)  # re-insert: the newest object's order wins
            final[(key, n)] = job
    return list(final.values())


def _entries(obj: dict) -> list:
    jobs = obj.get("jobs") if "jobs" in obj else obj.get("client_stats")
    if not isinstance(jobs, list):
        raise FioParseError("the 'jobs' entry is not a list (wrong schema).")
    return jobs
