"""Parsing of fio-style sizes and formatting of byte quantities.

fio's default ``kb_base=1024`` makes ``4k`` = 4096 bytes.  We accept the same
binary suffixes (k, m, g, t, optionally followed by ``i``/``iB``: ``4KiB``) and reject
ambiguous spellings such as ``4kb`` instead of guessing.
"""

from __future__ import annotations

import re

from helpers.errors import LabError

_SUFFIX = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b?)?\s*$", re.IGNORECASE)


def parse_size(value: int | str, what: str = "size") -> int:
    """Return a byte count for ``4096``, ``"4k"``, ``"1m"``, ``"4KiB"``; raise LabError otherwise."""
    if isinstance(value, bool):
        raise LabError(f"{what} {value!r} is not a size: use bytes or a k/m/g suffix, e.g. 4k.")
    if isinstance(value, int):
        if value <= 0:
            raise LabError(f"{what} {value!r} must be a positive number of bytes.")
        return value
    m = _SIZE_RE.match(str(value))
    tail = (m.group(3) or "").lower() if m else ""
    # "4kib" and "4k" are fine; "4kb" is ambiguous (decimal or binary?) and "4b" is odd.
    if not m or tail not in ("", "ib") or (tail and not m.group(2)):
        raise LabError(
            f"{what} {value!r} is not a size: use bytes or a k/m/g suffix (binary, 4k = 4096 bytes), e.g. 4k."
        )
    n = int(m.group(1)) * _SUFFIX[m.group(2).lower()]
    if n <= 0:
        raise LabError(f"{what} {value!r} must be a positive number of bytes.")
    return n


def format_bytes(n: float) -> str:
    """``4096`` -> ``"4k"``, ``1048576`` -> ``"1m"`` (fio's binary spelling); other values as bytes."""
    n = int(n)
    for suffix, factor in (("g", 1024**3), ("m", 1024**2), ("k", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)
