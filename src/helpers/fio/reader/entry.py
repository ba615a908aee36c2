"""One job entry: its directions' numbers (fio 2.x and 3.x), its latency target, why it is not a
data point."""

from __future__ import annotations

import re
from typing import Any

from helpers.fio.options import DIRECTIONS, NAN, show
from helpers.fio.reader.job_config import _config, _Globals
from helpers.fio.reader.records import Direction, Entry, LatencyTarget, Result
from helpers.fio.reader.values import (
    _DIR_NS,
    _INT6,
    _INT64_MAX,
    _NAN4,
    _NAN6,
    _NS,
    _NUMBER,
    _NUMBER_TYPES,
    _PCTS,
    _STATS,
    TERSE_PERCENTILES_ASSUMED,
    EntryError,
    _bins,
    _count,
    _isfinite,
    _num,
    _percentiles,
    _req,
    _stats,
    latency_block,
)


def _latency_target(job: dict) -> LatencyTarget | None:
    """None unless the job ran with a latency target: fio writes ``latency_depth`` for every job (its
    iodepth, with ``latency_target`` 0, when there is no target)."""
    target_ns = job.get("latency_target_ns", job.get("latency_target"))
    if not target_ns or "latency_depth" not in job:
        return None
    window_us = job.get("latency_window_us", job.get("latency_window"))
    return LatencyTarget(_count(job["latency_depth"], "latency_depth"), _num(target_ns, "latency_target") / 1000.0,
                         _num(job.get("latency_percentile"), "latency_percentile"), _num(window_us, "latency_window"))


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


