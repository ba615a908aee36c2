"""Device card: the headline numbers people share, and findings written from the data."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.burst import burst_card_metrics
from helpers.analysis.burst_flags import burst_flags
from helpers.analysis.card_findings import _knee_rows as _knee_rows
from helpers.analysis.card_findings import findings as findings
from helpers.analysis.card_findings import knee_source as knee_source
from helpers.analysis.card_findings import rand4k_qd_series as rand4k_qd_series
from helpers.analysis.card_levels import KB4 as KB4
from helpers.analysis.card_levels import DeviceCard as DeviceCard
from helpers.analysis.card_levels import Metric as Metric
from helpers.analysis.card_levels import _metric as _metric
from helpers.analysis.card_levels import _title as _title
from helpers.analysis.card_levels import best_metric as best_metric
from helpers.analysis.card_levels import levels as levels
from helpers.analysis.card_levels import series_summary as series_summary
from helpers.analysis.cliff import preconditioning_note, sustained_write_cliffs, write_cliff_sentence
from helpers.analysis.device import device_identity as device_identity
from helpers.analysis.device import is_virtual_disk as is_virtual_disk
from helpers.analysis.device import target_kind as target_kind
from helpers.analysis.flags import implausible_sentence
from helpers.analysis.knee import find_knee
from helpers.analysis.points import (
    latency_columns,
    percentile_latency,
    percentile_suffix,
    with_units,
)
from helpers.analysis.pts import card_results, pts_run
from helpers.analysis.slo import slo_card_sentence
from helpers.analysis.timeseries import point_series
from helpers.processed.validity import TAIL_SAMPLES, too_few_ios
from helpers.run.refdev import describe as describe_reference


def device_card(df: pd.DataFrame, S: float = 1.0, manifest: dict | None = None,
                slo_us: float | None = None, timeseries: pd.DataFrame | None = None,
                health: pd.DataFrame | None = None, histograms: pd.DataFrame | None = None) -> DeviceCard:
    """Headline metrics of one run (prefers unflagged points) and its findings; ``manifest`` (the run's
    sweep manifest) names the device, target, host and software the numbers were measured on (and, with the
    run's ``health`` captures, the device temperature during the run); with ``slo_us`` the findings end with
    the 4k random-read SLO capacity (most IOPS with p99 <= slo_us); with the run's ``timeseries``, a
    sustained-write point adds its write-cliff sentence.  On a PTS run (its manifest has PTS tests) every number is
    the PTS test's own result over its measurement window (:func:`helpers.analysis.pts.card_results`, its
    ``histograms`` for LAT's 99.999 %), labelled as such: never a single round or WSAT's fresh-target average."""
    if timeseries is not None and len(timeseries) and len(df):  # points that ran inside a burst bucket (issue 33)
        df = burst_flags(df, point_series(timeseries), {str(r): manifest for r in df["run_id"].unique()})
    d = with_units(df)
    pts = _pts_card(d, manifest, histograms)
    if pts is not None:
        return pts
    rr = d[(d["rw"] == "randread") & (d["bs_bytes"] == KB4) & (d["direction"] == "read")]
    rw = d[(d["rw"] == "randwrite") & (d["bs_bytes"] == KB4) & (d["direction"] == "write")]
    metrics = [
        _metric("QD1 4k random read latency", _longest(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("QD1 4k random write latency", _longest(rw[(rw["iodepth"] == 1) & (rw["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("Peak 4k random read IOPS", rr, "iops", "IOPS", manifest=manifest),
        _metric("Peak 4k random write IOPS", rw, "iops", "IOPS", manifest=manifest),
        _metric("Peak sequential read bandwidth", d[(d["rw"] == "read") & (d["direction"] == "read")],
                "mb_per_s", "MB/s", manifest=manifest),
        _metric("Peak sequential write bandwidth", d[(d["rw"] == "write") & (d["direction"] == "write")],
                "mb_per_s", "MB/s", manifest=manifest),
    ]
    for m in metrics[:2]:  # the QD1 latencies are means of total latency (submission + completion)
        m.title = m.name.replace(" latency", " mean total latency")
    seq_r, seq_w = d[(d["rw"] == "read") & (d["direction"] == "read")], d[(d["rw"] == "write") & (d["direction"] == "write")]
    for m, rows, what in ((metrics[2], rr, "4k random read IOPS"), (metrics[3], rw, "4k random write IOPS"),
                          (metrics[4], seq_r, "Sequential read bandwidth"),
                          (metrics[5], seq_w, "Sequential write bandwidth")):
        _title(m, rows, what)
    metrics[1:1] = qd1_tail_metrics(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)])
    at = next(i for i, m in enumerate(metrics) if m.name == "QD1 4k random write latency") + 1
    metrics[at:at] = qd1_tail_metrics(rw[(rw["iodepth"] == 1) & (rw["numjobs"] == 1)], "write")
    series = rand4k_qd_series(df)
    knee_qd, reason = None, "no 4k random-read queue-depth sweep in this run"
    knee = None
    if series["iodepth"].nunique() >= 2:

        knee = find_knee(series["iodepth"], series["iops"], S=S)
        knee_qd, reason = knee.knee_qd, knee.reason
    metrics.append(knee_p99_metric(d, series, knee))
    metrics.append(Metric("Throughput stops growing beyond", knee_qd, "QD",
                          f"4k random read, Kneedle on IOPS vs log2 QD over QD {series['iodepth'].min():g}–"
                          f"{series['iodepth'].max():g}, {knee_source(d)}" if knee_qd is not None else reason))
    card = DeviceCard(metrics, knee_qd, reason,
                      identity=device_identity(manifest, health) if manifest is not None else {})
    card.findings = findings(d, card, knee)
    if slo_us is not None and len(df):
        card.findings.append(slo_card_sentence(df, slo_us))
    cliffs = sustained_write_cliffs(point_series(timeseries), d) if timeseries is not None and len(timeseries) \
        else pd.DataFrame()
    if len(cliffs):  # the write cache in a number: GB written before the cliff, or why there is none
        c = cliffs.iloc[-1]
        card.metrics.append(Metric("Sustained write cliff", None if pd.isna(c["cliff_gb"]) else float(c["cliff_gb"]),
                                   "GB", str(c["reason"]), title="Data written before the write cliff"))
    if manifest is not None and (ref := describe_reference((manifest.get("target") or {}).get("path") or "")):
        card.findings.append(ref)  # zram or a tmpfs loop device: memory, not an SSD
    cliff = write_cliff_sentence(point_series(timeseries), d) if timeseries is not None and len(timeseries) else None
    if cliff:
        card.findings.append(cliff)
        note = preconditioning_note(point_series(timeseries), d, manifest)
        if note:
            card.findings.append(note)
    for m in burst_card_metrics(point_series(timeseries), manifest) if timeseries is not None and len(timeseries) else []:
        card.metrics.append(Metric(**m))  # a burst that runs out: its burst and baseline side by side (issue 33)
    return card


# a PTS run's tiles: (metric name, title, unit, the PTS test that measures it)
PTS_TILES = [("QD1 4k random read latency", "QD1 4k random read mean total latency (PTS LAT)", "µs", "lat"),
             ("QD1 4k random read 99.999% latency", "QD1 4k random read 99.999 % latency (PTS LAT)", "µs", "lat"),
             ("QD1 4k random write latency", "QD1 4k random write mean total latency (PTS LAT)", "µs", "lat"),
             ("Peak 4k random read IOPS", "4k random read IOPS (PTS IOPS)", "IOPS", "iops"),
             ("Peak 4k random write IOPS", "4k random write IOPS (PTS IOPS)", "IOPS", "iops"),
             ("Peak sequential read bandwidth", "Sequential read bandwidth (PTS TP)", "MB/s", "tp"),
             ("Peak sequential write bandwidth", "Sequential write bandwidth (PTS TP)", "MB/s", "tp")]


def _tests_run(run) -> set[str]:
    """The PTS tests a run ran ("tp-128k" counts as "tp")."""
    return {t.split("-")[0] for t in run.tests}


def _pts_card(d: pd.DataFrame, manifest: dict | None, histograms: pd.DataFrame | None) -> DeviceCard | None:
    """The card of a PTS run (None for any other run): the PTS tests' window results, one tile each, and one
    finding each saying which test and window it is (and when that test never reached steady state)."""
    run_id = str(d["run_id"].iloc[0]) if len(d) and "run_id" in d else "run"
    run = pts_run({run_id: manifest or {}})
    if not run.run_id:
        return None
    res = card_results(d, run, histograms)
    got = {r.metric: Metric(r.metric, r.value, r.unit, r.detail, r.not_steady, title=r.title,
                            spread=None if pd.isna(r.low) else (r.low, r.high), n_measured=int(r.rounds))
           for r in res.itertuples()}
    metrics = [got.get(name) or Metric(name, None, unit, f"not measured: this PTS run's {test} test has no such "
                                       "point (see its matrix on the PTS page)", title=title)
               for name, title, unit, test in PTS_TILES if name in got or test in _tests_run(run)]
    metrics += [m for name, m in got.items() if name not in {t[0] for t in PTS_TILES}]
    card = DeviceCard(metrics, None, "a PTS run has no queue-depth sweep", identity=device_identity(manifest))
    digits = {"µs": 1, "IOPS": 0, "MB/s": 0}
    card.findings = [f"{m.label}: {m.value:,.{digits.get(m.unit, 0)}f} {m.unit} ({m.detail})"
                     + (f"; ⚠ {m.flag_reasons}" if m.flag_reasons else "") + "." for m in metrics if m.available]
    if not any(m.available for m in metrics):
        card.findings.append("This PTS run has no IOPS, TP or LAT results over a measurement window yet.")
    if implausible_sentence(d):
        card.findings.append(implausible_sentence(d))
    return card


def _too_few(rows: pd.DataFrame, p: float) -> pd.Series:
    """True for the rows (with_units frames) whose I/O count cannot support percentile ``p`` (processed.validity's
    rule on ``total_ios``; or, without a count, ``unreliable_percentiles`` listing it for either latency)."""
    total = pd.to_numeric(rows["total_ios"], errors="coerce") if "total_ios" in rows else pd.Series(
        float("nan"), index=rows.index)
    few = pd.Series(too_few_ios(total.astype("float64"), p / 100), index=rows.index).fillna(False).astype(bool)
    if "unreliable_percentiles" in rows:
        cols = {f"{kind}_{percentile_suffix(p)}" for kind in ("lat", "clat")}
        listed = rows["unreliable_percentiles"].fillna("").astype(str).str.split(",").map(
            lambda cs: bool(cols & set(cs))).astype(bool)
        few = few | (listed & total.isna())
    return few


def _few_ios(rows: pd.DataFrame, p: float) -> str:
    """'too few I/Os for a reliable p99.9 (it needs 10,000 or more)' when a row of ``rows`` (with_units frames)
    cannot support the percentile (:func:`_too_few`), else ''."""
    if not _too_few(rows, p).any():
        return ""
    return f"too few I/Os for a reliable p{p:g} (it needs {TAIL_SAMPLES / (1 - p / 100):,.0f} or more)"


def _reliable(rows: pd.DataFrame, p: float) -> pd.DataFrame:
    """The rows (with_units frames) with enough I/Os for percentile ``p`` (processed.validity's rule), when one
    of them measured it; else all: a short probe's lucky p99.9 never beats a point that can support one."""
    ok = ~_too_few(rows, p) & rows[percentile_suffix(p)].notna()
    return rows[ok] if ok.any() else rows


def _longest(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows (with_units frames) that hold at least half as many I/Os as the one holding the most (all rows when
    no count is known): the QD1 tiles come from the long measurements, so a settle-early probe of a searched series
    (0.85 s) never stands in for a run's 5 s QD1 point -- the lower of a short and a long reading is the luckier
    one, not the better measured (on this lab's disk a 0.75 s QD1 probe read 2-19 % off a 5 s run, 2026-11-26)."""
    total = pd.to_numeric(rows["total_ios"], errors="coerce") if "total_ios" in rows else None
    if total is None or total.isna().all():
        return rows
    return rows[total.fillna(0) >= total.max() / 2]


def qd1_tail_metrics(rows: pd.DataFrame, direction: str = "read") -> list[Metric]:
    """QD1 4k random-``direction`` p99 and p99.9 (of total latency when fio measured it, else of completion latency:
    the title says which), from the points with enough I/Os for the percentile when there are any, else marked
    as such (too few I/Os)."""
    out = []
    lname = latency_columns(rows).name
    for p in (99.0, 99.9):
        col = percentile_suffix(p)
        m = _metric(f"QD1 4k random {direction} p{p:g} latency", _longest(_reliable(rows, p)), col, "µs", "min")
        m.title = f"QD1 4k random {direction} p{p:g} {lname}"
        if m.available:
            m.few_ios = _few_ios(rows[rows[col] == m.value], p)
        out.append(m)
    return out


def knee_p99_metric(d: pd.DataFrame, series: pd.DataFrame, knee) -> Metric:
    """The 4k random-read p99 at the throughput knee's queue depth (what the knee costs in tail latency)."""
    lname = percentile_latency(series) if len(series) else "latency"
    name = "p99 latency at the knee"
    if knee is None or knee.knee_qd is None:
        return Metric(name, None, "µs", "not measured in this run" if knee is None else f"no knee: {knee.reason}",
                      title=f"p99 {lname} at the knee")
    at = series[series["iodepth"] == knee.knee_qd]
    value = float(at["p99_us"].iloc[0]) if len(at) and pd.notna(at["p99_us"].iloc[0]) else None
    rows = _knee_rows(d)[0]
    rows = rows[rows["iodepth"] == knee.knee_qd]
    m = Metric(name, value, "µs", f"4k random read at QD {knee.knee_qd:g}" if value is not None
               else "no p99 at the knee's queue depth", title=f"p99 {lname} at the knee (QD {knee.knee_qd:g})")
    m.few_ios = _few_ios(rows, 99.0) if value is not None else ""
    return m


