"""Benchmark (a script, not a test): adaptive QD search vs the full 1..1024 grid on this machine's disk.

    .venv/bin/python tests/bench_adaptive.py [--runtime 3] [--size 512m] [--rw randread] [--bs 4k]
    make bench-adaptive

Both run on a lab scratch FILE under build/bench-adaptive/ (never a device).  The grid measures
every power of two 1..1024 at ``--runtime`` seconds; the adaptive search probes with
``--probe-runtime`` seconds per step and re-measures its peak depth at ``--runtime`` seconds
(``confirm_runtime_s``), so its peak IOPS is a full-length measurement like the grid's.

Goals (issue 6): adaptive peak IOPS within 5 % of the grid's peak, adaptive knee within one QD step
(a factor of 2) of the grid's knee, adaptive device time <= 40 % of the grid's.  Device time is the
seconds fio drove the device (ramp + runtime of every point); wall time includes fio start-up.
Knees come from ``helpers.analysis.find_knee`` (Kneedle on log2 QD) when available.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import yaml

from helpers import sweep
from helpers.adaptive import device_seconds, point_metrics


def knee_of(qd: list[float], iops: list[float]) -> tuple[float | None, str]:
    try:
        from helpers.analysis import find_knee
    except ImportError:
        find_knee = None
    if find_knee is not None:
        k = find_knee(qd, iops, S=1.0)
        return k.knee_qd, f"find_knee: {k.reason}"
    # fallback: smallest QD reaching 90 % of the peak
    peak = max(iops)
    for q, v in sorted(zip(qd, iops)):
        if v >= 0.9 * peak:
            return q, "first QD reaching 90 % of the peak (find_knee not available)"
    return None, "no knee"


def write(path: Path, doc: dict) -> Path:
    path.write_text(yaml.safe_dump(doc))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=float, default=3.0, help="seconds per grid point (and the adaptive confirm)")
    ap.add_argument("--probe-runtime", type=float, default=1.0, help="seconds per adaptive search step")
    ap.add_argument("--ramp", type=float, default=0.5)
    ap.add_argument("--size", default="512m")
    ap.add_argument("--rw", default="randread")
    ap.add_argument("--bs", default="4k")
    ap.add_argument("--gain-pct", type=float, default=10.0)
    ap.add_argument("--dir", default=str(ROOT / "build" / "bench-adaptive"))
    args = ap.parse_args()
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    target = work / "target.bin"  # a lab scratch file (sidecar-marked by the sweep's prefill)
    raw = work / "raw"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    qds = [2**i for i in range(11)]
    point = {"group": "bench", "rw": args.rw, "bs": args.bs}
    grid = write(work / "grid.yaml", {
        "description": "bench grid", "settings": {"runtime_s": args.runtime, "ramp_s": args.ramp},
        "points": [{**point, "iodepth": qds}]})
    adaptive = write(work / "adaptive.yaml", {
        "description": "bench adaptive", "mode": "adaptive",
        "settings": {"runtime_s": args.probe_runtime, "ramp_s": args.ramp / 2},
        "adaptive": {"gain_pct": args.gain_pct, "flat_steps": 2, "max_qd": 1024, "refine": True,
                     "confirm_runtime_s": args.runtime},
        "points": [point]})

    print(f"benchmark on {target} ({args.size}), {args.rw} {args.bs}, fio {args.runtime:g} s per grid point, "
          f"{args.probe_runtime:g} s per adaptive step; os {os.uname().release}", flush=True)
    t0 = time.monotonic()
    g = sweep.sweep(target, grid, f"bench-grid-{stamp}", None, args.size, raw, progress=False)
    grid_wall = time.monotonic() - t0
    t0 = time.monotonic()
    a = sweep.sweep(target, adaptive, f"bench-adaptive-{stamp}", None, args.size, raw, progress=False)
    adaptive_wall = time.monotonic() - t0

    gq, gi = [], []
    for e in g["points"].values():
        m = point_metrics(raw / g["run_id"] / e["raw_file"])
        gq.append(e["parameters"]["iodepth"])
        gi.append(m["iops"])
    series = next(iter(a["adaptive"].values()))
    steps = series["steps"]
    probes = [s for s in steps if s["kind"] in ("ladder", "refine")]
    confirm = [s for s in steps if s["kind"] == "confirm"]
    aq, ai = [s["qd"] for s in probes], [s["iops"] for s in probes]

    g_peak = max(gi)
    g_peak_qd = gq[gi.index(g_peak)]
    a_peak = confirm[0]["iops"] if confirm else max(ai)
    a_peak_qd = confirm[0]["qd"] if confirm else aq[ai.index(max(ai))]
    g_knee, g_how = knee_of(gq, gi)
    a_knee, a_how = knee_of(aq, ai)
    g_dev, a_dev = device_seconds(g["points"]), device_seconds(a["points"])
    g_fio = sum(e.get("seconds") or 0 for e in g["points"].values())  # measured seconds of the fio processes
    a_fio = sum(e.get("seconds") or 0 for e in a["points"].values())

    print("\ngrid:     " + ", ".join(f"QD{q}: {v:.0f}" for q, v in sorted(zip(gq, gi))))
    print("adaptive: " + ", ".join(f"QD{s['qd']}{'' if s['kind'] == 'ladder' else ' ' + s['kind']}: {s['iops']:.0f}"
                                   for s in steps))
    print(f"adaptive stop: {series['stop_reason']}")
    peak_err = abs(a_peak - g_peak) / g_peak
    if g_knee and a_knee:
        knee_steps = abs(math.log2(a_knee) - math.log2(g_knee))
        knee_ok = knee_steps <= 1.0
        knee_txt = f"grid knee QD {g_knee:g} ({g_how}); adaptive knee QD {a_knee:g} ({a_how}); " \
                   f"{knee_steps:.2f} QD steps apart"
    else:
        knee_ok = g_knee is None and a_knee is None
        knee_txt = f"grid knee {g_knee} ({g_how}); adaptive knee {a_knee} ({a_how})"
    ratio = a_dev / g_dev
    print(f"\npeak IOPS: grid {g_peak:.0f} at QD {g_peak_qd}, adaptive {a_peak:.0f} at QD {a_peak_qd} "
          f"({'confirm run' if confirm else 'best probe'}): {peak_err:.1%} apart "
          f"[{'ok' if peak_err <= 0.05 else 'MISSED'}, goal <= 5 %]; best adaptive probe {max(ai):.0f} "
          f"({abs(max(ai) - g_peak) / g_peak:.1%} apart)")
    print(f"knee: {knee_txt} [{'ok' if knee_ok else 'MISSED'}, goal <= 1 step]")
    print(f"device time (ramp + runtime): grid {g_dev:.1f} s, adaptive {a_dev:.1f} s, ratio {ratio:.1%} "
          f"[{'ok' if ratio <= 0.40 else 'MISSED'}, goal <= 40 %]")
    print(f"fio process time (measured): grid {g_fio:.1f} s, adaptive {a_fio:.1f} s, ratio {a_fio / g_fio:.1%}")
    print(f"wall time: grid {grid_wall:.1f} s, adaptive {adaptive_wall:.1f} s (fio start-up included)")
    print(f"raw data: {raw / g['run_id']} and {raw / a['run_id']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
