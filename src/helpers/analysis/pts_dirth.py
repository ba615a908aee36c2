"""SNIA PTS DIRTH report (:mod:`helpers.run.pts_dirth`): the demand table over the measurement window (IOPS, mean
response time and CPU per threads x QD), the three operating points the run chose, and the response-time
histograms with their nines at those points.  Pure functions of a run's manifest and its processed results and
histograms (:class:`helpers.analysis.pts.PtsRun` holds the manifest)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from helpers.fio import histogram
from helpers.processed.validity import cpu_per_job
from helpers.run.pts_dirth import OPERATING_POINTS, dirth_operating_points

NINES = (99.0, 99.9, 99.99, 99.999)
TABLE_COLUMNS = ["numjobs", "iodepth", "outstanding", "iops", "lat_mean_us", "cpu_pct", "rounds"]


def capped_percentiles(bin_ns, counts, ps, max_us: float) -> list[float]:
    """Percentiles in µs of a json+ histogram by fio's rule, none above the measured maximum (a bin's value can lie
    above the slowest I/O in it); NaN for a nine the I/O count cannot show (fewer than 1 / (1 - p) I/Os)."""
    n = int(np.sum(counts))
    vals = histogram.percentile(np.asarray(bin_ns), np.asarray(counts), list(ps)) / 1000.0
    out = []
    for p, v in zip(ps, vals):
        v = min(float(v), max_us) if max_us == max_us else float(v)
        out.append(v if n * (1 - p / 100) >= 1 - 1e-9 else float("nan"))
    return out


def _window(t: dict) -> tuple[int, int] | None:
    r = t.get("result") or {}
    if r.get("first_round"):
        return int(r["first_round"]), int(r["last_round"])
    rounds = [x["round"] for x in t.get("rounds") or []]
    return (max(1, max(rounds) - 4), max(rounds)) if rounds else None


def _tags(run, test: str) -> dict[str, dict]:
    return {pid: e for pid, e in (run.manifest.get("points") or {}).items()
            if (e.get("pts") or {}).get("test") == test and e.get("status") == "ok"}


def _totals(results: pd.DataFrame, run, ids) -> pd.DataFrame:
    """Per point: IOPS of all directions, IOPS-weighted mean total latency (the PTS's response time), CPU
    (user + system, % of one CPU) and I/Os."""
    if results is None or results.empty or not ids:
        return pd.DataFrame(columns=["point_id", "numjobs", "iodepth", "iops", "lat_mean_us", "cpu_pct", "total_ios",
                                     "lat_max_us"])
    r = results[(results["run_id"] == run.run_id) & results["point_id"].isin(list(ids))]
    r = r.assign(_w=r["iops"].where(r["lat_mean_us"].notna(), 0.0), _wl=r["iops"] * r["lat_mean_us"].fillna(0),
                 _cpu=cpu_per_job(r))
    g = r.groupby("point_id").agg(numjobs=("numjobs", "first"), iodepth=("iodepth", "first"), iops=("iops", "sum"),
                                  _w=("_w", "sum"), _wl=("_wl", "sum"), cpu_pct=("_cpu", "first"),
                                  total_ios=("total_ios", "sum"), lat_max_us=("lat_max_us", "max"))
    g["lat_mean_us"] = (g["_wl"] / g["_w"]).where(g["_w"] > 0)
    return g.drop(columns=["_w", "_wl"]).reset_index()


def dirth_table(results: pd.DataFrame, run, test: str = "dirth") -> pd.DataFrame:
    """DIRTH (or CBW, ``test="cbw"``) demand points (pre-writes left out) averaged over the test's measurement window: numjobs (threads),
    iodepth (QD per thread), outstanding I/O, IOPS (all directions), mean total latency (µs), CPU %, rounds."""
    t = run.tests.get(test) or {}
    w = _window(t)
    if not w:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    ids = [pid for pid, e in _tags(run, test).items() if w[0] <= (e["pts"].get("round") or 0) <= w[1]
           and (e.get("parameters") or {}).get("rw") == "randrw"]
    tot = _totals(results, run, ids)
    if tot.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    out = tot.groupby(["numjobs", "iodepth"], as_index=False).agg(
        iops=("iops", "mean"), lat_mean_us=("lat_mean_us", "mean"), cpu_pct=("cpu_pct", "mean"),
        rounds=("point_id", "nunique"))
    out["outstanding"] = out["numjobs"] * out["iodepth"]
    return out[TABLE_COLUMNS].sort_values(["numjobs", "iodepth"], ascending=False).reset_index(drop=True)


def operating_points(run, test: str = "dirth") -> pd.DataFrame:
    """The operating points the run chose (manifest): name, threads, QD, IOPS and mean response time over the
    window, the hist point id; a row with empty values and the reason where the run found none."""
    ops = (run.tests.get(test) or {}).get("operating_points") or {}
    rows = []
    for name in OPERATING_POINTS:
        o = ops.get(name)
        rows.append({"operating point": name, "threads": (o or {}).get("numjobs"), "QD": (o or {}).get("iodepth"),
                     "window IOPS": (o or {}).get("iops"), "window mean response time (µs)": (o or {}).get(
                         "lat_mean_us"), "point": (o or {}).get("point"), "note": "" if o else ops.get("reason", "")})
    return pd.DataFrame(rows) if ops else pd.DataFrame(columns=["operating point", "threads", "QD", "window IOPS",
                                                                "window mean response time (µs)", "point", "note"])


def response_histograms(results: pd.DataFrame, histograms: pd.DataFrame, run,
                        test: str = "dirth") -> tuple[pd.DataFrame, pd.DataFrame]:
    """At each operating point's long run: (bins: operating point, latency_us, count, share; nines: operating
    point, threads, QD, IOPS, mean response time, I/Os, p99 ... p99.999 in µs and the latency kind).  A nine
    fewer than 10^k I/Os cannot show is left empty (1 in 100,000 for 99.999 %)."""
    ops = (run.tests.get(test) or {}).get("operating_points") or {}
    bins_rows, nine_rows = [], []
    hist = histograms if histograms is not None else pd.DataFrame()
    for name in OPERATING_POINTS:
        o = ops.get(name)
        if not o or hist.empty:
            continue
        h = hist[(hist["run_id"] == run.run_id) & (hist["point_id"] == o["point"]) & (hist["count"] > 0)]
        if h.empty:
            continue
        merged = h.groupby("bin_ns")["count"].sum().sort_index()
        n = int(merged.sum())
        kind = "total" if str(h["latency"].iloc[0]) == "lat" else "completion"
        bins_rows.append(pd.DataFrame({"operating point": name, "latency_us": merged.index.to_numpy() / 1000.0,
                                       "count": merged.to_numpy(), "share": merged.to_numpy() / n, "latency": kind}))
        tot = _totals(results, run, [o["point"]])
        top = float(tot["lat_max_us"].iloc[0]) if not tot.empty else float("nan")
        vals = capped_percentiles(merged.index.to_numpy(), merged.to_numpy(), NINES, top)
        row: dict[str, Any] = {"operating point": name, "threads": o["numjobs"], "QD": o["iodepth"],
                               "IOPS": float(tot["iops"].iloc[0]) if not tot.empty else np.nan,
                               "mean response time (µs)": float(tot["lat_mean_us"].iloc[0]) if not tot.empty else np.nan,
                               "I/Os": n, "latency": kind}
        for p, v in zip(NINES, vals):
            row[f"p{p:g} (µs)"] = v
        row["max (µs)"] = top
        nine_rows.append(row)
    bins = pd.concat(bins_rows, ignore_index=True) if bins_rows else pd.DataFrame(
        columns=["operating point", "latency_us", "count", "share"])
    return bins, pd.DataFrame(nine_rows)


def test_note(run, test: str, measured: str) -> str:
    """One sentence for a PTS test's views without data: no PTS run, no such test, or nothing ``measured`` yet."""
    if not run.run_id:
        return run.empty_note
    if test not in run.tests:
        return f"Run {run.run_id} has no {test.upper()} test (add {test} to the profile's pts tests)."
    return f"Run {run.run_id}'s {test.upper()} test has no measured {measured} yet."


def dirth_note(run, test: str = "dirth") -> str:
    """One sentence for the DIRTH (CBW) views when they have no data."""
    return test_note(run, test, "demand point")


__all__ = ["dirth_operating_points", "dirth_table", "operating_points", "response_histograms", "dirth_note"]
