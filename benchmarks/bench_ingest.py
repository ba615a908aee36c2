"""Ingest benchmark (a script, not a test): ``make bench-ingest`` or
``.venv/bin/python benchmarks/bench_ingest.py [--files 3000] [--archive-files 2000]``.

Two corpora, built in a temp folder from the real corpus outputs (tests/data/fio) with varied values:

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


def warm(folder: Path) -> None:
    """Read every file once, so each measurement starts with the same (warm) page cache."""
    for f in folder.rglob("*.json"):
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=3000, help="files in the small corpus")
    ap.add_argument("--archive-files", type=int, default=2000, help="files in the archive-shaped corpus")
    ap.add_argument("--repeat", type=int, default=2, help="runs per side; the best time counts")
    ap.add_argument("--dir", default=default_dir(),
                    help="where the corpora and outputs go (default: /dev/shm when it exists, else build/)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ingest-", dir=args.dir) as tmp:
        tmp = Path(tmp)
        print(f"corpora and outputs in {tmp} ({'RAM-backed tmpfs' if is_tmpfs(tmp) else 'page cache of a disk'})")
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
        print(f"before: {load()}")
        runs = interleaved({"floor": (FLOOR, arch, tmp / "unused"), "ours": (OURS, arch, tmp / "o-arch"),
                            "base": (BASELINE, arch, tmp / "base-arch.parquet")}, args.repeat)
        floor, a_ours, a_base = best(runs["floor"]), best(runs["ours"]), best(runs["base"])
        print(f"after: {load()}")
        print(f"every run, in turns: floor {times(runs['floor'])}; ours {times(runs['ours'])}; "
              f"baseline {times(runs['base'])}")
        n = args.archive_files
        print(f"archive baseline: {a_base[0]:.2f} s, {a_base[1]} rows, peak RSS {a_base[2]:.0f} MiB")
        print(f"archive ours: {a_ours[0]:.3f} s, {a_ours[1]} rows, peak RSS {a_ours[2]:.0f} MiB; "
              f"{n / a_ours[0]:.0f} files/s")
        print(f"archive floor (read + orjson.loads only, one process): {floor[0]:.3f} s, {n / floor[0]:.0f} files/s")
        print(f"archive ratio: ours is {a_base[0] / a_ours[0]:.1f}x faster than the baseline (goal >= 40x); "
              f"ours runs at {floor[0] / a_ours[0]:.2f} of the floor's files/s (goal >= 0.33)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
