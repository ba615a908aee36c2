"""SNIA PTS 2.0.2 report (``mode: pts`` runs, :mod:`helpers.run.pts`): the header, the conformance statement, the
convergence of every tracked variable, the steady-state windows, and the IOPS, TP, LAT and WSAT results over each
test's measurement window.  Pure functions of a run's manifest and its processed results, histograms and time
series; the round of a result row comes from the manifest (``points[id]["pts"]``), never from its name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from helpers.analysis.cliff import gb_written
from helpers.analysis.pts_xsr import xsr_recovery  # noqa: F401  (the public name, issue 32)
from helpers.analysis.timeseries import point_series
from helpers.fio import histogram
from helpers.fio.units import format_bytes, parse_size
from helpers.processed.validity import WRITE_READ_RATIO
from helpers.run.profiles import (
    PTS_CLASSES,
    PTS_DIRTH_TQ,
    PTS_IOPS_BS,
    PTS_IOPS_MIXES,
    PTS_LAT_BS,
    PTS_LAT_MIXES,
    PTS_TESTS,
    PTS_TP_BS,
)
from helpers.run.pts_dirth import dirth_operating_points  # noqa: F401  (the public name, issue 32)

FIVE_NINES_MIN_IOS = 100_000  # a 99.999 % latency names the 1-in-100,000 I/O: fewer I/Os cannot show it
PTS_ROUND_S = 60.0  # PTS 2.0.2: one minute per point per round
PTS_WINDOW, PTS_MAX_RANGE_PCT, PTS_MAX_EXCURSION_PCT = 5, 20.0, 10.0
PTS_PRECONDITION_X = 2.0  # workload-independent preconditioning: twice the capacity
PTS_WSAT_X = 4.0  # WSAT: four times the capacity (or its time limit)
PTS_WSAT_MAX_S = 24 * 3600.0  # WSAT's time limit: 24 hours
PTS_PRECONDITION_BS = "128k"  # workload-independent preconditioning: 128 KiB sequential writes
MISSING_TESTS: tuple[str, ...] = ()  # PTS 2.0.2 tests the lab does not run (docs/sweeps.md)
TEST_NAMES = {"iops": "IOPS", "lat": "LAT", "wsat": "WSAT", "dirth": "DIRTH", "xsr": "XSR", "hir": "HIR", "cbw": "CBW"}
PTS_MAX_ROUNDS = 25  # PTS 2.0.2: steady state within at most 25 rounds
PTS_DIRTH_PREWRITE_S, PTS_DIRTH_HIST_S = 300.0, 600.0  # DIRTH: 5 min pre-write per round, 10 min per operating point


def test_title(test: str) -> str:
    """"iops" -> "IOPS", "tp-128k" -> "TP 128k"."""
    return f"TP {test.removeprefix('tp-')}" if test.startswith("tp-") else TEST_NAMES.get(test, test)


def mix_label(read_pct: float | None) -> str:
    """Read % -> the PTS's R/W label, "65/35"."""
    if read_pct is None or pd.isna(read_pct):
        return ""
    return f"{int(read_pct)}/{100 - int(read_pct)}"


@dataclass
class PtsRun:
    """The first PTS run of the chosen runs (``run_id`` None and an empty manifest when there is none)."""

    run_id: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    looked_at: list[str] = field(default_factory=list)  # the run ids searched (named when none has PTS tests)

    @property
    def pts(self) -> dict[str, Any]:
        return self.manifest.get("pts") or {}

    @property
    def tests(self) -> dict[str, dict]:
        return self.pts.get("tests") or {}

    @property
    def settings(self) -> dict[str, Any]:
        return self.pts.get("settings") or {}

    @property
    def empty_note(self) -> str:
        if self.run_id:
            return ""
        who = f"Run {', '.join(self.looked_at)}" if self.looked_at else "This run"
        return f"{who} has no PTS tests: run the pts or pts-lite profile (mode: pts)."


def pts_run(manifests: dict[str, dict]) -> PtsRun:
    """The first of {run_id: manifest} with PTS tests."""
    for run_id, m in manifests.items():
        if (m or {}).get("pts", {}).get("tests"):
            return PtsRun(run_id, m, list(manifests))
    return PtsRun(looked_at=list(manifests))


# ----------------------------------------------------------------------------------- statement

@dataclass
class Conformance:
    conformant: bool
    statement: str
    deviations: list[str]


def _missing(what: str, have, full, fmt=str) -> str | None:
    left = [x for x in full if x not in set(have or [])]
    return f"{what} without {', '.join(fmt(x) for x in left)}" if left else None


def conformance(run: PtsRun) -> Conformance:
    """"SNIA PTS 2.0.2 conformant" only when every condition held (block device, purge before every test,
    2 x capacity preconditioning in 128 KiB sequential writes, 1-minute rounds, the full matrices of all four
    tests, window 5 with 20 % / 10 %, the class's ActiveRange, WSAT 4 x capacity or 24 hours, steady state in every
    test, the run complete); else "PTS-inspired, not conformant" and what deviated."""
    if not run.run_id:
        return Conformance(False, f"{run.empty_note} No conformance to state.", [])
    s, tests, m = run.settings, run.tests, run.manifest
    dev: list[str] = []
    if m.get("target_kind") != "block":
        dev.append("file target (not a block device): a file system sits between fio and the drive")
    unpurged: dict[str, list[str]] = {}
    for test, t in tests.items():
        purge = t.get("purge") or {}
        if not purge.get("purged"):
            unpurged.setdefault(purge.get("note") or "no purge", []).append(test_title(test))
    dev += [f"{note} before {', '.join(names)}" for note, names in unpurged.items()]
    pre = float(s.get("precondition_volume") or 0)
    if pre < PTS_PRECONDITION_X and any(t != "wsat" for t in tests):
        dev.append(f"preconditioning {pre:g} x the capacity (PTS: {PTS_PRECONDITION_X:g} x)")
    if any(t != "wsat" for t in tests) and parse_size(str(s.get("precondition_bs") or 0)) != \
            parse_size(PTS_PRECONDITION_BS):
        dev.append(f"preconditioning in {s.get('precondition_bs')} sequential writes (PTS: 128 KiB)")
    if float(s.get("round_s") or 0) < PTS_ROUND_S:
        dev.append(f"{float(s.get('round_s') or 0):g} s per point per round (PTS: 1 minute)")
    if (int(s.get("window") or 0), float(s.get("max_range_pct") or 0), float(s.get("max_excursion_pct") or 0)) != \
            (PTS_WINDOW, PTS_MAX_RANGE_PCT, PTS_MAX_EXCURSION_PCT):
        dev.append(f"steady-state rule window {s.get('window')} rounds, range {s.get('max_range_pct')} %, "
                   f"excursion {s.get('max_excursion_pct')} % (PTS: 5 rounds, 20 %, 10 %)")
    if int(s.get("max_rounds") or PTS_MAX_ROUNDS) < PTS_MAX_ROUNDS:
        dev.append(f"at most {s.get('max_rounds')} rounds per test (PTS: {PTS_MAX_ROUNDS}): a test not steady by "
                   "then stops there")
    if float(s.get("test_limit_s") or 0) > 0:
        dev.append(f"a time limit of {float(s['test_limit_s']):g} s per test (test_limit_s): rounds, XSR samples and "
                   "HIR cycles stopped there")
    ran = list(s.get("tests") or [])
    reduced = [_missing("tests", ran, PTS_TESTS[:4], str.upper),  # IOPS, TP, LAT, WSAT: the others are optional
               _missing("IOPS block sizes", s.get("iops_bs"), PTS_IOPS_BS) if "iops" in ran else None,
               _missing("IOPS mixes", s.get("iops_mixes"), PTS_IOPS_MIXES, mix_label) if "iops" in ran else None,
               _missing("TP block sizes", s.get("tp_bs"), PTS_TP_BS) if "tp" in ran else None,
               _missing("LAT block sizes", s.get("lat_bs"), PTS_LAT_BS) if "lat" in ran else None,
               _missing("LAT mixes", s.get("lat_mixes"), PTS_LAT_MIXES, mix_label) if "lat" in ran else None]
    dev += [f"reduced matrix: {r}" for r in reduced if r]
    for test in ("dirth", "cbw"):
        if test in ran:
            dev += _dirth_deviations(s, test.upper())
    if "xsr" in ran and (float(s.get("xsr_sample_s") or 0), int(s.get("xsr_seq_samples") or 0),
                         int(s.get("xsr_rnd_samples") or 0), int(s.get("xsr_qd") or 0)) != (60.0, 480, 360, 32):
        dev.append(f"XSR {s.get('xsr_seq_samples')} + {s.get('xsr_rnd_samples')} + {s.get('xsr_seq_samples')} samples "
                   f"of {float(s.get('xsr_sample_s') or 0):g} s at QD{s.get('xsr_qd')} (PTS: 8 h, 6 h, 8 h, one sample "
                   "a minute, T1/Q32)")
    if "hir" in ran and ([float(w) for w in s.get("hir_waits") or []], int(s.get("hir_cycles") or 0),
                         float(s.get("hir_write_s") or 0)) != ([5.0, 10.0, 15.0, 25.0, 50.0], 360, 5.0):
        dev.append(f"HIR wait states {', '.join(f'{float(w):g}' for w in s.get('hir_waits') or [])} s, "
                   f"{s.get('hir_cycles')} cycles of {float(s.get('hir_write_s') or 0):g} s writes (PTS: 5, 10, 15, "
                   "25, 50 s, 360 cycles of 5 s)")
    cls = PTS_CLASSES.get(str(s.get("pts_class")), (0, 0, 100.0))
    if float(s.get("active_range_pct") or 0) != cls[2]:
        dev.append(f"ActiveRange {float(s.get('active_range_pct') or 0):g} % (the {s.get('pts_class')} class: "
                   f"{cls[2]:g} %)")
    if s.get("pts_class") == "enterprise":  # PTS-E runs with the drive's volatile write cache disabled (WCD)
        dev.append("the drive's write cache was not disabled by the lab (PTS enterprise: write cache disabled)")
    active, wsat_x = float(s.get("active_range_pct") or 100.0), float(s.get("wsat_volume") or 0)
    if "volume_x_active_range" in (tests.get("wsat") or {}):  # runs before 2026-11-28 wrote it x the ActiveRange
        wsat_x *= active / 100
    if "wsat" in ran and wsat_x < PTS_WSAT_X:
        dev.append(f"WSAT writes {wsat_x:.3g} x the capacity (PTS: {PTS_WSAT_X:g} x the capacity or 24 hours)"
                   + (f": {float(s.get('wsat_volume') or 0):g} x its ActiveRange ({active:g} %)"
                      if "volume_x_active_range" in (tests.get("wsat") or {}) else ""))
    if "wsat" in ran and float(s.get("wsat_window_s") or PTS_ROUND_S) < PTS_ROUND_S:
        dev.append(f"WSAT samples IOPS every {float(s.get('wsat_window_s')):g} s (PTS: one sample per minute): its "
                   "curve is noisier than the specification's")
    wsat_cap = float(s.get("wsat_max_s") or 0)
    if "wsat" in tests and wsat_cap < PTS_WSAT_MAX_S:  # stopped by a cap shorter than the PTS's 24 h: written less
        ran_s = ((m.get("points") or {}).get(tests["wsat"].get("point")) or {}).get("device_s")
        if ran_s is None or float(ran_s) >= 0.999 * wsat_cap:
            dev.append(f"WSAT stopped at its {wsat_cap:g} s time limit before writing its volume (PTS: "
                       f"{PTS_WSAT_X:g} x the capacity or 24 hours)")
    for test, t in tests.items():
        result = t.get("result") or {}
        if test not in ("wsat", "xsr") and not result.get("steady"):
            dev.append(f"{test_title(test)}: {result.get('reason') or 'no rounds measured'}")
    if m.get("status") != "complete":
        dev.append(f"the run is {m.get('status') or 'not finished'}: not every test ran to its end")
    left = [TEST_NAMES.get(x, x.upper()) for x in PTS_TESTS[4:] if x not in ran] + list(MISSING_TESTS)
    missing = f" {', '.join(left)} not run." if left else ""
    if dev:
        return Conformance(False, f"Run {run.run_id}: PTS-inspired, not conformant to SNIA PTS 2.0.2: {len(dev)} deviation"
                                  f"{'s' if len(dev) > 1 else ''} (below).{missing}", dev)
    return Conformance(True, f"Run {run.run_id}: SNIA PTS 2.0.2 conformant for the tests run "
                             f"({', '.join(test_title(t) for t in tests)}).{missing}", [])


def _dirth_deviations(s: dict, name: str = "DIRTH") -> list[str]:
    """DIRTH's departures from PTS: a smaller threads x QD matrix, shorter pre-writes or operating-point runs,
    and always its workload-dependent preconditioning (the lab: the workload-independent fill and the per-round
    pre-writes, not a separate T32/Q32 random-write loop to steady state)."""
    dev = [f"{name}: workload-dependent preconditioning (T32/Q32 random writes to steady state) replaced by the "
           "workload-independent fill and each round's pre-write; no 60-minute pre-write before each operating point"]
    for key, what in (("dirth_threads", "thread counts"), ("dirth_qds", "queue depths")):
        left = [x for x in PTS_DIRTH_TQ if x not in set(s.get(key) or [])]
        if left:
            dev.append(f"reduced matrix: {name} {what} without {', '.join(map(str, left))}")
    if float(s.get("dirth_prewrite_s") or 0) < PTS_DIRTH_PREWRITE_S:
        dev.append(f"{name} pre-write {float(s.get('dirth_prewrite_s') or 0):g} s per round (PTS: 5 minutes)")
    if float(s.get("dirth_hist_s") or 0) < PTS_DIRTH_HIST_S:
        dev.append(f"{name} {float(s.get('dirth_hist_s') or 0):g} s per operating point (PTS: 10 minutes)")
    return dev


def header(run: PtsRun) -> pd.DataFrame:
    """The PTS report header: device, host, fio, class and procedure, as (item, value) rows."""
    if not run.run_id:
        return pd.DataFrame(columns=["item", "value"])
    m, s, pts = run.manifest, run.settings, run.pts
    tgt = m.get("target") or {}
    dev = pts.get("device") or {}
    capacity = pts.get("capacity_bytes") or m.get("target_size_bytes")
    purges = sorted({(t.get("purge") or {}).get("method") or "none" for t in run.tests.values()})
    rows = [
        ("run", run.run_id),
        ("device model", dev.get("model") or tgt.get("model") or "not reported"),
        ("capacity tested", f"{format_bytes(capacity)} ({capacity:,} bytes)" if capacity else "not recorded"),
        ("firmware", dev.get("firmware") or "not reported"),
        ("interface", dev.get("interface") or "not reported"),
        ("target", f"{tgt.get('path', '')} ({m.get('target_kind', '')})"),
        ("host", m.get("host", "")), ("kernel", m.get("kernel", "")), ("fio", m.get("fio_version", "")),
        ("class", s.get("pts_class", "")),
        ("jobs x QD", f"{s.get('numjobs')} x {s.get('iodepth')} (LAT: 1 x 1)"),
        ("ActiveRange", f"{float(s.get('active_range_pct') or 0):g} % ({format_bytes(pts.get('active_range_bytes') or 0)})"),
        ("purge method", ", ".join(purges)),
        ("preconditioning", f"{float(s.get('precondition_volume') or 0):g} x the capacity in "
                            f"{s.get('precondition_bs')} sequential writes (TP: at its block size; WSAT: none)"),
        ("round", f"{float(s.get('round_s') or 0):g} s per point; window {s.get('window')} rounds, at most "
                  f"{s.get('max_rounds')}"),
    ]
    temps = [r["health"]["temperature_c"] for t in run.tests.values() for r in t.get("rounds") or []
             if (r.get("health") or {}).get("temperature_c") is not None]
    note = (m.get("health") or {}).get("note") or "the device reported none"
    rows.append(("device temperature per round", f"{min(temps):g}-{max(temps):g} °C over {len(temps)} rounds"
                 if temps else f"not recorded: {note}"))
    redone = [f"{test_title(k)} ({len(t['repeated_preparations'])}x)" for k, t in run.tests.items()
              if t.get("repeated_preparations")]
    if redone:
        rows.append(("purge and preconditioning redone", "after an interruption before the measurement began: "
                     + ", ".join(redone) + " (the earlier attempts are in the manifest)"))
    for test, t in run.tests.items():
        if test == "wsat":
            of = "the ActiveRange" if "volume_x_active_range" in t else "the capacity, within the ActiveRange,"
            rows.append(("WSAT", f"{float(s.get('wsat_volume') or 0):g} x {of} or {s.get('wsat_max_s')} s, "
                                 f"one sample per {s.get('wsat_window_s')} s, from {wsat_start(run)}"))
            continue
        if test == "xsr":
            stop = t.get("stopped_at_limit") or {}
            rows.append(("XSR", f"{t.get('samples', 0)} samples of {t.get('sample_s')} s, T1/Q{t.get('qd')}: "
                                "sequential 1024k, random 8k, sequential 1024k writes"
                                + (f"; stopped at the time limit after {stop['samples']} samples" if stop else "")))
            continue
        r = t.get("result") or {}
        window = f"rounds {r['first_round']}-{r['last_round']}" if r.get("first_round") else "none"
        verdict = (f"steady state after {r.get('last_round')} rounds" if r.get("steady") else
                   f"not steady after {r.get('rounds', 0)} rounds")
        stop = t.get("stopped_at_limit") or {}
        rows.append((test_title(test), f"{verdict}; measurement window {window}"
                     + (f"; wait states stopped at the time limit after {stop['cycles']} cycles" if stop else "")))
    return pd.DataFrame(rows, columns=["item", "value"])


# ------------------------------------------------------------------------------- convergence

def _shown(name: str) -> tuple[str, float]:
    """A tracked variable as the page shows it: bandwidth in MB/s (10^6 bytes/s; an axis of '1B ... 5B bytes per
    second' read as billions), the rest as tracked.  (name, factor from the tracked value)."""
    return (name.replace("bytes/s", "MB/s"), 1e-6) if name.endswith("bytes/s") else (name, 1.0)


def convergence(run: PtsRun) -> pd.DataFrame:
    """Every tracked variable per round: test, round, variable, value, steady (the joint verdict after it);
    bandwidth in MB/s."""
    rows = []
    for test, t in run.tests.items():
        for r in t.get("rounds") or []:
            for name in (v["name"] for v in t.get("tracked") or []):
                if name in r:
                    shown, k = _shown(name)
                    rows.append({"test": test_title(test), "round": r["round"], "variable": shown,
                                 "value": r[name] * k, "steady": r.get("steady")})
    return pd.DataFrame(rows, columns=["test", "round", "variable", "value", "steady"])


def steady_windows(run: PtsRun) -> list[dict[str, Any]]:
    """One entry per tracked variable: test, variable, rounds (round, value) and its verdict over the test's
    measurement window (:func:`helpers.analysis.pts_steady_state` as a dict)."""
    out = []
    for test, t in run.tests.items():
        variables = (t.get("result") or {}).get("variables") or {}
        for v in t.get("tracked") or []:
            shown, k = _shown(v["name"])
            rounds = pd.DataFrame([{"round": r["round"], "value": None if r.get(v["name"]) is None else r[v["name"]] * k}
                                   for r in t.get("rounds") or []])
            result = dict(variables.get(v["name"], {}))
            for key in ("average", "slope", "intercept"):
                if result.get(key) is not None:
                    result[key] = result[key] * k
            out.append({"test": test_title(test), "variable": shown, "rounds": rounds, "result": result})
    return out


WINDOW_COLUMNS = ["test", "variable", "window", "average", "range (%)", "range limit (%)", "excursion (%)",
                  "excursion limit (%)", "slope per round", "steady"]


def window_numbers(run: PtsRun) -> pd.DataFrame:
    """The steady-state rule's numbers per tracked variable over its test's last (or steady) window: the window's
    rounds and average, its range and fit-line excursion in % of the average beside their limits, the fit line's
    slope per round (bandwidth in MB/s), and the verdict."""
    rows = []
    for w in steady_windows(run):
        r = w["result"]
        if not r:
            continue
        rows.append({"test": w["test"], "variable": w["variable"],
                     "window": f"rounds {r['first_round']}–{r['last_round']}" if r.get("first_round") else "",
                     "average": r.get("average"), "range (%)": r.get("range_pct"),
                     "range limit (%)": r.get("max_range_pct"), "excursion (%)": r.get("excursion_pct"),
                     "excursion limit (%)": r.get("max_excursion_pct"), "slope per round": r.get("slope"),
                     "steady": bool(r.get("steady"))})
    return pd.DataFrame(rows, columns=WINDOW_COLUMNS)


def steady_table(run: PtsRun) -> pd.DataFrame:
    """Per test: rounds measured (the tables' results are over the window's rounds only), steady or not, the
    measurement window and the reason."""
    rows = []
    for test, t in run.tests.items():
        if test in ("wsat", "xsr"):
            continue
        r = t.get("result") or {}
        rows.append({"test": test_title(test), "rounds measured": r.get("rounds", 0), "steady": bool(r.get("steady")),
                     "window": f"{r['first_round']}-{r['last_round']}" if r.get("first_round") else "",
                     "reason": r.get("reason", "")})
    return pd.DataFrame(rows, columns=["test", "rounds measured", "steady", "window", "reason"])


# ----------------------------------------------------------------------------- window results

def _window(t: dict) -> tuple[int, int] | None:
    r = t.get("result") or {}
    if r.get("first_round"):
        return int(r["first_round"]), int(r["last_round"])
    rounds = [x["round"] for x in t.get("rounds") or []]
    return (min(rounds), max(rounds)) if rounds else None


def point_rounds(run: PtsRun) -> pd.DataFrame:
    """point_id -> test, round, in_window (the round lies in its test's measurement window), rw, bs_bytes, mix."""
    rows = []
    windows = {test: _window(t) for test, t in run.tests.items()}
    for pid, e in (run.manifest.get("points") or {}).items():
        tag = e.get("pts") or {}
        if not tag or e.get("status") != "ok":
            continue
        p = e.get("parameters") or {}
        w = windows.get(tag["test"])
        rnd = tag.get("round", 0)
        rows.append({"point_id": pid, "test": tag["test"], "round": rnd,
                     "in_window": bool(w and w[0] <= rnd <= w[1]), "rw": p.get("rw"), "bs_bytes": p.get("bs_bytes"),
                     "mix": p.get("rwmixread")})
    return pd.DataFrame(rows, columns=["point_id", "test", "round", "in_window", "rw", "bs_bytes", "mix"])


def _point_totals(results: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """One row per PTS point measured in its test's window: IOPS and bytes/s of all directions, IOPS-weighted
    mean total latency, maximum total latency, I/Os."""
    pr = point_rounds(run)
    pr = pr[pr["in_window"]]
    if results is None or results.empty or pr.empty:
        return pd.DataFrame(columns=["point_id", "test", "round", "rw", "bs_bytes", "mix", "iops", "bw_bytes_per_s",
                                     "lat_mean_us", "lat_max_us", "total_ios"])
    r = results[(results["run_id"] == run.run_id) & results["point_id"].isin(pr["point_id"])]
    r = r.assign(_w=r["iops"].where(r["lat_mean_us"].notna(), 0.0), _wl=r["iops"] * r["lat_mean_us"].fillna(0))
    g = r.groupby("point_id").agg(iops=("iops", "sum"), bw_bytes_per_s=("bw_bytes_per_s", "sum"), _w=("_w", "sum"),
                                  _wl=("_wl", "sum"), lat_max_us=("lat_max_us", "max"), total_ios=("total_ios", "sum"))
    g["lat_mean_us"] = (g["_wl"] / g["_w"]).where(g["_w"] > 0)
    return pr.merge(g.drop(columns=["_w", "_wl"]).reset_index(), on="point_id")


def iops_long(results: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """IOPS test: per block size and mix, the average IOPS over the measurement window (all directions)."""
    tot = _point_totals(results, run)
    tot = tot[tot["test"] == "iops"]
    if tot.empty:
        return pd.DataFrame(columns=["bs_bytes", "mix", "rw_mix", "iops", "rounds"])
    out = tot.groupby(["bs_bytes", "mix"], as_index=False).agg(iops=("iops", "mean"), rounds=("round", "nunique"))
    out["rw_mix"] = out["mix"].map(mix_label)
    return out.sort_values(["bs_bytes", "mix"], ascending=[False, False]).reset_index(drop=True)


def iops_table(results: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """The PTS IOPS table: one row per block size (largest first), one column per R/W mix (100/0 first),
    average IOPS over the measurement window."""
    long = iops_long(results, run)
    if long.empty:
        return pd.DataFrame()
    wide = long.pivot(index="bs_bytes", columns="mix", values="iops").sort_index(ascending=False)
    wide = wide[sorted(wide.columns, reverse=True)]
    wide.columns = [f"R/W {mix_label(c)} IOPS" for c in wide.columns]
    wide.insert(0, "block size", [format_bytes(int(b)) for b in wide.index])
    wide["window"] = window_label(run, "iops")
    return wide.reset_index(drop=True)


def window_label(run: PtsRun, test: str) -> str:
    """The rounds a test's table averages, and whether they are its steady-state window: "rounds 2–6 (steady)",
    or "rounds 4–8: not steady (its last 5 rounds, not a PTS result)"."""
    t = run.tests.get(test) or {}
    w = _window(t)
    if not w:
        return "no rounds"
    rounds = f"rounds {w[0]}–{w[1]}"
    if (t.get("result") or {}).get("steady"):
        return f"{rounds} (steady)"
    return f"{rounds}: not steady (its last {w[1] - w[0] + 1} rounds, not a PTS result)"


def tp_table(results: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """TP: per block size and direction, the average bandwidth over the test's window (bytes/s), the window (marked
    when the test never reached steady state) and a note where writes ran far faster than reads (a cache)."""
    tot = _point_totals(results, run)
    tot = tot[tot["test"].str.startswith("tp-")]
    cols = ["block size", "direction", "bw_bytes_per_s", "rounds in window", "window", "note"]
    if tot.empty:
        return pd.DataFrame(columns=cols)
    out = tot.groupby(["bs_bytes", "rw", "test"], as_index=False).agg(
        bw_bytes_per_s=("bw_bytes_per_s", "mean"), **{"rounds in window": ("round", "nunique")})
    out.insert(0, "block size", [format_bytes(int(b)) for b in out["bs_bytes"]])
    out["window"] = [window_label(run, t) for t in out["test"]]
    # writes far faster than reads of the same size: a write-back cache's number (the card's and validity's rule)
    read = out[out["rw"] == "read"].set_index("bs_bytes")["bw_bytes_per_s"]
    ratio = out["bw_bytes_per_s"] / out["bs_bytes"].map(read)
    out["note"] = [f"writes at {r:.1f}x the reads of this block size: a write-back cache absorbed them, not the "
                   "drive's flash (measure a block device, or a target several times any cache)"
                   if rw == "write" and r >= WRITE_READ_RATIO else "" for rw, r in zip(out["rw"], ratio)]
    out = out.rename(columns={"rw": "direction"}).sort_values(["bs_bytes", "direction"], ascending=[True, False])
    return out[cols].reset_index(drop=True)


def lat_table(results: pd.DataFrame, histograms: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """LAT (1 job, QD1): per block size and mix over the measurement window, the average and maximum total latency
    and the 99.999 % latency of the window's merged json+ histogram (fio's rule, :func:`helpers.fio.histogram.
    percentile`), marked when the window had fewer than :data:`FIVE_NINES_MIN_IOS` I/Os."""
    tot = _point_totals(results, run)
    tot = tot[tot["test"] == "lat"]
    cols = ["block size", "R/W", "avg latency (µs)", "max latency (µs)", "99.999 % latency (µs)", "I/Os", "note"]
    if tot.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    hist = histograms if histograms is not None else pd.DataFrame()
    for (bs, mix), g in tot.groupby(["bs_bytes", "mix"], sort=False):
        ios = int(g["total_ios"].sum())
        five = float("nan")
        latency = "total"
        if not hist.empty:
            h = hist[(hist["run_id"] == run.run_id) & hist["point_id"].isin(g["point_id"]) & (hist["count"] > 0)]
            if not h.empty:
                latency = "total" if str(h["latency"].iloc[0]) == "lat" else "completion"
                merged = h.groupby("bin_ns")["count"].sum()
                five = histogram.percentile(merged.index.to_numpy(), merged.to_numpy(), 99.999) / 1000.0
        note = "" if ios >= FIVE_NINES_MIN_IOS else \
            f"too few I/Os for a 99.999 % latency ({ios:,} < {FIVE_NINES_MIN_IOS:,}): it is the slowest few I/Os"
        if latency != "total":
            note = "; ".join(x for x in (note, "99.999 % of completion latency") if x)
        avg = float(np.average(g["lat_mean_us"], weights=g["iops"])) if g["iops"].sum() > 0 else float("nan")
        rows.append({"bs_bytes": bs, "mix": mix, "block size": format_bytes(int(bs)), "R/W": mix_label(mix),
                     "avg latency (µs)": avg, "max latency (µs)": float(g["lat_max_us"].max()),
                     "99.999 % latency (µs)": five, "I/Os": ios, "note": note})
    out = pd.DataFrame(rows).sort_values(["bs_bytes", "mix"], ascending=[True, False])
    return out[cols].reset_index(drop=True)


def wsat_start(run: PtsRun) -> str:
    """The state WSAT started from, as it was: "the purged state" only when a purge ran before it."""
    purge = (run.tests.get("wsat") or {}).get("purge") or {}
    if purge.get("purged"):
        return "the purged state"
    return f"an unpurged target ({purge.get('note') or 'no purge'})"


def wsat_note(run: PtsRun) -> str:
    """The WSAT view's sentence when :func:`wsat_series` is empty: no PTS run, no WSAT test, or a WSAT that
    logged no IOPS window (fio writes none for a job shorter than its log window)."""
    if not run.run_id:
        return run.empty_note
    t = run.tests.get("wsat")
    if not t or not t.get("point"):
        return f"Run {run.run_id} has no WSAT test."
    ran = ((run.manifest.get("points") or {}).get(t["point"]) or {}).get("device_s")
    took = f"it ran {float(ran):.3g} s" if ran is not None else "its run time is not recorded"
    return (f"Run {run.run_id}'s WSAT logged no IOPS window: {took}, one window is {t.get('window_s', '?')} s "
            "(a profile with a larger wsat_volume or a shorter wsat_window_s draws its curve).")


def wsat_series(timeseries: pd.DataFrame, run: PtsRun) -> pd.DataFrame:
    """WSAT: one row per log window of its point with an IOPS entry: t_s (window end), iops, bytes_per_s and GB
    written by then (windows where fio logged latency but no IOPS are left out; empty: :func:`wsat_note`)."""
    point = (run.tests.get("wsat") or {}).get("point")
    cols = ["t_s", "iops", "bytes_per_s", "gb_written"]
    if not point or timeseries is None or timeseries.empty:
        return pd.DataFrame(columns=cols)
    ts = timeseries[(timeseries["run_id"] == run.run_id) & (timeseries["point_id"] == point)]
    series = point_series(ts)
    series = series[series["direction"] == "write"].sort_values("window_end_s")
    if series.empty:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame({"t_s": series["window_end_s"].astype(float).to_numpy(),
                        "iops": series["iops"].astype(float).to_numpy(),
                        "bytes_per_s": series["bytes_per_s"].astype(float).to_numpy(),
                        "gb_written": gb_written(series).to_numpy()})
    return out[out["iops"].notna()].reset_index(drop=True)



# ----------------------------------------------------------------------------- the device card of a PTS run

CARD_COLUMNS = ["metric", "title", "value", "unit", "low", "high", "rounds", "detail", "not_steady"]


def _test_setting(run: PtsRun, test: str) -> str:
    """A test's threads x queue depth, from its points' parameters ("T2/Q16")."""
    for e in (run.manifest.get("points") or {}).values():
        if (e.get("pts") or {}).get("test") == test:
            p = e.get("parameters") or {}
            return f"T{int(p.get('numjobs') or 1)}/Q{int(p.get('iodepth') or 1)}"
    return ""


def _window_text(run: PtsRun, test: str, n: int) -> tuple[str, str]:
    """("mean of rounds 2-6, its steady-state window", "") or, for a test that never reached steady state,
    ("mean of rounds 4-8, the last 5", "the TP 128k test did not reach steady state: ...")."""
    t = run.tests.get(test) or {}
    r = t.get("result") or {}
    w = _window(t)
    rounds = f"rounds {w[0]}–{w[1]}" if w else "no rounds"
    if r.get("steady"):
        return f"mean of {rounds}, its steady-state window", ""
    return (f"mean of {rounds}, its last {n}",
            f"the {test_title(test)} test did not reach steady state ({r.get('reason') or 'no verdict'}): its "
            "number is the mean of its last rounds, not a PTS result")


def card_results(results: pd.DataFrame, run: PtsRun, histograms: pd.DataFrame | None = None) -> pd.DataFrame:
    """The device card's headline numbers of a PTS run, each the PTS test's own result over its measurement window
    (never a single round, never WSAT's fresh-target average): LAT's mean total latency of 4 KiB random reads and
    writes at T1/Q1 (and the reads' 99.999 % latency), the IOPS test's 4 KiB 100/0 and 0/100 IOPS, and TP's best
    read and write bandwidth over its block sizes.  ``low``/``high`` the range of the window's rounds; ``not_steady``
    says when the test never reached steady state (its number is then the mean of its last rounds).  Columns
    :data:`CARD_COLUMNS`; empty when the run has no PTS tests."""
    out: list[dict] = []
    if not run.run_id:
        return pd.DataFrame(columns=CARD_COLUMNS)
    tot = _point_totals(results, run)

    def add(metric, title, test, rows, col, unit, scale, what, **extra):
        if rows.empty:
            return
        per_round = rows.groupby("round")[col].sum() * scale if col != "lat_mean_us" else rows.groupby("round").apply(
            lambda g: float(np.average(g[col], weights=g["iops"])) if g["iops"].sum() > 0 else float("nan"))
        window, not_steady = _window_text(run, test, int(per_round.size))
        setting = _test_setting(run, test)
        # the value as the PTS page's table has it: LAT weighs each round's mean latency by its I/Os per second
        value = float(np.average(rows[col], weights=rows["iops"])) if col == "lat_mean_us" else float(per_round.mean())
        out.append({"metric": metric, "title": title, "value": value, "unit": unit,
                    "low": float(per_round.min()), "high": float(per_round.max()), "rounds": int(per_round.size),
                    "detail": f"PTS {test_title(test)} test, {what}{' at ' + setting if setting else ''}: {window}",
                    "not_steady": not_steady, **extra})

    lat = tot[(tot["test"] == "lat") & (tot["bs_bytes"] == 4096)]
    for mix, word in ((100.0, "read"), (0.0, "write")):
        add(f"QD1 4k random {word} latency", f"QD1 4k random {word} mean total latency (PTS LAT)", "lat",
            lat[lat["mix"] == mix], "lat_mean_us", "µs", 1.0, f"4k R/W {mix_label(mix)}")
    if not lat.empty:
        five = lat_table(results, histograms, run)
        five = five[(five["block size"] == "4k") & (five["R/W"] == "100/0")]
        if len(five) and pd.notna(five["99.999 % latency (µs)"].iloc[0]):
            window, not_steady = _window_text(run, "lat", int(lat["round"].nunique()))
            note = str(five["note"].iloc[0])
            out.append({"metric": "QD1 4k random read 99.999% latency",
                        "title": "QD1 4k random read 99.999 % latency (PTS LAT)",
                        "value": float(five["99.999 % latency (µs)"].iloc[0]), "unit": "µs", "low": float("nan"),
                        "high": float("nan"), "rounds": int(lat["round"].nunique()),
                        "detail": f"PTS LAT test, 4k R/W 100/0 at {_test_setting(run, 'lat')}: of the merged "
                                  f"histogram of {window.removeprefix('mean of ')}" + (f"; {note}" if note else ""),
                        "not_steady": not_steady})
    iops = tot[(tot["test"] == "iops") & (tot["bs_bytes"] == 4096)]
    for mix, word in ((100.0, "read"), (0.0, "write")):
        add(f"Peak 4k random {word} IOPS", f"4k random {word} IOPS (PTS IOPS)", "iops", iops[iops["mix"] == mix],
            "iops", "IOPS", 1.0, f"4k R/W {mix_label(mix)}")
    tp = tot[tot["test"].str.startswith("tp-")]
    for rw, word in (("read", "read"), ("write", "write")):
        rows = tp[tp["rw"] == rw]
        if rows.empty:
            continue
        best = rows.groupby("test")["bw_bytes_per_s"].mean().idxmax()  # the TP block size with the most bandwidth
        add(f"Peak sequential {word} bandwidth", f"Sequential {word} bandwidth (PTS TP {best.removeprefix('tp-')})",
            best, rows[rows["test"] == best], "bw_bytes_per_s", "MB/s", 1e-6,
            f"{best.removeprefix('tp-')} sequential {word}s")
    return pd.DataFrame(out, columns=CARD_COLUMNS)
