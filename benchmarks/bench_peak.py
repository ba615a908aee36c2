"""Benchmark (a script, not a test): the lab's 4k random-read peak against the best hand-tuned fio (issue 31).

    .venv/bin/python benchmarks/bench_peak.py [--rounds 1] [--depths 1,2,4,...,256] [--runtime 3] [--no-file]
    make bench-peak

On the reference device (helpers.run.refdev: zram, else a loop device on tmpfs; made, used through the lab's
block-device safety rules and removed afterwards) and then on a lab scratch FILE of the VM's disk: in one chain
with the sides alternating, hand, lab, hand (``--rounds`` lab runs, one hand grid more), where

* "hand" is the best hand-tuned fio: numjobs 1..CPUs x {libaio, io_uring} x QD ``--depths`` at ``--runtime`` s
  (plain options: no pinning, no registered files), its best configuration by the mean of the hand grids around
  each lab run;
* "lab" is the 4k random-read peak of the shipped ``characterize`` profile (its randread 4k series: the adaptive
  ladder, then the demand search of helpers.run.demand), of the shipped ``adaptive`` profile (likewise) and of the
  ``quick`` profile's 4k random-read QD grid (one job: the number the card would show, with its lower-bound
  sentence when CPU-bound).

Per lab profile it prints the peak, the ratio to the best hand-tuned configuration, the configuration it reached
the peak at and the device time it took (ramp + runtime of its points) against the hand grid's.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import yaml

from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import point_totals, read_result
from helpers.run import demand, sweep
from helpers.run.adaptive import device_seconds
from helpers.run.profiles import load_profile
from helpers.run.refdev import reference_device

ROOT = Path(__file__).resolve().parents[1]
LAB = ("characterize", "adaptive", "quick")


def profiles(work: Path, depths: list[int], runtime: float) -> dict[str, Path]:
    """The hand grid and the three lab profiles cut to their 4k random-read part (their own settings)."""
    out = {}
    jobs = list(range(1, demand.usable_cpus() + 1))
    out["hand"] = work / "hand.yaml"
    out["hand"].write_text(yaml.safe_dump({
        "description": "bench-peak hand-tuned grid", "settings": {"runtime_s": runtime, "ramp_s": 0.5},
        "points": [{"group": "hand", "rw": "randread", "bs": "4k", "iodepth": depths, "numjobs": jobs,
                    "ioengine": e} for e in ("libaio", "io_uring")]}))
    for name in LAB:
        doc = yaml.safe_load(load_profile(name).source)
        pts = []
        for e in doc["points"]:
            rws = e["rw"] if isinstance(e["rw"], list) else [e["rw"]]
            bss = e["bs"] if isinstance(e["bs"], list) else [e["bs"]]
            if "randread" in rws and "4k" in bss and (name != "quick" or e.get("group") == "qd") and (
                    name == "quick" or "iodepth" not in e):
                pts.append({**e, "rw": "randread", "bs": "4k"})
        out[name] = work / f"{name}.yaml"
        out[name].write_text(yaml.safe_dump({**doc, "description": f"bench-peak {name}", "points": pts}))
    return out


def fio_options(e: dict) -> dict:
    p = e["parameters"]
    return {"jobs": int(p["numjobs"]), "qd": int(p["iodepth"]), "engine": p["ioengine"]}


def run(target: str, prof: Path, run_id: str, raw: Path, size: str, dev: bool) -> dict:
    kw = dict(destroy_device=target, ignore_signature=target) if dev else {}
    m = sweep.sweep(target, prof, run_id, None, size, raw, progress=False, **kw)
    pts = {}
    for pid, e in m["points"].items():
        if e.get("status") != "ok":
            continue
        t = point_totals(read_result(parse_fio_bytes((raw / run_id / e["raw_file"]).read_bytes())))
        pts[pid] = {**fio_options(e), "iops": t["iops"]}
    return {"points": pts, "dev": device_seconds(m["points"])}


def chain(target: str, args, work: Path, dev: bool) -> None:
    depths = [int(x) for x in args.depths.split(",")]
    paths = profiles(work, depths, args.runtime)
    raw, stamp = work / "raw", time.strftime("%Y%m%d-%H%M%S") + ("-dev" if dev else "-file")
    hands, labs = [], []
    print(f"\n== {target} ({'reference device' if dev else 'scratch file'}), load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    hands.append(run(target, paths["hand"], f"bench-peak-hand-{stamp}-0", raw, args.size, dev))
    for n in range(1, args.rounds + 1):
        labs.append({name: run(target, paths[name], f"bench-peak-{name}-{stamp}-{n}", raw, args.size, dev)
                     for name in args.lab.split(",")})
        hands.append(run(target, paths["hand"], f"bench-peak-hand-{stamp}-{n}", raw, args.size, dev))
    for n, lab in enumerate(labs, 1):
        around = (hands[n - 1], hands[n])
        mean = {pid: sum(h["points"][pid]["iops"] for h in around if pid in h["points"]) / 2
                for pid in around[0]["points"]}
        best_pid = max(mean, key=mean.get)
        b = around[0]["points"][best_pid]
        hand_dev = sum(h["dev"] for h in around) / 2
        print(f"round {n}: best hand-tuned fio {mean[best_pid]:,.0f} IOPS at "
              f"{demand.Config(b['jobs'], b['qd'], b['engine']).phrase()} (mean of the two hand grids, "
              f"{len(mean)} configurations, {hand_dev:.1f} s of device time each)")
        for name, r in lab.items():
            pid, p = max(r["points"].items(), key=lambda kv: kv[1]["iops"])
            print(f"  {name:12s} {p['iops']:>10,.0f} IOPS  ratio {p['iops'] / mean[best_pid]:.3f}  at "
                  f"{demand.Config(p['jobs'], p['qd'], p['engine']).phrase():28s} device time {r['dev']:.1f} s "
                  f"({r['dev'] / hand_dev:.1%} of the hand grid's)", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--depths", default="1,2,4,8,16,32,64,128,256")
    ap.add_argument("--runtime", type=float, default=3.0)
    ap.add_argument("--size", default="1g")
    ap.add_argument("--lab", default=",".join(LAB), help="the lab profiles to run (default: all three)")
    ap.add_argument("--no-file", action="store_true", help="skip the scratch file of the VM's disk")
    ap.add_argument("--dir", default=str(ROOT / "build" / "bench-peak"))
    args = ap.parse_args()
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    with reference_device(1 << 30) as ref:
        print(ref.sentence)
        chain(str(ref.path), args, work, dev=True)
    if not args.no_file:
        chain(str(work / "target.bin"), args, work, dev=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
