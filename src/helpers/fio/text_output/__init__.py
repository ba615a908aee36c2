"""Reading fio's human-readable (normal) and terse text output as fio-JSON-shaped objects.

:func:`parse_fio_text` turns the bytes of a file holding fio's ``--output-format=normal`` output
(fio 2.x ``read : io=..., bw=..., iops=..., runt=...`` and fio 2.18+/3.x ``read: IOPS=..., BW=...``
forms, Linux or Windows line ends) or its terse output (``--minimal`` / ``--output-format=terse``,
terse versions 2-5) into result objects shaped like fio's JSON (``{"jobs": [...]}``), so the one
fio reader reads both.  Units follow fio 3.x JSON: ``*_ns`` blocks in nanoseconds, ``io_bytes`` in
bytes (``io_kbytes`` = io_bytes >> 10), ``bw_bytes`` in B/s (``bw`` KiB/s), ``runtime`` in ms.

Only what the text states is present; anything else is absent, never a default (gtod_reduce: no
latency blocks; terse: no ``total_ios``; a latency that terse prints as all zeros was not measured).
Every job entry carries ``"lab_text": {"format": "normal"|"terse", "rounded": [...]}`` where
``rounded`` lists the result-table columns (``iops``, ``bw_bytes_per_s``, ``io_bytes``,
``clat_p99_us``, ``lat_mean_us``, ``usr_cpu_pct`` ...) whose value the text printed with less
precision than fio's JSON (fio's num2str ``45.2k``/``177MiB``, integer truncation of a fraction,
``%.2f`` of a microsecond, latencies truncated or rounded up to whole us/ms).  The value stored is
the printed number in the stated unit.  Rules, from fio's stat.c:

* normal: ``IOPS=`` is printed truncated and through num2str, so ``iops`` is computed as fio
  computes it for JSON, ``1000 * total_ios / runtime``, from the exact ``issued`` count and the
  exact runtime (checked against the printed figure; if they disagree the printed value is kept and
  marked rounded).  Byte counts and bandwidths with a k/M/G prefix are rounded.  Latency min/max
  are truncated to the printed unit and averages have two decimals: exact only in ``(nsec)`` (or
  ``(usec)`` on fio 2.x, which measured in us).  Percentiles shown in usec/msec are rounded up
  (exact in nsec, or in usec on fio 2.x).  CPU percentages have two decimals.
* terse: ``io`` in KiB (truncated), bandwidth in KiB/s (truncated) and IOPS (truncated) are
  rounded; runtime is exact; min/max and percentiles are whole microseconds (truncated from ns on
  fio 3.x, exact on fio 2.x); means and deviations are ``%f`` microseconds (1 ps), not rounded.
  Terse percentiles are completion latency per fio's documentation, but fio >= 3.1 writes
  total-latency percentiles there when the job set ``lat_percentiles=1``, which the line does not
  record; ``lab_text["percentiles"]`` says "clat" or "lat" when the fio version (< 3.1) or the
  min/max prove which, else that clat is assumed.

Several fio runs in one file give one object each (a new run starts at a job-definition or
version line after results); ``--status-interval`` reports give one object per report, as fio's
JSON does, so ``json_output.final_jobs`` keeps the final numbers.  Client/server output (the
servers' text prefixed ``<host>``, each client's results printed as one block, then ``All clients``)
gives one object with ``client_stats`` like fio's JSON; an entry's ``hostname`` is set only when
one server spoke (the blocks do not say which client they belong to), the port never.  Output
pasted with an indentation or captured in a log with a prefix on every line (``12:10:43 DEBUG|
[stdout] ``) is read too.  ``lab_text`` may also hold ``jobs`` (normal: how many threads fio
merged into the entry),
``error_message`` (fio's own error text) and ``description``.  :class:`FioParseError` (one
sentence) when the bytes hold no fio text result.
"""

from __future__ import annotations

import re

from helpers.fio.json_output import FioParseError
from helpers.fio.text_output.normal import _SPLIT, _parse_normal
from helpers.fio.text_output.terse import _TERSE_IN, _parse_terse

NOT_FIO_TEXT = "the file holds neither fio JSON nor fio's normal or terse text output."

# --- entry point ------------------------------------------------------------------------------------

_CPU_AT = re.compile(r"^(?P<prefix>.*?)  cpu {10}: usr=")


def _unprefix(lines: list[str]) -> list[str]:
    """Lines without the prefix a log or a paste put before each of fio's lines.

    fio prints its cpu line as "  cpu          : usr=..." exactly; whatever stands before it (an
    indentation, "12:10:43 DEBUG| [stdout] ") is a prefix, matched with any digits in place of its
    digits (timestamps change from line to line), and is removed wherever it starts a line.
    """
    prefixes = {m.group("prefix") for ln in lines if (m := _CPU_AT.match(ln)) and m.group("prefix")}
    if not prefixes:
        return lines
    pats = [re.compile("".join(r"\d" if c.isdigit() else re.escape(c) for c in p)) for p in prefixes]
    out = []
    for ln in lines:
        for pat in pats:
            m = pat.match(ln)
            if m:
                ln = ln[m.end():]
                break
        out.append(ln)
    return out

def parse_fio_text(data: bytes) -> list[dict]:
    """fio-JSON-shaped result objects from fio's normal or terse text output, in file order.

    Raises :class:`FioParseError` (one sentence) when the bytes hold no fio text result.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with BOM: Windows PowerShell's "fio ... > out.txt"
        text = data.decode("utf-16", errors="replace")
    else:
        if b"\0" in data[:8192]:
            raise FioParseError("the file is binary, not fio text output.")
        text = data.decode("utf-8-sig", errors="replace")
    if not text or text.isspace():
        raise FioParseError("the file is empty.")
    lines = _unprefix(_SPLIT.split(text))
    terse = []
    for i, ln in enumerate(lines):
        m = _TERSE_IN.match(ln)
        if m:
            terse.append((i + 1, ln[m.start(1) if m.group(1) else 0:].strip()))
    objs = _parse_terse(terse) if terse else []
    try:
        objs += _parse_normal(lines)
    except FioParseError:
        raise
    except (ValueError, IndexError):  # a line shaped like fio's with a figure fio never prints
        raise FioParseError("the file looks like fio's normal output but has a figure fio does not print "
                            "(edited or not fio output).") from None
    if not objs:
        raise FioParseError(NOT_FIO_TEXT)
    return objs
