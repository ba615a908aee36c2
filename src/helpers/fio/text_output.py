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

from helpers.fio.json_output import RUN_START, FioParseError
from helpers.fio.options import ALL_CLIENTS, DIRECTIONS

NOT_FIO_TEXT = "the file holds neither fio JSON nor fio's normal or terse text output."
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


# --- normal output ----------------------------------------------------------------------------------

_SPLIT = re.compile(r"\r\n|\r|\n")
_HEADER = re.compile(r"^(?P<name>.*?): \(g=(?P<g>\d+)\): rw=(?P<rw>[^,\s]+), (?P<rest>.*)$")
_BS3 = re.compile(r"bs=\(R\) (\S+)-(\S+), \(W\) (\S+)-(\S+), \(T\) (\S+)-(\S+),")
_BS2 = re.compile(r"bs=(\w+)-(\w+)/(\w+)-(\w+)(?:/(\w+)-(\w+))?,")
_ENGINE = re.compile(r"ioengine=(\S+), iodepth=(\d+)\s*$")
_VERSION = re.compile(r"^(fio-\d\S*)\s*$")
_JOB = re.compile(r"^(?P<name>.*?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
                  r"(?: \((?P<verror>.*)\))?: pid=(?P<pid>\d+)(?::\s*(?P<time>.*?))?\s*$")
_DIR3 = re.compile(r"^\s+(?P<dir>read|write|trim|mixed): IOPS=(?P<iops>[^,]+), BW=(?P<bw>\S+) \([^)]*\)"
                   r"\((?P<io>[^/]+)/(?P<runt>\d+)msec\)")
_DIR2 = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*: io=(?P<io>[^,]+), bw=(?P<bw>[^,]+), "
                   r"iops=(?P<iops>[^,]+), runt=\s*(?P<runt>\d+)msec")
_LAT = re.compile(r"^\s+(?P<kind>slat|clat|lat) \((?P<unit>nsec|usec|msec)\): min=\s*(?P<min>[^,]+), "
                  r"max=\s*(?P<max>[^,]+), avg=\s*(?P<avg>[^,]+), stdev=\s*(?P<dev>\S+)\s*$")
_PCT_HEAD = re.compile(r"^\s+(?P<kind>.+?) percentiles \((?P<unit>nsec|usec|msec)\):")
_PCT = re.compile(r"(\d+(?:\.\d+)?)th=\[\s*(\d+)\]")
_CPU = re.compile(r"^\s+cpu\s+: usr=(?P<usr>[\d.]+)%, sys=(?P<sys>[\d.]+)%, ctx=(?P<ctx>\d+), "
                  r"majf=(?P<majf>\d+), minf=(?P<minf>\d+)")
_ISSUED3 = re.compile(r"^\s+issued rwts?: total=(\d+),(\d+),(\d+)")
_ISSUED2 = re.compile(r"^\s+issued\s*: total=r=(\d+)/w=(\d+)/d=(\d+)")
_HOST = re.compile(r"^<([^>\n]*)> ?(.*)$")
_HOSTINFO = re.compile(r"hostname=([^,]+), be=\d+, .*fio=(fio-[^,\s]+)")
_DESCRIPTION = re.compile(r"^\s+Description\s+: \[(.*)\]\s*$")
_GROUP = re.compile(r"^Run status group (\d+) \(all jobs\):")
_DISKS = re.compile(r"^Disk stats \(read/write\):")
_DISK = re.compile(r"^\s+(?P<name>\S+): ios=(\d+)/(\d+), merge=(\d+)/(\d+), ticks=(\d+)/(\d+), "
                   r"in_queue=(\d+), util=([\d.]+)%(?:, aggrios=(\d+)/(\d+), aggrmerge=(\d+)/(\d+), "
                   r"aggrticks=(\d+)/(\d+), aggrin_queue=(\d+), aggrutil=([\d.]+)%)?")
_DISK_KEYS = ("read_ios", "write_ios", "read_merges", "write_merges", "read_ticks", "write_ticks", "in_queue")
_AGGR_KEYS = ("aggr_read_ios", "aggr_write_ios", "aggr_read_merges", "aggr_write_merge", "aggr_read_ticks",
              "aggr_write_ticks", "aggr_in_queue")  # fio's JSON spells it aggr_write_merge


class _Run:
    """One fio invocation's normal output being collected."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.headers: list[dict] = []  # {"name", "g", "options", "clones", "rounded"}
        self.jobs: list[dict] = []
        self.disks: list[dict] = []
        self.time: str | None = None
        self.io_format2 = False  # fio <= 2.17 "read : io=..." lines
        self.nsec_seen = False  # "(nsec)" appears: fio >= 3 (ns clock)
        self.closed = False  # its "Run status group" lines were printed
        self.hosts: set[str] = set()  # client/server: the "<host> " prefixes of the servers' text
        self.new_process = True  # printed by a new fio process (not a --status-interval report of the last)
        self.pids: list[str] = []  # the pid= of each job entry, in order

    def next_report(self, pid: str) -> _Run:
        """The next --status-interval report of the same fio invocation (same job definitions); a new
        process when the first job's ``pid`` is none of this report's (a run appended without its banner)."""
        nxt = _Run()
        nxt.new_process = pid not in self.pids
        nxt.version, nxt.headers, nxt.io_format2, nxt.nsec_seen = (self.version, self.headers, self.io_format2,
                                                                  self.nsec_seen)
        return nxt

    @property
    def usec_native(self) -> bool:
        """fio 2.x measured latency in whole microseconds (so usec min/max/percentiles are exact)."""
        if self.version:
            return self.version.startswith("fio-2.")
        return self.io_format2 and not self.nsec_seen


def _header(m: re.Match) -> dict:
    rest = m.group("rest")
    options: dict[str, str] = {"rw": m.group("rw")}
    rounded: list[str] = []
    b3, b2 = _BS3.search(rest), _BS2.search(rest)
    pairs = None
    if b3 and "bs_is_seq_rand" not in rest:
        pairs, k_base = [b3.groups()[i:i + 2] for i in (0, 2, 4)], 1000
    elif b2 and not b3:
        pairs, k_base = [p for p in (b2.groups()[i:i + 2] for i in (0, 2, 4)) if p[0] is not None], 1024
    if pairs:
        try:
            vals = [[_num2str(t, k_base) for t in p] for p in pairs]
        except ValueError:
            vals = []
        if vals and all(lo == hi for lo, hi in vals):  # a fixed size per direction, not a bsrange
            sizes = [str(round(lo[0])) for lo, _ in vals]
            options["bs"] = sizes[0] if len(set(sizes)) == 1 else ",".join(sizes)
            if k_base == 1000 and any(lo[1] for lo, _ in vals):  # fio 3.x num2str; 2.x wrote exact 4K/64K
                rounded.append("bs_bytes")
    e = _ENGINE.search(rest)
    if e:
        options["ioengine"], options["iodepth"] = e.group(1), e.group(2)
    return {"name": m.group("name"), "g": int(m.group("g")), "options": options, "clones": False,
            "rounded": rounded}


def _new_job(m: re.Match) -> dict:
    job: dict = {"jobname": m.group("name"), "groupid": int(m.group("g")), "error": int(m.group("err"))}
    lab: dict = {"format": "normal", "rounded": [], "jobs": int(m.group("jobs"))}
    if m.group("verror"):
        lab["error_message"] = m.group("verror")
    job["lab_text"] = lab
    return job


def _mark(job: dict, column: str) -> None:
    r = job["lab_text"]["rounded"]
    if column not in r:
        r.append(column)


def _direction(job: dict, m: re.Match, fmt2: bool) -> dict:
    name = m.group("dir")
    if name in job:
        raise FioParseError(f"job '{job['jobname']}' prints its {name} results twice (not one fio result).")
    k_bytes = 1024 if fmt2 else 1000
    try:
        io, io_r = _num2str(m.group("io"), k_bytes)
        bw, bw_r = _num2str(m.group("bw"), k_bytes)
        iops, iops_r = _num2str(m.group("iops"), 1000)
    except ValueError as exc:
        raise FioParseError(f"the {name} line of job '{job['jobname']}' has a figure fio does not print "
                            f"({exc}).") from None
    runt = int(m.group("runt"))
    d = {"io_bytes": round(io), "io_kbytes": round(io) >> 10, "bw_bytes": round(bw), "bw": round(bw) // 1024,
         "iops": iops, "runtime": runt}
    if io_r:
        _mark(job, "io_bytes")
    if bw_r:
        _mark(job, "bw_bytes_per_s")
    d["_iops_printed"] = (iops, iops_r)
    job[name] = d
    return d


def _latency(job: dict, d: dict, m: re.Match, usec_native: bool) -> None:
    kind, unit = m.group("kind"), _UNIT_NS[m.group("unit")]
    native = unit == 1 or (usec_native and unit == 1_000)
    try:
        (lo, lo_r), (hi, hi_r) = _num2str(m.group("min")), _num2str(m.group("max"))
        avg, dev = float(m.group("avg")), float(m.group("dev"))
    except ValueError:
        raise FioParseError(f"a {kind} line of job '{job['jobname']}' has a figure fio does not print.") from None
    block = d.setdefault(f"{kind}_ns", {})
    block.update({"min": round(lo * unit), "max": round(hi * unit), "mean": round(avg * unit, 6),
                  "stddev": round(dev * unit, 6)})
    for key, rounded in (("min", lo_r), ("max", hi_r)):
        if rounded or not native:  # a k/M figure, or truncated to whole us/ms
            _mark(job, f"{kind}_{key}_us")
    if unit != 1:  # two decimals of a us/ms: coarser than the ns fio measured in
        _mark(job, f"{kind}_mean_us")
        _mark(job, f"{kind}_stddev_us")


def _finish_job(job: dict) -> None:
    """iops from the exact issued count and runtime, as fio computes it for JSON, when consistent."""
    for name in (*DIRECTIONS, "mixed"):
        d = job.get(name)
        if d is None:
            continue
        printed, printed_r = d.pop("_iops_printed")
        ios = d.get("total_ios")
        exact = None
        if ios is not None and d["runtime"] > 0:
            exact = 1000.0 * ios / d["runtime"]
            step = 1.0
            if printed_r:  # one unit of the printed prefix covers num2str's truncation and rounding
                step = 10.0 ** max(0, len(str(int(printed))) - 3)
            if not (printed - 2 * step <= exact <= printed + 2 * step):
                exact = None
        if exact is None:
            d["iops"] = printed
            _mark(job, "iops")
        else:
            d["iops"] = exact


def _options(run: _Run, job: dict) -> None:
    """Job options from the "name: (g=N): rw=..., bs=..., ioengine=..., iodepth=..." line."""
    heads = [h for h in run.headers if h["g"] == job["groupid"]]
    mine = [h for h in heads if h["name"] == job["jobname"]]
    if len(mine) != 1:
        return
    h = mine[0]
    opts = dict(h["options"])
    for c in h["rounded"]:
        _mark(job, c)
    members = job["lab_text"]["jobs"]
    if members > 1:
        opts["group_reporting"] = "1"  # fio merged several threads into this entry
    if len(heads) == 1:  # the group holds only this job definition: its clones are the group's members
        if not h["clones"]:
            opts["numjobs"] = "1"
        elif members > 1:
            opts["numjobs"] = str(members)
        else:
            same = [j for j in run.jobs if j["groupid"] == job["groupid"] and j["jobname"] == job["jobname"]]
            if len(same) > 1 and all(j["lab_text"]["jobs"] == 1 for j in same):
                opts["numjobs"] = str(len(same))
    job["job options"] = opts


def _object(run: _Run) -> dict:
    for job in run.jobs:
        _finish_job(job)
        _options(run, job)
    obj: dict = {RUN_START: run.new_process}
    if run.version:
        obj["fio version"] = run.version
    if run.time:
        obj["time"] = run.time
    if run.hosts:  # client/server, like fio's JSON "client_stats"; a host only when just one server spoke
        host = next(iter(run.hosts)) if len(run.hosts) == 1 else None
        if host is not None:
            for entry in (*(j for j in run.jobs if j["jobname"] != ALL_CLIENTS), *run.disks):
                entry["hostname"] = host
        obj["client_stats"] = run.jobs
    else:
        obj["jobs"] = run.jobs
    if run.disks:
        obj["disk_util"] = run.disks
    return obj


def _parse_normal(lines: list[str]) -> list[dict]:
    runs: list[_Run] = [_Run()]
    job: dict | None = None
    d: dict | None = None
    pct: tuple[dict, int, str] | None = None  # (latency block, unit ns, kind)
    in_disks = False
    for line in lines:
        run = runs[-1]
        m = _HOST.match(line)
        if m:  # client/server: the server's own text, e.g. "<host> job: (g=0): rw=..."
            run.hosts.add(m.group(1))
            line = m.group(2)
        m = _HOSTINFO.search(line)
        if m:  # client/server: "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1"
            run.hosts.add(m.group(1))
            run.version = run.version or m.group(2)
            continue
        if not line.strip():
            pct = None
            continue
        m = _HEADER.match(line)
        if m and "(groupid=" not in line:
            if run.jobs:
                runs.append(_Run())
                run = runs[-1]
            run.headers.append(_header(m))
            job = d = pct = None
            in_disks = False
            continue
        if line.strip() == "..." and run.headers and not run.jobs:
            run.headers[-1]["clones"] = True
            continue
        m = _VERSION.match(line)
        if m:
            if run.jobs:
                runs.append(_Run())
                run = runs[-1]
            run.version = m.group(1)
            continue
        m = _JOB.match(line)
        if m:
            if run.closed and not run.hosts:  # --status-interval: a new report starts, like fio's concatenated JSON objects
                runs.append(run.next_report(m.group("pid")))
                run = runs[-1]
            job = _new_job(m)
            run.jobs.append(job)
            run.pids.append(m.group("pid"))
            if m.group("time") and run.time is None:
                run.time = m.group("time")
            d = pct = None
            in_disks = False
            continue
        if _GROUP.match(line):
            job = d = pct = None
            run.closed = True
            continue
        if _DISKS.match(line):
            job = d = pct = None
            in_disks = True
            run.closed = True
            continue
        if in_disks:
            m = _DISK.match(line)
            if m:
                g = m.groups()
                disk: dict = {"name": g[0], **dict(zip(_DISK_KEYS, map(int, g[1:8]))), "util": float(g[8])}
                if g[9] is not None:
                    disk.update(zip(_AGGR_KEYS, map(int, g[9:16])))
                    disk["aggr_util"] = float(g[16])
                run.disks.append(disk)
            continue
        if job is None:
            continue
        m = _DESCRIPTION.match(line)
        if m:
            job["lab_text"]["description"] = m.group(1)
            continue
        m = _DIR3.match(line) or _DIR2.match(line)
        if m:
            fmt2 = m.re is _DIR2
            run.io_format2 |= fmt2
            d = _direction(job, m, fmt2)
            pct = None
            continue
        if "fsync/fdatasync/sync_file_range" in line:
            d = pct = None
            continue
        m = _LAT.match(line)
        if m:
            run.nsec_seen |= m.group("unit") == "nsec"
            if d is not None:
                _latency(job, d, m, run.usec_native)
            pct = None
            continue
        m = _PCT_HEAD.match(line)
        if m:
            kind = m.group("kind").strip()
            run.nsec_seen |= m.group("unit") == "nsec"
            pct = None
            if d is not None and kind in ("slat", "clat", "lat"):
                unit = _UNIT_NS[m.group("unit")]
                pct = (d.setdefault(f"{kind}_ns", {}).setdefault("percentile", {}), unit, kind)
                if not (unit == 1 or (run.usec_native and unit == 1_000)):
                    pct = (*pct[:2], kind + "!")  # rounded up to whole us/ms
            continue
        if pct is not None and line.lstrip().startswith("|"):
            block, unit, kind = pct
            for p, v in _PCT.findall(line):
                block[_pct_key(float(p))] = int(v) * unit
                if kind.endswith("!"):
                    _mark(job, _pct_column(kind[:-1], float(p)))
            continue
        pct = None
        m = _CPU.match(line)
        if m:
            job["usr_cpu"], job["sys_cpu"] = float(m.group("usr")), float(m.group("sys"))
            job["ctx"], job["majf"], job["minf"] = (int(m.group(k)) for k in ("ctx", "majf", "minf"))
            _mark(job, "usr_cpu_pct")
            _mark(job, "sys_cpu_pct")
            continue
        m = _ISSUED3.match(line) or _ISSUED2.match(line)
        if m:
            for name, n in zip(DIRECTIONS, m.groups()):
                if name in job:
                    job[name]["total_ios"] = int(n)
            if "mixed" in job:
                job["mixed"]["total_ios"] = sum(int(n) for n in m.groups())
            continue
    return [_object(r) for r in runs if r.jobs]


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
