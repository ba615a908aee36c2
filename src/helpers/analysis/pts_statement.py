"""The SNIA PTS report's statement: whether the run conforms (every condition that held or did not, per test) and the report header."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from helpers.analysis.pts_manifest import (
    MISSING_TESTS,
    PTS_DIRTH_HIST_S,
    PTS_DIRTH_PREWRITE_S,
    PTS_MAX_EXCURSION_PCT,
    PTS_MAX_RANGE_PCT,
    PTS_MAX_ROUNDS,
    PTS_PRECONDITION_BS,
    PTS_PRECONDITION_X,
    PTS_ROUND_S,
    PTS_WINDOW,
    PTS_WSAT_MAX_S,
    PTS_WSAT_X,
    TEST_NAMES,
    PtsRun,
    mix_label,
    test_title,
)
from helpers.analysis.pts_xsr import xsr_recovery  # noqa: F401  (the public name, issue 32)
from helpers.fio.units import format_bytes, parse_size
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


def wsat_start(run: PtsRun) -> str:
    """The state WSAT started from, as it was: "the purged state" only when a purge ran before it."""
    purge = (run.tests.get("wsat") or {}).get("purge") or {}
    if purge.get("purged"):
        return "the purged state"
    return f"an unpurged target ({purge.get('note') or 'no purge'})"
