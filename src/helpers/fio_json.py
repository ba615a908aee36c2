"""Reading fio's JSON output as it really appears in files.

fio may print notes or errors before the JSON, normal text after it
(``--output-format=json,normal``), or several JSON objects one after another
(``--status-interval``).  :func:`parse_fio_bytes` returns every fio result object found.
"""

from __future__ import annotations

import json

import orjson


class FioParseError(ValueError):
    """The bytes hold no usable fio JSON result; the message is one sentence."""


_DECODER = json.JSONDecoder()


def _is_fio_result(obj: object) -> bool:
    return isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj)


def parse_fio_bytes(data: bytes) -> list[dict]:
    """All fio result objects in ``data``, in file order; FioParseError when there is none."""
    if not data.strip():
        raise FioParseError("the file is empty.")
    start, end = data.find(b"{"), data.rfind(b"}")
    if start < 0 or end < start:
        raise FioParseError("the file contains no JSON object (not fio JSON output).")
    try:
        obj = orjson.loads(data[start:end + 1])  # fast path: one object, maybe with text around it
    except orjson.JSONDecodeError:
        objs = _scan(data[start:])
    else:
        objs = [obj]
    results = [o for o in objs if _is_fio_result(o)]
    if not results:
        if objs:
            raise FioParseError("the JSON has neither 'jobs' nor 'client_stats' (not a fio result).")
        raise FioParseError("the JSON is truncated or malformed (no complete object could be read).")
    return results


def _scan(data: bytes) -> list[object]:
    """Slow path: decode every complete top-level object that starts a line."""
    text = data.decode("utf-8", errors="replace")
    out: list[object] = []
    pos = 0
    while True:
        i = text.find("{", pos)
        if i < 0:
            return out
        if i > 0 and text[i - 1] not in "\n\r}":  # objects of fio start on a new line
            pos = i + 1
            continue
        try:
            obj, end = _DECODER.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
            pos = i + 1
            continue
        out.append(obj)
        pos = end
