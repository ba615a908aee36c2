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
import operator
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from helpers.fio import options as fo
from helpers.fio.json_output import DUPLICATES, final_jobs, split_runs
from helpers.fio.latency import latency_name
from helpers.fio.options import ALL_CLIENTS, DIRECTIONS, NAN, OptionError, Unknown, show

# fio's percentile keys (its default list) -> column suffix
PERCENTILE_KEYS: dict[str, str] = {
    "50.000000": "p50", "90.000000": "p90", "95.000000": "p95", "99.000000": "p99",
    "99.900000": "p99_9", "99.990000": "p99_99",
}
NOT_RECORDED = "options not recorded by this fio version"
TERSE_PERCENTILES_ASSUMED = (f"terse percentiles taken as {latency_name('clat')}, as fio documents them; fio >= 3.1 "
                             "writes total latency there when the job set lat_percentiles=1, which terse does not record")
DISK_FIELDS = ("read_ios", "write_ios", "read_merges", "write_merges")
_NO_DISK = (None, None, None, None)
_NAN6 = (NAN,) * len(PERCENTILE_KEYS)
_NAN4 = (NAN,) * 4
_INT6 = (int,) * len(PERCENTILE_KEYS)
_PCTS = operator.itemgetter(*PERCENTILE_KEYS)  # (KeyError when one is missing)
_STATS = operator.itemgetter("mean", "stddev", "min", "max")
_DIR_NS = operator.itemgetter("io_bytes", "iops", "runtime", "bw_bytes", "lat_ns", "clat_ns", "slat_ns")


class EntryError(ValueError):
    """A job entry (or file) that is not a data point; the message is one sentence."""


# --- values ------------------------------------------------------------------------------------

def _what(what: str | tuple) -> str:
    """``what`` may be a tuple of parts (joined only when a message needs it: no formatting cost on the
    fast path)."""
    return what if isinstance(what, str) else "".join(what)


def _num(v: Any, what: str | tuple) -> float:
    if (type(v) is float or type(v) is int) and _isfinite(v):  # bool is not a number here
        return float(v)
    raise EntryError(f"{_what(what)} is {show(v)}, not a finite number (wrong schema).")


def _count(v: Any, what: str | tuple) -> int:
    if type(v) is int and 0 <= v < 2**63:
        return v
    if type(v) is float and v.is_integer() and 0 <= v < 2**63:
        return int(v)
    raise EntryError(f"{_what(what)} is {show(v)}, not a count (wrong schema).")


_isfinite = math.isfinite
_INT64_MAX = 2**63 - 1
_NS = 1000.0  # ns per µs
_NUMBER = (float, int)  # type(v) in _NUMBER: a JSON number (bool is not one here)
_NUMBER_TYPES = frozenset(_NUMBER)


def _req(d: dict, key: str, direction: str) -> Any:
    try:
        return d[key]
    except KeyError:
        raise EntryError(f"the job's '{direction}' entry has no '{key}' key (wrong schema).") from None


def _version_before(version: str | None, major: int, minor: int, patch: int = 0) -> bool:
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if not m:
        return False
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) < (major, minor, patch)


# --- latency -------------------------------------------------------------------------------------

def latency_block(d: dict, name: str) -> tuple[dict | None, float]:
    """The latency stats block ``name`` (lat, clat, slat) and its divisor to µs (fio >= 3: ``*_ns``, 1000;
    fio 2.x: µs, 1); (None, NaN) when absent or not measured (``N: 0``, or all zeros in older fio).
    Dividing (not multiplying by 1e-3) gives the correctly rounded µs of fio's integer ns."""
    blk = d.get(f"{name}_ns")
    factor = 1000.0
    if blk is None:
        blk = d.get(name)
        factor = 1.0
        if blk is None:
            return None, NAN
    if type(blk) is not dict:
        raise EntryError(f"the '{name}' latency entry is not an object (wrong schema).")
    n = blk.get("N")
    if n is not None:
        if n == 0:
            return None, NAN
    elif not blk.get("max") and not blk.get("mean") and not blk.get("min"):
        return None, NAN
    return blk, factor


def _stats(block: dict | None, factor: float, name: str) -> tuple[float, float, float, float]:
    """(mean, stddev, min, max) of a latency block in µs (NaN when absent)."""
    if block is None:
        return NAN, NAN, NAN, NAN
    g = block.get
    vals = (g("mean"), g("stddev"), g("min"), g("max"))
    if all(type(v) is float or type(v) is int for v in vals) and all(map(_isfinite, vals)):  # the usual case
        return tuple(map(factor.__rtruediv__, vals))
    out = []
    for key in ("mean", "stddev", "min", "max"):
        v = block.get(key)
        out.append(NAN if v is None else _num(v, (name, " ", key)) / factor)
    return tuple(out)


def _percentiles(block: dict | None, factor: float, what: str) -> tuple:
    if block is None:
        return _NAN6
    pct = block.get("percentile")
    if not pct:
        return _NAN6
    if type(pct) is not dict:
        raise EntryError(f"the {what} 'percentile' entry is not an object (wrong schema).")
    try:
        vals = [pct[k] for k in PERCENTILE_KEYS]
    except KeyError:
        vals = None
    if vals is not None and all(type(v) is int for v in vals):  # the usual case: fio's integer ns (or µs)
        return tuple(map(factor.__rtruediv__, vals))
    out = []
    for k in PERCENTILE_KEYS:
        v = pct.get(k)
        out.append(NAN if v is None else _num(v, (what, " percentile ", k)) / factor)
    return tuple(out)


def _bins(block: dict, what: str) -> tuple[np.ndarray, np.ndarray] | None:
    bins = block.get("bins")
    if bins is None:
        return None
    if type(bins) is not dict:
        raise EntryError(f"the {what} 'bins' entry is not an object (wrong schema).")
    n = len(bins)
    digits = True  # keys read from plain digit strings (the table, _digit_keys): never negative
    try:  # fio's bins are its fixed latency buckets: their keys recur in every file (one C-level lookup of all)
        keys = np.fromiter(operator.itemgetter(*bins)(_BIN_KEYS) if n > 1 else map(_BIN_KEYS.__getitem__, bins),
                           dtype=np.int64, count=n)
    except (KeyError, TypeError):
        keys = _digit_keys(bins, n)
        if keys is not None and len(_BIN_KEYS) < _BIN_KEYS_MAX:
            _BIN_KEYS.update(zip(bins, keys.tolist()))
    try:
        if keys is None:
            digits = False
            keys = np.fromiter(map(int, bins), dtype=np.int64, count=n)  # int(): as numpy's str cast
        counts = np.fromiter(bins.values(), dtype=np.int64, count=n)
    except (ValueError, TypeError, OverflowError):
        raise EntryError(f"the {what} 'bins' keys or counts are not integers (wrong schema).") from None
    if n and ((not digits and keys.min() < 0) or counts.min() < 0):
        raise EntryError(f"the {what} 'bins' hold negative latencies or counts (wrong schema).")
    return keys, counts


_NOT_DIGITS = b"0123456789 "
_BIN_KEYS: dict[str, int] = {}  # bin key -> its value, for keys :func:`_digit_keys` read (plain digits)
_BIN_KEYS_MAX = 1 << 16  # fio has 1856 buckets (FIO_IO_U_PLAT_NR); a bound all the same


def _digit_keys(bins: dict, n: int) -> np.ndarray | None:
    """The keys of ``bins`` as int64 in one C pass when every key is a plain ASCII digit string (what
    fio writes), else None (the caller converts them one by one).  The keys joined with single spaces
    hold only digits and single spaces, neither first nor last, and parse to ``n`` numbers exactly when
    each key is a non-empty run of digits; a number beyond int64 (numpy saturates it) is left to the
    caller too."""
    try:
        s = " ".join(bins)
    except TypeError:
        return None
    if not s or not s.isascii() or s.encode().translate(None, _NOT_DIGITS) or "  " in s or s[0] == " " \
            or s[-1] == " ":
        return None
    keys = np.fromstring(s, dtype=np.int64, sep=" ")
    return keys if len(keys) == n and keys.max() < _INT64_MAX else None


# --- the records ---------------------------------------------------------------------------------

@dataclass(slots=True)
class Direction:
    """The measured numbers of one direction (µs, bytes, seconds; NaN/None when not measured)."""

    direction: str
    runtime_s: float
    io_bytes: int
    total_ios: int | None  # None: fio < 2.1.14 wrote no total_ios
    iops: float
    bw_bytes_per_s: float
    lat_mean_us: float  # total latency (slat + clat)
    lat_stddev_us: float
    lat_min_us: float
    lat_max_us: float
    clat_mean_us: float
    slat_mean_us: float
    clat_pct_us: tuple  # PERCENTILE_KEYS order
    lat_pct_us: tuple  # percentiles of total latency (fio writes them with lat_percentiles=1)
    bins: tuple[np.ndarray, np.ndarray] | None = None  # json+ (bin_ns, count)
    bins_latency: str | None = None  # 'lat' or 'clat': which latency the bins are of


@dataclass(slots=True)
class Config:
    """The configuration a job entry states (fio's defaults for options it leaves out; None when the
    file does not say, with the reason in ``note``)."""

    options: dict
    rw: str | None
    iodepth: int | None
    numjobs: int | None
    rwmixread_pct: float | None
    ioengine: str | None
    direct: int | None
    group_reporting: bool
    note: str | None = None
    recorded: bool = True
    target_file: str | None = None  # fio's filename option (None: not stated)
    target_size_bytes: int | None = None  # fio's size option in bytes (None: not stated or not a plain size)
    bs: dict = field(default_factory=dict)  # direction -> block size in bytes, read when first asked
    rate: dict = field(default_factory=dict)  # direction -> rate_iops cap (NaN: none), read when first asked

    def bs_bytes(self, direction: str) -> int | None:
        """Block size of one direction in bytes (None: unknown); EntryError when fio could not have read it."""
        if not self.recorded:
            return None
        v = self.bs.get(direction, self)
        if v is self:
            try:
                v = self.bs[direction] = fo.bs(self.options, direction)
            except OptionError as exc:
                raise EntryError(str(exc)) from None
        return v

    def rate_iops(self, direction: str) -> float | None:
        """rate_iops cap of one direction (NaN: not rate-limited; None: unknown)."""
        if not self.recorded:
            return None
        v = self.rate.get(direction, self)
        if v is self:
            try:
                v = self.rate[direction] = fo.rate_iops(self.options, direction)
            except OptionError as exc:
                raise EntryError(str(exc)) from None
        return v


@dataclass(slots=True)
class LatencyTarget:
    """fio's latency_target mode as a job entry reports it: fio searched the queue depth (1..iodepth) at
    which ``percentile`` % of each ``window_us`` window's I/Os had total latency <= ``target_us``, and
    ended on ``depth``; the entry's numbers are those since fio last reset its statistics."""

    depth: int
    target_us: float
    percentile: float
    window_us: float


def _latency_target(job: dict) -> LatencyTarget | None:
    """None unless the job ran with a latency target: fio writes ``latency_depth`` for every job (its
    iodepth, with ``latency_target`` 0, when there is no target)."""
    target_ns = job.get("latency_target_ns", job.get("latency_target"))
    if not target_ns or "latency_depth" not in job:
        return None
    window_us = job.get("latency_window_us", job.get("latency_window"))
    return LatencyTarget(_count(job["latency_depth"], "latency_depth"), _num(target_ns, "latency_target") / 1000.0,
                         _num(job.get("latency_percentile"), "latency_percentile"), _num(window_us, "latency_window"))


@dataclass(slots=True)
class Entry:
    index: int  # position in the file's (final) job list
    name: str | None
    hostname: str | None
    port: str | None
    aggregate: bool = False  # client/server "All clients" entry
    job: dict | None = None
    config: Config | None = None
    directions: list[Direction] = field(default_factory=list)
    usr_cpu_pct: float = NAN
    sys_cpu_pct: float = NAN
    disk: tuple = _NO_DISK
    source_format: str = "json"
    rounded_columns: str | None = None
    text_note: str | None = None  # what a text source leaves open about this entry's numbers (see _entry)
    latency_target: LatencyTarget | None = None  # fio's latency_target mode: the depth fio chose
    error: str | None = None  # why this entry is not a data point (one sentence)


@dataclass(slots=True)
class Result:
    fio_version: str | None
    timestamp: int | None
    client: bool
    entries: list[Entry]
    run_index: int = 0  # which fio process of the file (0 = the first; several when runs were appended)
    runs: int = 1  # how many fio processes the file held


# --- options -------------------------------------------------------------------------------------

def _check_block(block: Any, what: str) -> dict:
    if block is None:
        return {}
    if type(block) is not dict and not isinstance(block, dict):
        raise EntryError(f"{what} is not an object (wrong schema).")
    return block


class _Globals:
    """Which 'global options' apply to which entry (see the module docstring)."""

    def __init__(self, obj: dict, n_clients: int) -> None:
        self.present = "global options" in obj
        self.error: str | None = None
        self.unknown = False  # some option's value is not known for some entry
        self.shared: dict = {}
        self.per_client: dict[tuple[str, str], dict] | None = None
        g = obj.get("global options")
        try:
            if isinstance(g, list):
                self._list(g)
            else:
                g = _check_block(g, "the file's 'global options'")
                self.shared = self._merge_duplicates(g, n_clients)
        except EntryError as exc:
            self.error = str(exc)
        blocks = [self.shared, *(self.per_client or {}).values()]
        self.unknown = any(type(v) is Unknown for b in blocks for v in b.values())

    @staticmethod
    def _merge_duplicates(g: dict, n_clients: int) -> dict:
        dups = getattr(g, DUPLICATES, None) or {}
        if n_clients <= 1 and not dups:
            return g
        out = {}
        for k, v in g.items():
            values = dups.get(k, [v])
            if n_clients > 1 and len(values) < n_clients:
                out[k] = Unknown(f"set in the 'global options' of only {len(values)} of the {n_clients} clients, "
                                 "so not attributable to this one")
            elif any(x != values[0] for x in values):
                shown = ", ".join(dict.fromkeys(show(x) for x in values))
                out[k] = Unknown(f"given different values by the clients' 'global options' ({shown})")
            else:
                out[k] = values[0]
        return out

    def _list(self, g: list) -> None:
        blocks = [_check_block(b, "an item of the file's 'global options' list") for b in g]
        if all("hostname" in b for b in blocks) and blocks:  # fio >= 3.39: one block per client
            self.per_client = {}
            for b in blocks:
                key = (str(b.get("hostname")), str(b.get("port")))
                opts = {k: v for k, v in b.items() if k not in ("hostname", "port")}
                prev = self.per_client.get(key)
                if prev is not None:  # two connections to one host:port: keep only what both blocks say alike
                    unsure = Unknown(f"not set alike by the 'global options' of the clients connected to "
                                     f"{key[0]}:{key[1]}, whose entries cannot be told apart")
                    opts = {k: prev[k] if k in prev and k in opts and prev[k] == opts[k] else unsure
                            for k in {**prev, **opts}}
                self.per_client[key] = opts
        elif len(blocks) == 1:  # some tools write the one object as a one-item list
            self.shared = blocks[0]
        else:
            keys = dict.fromkeys(k for b in blocks for k in b)
            self.shared = {k: Unknown(f"set in one of {len(blocks)} 'global options' blocks without hostname, "
                                      "so not attributable to a job") for k in keys}

    def for_entry(self, hostname: str | None, port: str | None) -> dict:
        if self.error:
            raise EntryError(self.error)
        if self.per_client is not None:
            return self.per_client.get((str(hostname), str(port)), {})  # no block: no global options
        return self.shared


def _config(job: dict, glob: _Globals, version: str | None, entries_alike: int, text_format: str | None) -> Config:
    """``entries_alike``: entries with this one's jobname, groupid and client (numjobs clones reported
    one by one when it equals numjobs; fewer means fio grouped them)."""
    j = job.get("job options")
    if not glob.present and j is None:
        if text_format:
            note = f"options not recorded in fio's {text_format} output"
        elif _version_before(version, 2, 3):
            note = f"{NOT_RECORDED} ({version} wrote no option blocks)"
        else:
            note = "options not recorded in the file (no 'global options' or 'job options' block)"
        return Config({}, None, None, None, None, None, None, False, note, recorded=False)
    g = glob.for_entry(job.get("hostname"), job.get("port"))
    if j is None:
        j = {}
    elif not isinstance(j, dict):
        raise EntryError("the job's 'job options' is not an object (wrong schema).")
    for k, v in (*g.items(), *j.items()):
        if not isinstance(v, (str, int, float, Unknown)) or isinstance(v, bool):
            raise EntryError(f"option {k}={show(v)} is not a string (wrong schema).")
    opts = {**g, **j}
    if text_format:  # text states only what it prints: an option it leaves out is unknown, not fio's default
        missing = Unknown(f"not printed in fio's {text_format} output")
        for keys in (("rw", "readwrite"), ("bs", "blocksize"), ("iodepth",), ("numjobs",), ("ioengine",), ("direct",),
                     ("rate_iops",), ("rwmixread", "rwmixwrite")):
            if not any(k in opts for k in keys):
                opts[keys[0]] = missing
    try:
        rw = fo.rw_mode(opts)
        iodepth = fo.option(opts, ("iodepth",), fo.DEFAULT_IODEPTH, fo.int_option, "a queue depth")
        numjobs = fo.option(opts, ("numjobs",), fo.DEFAULT_NUMJOBS, fo.int_option, "a job count")
        rwmix = fo.rwmixread(opts, rw)
        ioengine = fo.option(opts, ("ioengine",), fo.DEFAULT_IOENGINE, str, "an engine name")
        direct = fo.option(opts, ("direct",), fo.DEFAULT_DIRECT, fo.int_option, "0 or 1")
        grouped = bool(fo.option(opts, ("group_reporting",), 0, fo.int_option, "0 or 1")) or (
            (numjobs or 1) > 1 and entries_alike < numjobs)
    except OptionError as exc:
        raise EntryError(str(exc)) from None
    note = None
    if (glob.unknown or text_format) and any(type(v) is Unknown for v in opts.values()):
        by_reason: dict[str, list[str]] = {}
        for k in fo.CONFIG_OPTIONS:
            v = opts.get(k)
            if type(v) is Unknown and not (k.startswith("rwmix") and rw is not None and rw not in fo.MIXED_MODES):
                by_reason.setdefault(v.reason, []).append(k)
        note = "; ".join(f"{', '.join(ks)} {r}" for r, ks in by_reason.items()) or None
    target_file, target_size = fo.target(opts)
    return Config(opts, rw, iodepth, numjobs, rwmix, ioengine, direct, grouped, note,
                  target_file=target_file, target_size_bytes=target_size)


def _client_count(obj: dict, jobs: list) -> int:
    """Client connections of a client/server result (a lower bound): distinct host:port of the entries,
    the most times one host:port reports one disk (fio repeats disk_util per connection), and at least
    2 when fio wrote the "All clients" aggregate (it does so for more than one client)."""
    hosts = {(str(j.get("hostname")), str(j.get("port"))) for j in jobs
             if type(j) is dict and j.get("jobname") != ALL_CLIENTS}
    n = max(len(hosts), 2 if any(type(j) is dict and j.get("jobname") == ALL_CLIENTS for j in jobs) else 1)
    du = obj.get("disk_util")
    if isinstance(du, list):
        seen: dict[tuple, int] = {}
        for e in du:
            if isinstance(e, dict):
                k = (str(e.get("hostname")), str(e.get("port")), str(e.get("name")))
                seen[k] = seen.get(k, 0) + 1
        n = max(n, *seen.values()) if seen else n
    return n


# --- disk_util -----------------------------------------------------------------------------------

def disk_ios(obj: dict, client: bool) -> dict:
    """{(hostname, port) or None: (read_ios, write_ios, read_merges, write_merges)} from disk_util;
    {} when the file has no usable disk_util.

    Each I/O is counted once, at the top of a device stack: when the list holds stacked devices
    (entries with fio's ``aggr_*`` fields, e.g. dm-0 or md0, whose member disks fio lists beside
    them with the same I/Os again), only those entries count; otherwise every entry is summed.
    Client/server files: per host:port, a disk repeated once per client connection counts once (its
    largest numbers).
    """
    du = obj.get("disk_util")
    if not isinstance(du, list) or not du:
        return {}
    try:
        per: dict[Any, dict[Any, list[int]]] = {}
        stacked: dict[Any, bool] = {}
        for e in du:
            if "aggr_read_ios" in e or "aggr_util" in e:
                stacked[(str(e.get("hostname")), str(e.get("port"))) if client else None] = True
        for i, e in enumerate(du):
            host = (str(e.get("hostname")), str(e.get("port"))) if client else None
            if stacked and stacked.get(host) and not ("aggr_read_ios" in e or "aggr_util" in e):
                continue  # a member of a stacked device: its I/Os are the stacked device's again
            vals = [_count(e.get(k, 0) if k.endswith("merges") else e[k], k) for k in DISK_FIELDS]
            disk = str(e.get("name")) if client else i
            cur = per.setdefault(host, {}).setdefault(disk, [0, 0, 0, 0])
            cur[:] = [max(a, b) for a, b in zip(cur, vals)]
        return {h: tuple(sum(v[k] for v in d.values()) for k in range(4)) for h, d in per.items()}
    except (EntryError, KeyError, TypeError, AttributeError):
        return {}  # ancillary numbers: unusable disk stats leave the columns None, not the result


# --- errors --------------------------------------------------------------------------------------

_MSG_KEYS = re.compile(r"^(verror|err(or)?[ _-]?(msg|message|str(ing)?|text|desc(ription)?))$", re.IGNORECASE)


def error_sentence(job: dict, err: int, data: bytes = b"") -> str:
    """Why an error job is not a measurement, with fio's own words when the file has them."""
    msg = None
    for k, v in job.items():
        if isinstance(v, str) and v.strip() and _MSG_KEYS.match(k):
            msg = v.strip()
            break
    if msg is None and data:
        text = data.decode("utf-8", errors="replace")
        name = re.escape(str(job.get("jobname", "")))
        m = re.search(rf"^{name}: \(groupid=\d+, jobs=\d+\): err=\s*{err} \(([^\n]*?)\)(?:: pid=|\s*$)", text, re.M)
        m = m or re.search(rf"^fio: pid=\d+, err={err}/([^\n]*)$", text, re.M)
        if m:
            detail = m.group(1).strip()
            e = re.search(r"error=(.*)$", detail)
            msg = (e.group(1) if e else detail).strip().rstrip(".") or None
    detail = f"fio: {msg}" if msg else "the file has no message for it"  # (the number is said once, above)
    return f"fio reported error {err} for this job ({detail}), so its numbers are not a measurement."


# --- one entry -----------------------------------------------------------------------------------

def _direction(d: dict, direction: str) -> Direction | None:
    """The measured numbers of one direction; None when it did no I/O."""
    ios = d.get("total_ios")
    if ios == 0 and type(ios) is int:  # the common idle direction: nothing else to read
        return None
    if type(ios) is int and "io_kbytes" in d:
        try:
            out = _direction_ns(d, direction, ios)
        except Exception:  # noqa: BLE001 - not the usual shape: the general path says what is wrong
            out = None
        if out is not None:
            return out
    return _direction_any(d, direction)


def _direction_any(d: dict, direction: str) -> Direction | None:
    """:func:`_direction` for any shape fio ever wrote (and the reason when it is not a data point)."""
    ios = d.get("total_ios")
    if ios is not None:
        ios = _count(ios, (direction, ".total_ios"))
        if ios == 0:
            return None
    legacy = "io_kbytes" not in d  # fio 2.x: io_bytes in KiB, no bw_bytes
    io_bytes = _count(_req(d, "io_bytes", direction), (direction, ".io_bytes")) * (1024 if legacy else 1)
    iops = _num(_req(d, "iops", direction), (direction, ".iops"))
    if ios is None and io_bytes == 0 and iops == 0:
        return None  # fio < 2.1.14 (no total_ios): no bytes and no IOPS is no I/O
    runtime_ms = _num(_req(d, "runtime", direction), (direction, ".runtime"))
    if runtime_ms <= 0 or io_bytes <= 0:
        n = "an unknown number of" if ios is None else str(ios)
        raise EntryError(f"the job reports {n} {direction} I/Os but {io_bytes} bytes in {runtime_ms:g} ms "
                         "(inconsistent, not a data point).")
    bw = _num(d["bw_bytes"], (direction, ".bw_bytes")) if "bw_bytes" in d else \
        _num(_req(d, "bw", direction), (direction, ".bw")) * 1024.0
    lat, lf = latency_block(d, "lat")
    clat, cf = latency_block(d, "clat")
    slat, sf = latency_block(d, "slat")
    clat_mean = NAN if clat is None or "mean" not in clat else _num(clat["mean"], "clat mean") / cf
    slat_mean = NAN if slat is None or "mean" not in slat else _num(slat["mean"], "slat mean") / sf
    out = Direction(direction, runtime_ms / 1000.0, io_bytes, ios, iops, bw, *_stats(lat, lf, "lat"),
                    clat_mean, slat_mean, _percentiles(clat, cf, "clat"), _percentiles(lat, lf, "lat"))
    # json+ bins (fio >= 3, ns keys): of total latency when fio wrote them (lat_percentiles=1), else clat
    for blk, f, name in ((lat, lf, "lat"), (clat, cf, "clat")):
        if blk is not None and f == 1000.0 and "bins" in blk:
            b = _bins(blk, name)
            if b is not None and len(b[0]):
                out.bins, out.bins_latency = b, name
                break
    return out


def _direction_ns(d: dict, direction: str, ios: int) -> Direction | None:
    """:func:`_direction` for the shape fio >= 3 writes (integer counts, finite numbers, ``*_ns`` latency
    blocks with ``N``, integer percentiles): the same Direction, read without the general path's call per
    value; None for any other shape, which the general path then reads (and rejects where it must)."""
    io_bytes, iops, runtime_ms, bw, lat, clat, slat = _DIR_NS(d)  # (KeyError: the general path)
    if not (0 < ios <= _INT64_MAX and type(io_bytes) is int and 0 < io_bytes <= _INT64_MAX
            and type(iops) in _NUMBER and _isfinite(iops) and type(runtime_ms) in _NUMBER
            and _isfinite(runtime_ms) and runtime_ms > 0 and type(bw) in _NUMBER and _isfinite(bw)):
        return None
    if type(lat) is not dict or type(clat) is not dict or type(slat) is not dict:
        return None
    n_lat, n_clat, n_slat = lat["N"], clat["N"], slat["N"]  # (KeyError: the general path)
    if type(n_lat) is not int or type(n_clat) is not int or type(n_slat) is not int:
        return None
    if n_lat == 0:
        lat = None
        stats = _NAN4
    else:
        stats = _STATS(lat)  # (KeyError: the general path)
        if not _NUMBER_TYPES.issuperset(map(type, stats)) or not all(map(_isfinite, stats)):
            return None
        stats = tuple(map(_NS.__rtruediv__, stats))
    if n_clat == 0:
        clat = None
        clat_mean = NAN
    else:
        clat_mean = clat.get("mean")
        if type(clat_mean) not in _NUMBER or not _isfinite(clat_mean):
            return None
        clat_mean /= _NS
    if n_slat == 0:
        slat_mean = NAN
    else:
        slat_mean = slat.get("mean")
        if type(slat_mean) not in _NUMBER or not _isfinite(slat_mean):
            return None
        slat_mean /= _NS
    clat_pct = _NAN6 if clat is None else _percentiles_ns(clat.get("percentile"))
    lat_pct = _NAN6 if lat is None else _percentiles_ns(lat.get("percentile"))
    if clat_pct is None or lat_pct is None:
        return None
    out = Direction(direction, runtime_ms / 1000.0, io_bytes, ios, float(iops), float(bw), *stats, clat_mean,
                    slat_mean, clat_pct, lat_pct)
    for blk, name in ((lat, "lat"), (clat, "clat")):
        if blk is not None and "bins" in blk:
            b = _bins(blk, name)
            if b is not None and len(b[0]):
                out.bins, out.bins_latency = b, name
                break
    return out


def _percentiles_ns(pct: Any) -> tuple | None:
    """The percentiles (µs) of a latency block's ``percentile`` object in fio's integer ns (NaN when
    absent); None for any other shape (:func:`_direction_ns`)."""
    if pct is None:
        return _NAN6
    if type(pct) is not dict:
        return None
    vals = _PCTS(pct)  # (KeyError: the general path)
    if tuple(map(type, vals)) != _INT6:
        return None
    return tuple(map(_NS.__rtruediv__, vals))


def _entry(e: Entry, job: dict, glob: _Globals, res: Result, entries_alike: int, data: bytes, cache: dict) -> None:
    err = job.get("error", 0)
    if err != 0:
        if type(err) is int:
            raise EntryError(error_sentence(job, err, data))
        raise EntryError(f"the job's error field is {show(err)}, not a number (wrong schema).")
    text = job.get("lab_text")
    if isinstance(text, dict):
        e.source_format = str(text.get("format"))
        rounded = text.get("rounded") or []
        e.rounded_columns = ",".join(str(c) for c in rounded)
        if str(text.get("percentiles", "")).startswith("clat assumed"):
            e.text_note = (TERSE_PERCENTILES_ASSUMED if e.source_format == "terse" else None)
    if not e.aggregate:
        fmt = e.source_format if e.source_format in ("normal", "terse") else None
        key = None
        e.config = None
        if entries_alike > 1:  # numjobs clones share their options: read them once per file
            try:
                key = (job.get("hostname"), job.get("port"), entries_alike, fmt, tuple(job["job options"].items()))
                e.config = cache.get(key)
            except (KeyError, TypeError, AttributeError):
                key = None
        if e.config is None:
            e.config = _config(job, glob, res.fio_version, entries_alike, fmt)
            if key is not None:
                cache[key] = e.config
    if job.get("latency_target"):  # fio writes latency_target 0 for every job without one
        e.latency_target = _latency_target(job)
    usr, sys_ = job.get("usr_cpu"), job.get("sys_cpu")
    if type(usr) is float and type(sys_) is float and _isfinite(usr) and _isfinite(sys_):  # the usual case
        e.usr_cpu_pct, e.sys_cpu_pct = usr, sys_
    else:
        e.usr_cpu_pct = _num(job["usr_cpu"], "usr_cpu") if "usr_cpu" in job else NAN
        e.sys_cpu_pct = _num(job["sys_cpu"], "sys_cpu") if "sys_cpu" in job else NAN
    for direction in DIRECTIONS:
        d = job.get(direction)
        if d is None:
            continue
        if type(d) is not dict:
            raise EntryError(f"the job's '{direction}' entry is not an object (wrong schema).")
        ios = d.get("total_ios")
        if ios == 0 and type(ios) is int:  # the common idle direction (as _direction, without the call)
            continue
        x = _direction(d, direction)
        if x is not None:
            e.directions.append(x)
    if not e.directions:
        raise EntryError("the job completed no I/O in any direction (not a data point).")


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
