"""Benchmark (a script, not a test): how honest is the run comparison on this machine's disk?

    PYTHONPATH=src .venv/bin/python benchmarks/bench_compare.py [--trials 25] [--interleaved-trials 15]

Every run measures the same point (4k randread, QD 4, libaio, direct, 64 MiB scratch FILE under
build/bench-compare/, never a device) as ``--repeats`` x ``--runtime`` s repeats, and is compared with the
lab's statistics (``helpers.analysis.compare_runs`` on per-repeat samples: IOPS, mean total latency, p99
completion latency from the json+ histograms; 95 % intervals).  On an A/A pair any verdict "faster" or
"slower" is a false alarm (nominal 5 % per metric).  In session order:

1. ``--calibration`` runs of A, back to back: the first history (earlier runs of the point on this host);
2. ``sequential`` A/A: run A, then run A' (two runs back to back, what a CI job compares).  The run-to-run
   drift comes from the history: the calibration runs and every earlier trial's runs, the most recent
   ``--history-max`` (the gate's default).  The same pairs are also scored with the within-run interval
   alone (the method before run-to-run drift was modelled: its alarms are today's "drift not measured");
3. ``sequential`` A/B: run A, then run B throttled by ``rate_iops`` at ``--ab-fraction`` of the slowest of
   the last five history runs (so the disk can deliver it), with the same history; the interval should
   cover the reference ratio B achieved / mean of all A runs of the session;
4. ``interleaved`` A/A: A r0, A' r0, A r1, A' r1, ... (the runs share their time span: drift hits both
   alike and the comparison needs no history);
5. ``interleaved`` A/B/A': B throttled at ``--ab-fraction`` of a 2-repeat pilot's slower repeat; the
   reference ratio is B achieved / mean of A' (an independent A the interval never saw).

Rates are printed with their exact (Clopper-Pearson) binomial 95 % interval.
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
from scipy import stats  # noqa: E402

from compare_helpers import fio_repeat, interleaved, mean_iops, samples_of, sequential  # noqa: E402
from helpers.analysis.runpair import MATCH_KEYS, compare_runs  # noqa: E402
from helpers.fio.binary import find_fio  # noqa: E402
from helpers.load.runs import HISTORY_MAX_RUNS  # noqa: E402
from realfio import prefill  # noqa: E402

WORK = ROOT / "build" / "bench-compare"
TARGET = WORK / "target.bin"
KEYS = [k for k in MATCH_KEYS if k != "rate_iops"]
METRICS = ["iops", "lat_mean", "p99"]
SIGNIFICANT = ("faster", "slower", "changed")


def rate(k: int, n: int) -> str:
    if not n:
        return "-"
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{k}/{n} = {100 * k / n:.0f} % [{100 * ci.low:.0f}, {100 * ci.high:.0f}]"


class Session:
    """The runs measured so far, as samples with unique run ids (the history of the point on this host)."""

    def __init__(self, args):
        self.args = args
        self.runs: list[pd.DataFrame] = []  # one samples table per run of A (calibration, sequential trials)

    def history(self) -> pd.DataFrame | None:
        last = self.runs[-self.args.history_max:]
        return pd.concat(last, ignore_index=True) if last else None

    def measure(self, fio: str, design, root: Path, configs: dict[str, dict], prefix: str) -> pd.DataFrame:
        shutil.rmtree(root, ignore_errors=True)
        s = design(fio, TARGET, root, configs, self.args.repeats, self.args.runtime, self.args.ramp)
        shutil.rmtree(root, ignore_errors=True)
        return s.assign(run_id=prefix + s["run_id"].astype(str))


def calibrate(fio: str, session: Session) -> None:
    for k in range(session.args.calibration):
        session.runs.append(session.measure(fio, sequential, WORK / f"cal-{k}", {"a": {}}, f"cal{k}-"))
    print(f"calibration: {session.args.calibration} runs of A, IOPS "
          + ", ".join(f"{mean_iops(r, r['run_id'].iloc[0]):,.0f}" for r in session.runs), flush=True)


def verdicts(c) -> dict[str, str]:
    return dict(zip(c.table["metric"], c.table["verdict"]))


def aa_sequential(fio: str, session: Session, n: int) -> dict[str, dict[str, int]]:
    out = {"drift modelled": {m: 0 for m in [*METRICS, "any"]}, "within-run only": {m: 0 for m in [*METRICS, "any"]}}
    for t in range(n):
        s = session.measure(fio, sequential, WORK / f"seq-{t}", {"a": {}, "a2": {}}, f"s{t}-")
        a, a2 = f"s{t}-a", f"s{t}-a2"
        c = compare_runs(s, a, a2, metrics=METRICS, history=session.history())
        alone = compare_runs(s, a, a2, metrics=METRICS)  # no history: what the within-run interval says
        # alone, a change beyond the within-run noise is "drift not measured": the old method called it a change
        v, w = verdicts(c), {m: ("changed" if x == "drift not measured" else x) for m, x in verdicts(alone).items()}
        for name, vv in (("drift modelled", v), ("within-run only", w)):
            for m in METRICS:
                out[name][m] += vv[m] in SIGNIFICANT
            out[name]["any"] += any(vv[m] in SIGNIFICANT for m in METRICS)
        row = c.table.set_index("metric")
        print(f"sequential A/A {t + 1}/{n}: " + ", ".join(
            f"{m} {row.loc[m, 'change_pct']:+.1f} % [{row.loc[m, 'low_pct']:+.1f}, {row.loc[m, 'high_pct']:+.1f}] "
            f"{row.loc[m, 'verdict']} (history {row.loc[m, 'history_runs']} runs, SD {row.loc[m, 'run_cv_pct']:.1f} %; "
            f"within-run only: {w[m]})" for m in METRICS), flush=True)
        session.runs += [s[s["run_id"] == a], s[s["run_id"] == a2]]
    return out


def aa_interleaved(fio: str, session: Session, n: int) -> dict[str, int]:
    alarms = {m: 0 for m in [*METRICS, "any"]}
    for t in range(n):
        s = session.measure(fio, interleaved, WORK / f"int-{t}", {"a": {}, "a2": {}}, f"i{t}-")
        c = compare_runs(s, f"i{t}-a", f"i{t}-a2", metrics=METRICS, history=session.history())
        v = verdicts(c)
        for m in METRICS:
            alarms[m] += v[m] in SIGNIFICANT
        alarms["any"] += any(v[m] in SIGNIFICANT for m in METRICS)
        row = c.table.set_index("metric")
        assert set(row["drift"]) == {"interleaved"}, row["drift"]
        print(f"interleaved A/A {t + 1}/{n}: " + ", ".join(
            f"{m} {row.loc[m, 'change_pct']:+.1f} % [{row.loc[m, 'low_pct']:+.1f}, {row.loc[m, 'high_pct']:+.1f}] "
            f"{row.loc[m, 'verdict']}" for m in METRICS), flush=True)
    return alarms


def ab_sequential(fio: str, session: Session, n: int) -> tuple[int, int, int]:
    detected = covered = 0
    for t in range(n):
        last = session.runs[-5:]
        offered = int(session.args.ab_fraction * min(mean_iops(r, r["run_id"].iloc[0]) for r in last))
        history = session.history()
        s = session.measure(fio, sequential, WORK / f"abs-{t}",
                            {"a": {}, "b": {"rate_iops": offered, "rate_process": "linear"}}, f"abs{t}-")
        r = compare_runs(s, f"abs{t}-a", f"abs{t}-b", metrics=["iops"], keys=KEYS, history=history).table.iloc[0]
        session.runs.append(s[s["run_id"] == f"abs{t}-a"])
        a_level = pd.concat(session.runs, ignore_index=True)
        a_level = float(a_level.loc[a_level["metric"] == "iops"].groupby("run_id")["value"].mean().mean())
        truth = mean_iops(s, f"abs{t}-b") / a_level
        detected += r["verdict"] == "slower"
        covered += bool(r["low"] <= truth <= r["high"])
        print(f"sequential A/B {t + 1}/{n}: offered {offered:,} IOPS, achieved {mean_iops(s, f'abs{t}-b'):,.0f}; "
              f"A {mean_iops(s, f'abs{t}-a'):,.0f}, all A runs {a_level:,.0f}; ratio {r['ratio']:.3f} "
              f"[{r['low']:.3f}, {r['high']:.3f}] {r['verdict']} (history {r['history_runs']} runs, SD "
              f"{r['run_cv_pct']:.1f} %); reference {truth:.3f} {'covered' if r['low'] <= truth <= r['high'] else 'MISSED'}",
              flush=True)
    return detected, covered, n


def ab_interleaved(fio: str, session: Session, n: int) -> tuple[int, int, int]:
    args = session.args
    detected = covered = 0
    for t in range(n):
        root = WORK / f"abi-{t}"
        shutil.rmtree(root, ignore_errors=True)
        for r in range(2):
            fio_repeat(fio, TARGET, root / "pilot" / f"r{r}.json", args.runtime, args.ramp)
        pilot = samples_of(root / "pilot", "pilot")
        offered = int(args.ab_fraction * pilot.loc[pilot["metric"] == "iops", "value"].min())
        s = session.measure(fio, interleaved, root, {"a": {}, "b": {"rate_iops": offered, "rate_process": "linear"},
                                                     "a2": {}}, "")
        r = compare_runs(s, "a", "b", metrics=["iops"], keys=KEYS).table.iloc[0]
        truth = mean_iops(s, "b") / mean_iops(s, "a2")
        detected += r["verdict"] == "slower"
        covered += bool(r["low"] <= truth <= r["high"])
        print(f"interleaved A/B {t + 1}/{n}: offered {offered:,} IOPS, achieved {mean_iops(s, 'b'):,.0f}; "
              f"A {mean_iops(s, 'a'):,.0f}, A' {mean_iops(s, 'a2'):,.0f}; ratio {r['ratio']:.3f} [{r['low']:.3f}, "
              f"{r['high']:.3f}] {r['verdict']} ({r['drift']}); reference B/A' {truth:.3f} "
              f"{'covered' if r['low'] <= truth <= r['high'] else 'MISSED'}", flush=True)
    return detected, covered, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=25, help="sequential A/A trials")
    ap.add_argument("--interleaved-trials", type=int, default=15, help="interleaved A/A trials")
    ap.add_argument("--calibration", type=int, default=3, help="runs of A before the sequential trials")
    ap.add_argument("--history-max", type=int, default=HISTORY_MAX_RUNS, help="most recent runs used as history")
    ap.add_argument("--ab-trials", type=int, default=5, help="A/B trials per design")
    ap.add_argument("--ab-fraction", type=float, default=0.6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runtime", type=float, default=1.0)
    ap.add_argument("--ramp", type=float, default=0.25)
    args = ap.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    fio = find_fio()
    prefill(fio, TARGET)
    t0 = time.monotonic()
    session = Session(args)
    calibrate(fio, session)
    seq = aa_sequential(fio, session, args.trials) if args.trials else None
    ab_seq = ab_sequential(fio, session, args.ab_trials) if args.ab_trials else None
    inter = aa_interleaved(fio, session, args.interleaved_trials) if args.interleaved_trials else None
    ab_int = ab_interleaved(fio, session, args.ab_trials) if args.ab_trials else None
    print(f"\nA/A false alarms ('faster' or 'slower' on two runs of the same point; {args.repeats} x {args.runtime:g} s "
          f"repeats per run, 4k randread QD4, 95 % intervals, nominal 5 % per metric; [exact binomial 95 % interval]):")
    cols = {}
    if seq:
        cols["sequential, drift from history"] = {m: rate(k, args.trials) for m, k in seq["drift modelled"].items()}
        cols["sequential, within-run only"] = {m: rate(k, args.trials) for m, k in seq["within-run only"].items()}
    if inter:
        cols["interleaved"] = {m: rate(k, args.interleaved_trials) for m, k in inter.items()}
    if cols:
        print(pd.DataFrame(cols).to_string())
    for name, ab in (("sequential, drift from history", ab_seq), ("interleaved", ab_int)):
        if ab:
            print(f"A/B {name} (B offered {args.ab_fraction:.0%} of A): slower detected {rate(ab[0], ab[2])}, "
                  f"interval covers the reference ratio {rate(ab[1], ab[2])}")
    print(f"total {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
