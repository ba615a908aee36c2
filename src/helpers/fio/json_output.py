"""Reading fio's JSON output as it really appears in files.

fio may print notes or errors before the JSON, normal text after it
(``--output-format=json,normal``), or several JSON objects one after another
(``--status-interval``).  :func:`parse_fio_bytes` returns every fio result object found;
:func:`final_jobs` keeps the final entry of each job across status-interval objects.

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
