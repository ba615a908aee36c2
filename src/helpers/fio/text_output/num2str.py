"""fio's num2str (``45.2k``, ``177MiB``) read back, latency units and percentile keys."""

from __future__ import annotations

import re

_UNIT_NS = {"nsec": 1, "usec": 1_000, "msec": 1_000_000}
# --- fio's num2str ----------------------------------------------------------------------------------

_NUM2STR = re.compile(r"^(\d+(?:\.\d+)?)([kKMGTPE]?)(i?)(B|bit)?(?:/s)?$")
_PREFIX = "KMGTPE"


def _num2str(tok: str, k_base: int = 1000) -> tuple[float, bool]:
    """(value, rounded) of one num2str figure: ``45.2k`` -> (45200.0, True), ``8420`` -> exact.

    ``Ki``/``Mi``... are powers of 1024, ``k``/``M``... powers of ``k_base`` (1000 in fio 3.x;
    fio 2.x printed byte sizes as ``KB``/``MB`` in powers of 1024).  ``bit`` figures become bytes.
    """
    m = _NUM2STR.match(tok.strip())
    if not m:
        raise ValueError(tok)
    value = float(m.group(1))
    prefix = m.group(2).upper()
    if prefix:
        value *= (1024 if m.group(3) else k_base) ** (_PREFIX.index(prefix) + 1)
    if m.group(4) == "bit":
        value /= 8
    return value, bool(prefix) or "." in m.group(1)


def _pct_key(p: float) -> str:
    return f"{p:f}"  # fio's JSON key: "%f" of the percentile ("99.900000")


def _pct_column(kind: str, p: float) -> str:
    return f"{kind}_p{p:g}".replace(".", "_") + "_us"  # 99.9 -> clat_p99_9_us (schema naming)


