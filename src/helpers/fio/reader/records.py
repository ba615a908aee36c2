"""The records the reader returns: a Result per fio process, its entries, their Config and
Directions."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from helpers.fio import options as fo
from helpers.fio.options import NAN, OptionError
from helpers.fio.reader.values import EntryError

_NO_DISK = (None, None, None, None)
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
        return self._per_direction(self.bs, fo.bs, direction)

    def rate_iops(self, direction: str) -> float | None:
        """rate_iops cap of one direction (NaN: not rate-limited; None: unknown)."""
        return self._per_direction(self.rate, fo.rate_iops, direction)

    def _per_direction(self, cache: dict, read, direction: str):
        """``read(options, direction)``, read when first asked and kept in ``cache`` (None when the file recorded no
        options; EntryError when fio could not have read the option)."""
        if not self.recorded:
            return None
        v = cache.get(direction, self)
        if v is self:
            try:
                v = cache[direction] = read(self.options, direction)
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


