"""Ingest benchmark (a script, not a test): ``make bench-ingest`` or
``.venv/bin/python benchmarks/bench_ingest.py [--files 3000] [--archive-files 2000]``.

Three corpora (the third, ``--log-files``, the fio logs of issue 21: ``--only-logs`` runs just that one),
built in a temp folder from the real corpus outputs (tests/data/fio) with varied values:

* small: N files, each a copy of one of six real outputs (1 in 6 json+ with bins);
* archive: M files shaped like real archives -- each a numjobs run without group_reporting, so 1-64
  per-job entries per file (log-uniform), json+ with clat bins on 1 file in 8.

On each, in the same run and each in a fresh subprocess with the page cache warmed by reading every
file first (the corpora live on /dev/shm, a RAM-backed tmpfs, when there is one: on a VM that reclaims its
page cache a file read a second ago may come from disk again, so "warm" holds only there; ``--dir`` chooses): (a) the naive baseline: json.load + pandas.json_normalize per file, concat, to_parquet;
(b) our ingest (``helpers.ingest.core.ingest_paths`` streaming to Parquet); and on the archive (c) a
bare floor: read every file and orjson.loads it, nothing else, in one process.  Each runs
``--repeat`` times (default 2, the best counts), the sides in turns (ours, baseline, ours, baseline, ...:
this VM's CPU speed drifts by tens of per cent over minutes, and one side's runs all before the other's
would compare two stretches of time).  Prints times, the ratio (goal >= 40x), files/s of
ours against the floor (goal >= 1/3), the load average and peak RSS (children included); ours is
also run on N/3 small files to show its memory follows the batch size, not the file count.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from helpers.ingest.core import BATCH_FILES

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "fio"
SOURCES = ["jsonplus/randrw-mix70.json", "json/randread-qd4.json", "multijob/stonewall-clones.json",
           "options/global-options.json", "mixed/rw-default-mix.json", "benchfio/4k/randread-8-1.json"]
VARY = ("iops", "bw", "bw_bytes", "io_bytes", "total_ios", "mean", "stddev")


def vary(node, rng: random.Random):
    """Scale the measured numbers by a random factor (types kept: ints stay ints)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in VARY and isinstance(v, (int, float)) and not isinstance(v, bool) and v:
                f = rng.uniform(0.7, 1.3)
                node[k] = max(1, int(v * f)) if isinstance(v, int) else v * f
            else:
                vary(v, rng)
    elif isinstance(node, list):
        for v in node:
            vary(v, rng)


def build(folder: Path, n: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    objs = [json.loads((CORPUS / s).read_text()) for s in SOURCES]
    for i in range(n):
        obj = json.loads(json.dumps(objs[i % len(objs)]))
        vary(obj, rng)
        d = folder / f"bs{i % 7}"
        d.mkdir(exist_ok=True)
        (d / f"point-{i:05d}.json").write_text(json.dumps(obj, indent=2))


ARCHIVE_SOURCES = ["json/randread-qd4.json", "jsonplus/randrw-mix70.json"]
ARCHIVE_ENTRIES = (1, 2, 4, 8, 16, 32, 64)


def build_archive(folder: Path, n: int, seed: int = 2) -> int:
    """``n`` files of 1-64 numjobs clone entries each (json+ with bins on 1 file in 8); total entries."""
    rng = random.Random(seed)
    plain, plus = (json.loads((CORPUS / s).read_text()) for s in ARCHIVE_SOURCES)
    total = 0
    for i in range(n):
        src = plus if i % 8 == 7 else plain
        k = rng.choice(ARCHIVE_ENTRIES)
        obj = json.loads(json.dumps(src))
        job = obj["jobs"][0]
        job["job options"]["numjobs"] = str(k)
        jobs = []
        for _ in range(k):
            j = json.loads(json.dumps(job))
            vary(j, rng)
            jobs.append(j)
        obj["jobs"] = jobs
        total += k
        d = folder / f"host{i % 5}" / f"qd{2 ** (i % 8)}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"run-{i:05d}.json").write_text(json.dumps(obj, indent=2))
    return total


FLOOR = r"""
import sys, time
from pathlib import Path

import orjson
t = time.perf_counter()
n = 0
for f in sorted(Path(sys.argv[1]).rglob("*.json")):
    with open(f, "rb") as fh:
        orjson.loads(fh.read())
    n += 1
print(time.perf_counter() - t, n)
"""

BASELINE = r"""
import json, sys, time
from pathlib import Path

from helpers.ingest.core import BATCH_FILES
import pandas as pd
t = time.perf_counter()
frames = []
for f in sorted(Path(sys.argv[1]).rglob("*.json")):
    with open(f) as fh:
        d = json.load(fh)
    frames.append(pd.json_normalize(d, record_path="jobs", meta=["fio version", "timestamp"]))
df = pd.concat(frames, ignore_index=True)
df.columns = [str(c) for c in df.columns]
df = df.astype({c: "string" for c in df.columns if df[c].dtype == object})
df.to_parquet(sys.argv[2])
print(time.perf_counter() - t, len(df))
"""

OURS = r"""
import sys, time
from pathlib import Path

from helpers.ingest.core import BATCH_FILES
from helpers.ingest import core as ingest
t = time.perf_counter()
r = ingest.ingest_paths([Path(sys.argv[1])], "bench", out=Path(sys.argv[2]), keep=False)
print(time.perf_counter() - t, r.rows)
"""

MEASURE = r"""
import resource, runpy, sys
code = sys.argv[1]; sys.argv = sys.argv[1:]
exec(compile(code, "<bench>", "exec"))
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(peak)
"""


LOG_KINDS = ("bw", "iops", "lat", "clat", "slat")
LOG_NUMJOBS = (1, 2, 4, 8, 16)
LOG_INTERVALS = (250, 500, 1000)


def build_log_archive(folder: Path, n_files: int, seed: int = 3, runtime_s: int = 60) -> tuple[int, int]:
    """A fio-plot (bench-fio) shaped archive of about ``n_files`` log files: one JSON per point (numjobs 1-16,
    group_reporting: one entry), 5 logs per numjobs clone (bw, iops, lat, clat, slat) written with an absolute
    ``write_*_log`` prefix and ``log_avg_msec`` 250, 500 or 1000, ``runtime_s`` of entries each, fio's jitter of
    a few ms, 1 entry in 50 late by up to half an interval and 1 in 100 doubled.  Returns (points, log files)."""
    rng = np.random.default_rng(seed)
    base = json.loads((CORPUS / "benchfio/4k/randread-8-1.json").read_text())
    points = files = 0
    while files < n_files:
        nj = int(rng.choice(LOG_NUMJOBS))
        avg = int(rng.choice(LOG_INTERVALS))
        qd = int(2 ** rng.integers(0, 8))
        d = folder / f"dev{points % 3}" / f"{4 << (points % 4)}k"
        d.mkdir(parents=True, exist_ok=True)
        stem = f"randread-iodepth-{qd}-numjobs-{nj}-{points}"
        obj = json.loads(json.dumps(base))
        opts = obj["jobs"][0]["job options"]
        opts.update({"numjobs": str(nj), "iodepth": str(qd), "log_avg_msec": str(avg), "group_reporting": "1",
                     **{k: str(d / stem) for k in ("write_bw_log", "write_iops_log", "write_lat_log")}})
        obj["jobs"][0]["read"].update({"runtime": runtime_s * 1000, "io_bytes": 4096 * 20000 * runtime_s * nj,
                                       "total_ios": 20000 * runtime_s * nj})
        (d / f"randread-{qd}-{nj}-{points}.json").write_text(json.dumps(obj, indent=2))
        n = runtime_s * 1000 // avg
        for job in range(1, nj + 1):
            t = np.arange(1, n + 1) * avg + rng.integers(0, 4, n)
            late = rng.random(n) < 0.02
            t[late] += rng.integers(1, avg // 2, late.sum())
            dup = np.flatnonzero(rng.random(n) < 0.01)
            t = np.sort(np.r_[t, t[dup] + rng.integers(1, 5, len(dup))])
            for kind in LOG_KINDS:
                v = rng.integers(1000, 90000 if kind in ("bw", "iops") else 900000, len(t))
                (d / f"{stem}_{kind}.{job}.log").write_text("".join(f"{a}, {b}, 0, 0, 0\n" for a, b in zip(t, v)))
                files += 1
        points += 1
    return points, files


LOG_BASELINE = r"""
import sys, time
from pathlib import Path

import pandas as pd
t = time.perf_counter()
frames = []
for f in sorted(Path(sys.argv[1]).rglob("*.log")):
    df = pd.read_csv(f, header=None, names=["time_ms", "value", "direction", "bs", "offset"])
    df["file"] = str(f)
    frames.append(df)
df = pd.concat(frames, ignore_index=True)
df.to_parquet(sys.argv[2])
print(time.perf_counter() - t, len(df))
"""

LOG_FLOOR = r"""
import sys, time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
t = time.perf_counter()
blobs = [f.read_bytes() for f in sorted(Path(sys.argv[1]).rglob("*.log"))]
table = pacsv.read_csv(pa.py_buffer(b"".join(blobs)), read_options=pacsv.ReadOptions(autogenerate_column_names=True,
                                                                                      block_size=1 << 24))
print(time.perf_counter() - t, table.num_rows)
"""

LOG_OURS = r"""
import sys, time
from pathlib import Path

from helpers.ingest.timeseries import ingest_timeseries
t = time.perf_counter()
_, rows = ingest_timeseries([Path(sys.argv[1])], "bench", Path(sys.argv[2]))
print(time.perf_counter() - t, rows)
"""


def warm(folder: Path) -> None:
    """Read every file once, so each measurement starts with the same (warm) page cache."""
    for f in folder.rglob("*"):
        if f.is_file():
            f.read_bytes()


def run_once(code: str, src: Path, out: Path) -> tuple[float, int, float]:
    """(seconds, rows, peak RSS in MiB) of one fresh subprocess, the page cache warmed first."""
    warm(src)
    p = subprocess.run([sys.executable, "-c", MEASURE, code, str(src), str(out)],
                       capture_output=True, text=True, check=True)
    first, peak = p.stdout.split("\n")[-3:-1]
    secs, rows = first.split()
    return float(secs), int(rows), int(peak) / 1024.0


def interleaved(sides: dict[str, tuple[str, Path, Path]], repeat: int) -> dict[str, list[tuple[float, int, float]]]:
    """Every side run ``repeat`` times, in turns (a, b, c, a, b, c, ...): this VM's CPU speed drifts by tens
    of per cent over minutes, so sides run one after the other would compare the machine's phases as much as
    the code; in turns, each side's best comes from the same stretch of time."""
    out: dict[str, list] = {k: [] for k in sides}
    for _ in range(repeat):
        for k, (code, src, dst) in sides.items():
            out[k].append(run_once(code, src, dst))
    return out


def best(samples: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    """(best seconds, rows, largest peak RSS)."""
    return min(s[0] for s in samples), samples[0][1], max(s[2] for s in samples)


def times(samples: list[tuple[float, int, float]]) -> str:
    return ", ".join(f"{s[0]:.3f}" for s in samples) + " s"


def is_tmpfs(path: Path) -> bool:
    """True when ``path`` lies on a tmpfs (its files are RAM and stay cached; /proc/mounts, longest prefix)."""
    best, fstype = "", ""
    for line in Path("/proc/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) > 2 and str(Path(path).resolve()).startswith(parts[1].rstrip("/") + "/") and \
                len(parts[1]) > len(best):
            best, fstype = parts[1], parts[2]
    return fstype == "tmpfs"


def default_dir() -> str | None:
    """/dev/shm when it is a tmpfs: "a warm page cache for both" has to hold for the whole run, and a VM that
    reclaims its page cache (this one keeps about 0.4 GB of 24 GB cached and re-reads files during a run) breaks
    that for files on disk; else build/ (None: the system temp folder)."""
    if Path("/dev/shm").is_dir() and is_tmpfs(Path("/dev/shm/x")) and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    build = Path(__file__).resolve().parents[1] / "build"
    return str(build) if build.is_dir() else None


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def json_corpora(args, tmp: Path) -> None:
    big, small = tmp / "big", tmp / "small"
    big.mkdir(), small.mkdir()
    t = time.perf_counter()
    build(big, args.files)
    build(small, args.files // 3)
    size = sum(f.stat().st_size for f in big.rglob("*.json")) / 2**20
    print(f"built {args.files} files ({size:.0f} MiB; {len(SOURCES)} real outputs, 1 in "
          f"{len(SOURCES)} json+ with bins, values varied) in {time.perf_counter() - t:.1f} s")
    print(f"before: {load()}")
    ours_small = best([run_once(OURS, small, tmp / "o-small") for _ in range(args.repeat)])
    runs = interleaved({"ours": (OURS, big, tmp / "o-big"), "base": (BASELINE, big, tmp / "base.parquet")},
                       args.repeat)
    ours, base = best(runs["ours"]), best(runs["base"])
    print(f"after: {load()}")
    print(f"every run, in turns: ours {times(runs['ours'])}; baseline {times(runs['base'])}")
    print(f"baseline (json.load + json_normalize + concat + to_parquet): {base[0]:.2f} s, "
          f"{base[1]} rows, peak RSS {base[2]:.0f} MiB (best of {args.repeat})")
    print(f"ours (helpers.ingest.core, batches of at most {BATCH_FILES} files): "
          f"{ours[0]:.3f} s, {ours[1]} rows, peak RSS {ours[2]:.0f} MiB "
          f"({args.files // 3} files: {ours_small[0]:.3f} s, peak RSS {ours_small[2]:.0f} MiB; best of {args.repeat})")
    print(f"ratio: ours is {base[0] / ours[0]:.1f}x faster than the baseline (goal >= 40x)")
    arch = tmp / "archive"
    arch.mkdir()
    t = time.perf_counter()
    entries = build_archive(arch, args.archive_files)
    size = sum(f.stat().st_size for f in arch.rglob("*.json")) / 2**20
    print(f"archive: built {args.archive_files} files ({size:.0f} MiB, {entries} per-job entries, 1-64 per "
          f"file; json+ with bins on 1 in 8) in {time.perf_counter() - t:.1f} s")
    floor, a_ours, a_base = three_sides(tmp, arch, (FLOOR, OURS, BASELINE), "arch", args.repeat)
    n = args.archive_files
    print(f"archive baseline: {a_base[0]:.2f} s, {a_base[1]} rows, peak RSS {a_base[2]:.0f} MiB")
    print(f"archive ours: {a_ours[0]:.3f} s, {a_ours[1]} rows, peak RSS {a_ours[2]:.0f} MiB; "
          f"{n / a_ours[0]:.0f} files/s")
    print(f"archive floor (read + orjson.loads only, one process): {floor[0]:.3f} s, {n / floor[0]:.0f} files/s")
    print(f"archive ratio: ours is {a_base[0] / a_ours[0]:.1f}x faster than the baseline (goal >= 40x); "
          f"ours runs at {floor[0] / a_ours[0]:.2f} of the floor's files/s (goal >= 0.33)")


def three_sides(tmp: Path, src: Path, codes: tuple[str, str, str], tag: str, repeat: int):
    """Floor, ours and baseline on ``src``, in turns, with the load average before and after; their bests."""
    print(f"before: {load()}")
    runs = interleaved({"floor": (codes[0], src, tmp / "unused"), "ours": (codes[1], src, tmp / f"o-{tag}"),
                        "base": (codes[2], src, tmp / f"base-{tag}.parquet")}, repeat)
    print(f"after: {load()}")
    print(f"every run, in turns: floor {times(runs['floor'])}; ours {times(runs['ours'])}; baseline {times(runs['base'])}")
    return best(runs["floor"]), best(runs["ours"]), best(runs["base"])


def log_archive(args, tmp: Path) -> None:
    """Issue 21 point 4: fio logs of a fio-plot-shaped archive -> the timeseries dataset, against a naive
    baseline (per file pandas.read_csv, concat, to_parquet) and a floor (the same bytes read and parsed by
    pyarrow.csv in one pass), in turns, each in a fresh subprocess."""
    logs = tmp / "logs"
    logs.mkdir()
    t = time.perf_counter()
    points, files = build_log_archive(logs, args.log_files)
    size = sum(f.stat().st_size for f in logs.rglob("*.log")) / 2**20
    print(f"log archive: built {files} log files ({size:.0f} MiB) of {points} points (numjobs 1-16, 5 logs per "
          f"clone, log_avg_msec 250/500/1000, 60 s each) in {time.perf_counter() - t:.1f} s")
    floor, ours, base = three_sides(tmp, logs, (LOG_FLOOR, LOG_OURS, LOG_BASELINE), "logs", args.repeat)
    print(f"logs baseline (per file pandas.read_csv + concat + to_parquet): {base[0]:.2f} s, {base[1]:,} rows, "
          f"peak RSS {base[2]:.0f} MiB")
    print(f"logs floor (read every file, pyarrow.csv on the bytes in one pass, nothing else): {floor[0]:.3f} s, "
          f"{floor[1]:,} rows, peak RSS {floor[2]:.0f} MiB")
    print(f"logs ours (helpers.ingest.timeseries.ingest_timeseries: match to JSON, windows, Parquet): {ours[0]:.3f} s, "
          f"{ours[1]:,} rows, peak RSS {ours[2]:.0f} MiB; {files / ours[0]:,.0f} files/s")
    print(f"logs ratio: ours is {base[0] / ours[0]:.1f}x faster than the baseline (goal >= 5x) and "
          f"{ours[0] / floor[0]:.2f}x the floor's time (goal <= 3x)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=3000, help="files in the small corpus")
    ap.add_argument("--archive-files", type=int, default=2000, help="files in the archive-shaped corpus")
    ap.add_argument("--repeat", type=int, default=2, help="runs per side; the best time counts")
    ap.add_argument("--log-files", type=int, default=24000,
                    help="log files in the fio-plot-shaped log archive (0: skip it)")
    ap.add_argument("--only-logs", action="store_true", help="run only the log archive part")
    ap.add_argument("--dir", default=default_dir(),
                    help="where the corpora and outputs go (default: /dev/shm when it exists, else build/)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ingest-", dir=args.dir) as tmp:
        tmp = Path(tmp)
        print(f"corpora and outputs in {tmp} ({'RAM-backed tmpfs' if is_tmpfs(tmp) else 'page cache of a disk'})")
        if not args.only_logs:
            json_corpora(args, tmp)
        if args.log_files:
            log_archive(args, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
