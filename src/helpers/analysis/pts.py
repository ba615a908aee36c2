"""SNIA PTS 2.0.2 report (``mode: pts`` runs, :mod:`helpers.run.pts`): the header, the conformance statement, the
convergence of every tracked variable, the steady-state windows, and the IOPS, TP, LAT and WSAT results over each
test's measurement window.  Pure functions of a run's manifest and its processed results, histograms and time
series; the round of a result row comes from the manifest (``points[id]["pts"]``), never from its name."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from helpers.analysis.cliff import gb_written
from helpers.analysis.pts_manifest import FIVE_NINES_MIN_IOS as FIVE_NINES_MIN_IOS
from helpers.analysis.pts_manifest import PtsRun as PtsRun
from helpers.analysis.pts_manifest import mix_label as mix_label
from helpers.analysis.pts_manifest import pts_run as pts_run
from helpers.analysis.pts_manifest import test_title as test_title
from helpers.analysis.pts_statement import conformance as conformance
from helpers.analysis.pts_statement import header as header
from helpers.analysis.pts_statement import wsat_start as wsat_start
from helpers.analysis.pts_xsr import xsr_recovery  # noqa: F401  (the public name, issue 32)
from helpers.analysis.timeseries import point_series
from helpers.fio import histogram
from helpers.fio.units import format_bytes
from helpers.processed.validity import WRITE_READ_RATIO
from helpers.run.pts_dirth import dirth_operating_points  # noqa: F401  (the public name, issue 32)

# ----------------------------------------------------------------------------------- statement


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
