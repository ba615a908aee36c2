"""fio's terse output (``--minimal``, terse versions 2-5) -> fio-JSON-shaped objects (the
rules: :mod:`helpers.fio.text_output`)."""

from __future__ import annotations

import re

from helpers.fio.json_output import FioParseError
from helpers.fio.options import DIRECTIONS
from helpers.fio.text_output.normal import _AGGR_KEYS, _DISK_KEYS
from helpers.fio.text_output.num2str import _pct_column, _pct_key

# --- terse output -----------------------------------------------------------------------------------

_TERSE_IN = re.compile(r"^(?:.*?[\s|\]>])?([345];fio-[^;]*;[^;\n]*;\d+;-?\d+;)"  # v3-5, also behind a log prefix
                       r"|^(2;[^;\n]*;\d+;-?\d+;)")  # v2 (no fio version to recognise it by): at the start only
_TERSE_DIR = {3: 41, 4: 41, 5: 47, 2: 41}  # fields per direction (v5 adds bw samples and iops stats)
_TERSE_TAIL = 5 + 7 + 10 + 12  # cpu, IO depths, us latency buckets, ms latency buckets


def _f(s: str) -> float:
    return float(s.rstrip("%"))


def _terse_lat(fields: list[str], kind: str, fio2: bool, d: dict, lab: dict) -> bool:
    lo, hi, mean, dev = int(fields[0]), int(fields[1]), float(fields[2]), float(fields[3])
    if lo == 0 and hi == 0 and mean == 0.0 and dev == 0.0:
        return False  # fio prints zeros for a latency it did not measure
    d[f"{kind}_ns"] = {"min": lo * 1000, "max": hi * 1000, "mean": round(mean * 1000, 3),
                       "stddev": round(dev * 1000, 3)}  # %f of us: 0.001 ns
    if not fio2:  # fio 3.x prints ns / 1000, truncated
        for c in (f"{kind}_min_us", f"{kind}_max_us"):
            if c not in lab["rounded"]:
                lab["rounded"].append(c)
    return True


def _terse_line(line: str, lineno: int) -> tuple[str | None, dict, list[dict]]:
    f = line.split(";")
    ver = int(f[0])
    if ver == 2:
        version, name, gid, err, pos = None, f[1], f[2], f[3], 4
    else:
        version, name, gid, err, pos = f[1], f[2], f[3], f[4], 5
    ndir = 2 if ver == 3 else 3
    per = _TERSE_DIR[ver]
    cpu = pos + ndir * per
    if len(f) < cpu + _TERSE_TAIL or not (f[cpu].endswith("%") and f[cpu + 1].endswith("%")
                                          and all(x.endswith("%") for x in f[cpu + 5:cpu + _TERSE_TAIL])):
        raise FioParseError(f"terse line {lineno} does not have the fields of terse version {ver} "
                            "(unified_rw_reporting output or a cut line).")
    fio2 = bool(version) and version.startswith("fio-2.")
    vm = re.match(r"fio-(\d+)\.(\d+)", version or "")
    before_lat_pct = bool(vm) and (int(vm.group(1)), int(vm.group(2))) < (3, 1)  # lat_percentiles came in 3.1
    lab: dict = {"format": "terse", "rounded": []}
    job: dict = {"jobname": name, "groupid": int(gid), "error": int(err)}
    proofs = []
    for i, dname in enumerate(DIRECTIONS[:ndir]):
        x = f[pos + i * per:pos + (i + 1) * per]
        kib, bw_kib, iops, runt = (int(v) for v in x[:4])
        if runt <= 0:
            continue  # fio prints zeros for a direction without I/O
        d: dict = {"io_bytes": kib * 1024, "io_kbytes": kib, "bw_bytes": bw_kib * 1024, "bw": bw_kib,
                   "iops": float(iops), "runtime": runt}
        d["bw_min"], d["bw_max"], d["bw_mean"] = int(x[36]), int(x[37]), float(x[39])  # KiB/s, as fio's JSON
        if ver == 5:
            d["bw_samples"], d["iops_min"], d["iops_max"], d["iops_mean"], d["iops_samples"] = (
                int(x[41]), int(x[42]), int(x[43]), float(x[44]), int(x[46]))
        for c in ("io_bytes", "bw_bytes_per_s", "iops"):
            if c not in lab["rounded"]:
                lab["rounded"].append(c)
        _terse_lat(x[4:8], "slat", fio2, d, lab)
        has_clat = _terse_lat(x[8:12], "clat", fio2, d, lab)
        has_lat = _terse_lat(x[32:36], "lat", fio2, d, lab)
        pcts = {}
        for item in x[12:32]:
            p, _, v = item.partition("%=")
            if float(p) > 0:
                pcts[float(p)] = int(v)
        if pcts and (has_clat or has_lat):
            kind = "clat" if before_lat_pct else _which_latency(pcts, d)
            proofs.append(kind)
            key = "lat" if kind == "lat" else "clat"
            d.setdefault(f"{key}_ns", {})["percentile"] = {_pct_key(p): v * 1000 for p, v in pcts.items()}
            if not fio2:
                for p in pcts:
                    c = _pct_column(key, p)
                    if c not in lab["rounded"]:
                        lab["rounded"].append(c)
        job[dname] = d
    job["usr_cpu"], job["sys_cpu"] = _f(f[cpu]), _f(f[cpu + 1])
    job["ctx"], job["majf"], job["minf"] = int(f[cpu + 2]), int(f[cpu + 3]), int(f[cpu + 4])
    if proofs:
        lab["percentiles"] = ("lat" if "lat" in proofs else "clat" if set(proofs) == {"clat"}
                              else "clat assumed (terse does not record lat_percentiles)")
    disks, rest = _terse_disks(f[cpu + _TERSE_TAIL:])
    if len(rest) == 2 and all(r.lstrip("-").isdigit() for r in rest):
        rest = []  # continue_on_error: total errors, first error
    if rest and "".join(rest).strip():
        lab["description"] = ";".join(rest).strip()
    job["lab_text"] = lab
    return version, job, disks


def _which_latency(pcts: dict[float, int], d: dict) -> str:
    """'clat' or 'lat' when the min/max prove which latency the terse percentiles are of, else '?'.

    A percentile is the middle of one of fio's bins (at most 1/64 of the value wide), so it lies
    within 2 % (plus the 1 us of terse's truncation) of the samples' range.
    """
    lo_us, hi_us = min(pcts.values()), max(pcts.values())

    def outside(kind: str) -> bool:
        b = d.get(f"{kind}_ns")
        if not b or "min" not in b:
            return False
        return (lo_us + 1) * 1000 < b["min"] * 0.98 or hi_us * 1000 > (b["max"] + 1000) * 1.02

    clat_out, lat_out = outside("clat"), outside("lat")
    if clat_out and not lat_out:
        return "lat"
    if lat_out and not clat_out:
        return "clat"
    return "?"


def _terse_disks(f: list[str]) -> tuple[list[dict], list[str]]:
    disks: list[dict] = []
    i = 0
    while i + 9 <= len(f) and all(x.isdigit() for x in f[i + 1:i + 8]) and f[i + 8].endswith("%") \
            and not f[i].isdigit():
        vals = list(map(int, f[i + 1:i + 8]))
        if f[i] == "slaves" and disks:
            disks[-1].update(zip(_AGGR_KEYS, vals))
            disks[-1]["aggr_util"] = _f(f[i + 8])
        else:
            disks.append({"name": f[i], **dict(zip(_DISK_KEYS, vals)), "util": _f(f[i + 8])})
        i += 9
    return disks, f[i:]


def _clone(prev: dict, job: dict) -> bool:
    """Whether two consecutive terse lines of one job are numjobs clones printed in one report (threads started
    together: runtimes within 100 ms, different byte counts), not two reports of the same thread."""
    def runtime(j: dict) -> int:
        return max((j[d]["runtime"] for d in DIRECTIONS if d in j), default=0)

    def io(j: dict) -> tuple:
        return tuple(j[d]["io_bytes"] if d in j else 0 for d in DIRECTIONS)

    return abs(runtime(prev) - runtime(job)) <= 100 and io(prev) != io(job)


def _another_clone(objs: list[dict], key: tuple, job: dict) -> bool:
    """Whether a job's line that follows its own is another numjobs clone in the current report: not when the
    report before it (same fio version) printed that job on fewer lines than the current one already has --
    a process prints its clones in every report, so one more is the next report (a status-interval run's
    final block a few ms after its last snapshot, with the disk figures unchanged, seen under load);
    otherwise :func:`_clone`."""
    def lines(obj: dict) -> int:
        return sum((j["jobname"], j["groupid"]) == key for j in obj["jobs"])

    if len(objs) >= 2 and objs[-2].get("fio version") == objs[-1].get("fio version"):
        before = lines(objs[-2])
        if before and lines(objs[-1]) >= before:
            return False
    return _clone(objs[-1]["jobs"][-1], job)


def _parse_terse(lines: list[tuple[int, str]]) -> list[dict]:
    """One object per report: a line starts the next one (a --status-interval report or another run,
    which ``json_output.split_runs`` tells apart) when its fio version differs, when the disk figures
    every line of one report repeats differ, when the job list starts over (the first line's job again
    after another job), or when a job's line follows its own and is not a clone of it (:func:`_clone`)."""
    objs: list[dict] = []
    first = last = None  # (jobname, groupid) of the current object's first and last line
    for lineno, line in lines:
        try:
            version, job, disks = _terse_line(line, lineno)
        except FioParseError:  # (a ValueError too) already one sentence
            raise
        except (ValueError, IndexError):
            raise FioParseError(f"terse line {lineno} has a field that is not what fio writes there "
                                "(not fio terse output).") from None
        key = (job["jobname"], job["groupid"])
        if not objs or objs[-1].get("fio version") != version or (
                disks and objs[-1].get("disk_util", disks) != disks) or (
                key == first and last != key) or (key == last and not _another_clone(objs, key, job)):
            objs.append({"fio version": version, "jobs": []} if version else {"jobs": []})
            first = key
        last = key
        objs[-1]["jobs"].append(job)
        if disks and "disk_util" not in objs[-1]:
            objs[-1]["disk_util"] = disks  # every terse line of a report repeats the disks: keep them once
    return objs


