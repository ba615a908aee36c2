"""Benchmark (a script, not a test): how honest is the run comparison on this machine's disk?

    PYTHONPATH=src .venv/bin/python benchmarks/bench_compare.py [--trials 20] [--repeats 3] [--runtime 1]

Each A/A trial measures the same point (4k randread, QD 4, libaio, direct, 64 MiB scratch FILE under
build/bench-compare/, never a device) as two runs A and A' of ``--repeats`` x ``--runtime`` s and
compares them with the lab's statistics (``helpers.analysis.compare_runs`` on per-repeat samples: IOPS,
mean total latency, p99 completion latency from the json+ histograms).  Any verdict other than "within
noise" on an A/A pair is a false alarm; nominal rate 5 % per metric at 95 % confidence.  Two designs:

* ``interleaved``: A r0, A' r0, A r1, A' r1, ... (both runs see the same moments of the disk);
* ``sequential``: all of A, then all of A' (two runs back to back, as a CI job compares them).

Then ``--ab-trials`` interleaved A/B/A' trials: B is throttled with ``rate_iops`` at ``--ab-fraction`` of
a 2-repeat pilot's slower repeat; prints whether B is found "slower" and whether the IOPS interval of B
vs A covers the reference ratio B achieved / mean of A' (an independent A the interval never saw).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pandas as pd  # noqa: E402

from compare_helpers import fio_repeat, interleaved, mean_iops, samples_of, sequential  # noqa: E402
from helpers.analysis.runpair import MATCH_KEYS, compare_runs  # noqa: E402
from helpers.fio.binary import find_fio  # noqa: E402

WORK = ROOT / "build" / "bench-compare"
KEYS = [k for k in MATCH_KEYS if k != "rate_iops"]
METRICS = ["iops", "lat_mean", "p99"]


def aa_trials(fio: str, design, n: int, args) -> dict[str, int]:
    alarms = {m: 0 for m in [*METRICS, "any"]}
    for t in range(n):
        root = WORK / f"{design.__name__}-{t}"
        shutil.rmtree(root, ignore_errors=True)
        s = design(fio, WORK / "target.bin", root, {"a": {}, "a2": {}}, args.repeats, args.runtime, args.ramp)
        c = compare_runs(s, "a", "a2", metrics=METRICS)
        v = c.table.set_index("metric")
        for m in METRICS:
            alarms[m] += v.loc[m, "verdict"] != "within noise"
        alarms["any"] += bool((v["verdict"] != "within noise").any())
        print(f"{design.__name__} A/A {t + 1}/{n}: " + ", ".join(
            f"{m} {v.loc[m, 'change_pct']:+.1f} % [{v.loc[m, 'low_pct']:+.1f}, {v.loc[m, 'high_pct']:+.1f}] "
            f"{v.loc[m, 'verdict']}" for m in METRICS), flush=True)
        shutil.rmtree(root, ignore_errors=True)
    return alarms


def ab_trials(fio: str, n: int, args) -> tuple[int, int]:
    detected = covered = 0
    for t in range(n):
        root = WORK / f"ab-{t}"
        shutil.rmtree(root, ignore_errors=True)
        for r in range(2):
            fio_repeat(fio, WORK / "target.bin", root / "pilot" / f"r{r}.json", args.runtime, args.ramp)
        pilot = samples_of(root / "pilot", "pilot")
        rate = int(args.ab_fraction * pilot.loc[pilot["metric"] == "iops", "value"].min())
        s = interleaved(fio, WORK / "target.bin", root,
                        {"a": {}, "b": {"rate_iops": rate, "rate_process": "linear"}, "a2": {}},
                        args.repeats, args.runtime, args.ramp)
        r = compare_runs(s, "a", "b", metrics=["iops"], keys=KEYS).table.iloc[0]
        truth = mean_iops(s, "b") / mean_iops(s, "a2")
        detected += r["verdict"] == "slower"
        covered += bool(r["low"] <= truth <= r["high"])
        print(f"A/B {t + 1}/{n}: offered {rate:,} IOPS, achieved {mean_iops(s, 'b'):,.0f}; A {mean_iops(s, 'a'):,.0f}, "
              f"A' {mean_iops(s, 'a2'):,.0f}; ratio {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
              f"{r['verdict']}; reference B/A' {truth:.3f} {'covered' if r['low'] <= truth <= r['high'] else 'MISSED'}",
              flush=True)
        shutil.rmtree(root, ignore_errors=True)
    return detected, covered


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20, help="A/A trials per design")
    ap.add_argument("--designs", default="interleaved,sequential")
    ap.add_argument("--ab-trials", type=int, default=5)
    ap.add_argument("--ab-fraction", type=float, default=0.6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runtime", type=float, default=1.0)
    ap.add_argument("--ramp", type=float, default=0.25)
    args = ap.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    fio = find_fio()
    t0 = time.monotonic()
    designs = {"interleaved": interleaved, "sequential": sequential}
    results = {d: aa_trials(fio, designs[d], args.trials, args) for d in args.designs.split(",") if d and args.trials}
    ab = ab_trials(fio, args.ab_trials, args) if args.ab_trials else None
    if results:
        print(f"\nA/A false alarms over {args.trials} trials per design ({args.repeats} x {args.runtime:g} s repeats "
              f"per run, 4k randread QD4, 95 % intervals; nominal 5 % per metric):")
        print(pd.DataFrame({d: {m: f"{a[m]}/{args.trials} = {100 * a[m] / args.trials:.0f} %" for m in a}
                            for d, a in results.items()}).to_string())
    if ab:
        print(f"A/B (B offered {args.ab_fraction:.0%} of A): slower detected {ab[0]}/{args.ab_trials}, "
              f"interval covers B/A' {ab[1]}/{args.ab_trials}")
    print(f"total {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
