"""fio's normal (human-readable) output, fio 2.x and 2.18+/3.x forms, -> fio-JSON-shaped
objects (the rules: :mod:`helpers.fio.text_output`)."""

from __future__ import annotations

import re

from helpers.fio.json_output import RUN_START, FioParseError
from helpers.fio.options import ALL_CLIENTS, DIRECTIONS
from helpers.fio.text_output.num2str import _UNIT_NS, _num2str, _pct_column, _pct_key

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


