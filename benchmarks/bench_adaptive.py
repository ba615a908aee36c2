"""Benchmark (a script, not a test): adaptive QD search vs the full 1..1024 grid on this machine's disk.

    .venv/bin/python benchmarks/bench_adaptive.py [--runtime 3] [--probe-runtime 1] [--confirm-runtime 0] [--max-reprobes 2]
        [--probe-ramp 0.1] [--flat-steps 2] [--size 512m] [--rounds 3] [--cap-iops N]
    make bench-adaptive

Both run on a lab scratch FILE under build/bench-adaptive/ (never a device).  The grid measures
every power of two 1..1024 for ``--runtime`` seconds each (+ ``--ramp``).  The adaptive search runs as an adaptive
profile does by default: each probe ends once its IOPS has settled (three windows within the search's
gain_pct of their mean, after the ramp: 250 ms windows, shortened to as little as 150 ms once the previous
step's IOPS put 1,000 I/Os into one), ``--probe-runtime`` seconds at most; a probe that did not settle never
counts as flat.  With ``--confirm-runtime`` > 0 a confirm run then re-measures the best probe's depth that long
(default none: in 14 rounds measured on 2026-11-24 the 2 s confirm run read above the grids' level in 12 and was
closer to it than the plateau probes' median in 5).  Probes ramp ``--probe-ramp`` seconds (0.1: a queue of 1,024
4k reads fills in milliseconds).  As the shipped profile runs it, a ladder probe that settled yet read more than
gain_pct below the best shallower depth is measured again, and a third time when the two readings disagree by more
than gain_pct (``helpers.run.adaptive.reprobe_due``; ``--max-reprobes``, default the shipped profile's 2 per
series, 0: none); the search's line lists each re-probe and counts them.

Goal (issue 12 point 7): the grid's conclusions -- adaptive peak IOPS within 5 % of the grid's peak, adaptive
knee within one QD step (a factor of 2) of the grid's knee, in rounds where the grid reproduces itself
within 5 % -- in <= 25 % of the grid's device time.  Device time is the seconds fio drove the device: ramp +
runtime of every point, where the runtime of a point that ended early is the one fio measured (the
manifest's ``device_s``); wall time includes fio start-up.  Knees come from ``helpers.analysis.find_knee``
(Kneedle on log2 QD).

The peak, like for like.  The grid's peak is its plateau LEVEL: the search's own plateau rule applied to the
grid's curve (``helpers.run.adaptive.curve_level``: its points as ladder steps, the median of those from the
depth its trailing flat run is measured against up to QD 1024; the best point when the curve has no such
plateau).  Until 2026-11-23 the bench compared the search against the grid's MAXIMUM, the best of the six or so
noisy points on its plateau: the maximum of n noisy readings of one level sits above that level (for six normal
readings by about 1.27 standard deviations on average; measured here 2-11 % above the level), so a grid peak so
defined is biased upwards and varies more between runs than the level does.  The search's peak is
``plateau_iops``, the median of its plateau probes: the same rule as the grid's, on 0.45 s probes; with a confirm
run, that run (a fresh measurement, but at the depth whose probe read highest, and measured here to read high),
the probes' median then printed next to it ("without the confirm run").  Against the grid's maximum the
search's peak and its best single probe (the bench's figures before 2026-11-23) are still printed.  The
estimators were chosen for what they estimate, not for the numbers they give.

The knee, on one range.  Kneedle scales QD to the range it is given, so the probes alone (which end at QD 128 or
256) can put the knee lower than the same device's curve to QD 1024 (the grids cut at the search's last depth
move their own knee one or two steps lower too, in 4 of 16 rounds measured; printed in every round).  The search's
knee is find_knee on ``helpers.run.adaptive.concluded_curve``: its probes, then its plateau level at the ladder
depths it did not measure, up to ``max_qd`` -- what it concluded, on the grid's range.  The probes-alone knee is
printed.

Rounds, interleaved.  The runs form one chain grid, adaptive, grid, adaptive, ..., grid (``--rounds``
searches, one grid more): round i is the search with the grid run just before it and the grid run just after
it, and its reference is the mean of those two grids (the peak: the mean of their plateau levels; the knee:
find_knee on both grids' points, repeats averaged; the device time: the mean of theirs).  This disk's level
drifts by several per cent over a minute, so a search compared with one grid run before or after it measures
the drift as much as the search; with a grid on each side a steady drift cancels, and whether the device held
still is measured rather than assumed: a round's grid "reproduces itself within 5 %" when its two grids'
plateau levels differ by at most 5 % of their mean.  The goal is judged on those rounds; the medians over all rounds
are printed too.  Before 2026-11-23 a round was a (grid, adaptive) pair in alternating order and a round's grid
reproduced itself when its peak was within 5 % of the median peak of the other rounds' grids (leave-one-out);
that check is printed, on the levels and on the maxima, for context.

The yardstick.  The same test is applied to the grid itself: each grid between two others whose levels agree
within 5 %, against their mean -- what a full grid's 38.5 s of device time achieve on this device by the rule the
search is judged by (printed after the medians).

A device that holds still.  ``--cap-iops N`` (Linux, root) puts this process, and so every fio it starts, behind
the kernel's block throttle on the scratch file's disk (cgroup v2 ``io.max`` or v1 ``blkio.throttle``): a fixed
ceiling of N IOPS, the way a provisioned-IOPS cloud volume is capped.  The plateau then holds still; the depths
below the ceiling are still the disk.  It separates the search's rules from this disk's noise.

Measured on 2026-11-24 (docs/sweeps.md has every round): on this VM's disk, three runs of 6 rounds (04:02-04:14):
in the 10 qualifying rounds device time 13.1-21.7 %, the peak within 5 % in 7 (median 2.0 %), the knee within one
step in 9; pooled with the three runs of 01:56-02:14 (the same rules but the rhythm path of the settle check), the
peak in 12 of 21 qualifying rounds, while the grid itself met the same test in 25 of 38 over all recorded runs:
"every qualifying round" is out of reach on this disk for any search.  Behind a ceiling (20,000, 40,000 and
60,000 IOPS, six runs of 3 rounds): every round qualified, the peak within 5 % in 18 of 18 (at most 3.3 %), device
time 9.8-22.3 %, the knee within one step in 15 of 18 (the misses: slow phases of the disk below the ceiling).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import yaml

from helpers.analysis import find_knee
from helpers.analysis.search_judge import judge_search
from helpers.run import sweep
from helpers.run.adaptive import (
    Step,
    concluded_curve,
    curve_level,
    device_seconds,
    ladder_steps,
    point_metrics,
    settle_text,
)
from helpers.run.profiles import AdaptiveSettings, load_profile

CAP_CGROUP = "ssdlab-bench-cap"  # the cgroup --cap-iops puts this process (and so every fio it starts) in


def whole_disk(target: Path) -> str:
    """``major:minor`` of the block device holding ``target`` (the whole disk when it sits on a partition:
    the kernel throttles I/O at the disk)."""
    st = os.stat(target)
    dev = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if not dev.exists():
        raise SystemExit(f"--cap-iops: {target} is not on a block device the kernel can throttle ({dev} is missing)")
    dev = dev.resolve()
    if (dev / "partition").exists():
        dev = dev.parent
    return (dev / "dev").read_text().strip()


def cap_iops(target: Path, iops: int) -> tuple[str, Callable[[], None]]:
    """Put this process, and so every fio it starts, behind a fixed ceiling of ``iops`` reads and writes per
    second on ``target``'s disk (the kernel's block throttle: cgroup v2 ``io.max`` or v1 ``blkio.throttle``;
    root only), the way a provisioned-IOPS cloud volume is capped.  Returns what was done and the undo."""
    dev = whole_disk(target)
    v2, v1 = Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/blkio")
    if (v2 / "cgroup.controllers").exists():
        if "io" not in (v2 / "cgroup.controllers").read_text().split():
            raise SystemExit("--cap-iops: the cgroup v2 io controller is not available")
        (v2 / "cgroup.subtree_control").write_text("+io")
        parent, group = v2, v2 / CAP_CGROUP
        group.mkdir(exist_ok=True)
        (group / "io.max").write_text(f"{dev} riops={iops} wiops={iops}")
        how = f"cgroup v2 io.max {dev} riops={iops} wiops={iops}"
    elif v1.is_dir():
        parent, group = v1, v1 / CAP_CGROUP
        group.mkdir(exist_ok=True)
        for key in ("blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"):
            (group / key).write_text(f"{dev} {iops}")
        how = f"cgroup v1 blkio.throttle.read_iops_device and write_iops_device {dev} {iops}"
    else:
        raise SystemExit("--cap-iops: neither cgroup v2 (io) nor v1 (blkio) is mounted under /sys/fs/cgroup")
    (group / "cgroup.procs").write_text(str(os.getpid()))

    def undo() -> None:
        (parent / "cgroup.procs").write_text(str(os.getpid()))
        group.rmdir()

    return how, undo


def run_chain(run: Callable[[str, int], dict], other: str, rounds: int, work: Path, cap: int) -> tuple[list, list]:
    """The bench's chain grid, ``other``, grid, ..., grid (``rounds`` runs of ``other``): ``run(kind, n)`` runs one;
    behind a ceiling of ``cap`` IOPS on ``work``'s disk when ``cap`` > 0 (:func:`cap_iops`, undone at the end).
    Returns (grids, others)."""
    undo = None
    if cap > 0:
        how, undo = cap_iops(work, cap)
        print(f"every fio runs behind a ceiling of {cap} IOPS on the scratch file's disk ({how})", flush=True)
    try:
        grids, others = [run("grid", 0)], []
        for r in range(1, rounds + 1):
            others.append(run(other, r))
            grids.append(run("grid", r))
    finally:
        if undo is not None:
            undo()
    return grids, others


def knee_of(qd: list[float], iops: list[float]) -> tuple[float | None, str]:
    k = find_knee(qd, iops, S=1.0)
    return k.knee_qd, f"find_knee: {k.reason}"


def write(path: Path, doc: dict) -> Path:
    path.write_text(yaml.safe_dump(doc))
    return path


def measure_grid(manifest: dict, raw: Path) -> dict[int, float]:
    out = {}
    for e in manifest["points"].values():
        out[int(e["parameters"]["iodepth"])] = point_metrics(raw / manifest["run_id"] / e["raw_file"])["iops"]
    return dict(sorted(out.items()))


def summarize_adaptive(manifest: dict, rule: AdaptiveSettings) -> dict:
    series = next(iter(manifest["adaptive"].values()))
    steps = series["steps"]
    curve_qd, curve_iops = concluded_curve([Step(**s) for s in steps], rule)
    # the ladder as the search judged it (a re-probed depth by the median of its readings) and the refine step
    probes = [s.__dict__ for s in ladder_steps([Step(**s) for s in steps])] + [s for s in steps if s["kind"] == "refine"]
    confirm = [s for s in steps if s["kind"] == "confirm"]
    best = max((s for s in steps if s["kind"] != "confirm"), key=lambda s: s["iops"])  # the best single reading
    plateau = series.get("plateau_iops")
    if confirm:
        peak, peak_qd, how = confirm[0]["iops"], confirm[0]["qd"], f"confirm run, {settled(confirm[0])}"
    elif plateau is not None:
        qds = series["plateau_qds"]
        peak, peak_qd = plateau, None
        how = f"median of the {len(qds)} plateau probes at QD {', '.join(map(str, qds))}"
    else:
        peak, peak_qd, how = best["iops"], best["qd"], f"best probe (no plateau), {settled(best)}"
    return {"steps": steps, "stop": series["stop_reason"], "probe_qd": [s["qd"] for s in probes],
            "probe_iops": [s["iops"] for s in probes], "peak": peak, "peak_qd": peak_qd, "peak_how": how,
            "best": best["iops"], "best_qd": best["qd"], "best_how": settled(best), "plateau": plateau,
            "curve_qd": curve_qd, "curve_iops": curve_iops,
            "settled": sum(s.get("settled_s") is not None for s in steps if s["kind"] != "confirm"),
            "probes": sum(s["kind"] != "confirm" for s in steps), "reprobes": sum(s["kind"] == "reprobe" for s in steps)}


def settled(step: dict) -> str:
    return settle_text(Step(**step))


def step_text(step: dict) -> str:
    kind = "" if step["kind"] == "ladder" else " " + step["kind"]
    how = f"settled {step['settled_s']:g} s" if step.get("settled_s") is not None else "full"
    dev = f", {step['device_s']:g} s" if step.get("device_s") is not None else ""
    return f"QD{step['qd']}{kind}: {step['iops']:.0f} ({how}{dev})"


def steps_apart(a: float | None, b: float | None) -> float | None:
    return abs(math.log2(a) - math.log2(b)) if a and b else None


def knee_ok(a: float | None, g: float | None) -> bool:
    return (steps_apart(a, g) or 0) <= 1.0 if (a and g) else (a is None and g is None)


def pct(x: float | None) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1%}"


def rel(a: float, ref: float) -> float:
    return abs(a - ref) / ref


def main() -> int:
    shipped = load_profile("adaptive")  # the probes' defaults are the shipped adaptive profile's settings
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=float, default=3.0, help="seconds per grid point")
    ap.add_argument("--probe-runtime", type=float, default=shipped.points[0].runtime_s,
                    help="the most an adaptive probe may run (it ends earlier once settled); default: the shipped "
                         "adaptive profile's runtime_s")
    ap.add_argument("--confirm-runtime", type=float, default=0.0,
                    help="> 0: the adaptive search re-measures its peak depth this long (no settle-stop) and that "
                         "run is its peak; 0 (default): no confirm run, the median of its plateau probes is")
    ap.add_argument("--ramp", type=float, default=0.5, help="grid ramp")
    ap.add_argument("--probe-ramp", type=float, default=shipped.points[0].ramp_s,
                    help="ramp of the adaptive probes (and of the confirm run); default: the shipped adaptive "
                         "profile's ramp_s")
    ap.add_argument("--size", default="512m")
    ap.add_argument("--rw", default="randread")
    ap.add_argument("--bs", default="4k")
    ap.add_argument("--gain-pct", type=float, default=10.0)
    ap.add_argument("--flat-steps", type=int, default=2,
                    help="flat doublings in a row that end the search's ladder (and the grid's plateau rule)")
    ap.add_argument("--max-reprobes", type=int, default=shipped.adaptive.max_reprobes,
                    help="re-probe runs a search may add (a ladder probe more than gain_pct below a shallower depth "
                         "is measured again; helpers.run.adaptive.reprobe_due); 0: none; default: the shipped "
                         "adaptive profile's")
    ap.add_argument("--rounds", type=int, default=3,
                    help="searches, each between two grid runs (grid, adaptive, grid, adaptive, ..., grid); a "
                         "round's grid reproduces itself when its two grids' plateau levels agree within 5 %%")
    ap.add_argument("--cap-iops", type=int, default=0,
                    help="> 0 (Linux, root): run every fio behind a fixed ceiling of this many IOPS on the scratch "
                         "file's disk (the kernel's block throttle, as a provisioned-IOPS cloud volume is capped): a "
                         "device whose plateau holds still, to see the search's rules apart from this disk's noise")
    ap.add_argument("--dir", default=str(ROOT / "build" / "bench-adaptive"))
    args = ap.parse_args()
    probe_ramp = args.probe_ramp
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    target = work / "target.bin"  # a lab scratch file (sidecar-marked by the sweep's prefill)
    raw = work / "raw"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    qds = [2**i for i in range(11)]
    point = {"group": "bench", "rw": args.rw, "bs": args.bs}
    rule = AdaptiveSettings(gain_pct=args.gain_pct, flat_steps=args.flat_steps, max_qd=1024)  # the search's, for the grid's level
    grid = write(work / "grid.yaml", {
        "description": "bench grid", "settings": {"runtime_s": args.runtime, "ramp_s": args.ramp},
        "points": [{**point, "iodepth": qds}]})
    # the adaptive profile's own defaults otherwise: probes settle (helpers.run.profiles.ADAPTIVE_SETTLE)
    adaptive = write(work / "adaptive.yaml", {
        "description": "bench adaptive", "mode": "adaptive",
        "settings": {"runtime_s": args.probe_runtime, "ramp_s": probe_ramp},
        "adaptive": {"gain_pct": rule.gain_pct, "flat_steps": rule.flat_steps, "max_qd": rule.max_qd,
                     "refine": True, "confirm_runtime_s": args.confirm_runtime,
                     "reprobe": args.max_reprobes > 0, "max_reprobes": max(1, args.max_reprobes)},
        "points": [point]})

    confirm = f", confirm run {args.confirm_runtime:g} s" if args.confirm_runtime else ", no confirm run"
    print(f"benchmark on {target} ({args.size}), {args.rw} {args.bs}, fio {args.runtime:g} s + {args.ramp:g} s ramp "
          f"per grid point, adaptive probes at most {args.probe_runtime:g} s + {probe_ramp:g} s ramp, ending "
          f"once settled (3 windows of 250 ms, or down to 150 ms at >= 1000 I/Os a window), {rule.flat_steps} flat "
          f"doublings end the ladder{confirm}, at most {args.max_reprobes} re-probes of a dip; {args.rounds} "
          f"rounds in one chain grid, adaptive, grid, ..., grid; os {os.uname().release}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)

    def run(kind: str, n: int) -> dict:
        t0 = time.monotonic()
        m = sweep.sweep(target, grid if kind == "grid" else adaptive, f"bench-{kind}-{stamp}-{n}", None, args.size,
                        raw, progress=False)
        out = {"dev": device_seconds(m["points"]), "wall": time.monotonic() - t0, "load": os.getloadavg()[0]}
        if kind == "grid":
            gd = measure_grid(m, raw)
            level, level_qds = curve_level(gd, rule)
            pk = max(gd, key=gd.get)
            out.update(curve=gd, level=level, level_qds=level_qds, max=gd[pk], max_qd=pk)
            print(f"grid {n} (load average {out['load']:.2f}): " + ", ".join(f"QD{q}: {v:.0f}" for q, v in gd.items())
                  + f"; level {level:.0f} (median of QD {', '.join(map(str, level_qds))}), max {gd[pk]:.0f} at QD "
                  f"{pk}; device {out['dev']:.1f} s, wall {out['wall']:.1f} s", flush=True)
        else:
            out.update(summarize_adaptive(m, rule))
            print(f"adaptive {n} (load average {out['load']:.2f}): " + ", ".join(step_text(s) for s in out["steps"])
                  + f"; stop: {out['stop']}; {out['settled']} of {out['probes']} probes settled early ({out['reprobes']} "
                  f"re-probes); peak "
                  f"{out['peak']:.0f} ({out['peak_how']}); device {out['dev']:.1f} s, wall {out['wall']:.1f} s",
                  flush=True)
        return out

    grids, searches = run_chain(run, "adaptive", args.rounds, work, args.cap_iops)

    rounds = []
    for r, ad in enumerate(searches, start=1):
        g0, g1 = grids[r - 1], grids[r]
        qd_all = list(g0["curve"]) + list(g1["curve"])
        j = judge_search(ad["peak"], (ad["curve_qd"], ad["curve_iops"]), g0, g1, qds)  # on the grid's QD range
        g_knee, a_knee = j["g_knee"], j["s_knee"]
        g_how, a_how = f"find_knee: {j['g_knee_reason']}", f"find_knee: {j['s_knee_reason']}"
        a_knee_probes = knee_of(ad["probe_qd"], ad["probe_iops"])[0]  # the probes alone, as before 2026-11-23
        top = max(ad["probe_qd"])  # the grids cut at the search's last depth: what the probes-alone range does
        g_knee_cut = knee_of([q for q in qd_all if q <= top], [v for g in (g0, g1) for q, v in g["curve"].items()
                                                              if q <= top])[0]
        level, gmax = j["level"], statistics.fmean((g0["max"], g1["max"]))
        x = {"grids": (g0, g1), "ad": ad, "level": level, "gmax": gmax, "g_knee": g_knee, "a_knee": a_knee,
             "g_dev": statistics.fmean((g0["dev"], g1["dev"])), "a_dev": ad["dev"]}
        x["ratio"] = x["a_dev"] / x["g_dev"]
        x["peak_diff"] = j["peak"]  # the goal's figure: like for like
        x["max_diff"] = rel(ad["peak"], gmax)  # against the grid's maximum, as before 2026-11-23
        x["best_diff"] = rel(ad["best"], gmax)  # the search's best probe against the grid's maximum, as before that
        x["median_diff"] = None if ad["plateau"] is None else rel(ad["plateau"], level)  # the probes' own level
        x["g_self"] = j["g_self"]
        x["g_self_max"] = abs(g0["max"] - g1["max"]) / gmax
        x["reproduced"] = j["repro"]
        x["knee_steps"] = j["knee"]
        x["knee_ok"] = knee_ok(a_knee, g_knee)
        x["knee_steps_probes"] = steps_apart(a_knee_probes, g_knee)
        rounds.append(x)
        print(f"\nround {r} (grid {r - 1}, adaptive {r}, grid {r})")
        print(f"  peak: grid level {g0['level']:.0f} / {g1['level']:.0f} (mean {level:.0f}, the two "
              f"{pct(x['g_self'])} apart), adaptive {ad['peak']:.0f} ({ad['peak_how']}): {pct(x['peak_diff'])} apart")
        if ad["peak_how"].startswith("confirm") and ad["plateau"] is not None:
            print(f"  without the confirm run: the median of the plateau probes, {ad['plateau']:.0f}, "
                  f"{pct(x['median_diff'])} from the grids' level")
        print(f"  as before: grid max {g0['max']:.0f} / {g1['max']:.0f} (mean {gmax:.0f}, {pct(x['g_self_max'])} "
              f"apart): adaptive peak {pct(x['max_diff'])} apart, its best probe {ad['best']:.0f} at QD "
              f"{ad['best_qd']} ({ad['best_how']}) {pct(x['best_diff'])} apart")
        apart = "n/a" if x["knee_steps"] is None else f"{x['knee_steps']:.2f}"
        at_knee = [s for s in ad["steps"] if s["kind"] != "confirm" and a_knee is not None and s["qd"] == a_knee]
        knee_how = f", that step {settled(at_knee[0])}" if at_knee else ""
        on_range = f"its probes and its plateau level at QD {top * 2}..{rule.max_qd}" if len(ad["curve_qd"]) > len(
            ad["probe_qd"]) else "its probes alone: no plateau to carry on"
        print(f"  knee: grids QD {g_knee} ({g_how}; each alone: QD {knee_of(list(g0['curve']), list(g0['curve'].values()))[0]}"
              f", QD {knee_of(list(g1['curve']), list(g1['curve'].values()))[0]}); adaptive QD {a_knee} ({a_how}"
              f"{knee_how}; {on_range}); {apart} QD steps apart")
        print(f"  as before: the probes alone (QD {min(ad['probe_qd'])}..{top}) put the knee at QD {a_knee_probes}; the "
              f"grids cut at QD {top} put theirs at QD {g_knee_cut}")
        same = [(s["qd"], s["iops"] / statistics.fmean((g0["curve"][s["qd"]], g1["curve"][s["qd"]])) - 1) for s in ad["steps"]
                if s["kind"] == "ladder" and s["qd"] in g0["curve"] and s["qd"] >= (g_knee or 1)]
        if same:  # a level shift the two grids around the search did not see, or the probes' own noise
            print("  same depths at and past the grids' knee, adaptive probe vs the grids' mean: " + ", ".join(
                f"QD{q} {d:+.1%}" for q, d in same) + f" (median {statistics.median(d for _, d in same):+.1%})")
        print(f"  device time: grids {g0['dev']:.1f} / {g1['dev']:.1f} s, adaptive {ad['dev']:.1f} s "
              f"({pct(x['ratio'])}); wall {g0['wall']:.1f} / {g1['wall']:.1f} s, {ad['wall']:.1f} s", flush=True)

    med = statistics.median
    loo = {}
    for key in ("level", "max"):  # context: the leave-one-out check of the pair design, per grid run
        vals = [g[key] for g in grids]
        loo[key] = [rel(v, med(vals[:i] + vals[i + 1:])) for i, v in enumerate(vals)] if len(vals) > 1 else []

    print("\n== per round (a round's grid reproduces itself when the plateau levels of the grids before and after "
          "its search differ by at most 5 % of their mean) ==")
    print(f"{'round':<6}{'device ratio':>13}{'peak diff':>11}{'(vs grid max)':>15}{'(best probe)':>14}"
          f"{'knee steps':>12}{'(probes)':>10}  grid reproduced")
    for i, x in enumerate(rounds, start=1):
        knee = "n/a" if x["knee_steps"] is None else f"{x['knee_steps']:.2f}"
        kp = "n/a" if x["knee_steps_probes"] is None else f"{x['knee_steps_probes']:.2f}"
        print(f"{i:<6}{pct(x['ratio']):>13}{pct(x['peak_diff']):>11}{pct(x['max_diff']):>15}{pct(x['best_diff']):>14}"
              f"{knee:>12}{kp:>10}  {'yes' if x['reproduced'] else 'no'} (levels {pct(x['g_self'])} apart; maxima "
              f"{pct(x['g_self_max'])})")
    print("(peak diff: the search's plateau median against the mean plateau level of the grids around it, as the goal "
          "is judged; vs grid max: the same against their mean maximum, the yardstick before 2026-11-23; best probe: "
          "the search's best single probe against that maximum, the bench's figure before that; knee steps: the search's "
          "knee on the grid's QD range (its probes and its plateau level carried to the largest QD) against the knee "
          "of both grids' points; (probes): its knee from the probes alone, as before)")

    def medians(rs: list[dict], label: str) -> None:
        if not rs:
            print(f"{label}: no rounds")
            return
        ks = [x["knee_steps"] for x in rs if x["knee_steps"] is not None]
        ratio, diff = med(x["ratio"] for x in rs), med(x["peak_diff"] for x in rs)
        mx, best = med(x["max_diff"] for x in rs), med(x["best_diff"] for x in rs)
        md = [x["median_diff"] for x in rs if x["median_diff"] is not None]
        md_text = f"; the plateau probes' median: {pct(med(md))} in {len(md)}" if md else ""
        print(f"{label} ({len(rs)}): device-time ratio {pct(ratio)} [{'ok' if ratio <= 0.25 else 'MISSED'}, goal <= "
              f"25 %; at most {pct(max(x['ratio'] for x in rs))}], peak difference {pct(diff)} "
              f"[{'ok' if diff <= 0.05 else 'MISSED'}, goal <= 5 %; within 5 % in "
              f"{sum(x['peak_diff'] <= 0.05 for x in rs)} of {len(rs)}] (vs grid max: {pct(mx)}; best probe vs grid "
              f"max: {pct(best)}{md_text}), knee {'n/a' if not ks else f'{med(ks):.2f}'} QD steps apart (within one step in "
              f"{sum(x['knee_ok'] for x in rs)} of {len(rs)}; the probes alone: "
              f"{sum(x['knee_steps_probes'] is not None and x['knee_steps_probes'] <= 1 for x in rs)} of {len(rs)}) "
              f"[goal <= 1 step]")

    print("\n== medians ==")
    medians(rounds, "all rounds")
    medians([x for x in rounds if x["reproduced"]], "rounds whose grid reproduced itself within 5 %")
    a_dev, g_dev = sum(x["a_dev"] for x in rounds), sum(x["g_dev"] for x in rounds)
    print(f"device time over all rounds (ramp + runtime): adaptive {a_dev:.1f} s against {g_dev:.1f} s of grid "
          f"(one grid per round), ratio {pct(a_dev / g_dev)}")
    levels, maxima = [g["level"] for g in grids], [g["max"] for g in grids]
    per_qd_cv = [statistics.stdev(v) / statistics.mean(v) for v in ([g["curve"][q] for g in grids] for q in qds)]
    print(f"noise floor of this device over the {len(grids)} grid runs: plateau levels "
          f"{', '.join(f'{v:.0f}' for v in levels)} (spread {(max(levels) - min(levels)) / med(levels):.1%} of their "
          f"median; leave-one-out {', '.join(pct(v) for v in loo['level'])}); maxima "
          f"{', '.join(f'{v:.0f}' for v in maxima)} (spread {(max(maxima) - min(maxima)) / med(maxima):.1%}; "
          f"leave-one-out {', '.join(pct(v) for v in loo['max'])}); the maximum lies "
          f"{', '.join(f'{m / v - 1:+.1%}' for m, v in zip(maxima, levels))} above the level; the same point's IOPS "
          f"vary with a median CV of {med(per_qd_cv):.1%} between grid runs")
    # the yardstick: the grid itself judged as a search is (each grid between two others, against their mean, where
    # those two agree within 5 %): what a full grid's 38.5 s achieve on this device against the same reference
    own = [(j["change"], knee_ok(j["s_knee"], j["g_knee"]))
           for g_prev, g, g_next in zip(grids, grids[1:], grids[2:])
           for j in (judge_search(g["level"], (list(g["curve"]), list(g["curve"].values())), g_prev, g_next, qds),)
           if j["repro"]]
    if own:
        print(f"the grid itself as the search is judged (each grid between two others whose levels agree within 5 %, "
              f"against their mean): level {', '.join(f'{d:+.1%}' for d, _ in own)}: within 5 % in "
              f"{sum(abs(d) <= 0.05 for d, _ in own)} of {len(own)}, the knee within one step in "
              f"{sum(k for _, k in own)} of {len(own)}")
    else:
        print("the grid itself as the search is judged: no grid lies between two others whose levels agree within 5 %")
    dump = work / f"bench-{stamp}.json"
    dump.write_text(json.dumps({"args": vars(args), "grids": grids, "searches": searches}, default=str, indent=1))
    print(f"raw data: {raw}/bench-*-{stamp}-*; the figures: {dump}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
