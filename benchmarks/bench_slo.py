"""Benchmark (a script, not a test): the SLO search against a full rate grid and fio's latency_target.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_slo.py [--slo-us 2000] [--runtime 2] [--max-rate 128000]

On a 64 MiB scratch FILE under build/bench-slo/ (never a device), 4k random read, QD ``--qd``:

1. the lab's SLO search (profile ``mode: slo``: rate ladder x4, then log-space bisection to 10 %), with
   its cross-check: one point in fio's own ``latency_target`` mode (closed loop: fio moves the queue
   depth until the p99 of every ``--window`` s window meets the target), at most ``--lt-windows`` windows;
2. a full geometric rate grid with the same 10 % resolution from 1,000 IOPS to ``--max-rate``
   (the grid's capacity comes from ``helpers.analysis.slo_table`` on the ingested results).

Prints each method's capacity, the device time it used (ramp + runtime of every fio run; the
cross-check's the seconds its fio ran) and the search's agreement sentence
(``helpers.analysis.slo_cross_check``).
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from pathlib import Path

import yaml

from helpers.analysis.slo import slo_cross_check, slo_table
from helpers.ingest.core import ingest_run
from helpers.run import sweep

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "bench-slo"


def profile(name: str, doc: dict) -> Path:
    p = WORK / f"{name}.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slo-us", type=float, default=2000.0)
    ap.add_argument("--qd", type=int, default=64)
    ap.add_argument("--runtime", type=float, default=2.0)
    ap.add_argument("--ramp", type=float, default=0.5)
    ap.add_argument("--max-rate", type=int, default=128_000)
    ap.add_argument("--tolerance-pct", type=float, default=10.0)
    ap.add_argument("--window", type=float, default=1.0, help="fio latency_window of the cross-check (s)")
    ap.add_argument("--lt-windows", type=int, default=30, help="the cross-check's runtime cap in windows")
    args = ap.parse_args(argv)
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    target, raw = WORK / "target.bin", WORK / "raw"
    settings = {"ioengine": "libaio", "runtime_s": args.runtime, "ramp_s": args.ramp}
    point = {"group": "slo", "rw": "randread", "bs": "4k", "iodepth": args.qd}
    t0 = time.monotonic()

    search = sweep.sweep(target, profile("search", {
        "description": "slo search", "mode": "slo", "settings": settings, "points": [point],
        "slo": {"slo_us": args.slo_us, "start_rate": 1000, "factor": 4, "max_rate": args.max_rate,
                "tolerance_pct": args.tolerance_pct, "latency_window_s": args.window,
                "cross_check_windows": args.lt_windows}}), "search", None, "64m", raw, progress=False)
    s = next(iter(search["slo"].values()))
    cc = s["cross_check"]
    check = slo_cross_check({"search": search}).iloc[0]

    step = 1 + args.tolerance_pct / 100
    rates = sorted({int(round(1000 * step**k)) for k in range(int(math.log(args.max_rate / 1000) / math.log(step)) + 1)})
    grid = sweep.sweep(target, profile("grid", {
        "description": "rate grid", "settings": settings, "points": [{**point, "rate_iops": rates}]}),
        "grid", None, "64m", raw, progress=False)
    table = slo_table(ingest_run(raw / "grid").results, slo_us=args.slo_us).set_index("mode").loc["open loop (rate)"]

    print(f"\n4k random read, SLO p99 total latency <= {args.slo_us:g} us, {args.runtime:g} s + {args.ramp:g} s "
          f"ramp per point, rates up to {args.max_rate:,} IOPS, resolution {args.tolerance_pct:g} %:")
    print(f"  SLO search:      capacity {s['capacity_rate_iops']} IOPS offered (first failing "
          f"{s['first_failing_rate_iops']}), {len(s['steps'])} points, device time {s['device_seconds']:.0f} s")
    print(f"  full rate grid:  capacity {table['at_rate_iops']} IOPS offered, {len(rates)} points, device time "
          f"{grid['device_seconds']:.0f} s  -> the search used {s['device_seconds'] / grid['device_seconds']:.0%} of it")
    if "error" in cc:
        print(f"  fio latency_target: {cc['error']}")
    else:
        print(f"  fio latency_target: QD {cc['depth']} of {cc['max_depth']}, {cc['iops']:,.0f} IOPS, p99 "
              f"{cc['latency_us']:,.0f} us in its final statistics ({cc['stats_s']:.2f} s, settled: {cc['settled']}), "
              f"device time {cc['device_seconds']:.1f} s (cap {cc['max_seconds']:g} s)")
    print(f"  search reason: {s['reason']}")
    print(f"  cross-check: {check['verdict']}")
    print(f"total {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
