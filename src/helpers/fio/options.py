"""fio option semantics: one home for each fact about fio's options as results record them.

* :data:`DIRECTIONS` -- fio's data directions in the order of its per-direction values ``r,w,t``;
* :data:`MIXED_MODES` -- the rw modes governed by ``rwmixread``/``rwmixwrite``;
* :data:`ALL_CLIENTS` -- the jobname of fio's client/server aggregate entry;
* :func:`direction_part` -- fio's ``r,w,t`` rule (bs, rate_iops, ...);
* :func:`option` and the converters -- an option value read as fio reads it, with fio's default when
  the option is absent.
"""

from __future__ import annotations

from typing import Any

from helpers.errors import LabError
from helpers.fio.units import parse_size

DIRECTIONS = ("read", "write", "trim")  # fio's ddir order: the parts of an 'r,w,t' value
MIXED_MODES = ("rw", "readwrite", "randrw")  # read/write mixes governed by rwmixread
ALL_CLIENTS = "All clients"  # jobname of the client/server aggregate of the per-host entries
NAN = float("nan")

# fio's defaults for the options the results table records (fio >= 2.x, Linux)
DEFAULT_RW = "read"
DEFAULT_BS = 4096
DEFAULT_IODEPTH = 1
DEFAULT_NUMJOBS = 1
DEFAULT_RWMIXREAD = 50.0
DEFAULT_IOENGINE = "psync"
DEFAULT_DIRECT = 0

# every option whose value a results row depends on (for "which options were unknown" sentences)
CONFIG_OPTIONS = ("rw", "readwrite", "bs", "blocksize", "iodepth", "numjobs", "rwmixread", "rwmixwrite",
                  "ioengine", "direct", "rate_iops", "group_reporting")


class OptionError(ValueError):
    """An option value fio would not have accepted; the message is one sentence."""


class Unknown:
    """An option that is set but whose value is not known for this job (the reason says why)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unknown({self.reason!r})"


def show(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def int_option(v: Any) -> int:
    """An integer option as fio reads it: flags without a value are 1, sizes take k/m/g suffixes."""
    s = str(v).strip().lower()
    if s in ("", "true", "yes", "on"):  # a flag option given without a value
        return 1
    if s in ("false", "no", "off"):
        return 0
    try:
        n = int(s)
    except ValueError:
        n = parse_size(s)
    if not 0 <= n < 2**63:
        raise ValueError(s)
    return n


def direction_part(raw: Any, direction: str) -> str:
    """fio's per-direction value 'r,w,t': a missing trailing part repeats the last ('' = fio's default)."""
    parts = [p.strip() for p in str(raw).split(",")]
    i = DIRECTIONS.index(direction)
    return parts[i] if i < len(parts) else parts[-1]


def option(options: dict, keys: tuple[str, ...], default: Any, conv, what: str) -> Any:
    """Option value converted; ``default`` when absent (fio's default); None when set but unknown."""
    for k in keys:
        if k in options:
            v = options[k]
            if type(v) is Unknown:
                return None
            try:
                return conv(v)
            except (ValueError, TypeError, LabError, OverflowError):
                raise OptionError(f"option {k}={show(v)} cannot be read as {what}.") from None
    return default


def rw_mode(options: dict) -> str | None:
    """The rw mode without fio's ':N' suffix (fio default read)."""
    return option(options, ("rw", "readwrite"), DEFAULT_RW, lambda v: str(v).split(":")[0].strip(), "an rw mode")


def bs(options: dict, direction: str) -> int | None:
    """Block size of one direction in bytes; an empty part is fio's default 4k."""
    def conv(raw: Any) -> int:
        part = direction_part(raw, direction)
        return parse_size(part) if part else DEFAULT_BS
    return option(options, ("bs", "blocksize"), DEFAULT_BS, conv, "a block size")


def rate_iops(options: dict, direction: str) -> float | None:
    """rate_iops cap of one direction; an empty part or 0 is no cap (NaN), as is an absent option."""
    def conv(raw: Any) -> float:
        part = direction_part(raw, direction)
        n = int_option(part) if part else 0
        return float(n) if n > 0 else NAN
    return option(options, ("rate_iops",), NAN, conv, "an IOPS rate")


def _pct(v: Any) -> float:
    x = float(str(v).strip())
    if not 0.0 <= x <= 100.0:
        raise ValueError(v)
    return x


def rwmixread(options: dict, rw: str | None) -> float | None:
    """Read share in percent of a mixed mode (fio default 50); NaN for pure modes; None when unknown."""
    if rw is None:
        return None
    if rw not in MIXED_MODES:
        return NAN
    if "rwmixread" in options:
        return option(options, ("rwmixread",), DEFAULT_RWMIXREAD, _pct, "a percentage")
    w = option(options, ("rwmixwrite",), 100.0 - DEFAULT_RWMIXREAD, _pct, "a percentage")
    return None if w is None else 100.0 - w


def target(options: dict) -> tuple[str | None, int | None]:
    """The target a job names (fio's ``filename``; None when absent or unknown) and its ``size`` in bytes (None
    when absent, unknown or not a plain size such as '80%' or a range): settings the result states, for
    telling two runs apart; never an error of the entry."""
    name = options.get("filename")
    name = str(name) if isinstance(name, (str, int)) and str(name).strip() else None
    size = options.get("size")
    try:
        size = int_option(size) if isinstance(size, (str, int)) and not isinstance(size, bool) else None
    except (ValueError, LabError):
        size = None
    return name, size if size else None
