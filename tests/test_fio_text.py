"""parse_fio_text: fio's normal and terse output agree with fio's JSON of the same run.

Two real fio runs (one fio process each, run side by side; 6 stonewall jobs of 1 s on a 64 MiB file) write
``--output-format=json,normal,terse`` (terse version 5) and ``json,terse`` (terse version 3); every
number parsed from the text is compared with the JSON within the precision the text printed.  The
tolerances are derived here from the printed digits (fio's num2str: ``45.6MiB`` has one decimal of a
MiB, and num2str drops the remainders below the last division), not from the parser.  Hand-written
fio 2.x and Windows fixtures (tests/data/fio/text-out/, see tests/data/fio/README.md) are checked
against the values written into them.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes
from helpers.fio.text_output import parse_fio_text
from helpers.ingest import core as ingest

DATA = Path(__file__).parent / "data" / "fio" / "text-out"
DIRS = ("read", "write", "trim")
UNIT_NS = {"nsec": 1, "usec": 1000, "msec": 1_000_000}

JOBS = {  # name -> options; every job is its own stonewall group
    "a-cached": {"rw": "randread", "bs": "4k", "size": "4m", "invalidate": 0, "ioengine": "psync"},  # nsec
    "b-aio-nj2": {"rw": "randrw", "rwmixread": 70, "bs": "4k,16k", "ioengine": "libaio", "iodepth": 8,
                  "direct": 1, "numjobs": 2},
    "c-aio-gr": {"rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 4, "direct": 1, "numjobs": 2,
                 "group_reporting": 1},
    "d-gtod": {"rw": "write", "bs": "64k", "ioengine": "libaio", "direct": 1, "gtod_reduce": 1},
    "e-latpct": {"rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 4, "direct": 1,
                 "lat_percentiles": 1},
    "f-slow": {"rw": "randwrite", "bs": "8m", "ioengine": "libaio", "iodepth": 32, "direct": 1},  # msec (~120 ms)
}


def _start(fio: str, target: Path, out: Path, fmt: str, terse_version: int) -> subprocess.Popen:
    lines = ["[global]", f"filename={target}", "size=64m", "time_based=1", "runtime=1s", "randrepeat=0"]
    for name, opts in JOBS.items():
        lines += [f"[{name}]", "stonewall", *(f"{k}={v}" for k, v in opts.items())]
    jobfile = out.with_suffix(".fio")
    jobfile.write_text("\n".join(lines) + "\n")
    return subprocess.Popen([fio, f"--output-format={fmt}", f"--terse-version={terse_version}", f"--output={out}",
                             str(jobfile)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _finish(proc: subprocess.Popen, out: Path) -> bytes:
    log, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, log.decode(errors="replace")
    return out.read_bytes()


def _split(data: bytes) -> tuple[dict, str, str]:
    """(the JSON object, the normal text, the terse lines) of one combined output file."""
    start, end = data.index(b"\n{") + 1, data.rindex(b"\n}") + 2
    obj, = parse_fio_bytes(data[start:end])
    rest = (data[:start] + data[end:]).decode()
    terse = "\n".join(ln for ln in rest.splitlines() if re.match(r"^[2-5];", ln))
    normal = "\n".join(ln for ln in rest.splitlines() if not re.match(r"^[2-5];", ln))
    return obj, normal, terse


@pytest.fixture(scope="module")
def runs(fio_path, scratch_dir):
    targets = [scratch_dir / f"fio-text-target-{i}.bin" for i in (5, 3)]  # one each: the runs do not meet
    for target in targets:
        if not target.exists() or target.stat().st_size < 64 << 20:
            subprocess.run([fio_path, "--name=prefill", f"--filename={target}", "--size=64m", "--rw=write",
                            "--bs=1m", "--direct=1", "--ioengine=libaio", "--iodepth=8", "--output=/dev/null"],
                           check=True, capture_output=True, timeout=60)
    out5, out3 = scratch_dir / "fio-text-v5.out", scratch_dir / "fio-text-v3.out"
    p5 = _start(fio_path, targets[0], out5, "json,normal,terse", 5)  # the two runs in parallel: ~8 s in all
    p3 = _start(fio_path, targets[1], out3, "json,terse", 3)
    v5, v3 = _split(_finish(p5, out5)), _split(_finish(p3, out3))
    return {"json5": v5[0], "normal": v5[1], "terse5": v5[2], "json3": v3[0], "terse3": v3[2]}


# --- precision of what fio printed --------------------------------------------------------------

def n2s_tol(tok: str, k_base: int = 1000) -> float:
    """Largest |true - printed| of a num2str figure in base units (bytes, I/Os, ns)."""
    m = re.match(r"^(\d+)(?:\.(\d+))?([kKMGTPE]?)(i?)", tok.strip())
    assert m, tok
    if not m.group(3):
        return 0.0  # printed in full
    thousand = 1024 if m.group(4) else k_base
    scale = thousand ** ("KMGTPE".index(m.group(3).upper()) + 1)
    decimals = len(m.group(2) or "")
    return 0.5 * 10.0 ** -decimals * scale + scale / thousand  # rounding of the last digit + dropped digits


def n2s_val(tok: str, k_base: int = 1000) -> float:
    m = re.match(r"^(\d+(?:\.\d+)?)([kKMGTPE]?)(i?)", tok.strip())
    v = float(m.group(1))
    if m.group(2):
        v *= (1024 if m.group(3) else k_base) ** ("KMGTPE".index(m.group(2).upper()) + 1)
    return v


def sections(normal: str) -> list[dict]:
    """Per job section of the normal text: {direction: {line kind: printed tokens}}."""
    out: list[dict] = []
    cur: dict | None = None
    d: dict | None = None
    pct = None
    for ln in normal.splitlines():
        if re.match(r"^\S.*: \(groupid=\d+, jobs=\d+\)", ln):
            cur, d, pct = {}, None, None
            out.append(cur)
            continue
        if cur is None or not ln.strip():
            cur = None if not ln.strip() else cur
            continue
        m = re.match(r"^  (read|write|trim): IOPS=([^,]+), BW=(\S+) \((\S+)\)\((\S+)/(\d+)msec\)", ln)
        if m:
            d = cur[m.group(1)] = {"iops": m.group(2), "bw": m.group(3), "io": m.group(5), "pct": {}}
            continue
        m = re.match(r"^ {4,5}(slat|clat|lat) \((\w+)\): min=\s*(\S+), max=\s*(\S+), avg=\s*(\S+), stdev=\s*(\S+)$",
                     ln)
        if m and d is not None:
            d[m.group(1)] = (m.group(2), m.group(3).rstrip(","), m.group(4).rstrip(","), m.group(5).rstrip(","),
                             m.group(6))
            continue
        m = re.match(r"^ {4}(clat|lat|slat) percentiles \((\w+)\):", ln)
        if m and d is not None:
            pct = d["pct"].setdefault(m.group(1), {"unit": m.group(2), "values": {}})
            continue
        if ln.startswith("     |") and pct is not None:
            for p, v in re.findall(r"(\d+\.\d+)th=\[\s*(\d+)\]", ln):
                pct["values"][f"{float(p):f}"] = int(v)
            continue
        pct = None
        m = re.match(r"^  cpu\s+: usr=([\d.]+)%, sys=([\d.]+)%", ln)
        if m:
            cur["cpu"] = (m.group(1), m.group(2))
    return out


def check(value: float, truth: float, tol: float, column: str, job: dict, what: str, exact: float = 0.0) -> None:
    """|value - truth| within the printed precision, and a value further than ``exact`` from the truth
    is marked rounded (latencies: 1 ns, fio's clock resolution; counts, bytes, percent: none)."""
    assert abs(value - truth) <= tol + 1e-9 * max(1.0, abs(truth)), (what, value, truth, tol)
    if abs(value - truth) > max(exact, 1e-9 * max(1.0, abs(truth))):
        assert column in job["lab_text"]["rounded"], (what, column, value, truth)


def io_dirs(jjob: dict) -> list[str]:
    return [d for d in DIRS if jjob[d]["io_bytes"] > 0 or jjob[d]["total_ios"] > 0]


# --- normal ---------------------------------------------------------------------------------------

def test_normal_agrees_with_json(runs):
    jobs_j = runs["json5"]["jobs"]
    objs = parse_fio_text(runs["normal"].encode())
    assert len(objs) == 1
    obj = objs[0]
    assert obj["fio version"] == runs["json5"]["fio version"]
    secs = sections(runs["normal"])
    assert len(obj["jobs"]) == len(jobs_j) == len(secs) == 7  # numjobs=2 without group_reporting: 2 entries
    units = set()
    for t, j, sec in zip(obj["jobs"], jobs_j, secs):
        name = j["jobname"]
        assert (t["jobname"], t["groupid"], t["error"]) == (name, j["groupid"], j["error"])
        assert t["lab_text"]["format"] == "normal"
        assert [d for d in DIRS if d in t] == io_dirs(j), name
        for dn in io_dirs(j):
            td, jd, s = t[dn], j[dn], sec[dn]
            assert td["runtime"] == jd["runtime"] and td["total_ios"] == jd["total_ios"]
            assert td["iops"] == pytest.approx(jd["iops"], abs=1e-6)  # exact (the JSON prints %f)
            assert "iops" not in t["lab_text"]["rounded"]
            assert abs(n2s_val(s["iops"]) - jd["iops"]) <= n2s_tol(s["iops"]) + 1  # printed: truncated
            check(td["io_bytes"], jd["io_bytes"], n2s_tol(s["io"]), "io_bytes", t, f"{name} {dn} io")
            check(td["bw_bytes"], jd["bw_bytes"], n2s_tol(s["bw"]), "bw_bytes_per_s", t, f"{name} {dn} bw")
            for kind in ("slat", "clat", "lat"):
                jl = jd[f"{kind}_ns"]
                if kind not in s:  # fio prints no line for a latency it did not measure
                    assert jl["N"] == 0 and "min" not in td.get(f"{kind}_ns", {}), (name, kind)
                    continue
                unit, lo, hi, avg, dev = s[kind]
                units.add(unit)
                u = UNIT_NS[unit]
                tl = td[f"{kind}_ns"]
                for key, tok in (("min", lo), ("max", hi)):  # truncated to the unit, then num2str
                    tol = (n2s_tol(tok) + (1 if u > 1 else 0)) * u
                    check(tl[key], jl[key], tol, f"{kind}_{key}_us", t, f"{name} {dn} {kind} {key}", exact=1.0)
                for key, tok, col in (("mean", avg, "mean"), ("stddev", dev, "stddev")):
                    decimals = len(tok.split(".")[1])
                    check(tl[key], jl[key], 0.5 * 10.0 ** -decimals * u, f"{kind}_{col}_us", t,
                          f"{name} {dn} {kind} {key}", exact=1.0)
            for kind, block in s["pct"].items():
                u = UNIT_NS[block["unit"]]
                units.add(block["unit"])
                jp, tp = jd[f"{kind}_ns"]["percentile"], td[f"{kind}_ns"]["percentile"]
                assert set(tp) == set(jp) == set(block["values"])
                for key, v in jp.items():  # fio rounds up to the unit: (v-1 unit, v]
                    col = f"{kind}_p{float(key):g}".replace(".", "_") + "_us"
                    check(tp[key], v, u - 1 if u > 1 else 0, col, t, f"{name} {dn} {kind} p{key}")
                    assert tp[key] >= v
            if "lat_percentiles" in JOBS.get(name, {}):
                assert "percentile" in td["lat_ns"] and "percentile" in td["clat_ns"]
        for key, tok in zip(("usr_cpu", "sys_cpu"), sec["cpu"]):  # "%3.2f%%"
            check(t[key], j[key], 0.5 * 10.0 ** -len(tok.split(".")[1]), f"{key}_pct", t, f"{name} {key}")
        assert (t["ctx"], t["majf"], t["minf"]) == (j["ctx"], j["majf"], j["minf"])
        # the job options the header line states agree with the job file
        opts, jopts = t["job options"], j["job options"]
        for key in ("rw", "ioengine", "iodepth"):
            if key in jopts:
                assert opts[key] == jopts[key], (name, key)
        assert opts["numjobs"] == jopts.get("numjobs", "1"), name
        assert t["lab_text"]["jobs"] == (2 if name == "c-aio-gr" else 1)
        assert opts.get("group_reporting") == ("1" if name == "c-aio-gr" else None)
    # every latency unit fio uses was exercised (msec by f-slow; once, beside a busy CPU loop, it was missing:
    # the message shows what f-slow printed)
    assert units == {"nsec", "usec", "msec"}, [ln for ln in runs["normal"].splitlines() if "lat (" in ln]
    b = next(t for t in obj["jobs"] if t["jobname"] == "b-aio-nj2")
    assert b["job options"]["bs"] == "4096,16384,16384"  # fio resolves bs=4k,16k per direction (trim: 16k)
    g = next(t for t in obj["jobs"] if t["jobname"] == "d-gtod")
    assert not any(k.endswith("_ns") for k in g["write"])  # gtod_reduce: no latency at all, never zeros
    # disk stats: exact integers
    assert [{k: v for k, v in d.items() if k != "util"} for d in obj["disk_util"]] == \
        [{k: v for k, v in d.items() if k != "util"} for d in runs["json5"]["disk_util"]]
    for d, jd in zip(obj["disk_util"], runs["json5"]["disk_util"]):
        assert d["util"] == pytest.approx(jd["util"], abs=0.005 + 1e-9)  # "util=%3.2f%%"


def test_windows_line_ends_parse_the_same(runs):
    text = runs["normal"]
    assert parse_fio_text(text.replace("\n", "\r\n").encode()) == parse_fio_text(text.encode())


# --- terse ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [5, 3])
def test_terse_agrees_with_json(runs, version):
    objs = parse_fio_text(runs[f"terse{version}"].encode())
    obj, jobs_j = objs[0], runs[f"json{version}"]["jobs"]
    assert len(objs) == 1 and obj["fio version"] == runs[f"json{version}"]["fio version"]
    assert len(obj["jobs"]) == len(jobs_j) == 7
    for t, j in zip(obj["jobs"], jobs_j):
        name = j["jobname"]
        assert (t["jobname"], t["groupid"], t["error"]) == (name, j["groupid"], j["error"])
        assert t["lab_text"]["format"] == "terse"
        assert [d for d in DIRS if d in t] == [d for d in io_dirs(j) if version != 3 or d != "trim"]
        for dn in (d for d in DIRS if d in t):
            td, jd = t[dn], j[dn]
            assert "total_ios" not in td  # terse does not print it
            assert td["runtime"] == jd["runtime"]
            assert td["io_kbytes"] == jd["io_kbytes"] and td["bw"] == jd["bw"]  # exact KiB and KiB/s
            check(td["io_bytes"], jd["io_bytes"], 1023, "io_bytes", t, f"{name} {dn} io")  # KiB, truncated
            check(td["bw_bytes"], jd["bw_bytes"], 1023, "bw_bytes_per_s", t, f"{name} {dn} bw")
            check(td["iops"], jd["iops"], 1, "iops", t, f"{name} {dn} iops")  # %llu of a fraction
            assert td["iops"] <= jd["iops"] and td["io_bytes"] <= jd["io_bytes"]
            for kind in ("slat", "clat", "lat"):
                jl = jd[f"{kind}_ns"]
                if jl["N"] == 0:  # terse prints zeros: absent, never 0 us
                    assert "min" not in td.get(f"{kind}_ns", {}), (name, kind)
                    continue
                assert "min" in td[f"{kind}_ns"], (name, dn, kind)
                tl = td[f"{kind}_ns"]
                for key in ("min", "max"):  # ns / 1000 truncated
                    check(tl[key], jl[key], 999, f"{kind}_{key}_us", t, f"{name} {dn} {kind} {key}")
                    assert tl[key] <= jl[key]
                for key in ("mean", "stddev"):  # %f of us: 0.001 ns, the JSON's own %f of ns is 1e-6 ns
                    assert tl[key] == pytest.approx(jl[key], abs=0.0005 + 1e-6), (name, dn, kind, key)
            pkind = "lat" if JOBS.get(name, {}).get("lat_percentiles") else "clat"
            jp = jd[f"{pkind}_ns"].get("percentile")
            tp = (td.get("clat_ns", {}).get("percentile") or td.get("lat_ns", {}).get("percentile"))
            if jp is None:
                assert tp is None
                continue
            assert set(tp) == set(jp)
            for key, v in jp.items():  # ns / 1000 truncated
                assert 0 <= v - tp[key] < 1000, (name, dn, key, v, tp[key])
                if v != tp[key]:
                    assert f"clat_p{float(key):g}".replace(".", "_") + "_us" in t["lab_text"]["rounded"] or \
                        f"lat_p{float(key):g}".replace(".", "_") + "_us" in t["lab_text"]["rounded"]
            # which latency the percentiles are of is never claimed wrongly
            assert t["lab_text"]["percentiles"] in (pkind, "clat assumed (terse does not record lat_percentiles)")
        assert t["usr_cpu"] == pytest.approx(j["usr_cpu"], abs=1e-6)  # %f, like the JSON
        assert t["sys_cpu"] == pytest.approx(j["sys_cpu"], abs=1e-6)
        assert "usr_cpu_pct" not in t["lab_text"]["rounded"]
        assert (t["ctx"], t["majf"], t["minf"]) == (j["ctx"], j["majf"], j["minf"])
        assert "job options" not in t  # terse states no configuration
    g = next(t for t in obj["jobs"] if t["jobname"] == "d-gtod")
    assert not any(k.endswith("_ns") for k in g["write"])
    assert [d["read_ios"] for d in obj["disk_util"]] == [d["read_ios"] for d in runs[f"json{version}"]["disk_util"]]


# --- fio 2.x and Windows fixtures, written by hand from fio's format strings ----------------------

def test_fio2_normal_fixture():
    objs = parse_fio_text((DATA / "fio-2.1.3-normal.txt").read_bytes())
    assert len(objs) == 1
    obj = objs[0]
    assert obj["fio version"] == "fio-2.1.3"
    a, b = obj["jobs"]
    assert a["jobname"] == "randread" and a["job options"] == {
        "rw": "randread", "bs": "4096", "ioengine": "libaio", "iodepth": "32", "numjobs": "1"}
    r = a["read"]
    assert r["io_bytes"] == round(1024.0 * 1024**2) and r["bw_bytes"] == 104858 * 1024
    assert r["runtime"] == 10000 and r["total_ios"] == 262144
    assert r["iops"] == pytest.approx(26214.4)  # from issued and runt, not the printed 26214
    assert r["slat_ns"] == {"min": 3000, "max": 1021000, "mean": 9330.0, "stddev": 8670.0}
    assert r["clat_ns"]["min"] == 260_000 and r["clat_ns"]["max"] == 39_954_000  # usec: exact on fio 2.x
    assert r["clat_ns"]["percentile"]["99.000000"] == 2_704_000
    assert r["clat_ns"]["percentile"]["99.990000"] == 28_288_000
    assert r["lat_ns"]["mean"] == pytest.approx(1_220_180.0)
    rounded = a["lab_text"]["rounded"]
    assert "clat_min_us" not in rounded and "clat_p99_us" not in rounded  # fio 2.x measured whole us
    assert {"io_bytes", "bw_bytes_per_s", "slat_mean_us", "usr_cpu_pct"} <= set(rounded)
    assert "iops" not in rounded
    assert a["usr_cpu"] == 6.84 and a["ctx"] == 220115
    # mixed job, msec latencies (rounded), two directions
    assert b["job options"]["rw"] == "randrw" and b["job options"]["bs"] == "4096,65536,4096"
    assert b["read"]["total_ios"] == 28321 and b["write"]["total_ios"] == 12170
    assert b["write"]["clat_ns"] == {"min": 2_000_000, "max": 251_000_000, "mean": 26_480_000.0,
                                     "stddev": 31_450_000.0, "percentile": b["write"]["clat_ns"]["percentile"]}
    assert {"clat_min_us", "clat_max_us", "clat_p50_us"} <= set(b["lab_text"]["rounded"])
    assert obj["disk_util"][0] == {"name": "sdb", "read_ios": 290418, "write_ios": 12159, "read_merges": 0,
                                   "write_merges": 2, "read_ticks": 2608240, "write_ticks": 318380,
                                   "in_queue": 2926628, "util": 99.91}


def test_fio2_terse_fixture():
    obj, = parse_fio_text((DATA / "fio-2.1.3-terse-v3.txt").read_bytes())
    assert obj["fio version"] == "fio-2.1.3"
    job, = obj["jobs"]
    r = job["read"]
    assert (r["io_kbytes"], r["bw"], r["iops"], r["runtime"]) == (1048576, 104857, 26214.0, 10000)
    assert r["clat_ns"]["min"] == 260_000 and r["clat_ns"]["percentile"]["99.000000"] == 2_704_000
    assert "clat_min_us" not in job["lab_text"]["rounded"] and "clat_p99_us" not in job["lab_text"]["rounded"]
    assert "slat_ns" in r and "write" not in job
    assert obj["disk_util"][0]["read_ios"] == 262144
    assert job["lab_text"]["description"] == "a test job"
    assert job["lab_text"]["percentiles"] == "clat"  # fio before 3.1 had no lat_percentiles


def test_windows_fixture():
    data = (DATA / "fio-3.x-windows.txt").read_bytes()
    assert b"\r\n" in data
    obj, = parse_fio_text(data)
    job, = obj["jobs"]
    assert obj["fio version"] == "fio-3.25" and job["job options"]["ioengine"] == "windowsaio"
    w = job["write"]
    assert w["total_ios"] == 39116 and w["runtime"] == 10001
    assert w["iops"] == pytest.approx(1000 * 39116 / 10001)
    assert w["io_bytes"] == round(153 * 1024**2) and "io_bytes" in job["lab_text"]["rounded"]
    assert w["clat_ns"]["percentile"]["50.000000"] == 52_000
    assert "disk_util" not in obj  # fio on Windows prints no disk stats


def test_fio2_group_reporting_fixture():
    obj, = parse_fio_text((DATA / "fio-2.2.10-group-reporting.txt").read_bytes())
    job, = obj["jobs"]
    assert job["job options"] == {"rw": "write", "bs": "131072", "ioengine": "libaio", "iodepth": "8",
                                  "numjobs": "4", "group_reporting": "1"}
    assert job["lab_text"]["jobs"] == 4 and job["lab_text"]["description"] == "four sequential writers"
    w = job["write"]
    assert "read" not in job and w["total_ios"] == 81920 and w["runtime"] == 30012
    assert w["io_bytes"] == 10240 << 20 and w["bw_bytes"] == 349386 * 1024
    assert w["iops"] == pytest.approx(81920 * 1000 / 30012)
    assert w["clat_ns"]["min"] == 2_000_000 and w["clat_ns"]["percentile"]["99.990000"] == 167_000_000
    assert w["slat_ns"]["max"] == 1_203_400_000 and "slat_max_us" in job["lab_text"]["rounded"]  # "1203.4K" usec
    assert "slat_min_us" not in job["lab_text"]["rounded"]  # "min=14": whole us, exact on fio 2.x
    assert {"clat_min_us", "clat_p99_99_us", "clat_mean_us", "io_bytes"} <= set(job["lab_text"]["rounded"])
    dm, sda = obj["disk_util"]  # a device-mapper disk with its slave's aggregate, then the slave
    assert dm["name"] == "dm-0" and dm["write_ios"] == 81877 and dm["aggr_write_ios"] == 81920
    assert dm["aggr_write_merge"] == 12 and dm["aggr_util"] == 99.78  # fio's JSON key spelling
    assert sda == {"name": "sda", "read_ios": 0, "write_ios": 81920, "read_merges": 0, "write_merges": 12,
                   "read_ticks": 0, "write_ticks": 3752164, "in_queue": 3752020, "util": 99.78}


def test_windows_powershell_utf16_file():
    data = (DATA / "fio-3.x-windows.txt").read_bytes()
    utf16 = b"\xff\xfe" + data.decode().encode("utf-16-le")  # what "fio ... > out.txt" writes in PowerShell 5
    assert parse_fio_text(utf16) == parse_fio_text(data)
    assert parse_fio_text(b"\xef\xbb\xbf" + data) == parse_fio_text(data)  # UTF-8 with BOM


def test_group_reporting_and_error_lines():
    text = (
        "w: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n"
        "...\nfio-3.33\nStarting 4 processes\n\n"
        "w: (groupid=0, jobs=4): err= 5 (file:io_u.c:1889, func=io_u error, error=Input/output error): "
        "pid=1: Mon Nov 23 15:37:21 2026\n"
        "  write: IOPS=45.2k, BW=177MiB/s (185MB/s)(1024MiB/5800msec); 0 zone resets\n"
        "  cpu          : usr=1.00%, sys=2.00%, ctx=3, majf=0, minf=4\n"
    ).encode()
    job, = parse_fio_text(text)[0]["jobs"]
    assert job["error"] == 5 and job["lab_text"]["error_message"].endswith("error=Input/output error")
    assert job["job options"]["numjobs"] == "4" and job["job options"]["group_reporting"] == "1"
    w = job["write"]
    assert w["iops"] == 45200.0 and "iops" in job["lab_text"]["rounded"]  # no issued line: printed, rounded
    assert "total_ios" not in w and w["io_bytes"] == 1 << 30 and w["bw_bytes"] == 177 << 20


@pytest.mark.parametrize("data,word", [
    (b"", "empty"), (b"hello world\n", "neither"), (b"\x00\x01PAR1", "binary"),
    (b"5;fio-3.33;job;0;0;1;2;3\n", "fields"),
])
def test_not_fio_text(data, word):
    with pytest.raises(FioParseError, match=word):
        parse_fio_text(data)


@pytest.mark.parametrize("name,good,bad,word", [
    ("fio-2.1.3-terse-v3.txt", b";1048576;", b";10x8576;", "terse line 1 has a field"),
    ("fio-2.1.3-normal.txt", b"usr=6.84%", b"usr=6..4%", "figure fio does not print"),
])
def test_damaged_figures(name, good, bad, word):
    data = (DATA / name).read_bytes()
    assert good in data
    with pytest.raises(FioParseError, match=word):
        parse_fio_text(data.replace(good, bad, 1))


def test_json_shape_is_what_the_json_reader_gets(runs):
    """Every key the text objects hold is a key fio's own JSON has at that place (plus lab_text)."""
    tj = parse_fio_text(runs["normal"].encode())[0]["jobs"][1]
    jj = runs["json5"]["jobs"][1]
    assert set(tj) - {"lab_text", "job options"} <= set(jj)
    for dn in ("read", "write"):
        assert set(tj[dn]) <= set(jj[dn])
        for kind in ("slat_ns", "clat_ns", "lat_ns"):
            assert set(tj[dn].get(kind, {})) <= set(jj[dn][kind])
    json.dumps(tj)  # plain JSON types only


def test_status_interval_reports_are_separate_objects():
    objs = parse_fio_text((DATA / "status-interval-normal.txt").read_bytes())
    assert len(objs) == 3 and all(len(o["jobs"]) == 1 for o in objs)
    runtimes = [o["jobs"][0]["read"]["runtime"] for o in objs]
    assert runtimes == sorted(runtimes) and runtimes[-1] > runtimes[0]
    final, = final_jobs(objs)
    assert final is objs[-1]["jobs"][0]
    assert all(o["jobs"][0]["job options"]["ioengine"] == "libaio" for o in objs)  # definitions carried over
    assert all(len(o["disk_util"]) == 1 for o in objs)


def test_client_server_output():
    """Real fio 3.33 --client output: the server's text has "<host> " prefixes, results per client."""
    obj, = parse_fio_text((DATA / "client-server-two-clients.txt").read_bytes())
    assert obj["fio version"] == "fio-3.33" and "jobs" not in obj
    w, r, agg = obj["client_stats"]
    assert (w["jobname"], r["jobname"], agg["jobname"]) == ("cs-write", "cs-read", "All clients")
    assert w["hostname"] == r["hostname"] == "vm" and "hostname" not in agg and "port" not in w
    # the "<vm> cs-write: (g=0): ..." header; numjobs is not derived: two job definitions share group 0
    assert w["job options"] == {"rw": "randwrite", "bs": "4096", "ioengine": "libaio", "iodepth": "4"}
    assert w["write"]["total_ios"] + r["read"]["total_ios"] == agg["write"]["total_ios"] + agg["read"]["total_ios"]
    assert agg["read"]["bw_bytes"] == round(29.6 * 1024**2)  # "BW=29.6Mi": fio prints no unit there
    assert [d["hostname"] for d in obj["disk_util"]] == ["vm", "vm"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_text_gives_objects_or_one_sentence(data):
    """Any damage to real outputs (cut, lines dropped, characters replaced) or random bytes: a list of
    objects or FioParseError, never another exception."""
    base = data.draw(st.sampled_from(sorted(DATA.iterdir())))
    lines = base.read_bytes().splitlines(keepends=True)
    lines = [ln for ln in lines if not data.draw(st.booleans()) or data.draw(st.integers(0, 9)) > 0]
    blob = bytearray(b"".join(lines))
    digits = [i for i, c in enumerate(blob) if 48 <= c <= 57]  # damage figures above all
    for _ in range(data.draw(st.integers(0, 20))):
        if digits:
            i = data.draw(st.sampled_from(digits))
            blob[i] = data.draw(st.sampled_from(b"0123456789.;,:%=k[]() xA\n-"))
    blob = blob[:data.draw(st.integers(0, len(blob)))] + data.draw(st.binary(max_size=20))
    try:
        objs = parse_fio_text(bytes(blob))
    except FioParseError as exc:
        assert str(exc).endswith(".") and "\n" not in str(exc)
    else:
        assert objs and all(isinstance(o.get("jobs", o.get("client_stats")), list) for o in objs)
        json.dumps(objs)


def test_terse_version_4_is_version_5_without_the_sample_fields(runs):
    """fio's stat.c differs between terse 4 and 5 only by the bw sample count and the 5 IOPS fields that
    close each direction in v5: the real v5 lines with those cut out are v4 lines and parse the same."""
    v4 = []
    for line in runs["terse5"].splitlines():
        f = line.split(";")
        dirs = [f[5 + i * 47:5 + i * 47 + 41] for i in range(3)]
        v4.append(";".join(["4", *f[1:5], *dirs[0], *dirs[1], *dirs[2], *f[5 + 3 * 47:]]))
    v5 = parse_fio_text(runs["terse5"].encode())
    for job in (j for o in v5 for j in o["jobs"]):  # the sample fields only v5 has (json_output.split_runs reads them)
        for d in ("read", "write", "trim"):
            for k in ("bw_samples", "iops_min", "iops_max", "iops_mean", "iops_samples"):
                job.get(d, {}).pop(k, None)
    assert parse_fio_text("\n".join(v4).encode()) == v5


def test_pasted_with_indentation_or_log_prefixes(runs):
    """Output pasted indented, or captured in a CI log with a timestamped prefix on every line."""
    lines = runs["normal"].splitlines()
    want = parse_fio_text(runs["normal"].encode())
    indented = "\n".join(" " * 57 + ln for ln in lines)
    logged = "\n".join(f"12:10:{i % 60:02d} DEBUG| [stdout] {ln}" for i, ln in enumerate(lines))
    assert parse_fio_text(indented.encode()) == want
    assert parse_fio_text(logged.encode()) == want
    terse = "\n".join(f"2026-11-23 15:{i:02d}:07 INFO {ln}" for i, ln in enumerate(runs["terse5"].splitlines()))
    assert parse_fio_text(terse.encode()) == parse_fio_text(runs["terse5"].encode())


# --- end to end: the same runs as JSON, normal and terse files with arbitrary names, through the ingest CLI ---

COMPARED = ["iops", "bw_bytes_per_s", "io_bytes", "total_ios", "runtime_s", "lat_mean_us", "clat_mean_us",
            "slat_mean_us", "clat_p50_us", "clat_p99_us", "lat_p50_us", "lat_p99_us"]


def test_ingest_cli_reads_json_normal_terse_and_quarantines_the_rest(runs, tmp_path):
    """Issue 11: a folder of fio JSON, normal text, terse v5 and v3 and junk, named anything: every text row
    agrees with the JSON row of the same job within what the text printed (exactly where it printed an
    exact number -- latencies to the nanosecond --, within 2 % where rounded_columns names the column),
    and every other file is quarantined."""
    import json as _json

    import pandas as pd

    from helpers.ingest import core as ingest

    src = tmp_path / "archive"
    (src / "deep").mkdir(parents=True)
    (src / "result").write_text(_json.dumps(runs["json5"]))
    (src / "deep" / "run3.log").write_text(_json.dumps(runs["json3"]))
    (src / "pasted.txt").write_text(runs["normal"])
    (src / "terse.out").write_text(runs["terse5"] + "\n")
    (src / "deep" / "t3").write_text(runs["terse3"] + "\n")
    (src / "notes.md").write_text("# my fio notes\nnothing to see\n")
    (src / "image.bin").write_bytes(b"\x89PNG\0\0" + bytes(range(256)))
    out = tmp_path / "processed"
    assert ingest.main([str(src), "--out", str(out), "--run", "mixed"]) == 0
    q = pd.read_parquet(out / "quarantine")
    assert sorted(q["source_file"]) == ["image.bin", "notes.md"]
    df = pd.read_parquet(out / "results")
    fmt = df.groupby("source_file")["source_format"].first().to_dict()
    assert fmt == {"result": "json", "deep/run3.log": "json", "pasted.txt": "normal", "terse.out": "terse",
                   "deep/t3": "terse"}
    key = ["job_name", "job_index", "direction"]
    for text_file, json_file in (("pasted.txt", "result"), ("terse.out", "result"), ("deep/t3", "deep/run3.log")):
        truth = df[df["source_file"] == json_file].set_index(key)
        text = df[df["source_file"] == text_file].set_index(key)
        assert set(text.index) == set(truth.index), text_file
        for k, row in text.iterrows():
            rounded = set(str(row["rounded_columns"]).split(",")) if pd.notna(row["rounded_columns"]) else set()
            latpct_terse = text_file != "pasted.txt" and k[0] == "e-latpct"
            if latpct_terse:  # terse holds total latency there and cannot say so: the row must say it
                assert "terse percentiles taken as completion latency" in str(row["config_note"]), row["config_note"]
            for col in COMPARED:
                if latpct_terse and "_p" in col:
                    continue
                got, want = row[col], truth.loc[k, col]
                if pd.isna(got):
                    continue  # the text does not carry it: NA, never a guess
                assert pd.notna(want), (text_file, k, col, got)
                # not rounded: exact, latencies to the nanosecond the text prints (e.g. avg=1870.27 nsec)
                # rounded: 3 significant digits (within 2 %), or whole µs for latencies terse prints as integers
                # (a 0.748 µs cached-read percentile is printed "0")
                us = col.endswith("_us")
                rel, abs_ = (0.02, 1.0 if us else 0.0) if col in rounded else (1e-6, 1e-3 if us else 0.0)
                assert float(got) == pytest.approx(float(want), rel=rel, abs=abs_), (text_file, k, col, rounded)


def test_terse_status_final_block_right_after_the_last_snapshot_is_the_next_report():
    """Real fio 3.33 terse, --status-interval=250ms: the final block came 3 ms after the last snapshot (runtime
    1499 -> 1502 ms, 194,084 -> 194,104 KiB, the disk figures unchanged) and was read as a numjobs clone of it,
    so the run gave two rows.  The reports before printed the job on one line: one more is the next report."""
    data = (DATA / "fio-3.33-terse-status-final-3ms-after.txt").read_bytes()
    objs = parse_fio_text(data)
    assert len(objs) == 9 and all(len(o["jobs"]) == 1 for o in objs)
    rows, bad = ingest.rows_from_bytes(data, "r", "status.out")
    assert not bad and len(rows) == 1 and rows[0]["io_bytes"] == 194104 * 1024
    # numjobs=2 in every report (each line twice, the clone with other byte counts): still two clones a report
    lines = data.decode().splitlines()
    twice = []
    for ln in lines:
        f = ln.split(";")
        twice += [ln, ";".join(f[:5] + [str(int(f[5]) + 4096)] + f[6:])]
    objs = parse_fio_text(("\n".join(twice) + "\n").encode())
    assert len(objs) == 9 and all(len(o["jobs"]) == 2 for o in objs)
