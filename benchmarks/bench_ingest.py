"""Ingest benchmark (not collected by pytest): ``make bench-ingest`` or
``.venv/bin/python benchmarks/bench_ingest.py [--files 3000]``.

Builds N result files -- copies of the real corpus outputs (tests/data/fio, plain json and json+)
with varied values -- in a temp folder, then times in the same run, each in a fresh subprocess:
(a) the naive baseline: json.load + pandas.json_normalize per file, concat, to_parquet;
(b) our ingest (``helpers.ingest.core.ingest_paths`` streaming to Parquet).
Each side runs ``--repeat`` times (default 2, the best counts; the file build before warms the page
cache). Prints both times, the ratio, the load average, and peak RSS of each (children included); ours
is also run on N/3 files to show its memory follows the batch size, not the file count.
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


def run(code: str, src: Path, out: Path, repeat: int = 1) -> tuple[float, int, float]:
    """(best seconds, rows, largest peak RSS in MiB) over ``repeat`` fresh subprocesses."""
    best = None
    for _ in range(repeat):
        p = subprocess.run([sys.executable, "-c", MEASURE, code, str(src), str(out)],
                           capture_output=True, text=True, check=True)
        first, peak = p.stdout.split("\n")[-3:-1]
        secs, rows = first.split()
        r = (float(secs), int(rows), int(peak) / 1024.0)
        best = r if best is None else (min(best[0], r[0]), r[1], max(best[2], r[2]))
    return best


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=2, help="runs per side; the best time counts")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ingest-", dir=Path(__file__).resolve().parents[1] / "build"
                                     if (Path(__file__).resolve().parents[1] / "build").is_dir() else None) as tmp:
        tmp = Path(tmp)
        big, small = tmp / "big", tmp / "small"
        big.mkdir(), small.mkdir()
        t = time.perf_counter()
        build(big, args.files)
        build(small, args.files // 3)
        size = sum(f.stat().st_size for f in big.rglob("*.json")) / 2**20
        print(f"built {args.files} files ({size:.0f} MiB; {len(SOURCES)} real outputs, 1 in "
              f"{len(SOURCES)} json+ with bins, values varied) in {time.perf_counter() - t:.1f} s")
        print(f"before: {load()}")
        ours_small = run(OURS, small, tmp / "o-small", args.repeat)
        ours = run(OURS, big, tmp / "o-big", args.repeat)
        base = run(BASELINE, big, tmp / "base.parquet", args.repeat)
        print(f"after: {load()}")
        print(f"baseline (json.load + json_normalize + concat + to_parquet): {base[0]:.2f} s, "
              f"{base[1]} rows, peak RSS {base[2]:.0f} MiB (best of {args.repeat})")
        print(f"ours (helpers.ingest.core, batches of at most {BATCH_FILES} files): "
              f"{ours[0]:.3f} s, {ours[1]} rows, peak RSS {ours[2]:.0f} MiB "
              f"({args.files // 3} files: {ours_small[0]:.3f} s, peak RSS {ours_small[2]:.0f} MiB; best of {args.repeat})")
        print(f"ratio: ours is {base[0] / ours[0]:.1f}x faster than the baseline (goal >= 40x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
