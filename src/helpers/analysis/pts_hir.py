"""SNIA PTS HIR report (:mod:`helpers.run.pts_hir`): every cycle's IOPS against time, and per wait state the mean
IOPS of its cycles (writes after the host idled) and of its return to baseline, against the steady-state
baseline of the preconditioning rounds.  Pure functions of a run's manifest and its processed results."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.pts_dirth import test_note

SAMPLE_COLUMNS = ["wait_s", "phase", "cycle", "t_s", "iops"]
SUMMARY_COLUMNS = ["wait state (s)", "cycles", "mean IOPS after the wait", "x baseline",
                   "mean IOPS returning to baseline", "x baseline (return)"]


def hir_summary(samples: pd.DataFrame, baseline_iops: float | None) -> pd.DataFrame:
    """Per wait state (in the order of the samples): its cycles, the mean IOPS of its "wait" phase and of its
    "baseline" phase, each also as a multiple of ``baseline_iops`` (the steady-state average before the wait
    states; NaN without one).  ``samples``: wait_s, phase ("wait" or "baseline"), iops, one row per cycle."""
    if samples is None or samples.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    rows = []
    base = float(baseline_iops) if baseline_iops else float("nan")
    for wait, g in samples.groupby("wait_s", sort=False):
        w, b = g[g["phase"] == "wait"]["iops"], g[g["phase"] == "baseline"]["iops"]
        wm = float(w.mean()) if len(w) else float("nan")
        bm = float(b.mean()) if len(b) else float("nan")
        rows.append({"wait state (s)": float(wait), "cycles": int(len(w)), "mean IOPS after the wait": wm,
                     "x baseline": wm / base, "mean IOPS returning to baseline": bm, "x baseline (return)": bm / base})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def baseline_iops(run) -> float | None:
    """The HIR preconditioning rounds' steady-state average (its measurement window's), None without rounds."""
    t = run.tests.get("hir") or {}
    variables = (t.get("result") or {}).get("variables") or {}
    avg = [v.get("average") for v in variables.values() if v.get("average") is not None]
    return float(avg[0]) if avg else None


def hir_samples(results: pd.DataFrame, run) -> pd.DataFrame:
    """One row per HIR cycle: wait state, phase, cycle, t_s (its start, seconds after the first cycle's start,
    idle waits included), IOPS (fio's total over the cycle's writes)."""
    tags = {pid: e["pts"] for pid, e in (run.manifest.get("points") or {}).items()
            if (e.get("pts") or {}).get("test") == "hir" and "phase" in e["pts"] and e.get("status") == "ok"}
    if not tags or results is None or results.empty:
        return pd.DataFrame(columns=SAMPLE_COLUMNS)
    r = results[(results["run_id"] == run.run_id) & results["point_id"].isin(list(tags))]
    g = r.groupby("point_id")["iops"].sum()
    rows = [{"wait_s": float(tags[p]["wait_s"]), "phase": tags[p]["phase"], "cycle": int(tags[p]["round"]),
             "at_s": float(tags[p]["at_s"]), "iops": float(v)} for p, v in g.items()]
    out = pd.DataFrame(rows).sort_values("at_s")
    out["t_s"] = out["at_s"] - out["at_s"].iloc[0]
    return out[SAMPLE_COLUMNS].reset_index(drop=True)


def hir_note(run) -> str:
    return test_note(run, "hir", "wait-state cycle")
