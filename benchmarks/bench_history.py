"""Benchmark (a script, not a test): loading from a large history of processed runs.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_history.py [--runs 1000] [--hosts 20]

Generates ``--runs`` runs in build/bench-history/processed/ (the Hive layout of helpers.processed.store:
results/run_id=<RUN>/part-0.parquet and histograms/...), each a copy of the bundled sample-grid-vm run
(86 result rows, ~9,000 histogram rows) with its own run id and one of ``--hosts`` host names (the
results table's stand-in for "one device": it has no device column).  Then times

* listing the runs (``store.list_runs``),
* loading two runs' results and histograms (``store.load`` with run ids: only their partitions are read),
* loading every run of one host (``store.load_where`` with a pyarrow dataset filter),
* the same with read-everything-then-filter (``pd.read_parquet`` of the whole dataset), for comparison,
* comparing two runs (``helpers.analysis.compare_runs`` on their repeat samples).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.analysis.runpair import compare_runs, repeat_samples
from helpers.ingest.core import ingest_run
from helpers.processed import store

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "bench-history"


def timed(what: str, fn):
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    print(f"{what:<58} {dt:8.3f} s", flush=True)
    return out, dt


def generate(pdir: Path, runs: int, hosts: int) -> None:
    sample = ingest_run(config.SAMPLE_RAW_DIR / "sample-grid-vm", "x")
    res, hist = sample.results, sample.histograms
    for i in range(runs):
        rid = f"run-{i:05d}"
        store.write_run(pdir, config.RESULTS_DATASET, rid, res.assign(run_id=rid, host=f"host-{i % hosts:02d}"))
        store.write_run(pdir, config.HISTOGRAM_DATASET, rid, hist.assign(run_id=rid))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--keep", action="store_true", help="reuse an existing generated history of that size")
    args = ap.parse_args(argv)
    pdir = WORK / "processed"
    if not (args.keep and len(store.list_runs(pdir)) == args.runs):
        shutil.rmtree(WORK, ignore_errors=True)
        timed(f"generate {args.runs} runs (results + histograms)", lambda: generate(pdir, args.runs, args.hosts))
    size = sum(f.stat().st_size for f in pdir.rglob("*.parquet")) / 1e6
    print(f"history: {args.runs} runs, {size:,.0f} MB of Parquet in {pdir}")
    runs, _ = timed("list runs", lambda: store.list_runs(pdir))
    a, b = runs[0], runs[len(runs) // 2]
    two, _ = timed("load two runs' results (run partitions)", lambda: store.load(pdir, "results", [a, b]))
    hist, _ = timed("load two runs' histograms (run partitions)", lambda: store.load(pdir, "histograms", [a, b]))
    one, t_filter = timed("load all runs of one host (dataset filter)",
                          lambda: store.load_where(pdir, "results", {"host": "host-03"}))

    def naive() -> pd.DataFrame:
        df = pd.read_parquet(pdir / "results")
        return df[df["host"] == "host-03"]

    base, t_naive = timed("load all runs of one host (read everything, then filter)", naive)
    assert len(base) == len(one) and one["run_id"].nunique() == args.runs // args.hosts
    c, _ = timed("compare the two runs (samples + statistics)",
                 lambda: compare_runs(repeat_samples(two, hist), a, b))
    print(f"\n{len(two)} result rows of 2 runs; {len(one)} rows of {one['run_id'].nunique()} runs of host-03; "
          f"dataset filter {t_naive / t_filter:.1f}x faster than reading everything; comparison: {c.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
