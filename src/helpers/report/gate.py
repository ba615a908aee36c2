"""Regression gate for CI: ``python -m helpers.compare BASE NEW [--metric iops,p99] [--max-regression 5%]``.

BASE and NEW are processed run ids (``data/processed``, or ``--processed-dir``), comma-separated
groups of run ids, or raw run folders (fio JSON files; ingested into a temporary folder first).
Points are matched by configuration; per point and metric the change new vs base gets a 95 %
confidence interval (docs/statistics.md).  Prints the table and the one-line summary, writes an
offline HTML page (plotly.js embedded), and exits

* 1 when any matched point is significantly worse than ``--max-regression``: the whole interval
  lies below −x % (IOPS, bandwidth) or above +x % (latency);
* 3 (INCONCLUSIVE) when none is, but a point is worse than ``--max-regression`` by its point estimate and
  the gate could not judge it: no interval (measured once a side: repeat the points, or >= 2 runs a side)
  or an interval without the run-to-run drift ("drift not measured": history, interleaved runs or
  ``--run-noise``), or an interval too wide to judge the threshold (it holds both no regression beyond x
  and one beyond it); the output says, per point, what would make it conclusive;
* 0 otherwise: every point worse than the threshold by its estimate had an interval that judged it;
* 2 on a usage error (unknown run or metric, nothing matched), with one sentence.

The output also lists the compared points a validity check flagged (too short, page cache, CPU-bound: the
number may not be the device's) and the settings that differ between base and new (runtime, target, its
size, profile, host, fio version).  Latencies are named from the data: the p99 / p99.9 of the latency fio's
json+ bins count (total latency with ``lat_percentiles=1``, else completion latency).

Run-to-run drift: two single runs measured one after the other cannot tell a change from the
disk's drift between runs, so the interval must hold a between-run part.  It is measured from >= 2
runs a side (``a1,a2 b1,b2``: one sample per run), from runs interleaved in time, or from other runs
of the same points on the same host and target in the processed folder (``--history auto``, the
default; or ``--history RUN,RUN``); ``--run-noise 5%`` states one as an assumption (no default).
Without any, a change beyond the within-run noise is reported as "drift not measured" and does not
fail the gate; the output says how to measure the drift.
"""

from __future__ import annotations

import argparse
import html
import math
import os
import sys
import tempfile
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.analysis.runpair import (
    INCONCLUSIVE,
    MATCH_KEYS,
    METRICS,
    NO_INTERVAL,
    UNPROVEN,
    RunComparison,
    compare_runs,
    drift_sentence,
    flagged_points,
    interval_samples,
    no_common_configuration,
    repeat_samples,
    setting_differences,
)
from helpers.errors import LabError
from helpers.figures.compare import forest_figure
from helpers.figures.html_table import table as page_table
from helpers.figures.table import format_number
from helpers.ingest.core import ingest_run, write_ingest
from helpers.load.runs import load_history, load_manifest, resolve_runs
from helpers.processed import store
from helpers.report.export import nav_bar, page_title, write_plotly_js
from helpers.run.manifest import read_manifest

ALIASES = {"lat": "lat_mean", "latency": "lat_mean", "bandwidth": "bw", "p99.9": "p99_9", "p999": "p99_9"}
DEFAULT_HTML_DIR = config.REPORTS_DIR / "compare"
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3


class UsageError(LabError):
    """Exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one sentence, exit 2 (argparse's default prints the usage too)
        raise UsageError(f"{message[0].upper()}{message[1:]} (see --help).")


def parse_metrics(text: str) -> list[str]:
    out = []
    for m in (x.strip().lower() for x in text.split(",") if x.strip()):
        m = ALIASES.get(m, m)
        if m not in METRICS:
            raise UsageError(f"unknown metric {m!r}: use {', '.join(METRICS)} (or lat, bandwidth, p99.9).")
        out.append(m)
    if not out:
        raise UsageError("--metric names no metric.")
    return list(dict.fromkeys(out))


def parse_threshold(text: str, option: str = "--max-regression") -> float:
    """'5%', '5' or '0.05'?  Percent always: '5%' and '5' are 5 %."""
    t = text.strip().rstrip("%").strip()
    try:
        v = float(t)
    except ValueError:
        raise UsageError(f"{option} must be a percentage like 5% (got {text!r}).") from None
    if not 0 <= v < 100 or math.isnan(v):
        raise UsageError(f"{option} must be between 0% and 100% (got {text!r}).")
    return v


def _is_raw(arg: str) -> bool:
    p = Path(arg)
    return p.is_dir() and any(p.rglob("*.json")) and not (p / config.RESULTS_DATASET).is_dir()


TIMESERIES_DATASET = "timeseries"  # per-interval samples, when the processed folder has them


def load_side(arg: str, processed_dir: Path, tmp: Path
              ) -> tuple[list[str], pd.DataFrame, pd.DataFrame, dict[str, dict]]:
    """(run ids, results, histograms, manifests by run id) of one side: processed run id(s) or a raw run
    folder (its manifest.json when it has one)."""
    if _is_raw(arg):
        res = ingest_run(Path(arg))
        run_id = str(res.results["run_id"].iloc[0]) if len(res.results) else Path(arg).name
        if res.results.empty:
            raise UsageError(f"{arg} holds no fio result that could be ingested ({res.summary()}).")
        write_ingest(res, run_id, tmp)
        return ([run_id], res.results, res.histograms if res.histograms is not None else pd.DataFrame(),
                {run_id: read_manifest(Path(arg))})
    pdir, ids = resolve_runs([r.strip() for r in arg.split(",") if r.strip()], processed_dir)
    return (ids, store.load(pdir, config.RESULTS_DATASET, ids), store.load(pdir, config.HISTOGRAM_DATASET, ids),
            {r: load_manifest(r, pdir) for r in ids})


def table_text(c: RunComparison, max_regression_pct: float) -> str:
    """The comparison as a fixed-width text table (one line per point and metric; numbers with the table
    formatter's three significant digits; the verdict the gate acts on)."""
    if c.table.empty:
        return ""
    gate = c.gate_verdicts(max_regression_pct)
    marks = {"regression": "  << REGRESSION", INCONCLUSIVE: "  << INCONCLUSIVE"}
    lines = []
    w = max(len(p) for p in c.table["point"])
    named = [_with_unit(r) for _, r in c.table.iterrows()]
    lw = max(38, *(len(x) for x in named))
    lines.append(f"{'point':<{w}}  {'metric':<{lw}} {'base':>12} {'new':>12}  {'change [95 % CI]':<26} "
                 f"{'run-to-run drift':<22} verdict")
    for (i, r), metric in zip(c.table.iterrows(), named):
        ci = ("[no interval]" if pd.isna(r["low_pct"]) else
              f"[{r['low_pct']:+.1f}, {'+inf' if math.isinf(r['high_pct']) else format(r['high_pct'], '+.1f')}]")
        verdict = r["verdict"] if gate[i] != INCONCLUSIVE else f"{INCONCLUSIVE} ({r['verdict']})"
        lines.append(f"{r['point']:<{w}}  {metric:<{lw}} "
                     f"{format_number(r['base_mean']):>12} {format_number(r['new_mean']):>12}  "
                     f"{format(r['change_pct'], '+.1f') + ' % ' + ci:<26} {drift_label(r):<22} {verdict}"
                     + marks.get(gate[i], ""))
    return "\n".join(lines)


def _with_unit(r) -> str:
    """'p99 total latency (µs)', 'IOPS' (a unit that is the metric's name is not repeated)."""
    return r["metric_label"] if r["unit"] == r["metric_label"] else f"{r['metric_label']} ({r['unit']})"


def inconclusive_lines(c: RunComparison, max_regression_pct: float) -> list[str]:
    """One line per point-metric the gate could not judge, with what would make it conclusive."""
    t = c.inconclusive(max_regression_pct)
    return [f"{r['point']} {r['metric_label']} {r['change_pct']:+.1f} % ({r['verdict']}): conclusive with "
            f"{r['conclusive_with']}" for _, r in t.iterrows()]


def drift_label(row) -> str:
    """'history 6 runs ±4.2 %', 'interleaved', 'runs as samples', 'assumed ±5 %', 'not measured'."""
    d = str(row.get("drift", ""))
    if d == "history":
        return f"history {int(row['history_runs'])} runs ±{row['run_cv_pct']:.1f} %"
    if d == "assumed":
        return f"assumed ±{row['run_cv_pct']:g} %"
    return d


def drift_advice(c: RunComparison) -> str:
    """One sentence for changes that drift may explain ('' when there are none)."""
    n = int(c.table["verdict"].eq(UNPROVEN).sum()) if len(c.table) else 0
    if not n:
        return ""
    return (f"Note: {n} point-metric(s) changed beyond the within-run noise, but run-to-run drift was not measured "
            "(single runs one after the other, no earlier runs of these points on this host in the processed folder), "
            "so they are marked 'drift not measured' and cannot fail the gate: measure the drift by comparing >= 2 "
            "runs a side (BASE1,BASE2 NEW1,NEW2), by keeping >= 2 other runs of the same profile on this host in "
            "the processed folder that span at least the time between BASE and NEW (a calibration: run the base "
            "profile twice more), or by interleaving the runs; or state one as an assumption with --run-noise 5%.")


def latency_sentence(c: RunComparison) -> str:
    """Which latencies the table holds, named from the data ('' without latency metrics)."""
    t = c.table[c.table["unit"].eq("µs")] if len(c.table) else c.table
    if t.empty:
        return ""
    names = list(dict.fromkeys(t["metric_label"]))
    return ("Latency: " + ", ".join(names) + " (percentiles from each repeat's json+ histogram by fio's rule, of the "
            "latency fio's bins count: total latency with lat_percentiles=1, else completion latency).")


def _html_list(items: list[str], empty: str) -> str:
    if not items:
        return f"<p>{html.escape(empty)}</p>"
    return "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in items) + "</ul>"


def _reports_folder(out: Path, reports_dir: Path | None = None) -> Path | None:
    """The reports folder when ``out`` lies inside it, else None."""
    reports_dir = Path(reports_dir or config.REPORTS_DIR).resolve()
    return reports_dir if Path(out).resolve().is_relative_to(reports_dir) else None


def _href(target: Path, out: Path) -> str:
    return Path(os.path.relpath(target, Path(out).resolve().parent)).as_posix()


def plotly_source(out: Path, reports_dir: Path | None = None) -> str | bool:
    """How a page written to ``out`` gets plotly.js: under the reports folder, the shared
    ``reports/assets/plotly.min.js`` by a relative path (the page stays small and the folder works offline when
    copied); elsewhere embedded (True), so a page written anywhere else still opens on its own."""
    reports = _reports_folder(out, reports_dir)
    return _href(write_plotly_js(reports), out) if reports else True


def index_href(out: Path, reports_dir: Path | None = None) -> str:
    """The reports index as seen from a page written to ``out`` ('../index.html'); '' outside the reports folder."""
    reports = _reports_folder(out, reports_dir)
    return _href(reports / "index.html", out) if reports else ""


def html_page(c: RunComparison, max_regression_pct: float, failed: bool, flagged: pd.DataFrame | None = None,
              differences: list[str] | None = None, plotly_js: str | bool = True, index: str = "") -> str:
    """A standalone offline page: verdict, summary, what the gate could not judge, validity flags and
    settings that differ, forest plot, tables.  ``plotly_js``: True embeds plotly.js; a relative path loads the
    reports folder's shared copy (:func:`plotly_source`); ``index``: the reports index's href (:func:`index_href`),
    linked from a navigation bar as on the run pages ('' outside the reports folder: no bar)."""
    fig = forest_figure(c.table, c.summary, title=f"{', '.join(c.new)} vs {', '.join(c.base)}")
    gate = c.gate_verdicts(max_regression_pct)
    t = c.table.assign(gate=gate)
    cols = ["point", "metric_label", "unit", "base_mean", "new_mean", "change_pct", "low_pct", "high_pct", "verdict",
            "gate", "drift", "run_cv_pct", "effect_size", "method", "n_base", "n_new"]
    names = {"metric_label": "metric", "base_mean": "base mean", "new_mean": "new mean", "change_pct": "change %",
             "low_pct": "CI low %", "high_pct": "CI high %", "effect_size": "Hedges' g", "n_base": "samples base",
             "n_new": "samples new", "drift": "run-to-run drift", "run_cv_pct": "run-to-run SD %",
             "gate": "gate verdict"}
    # the pages' one table renderer: readable cells, and a link that downloads each table as full-precision CSV
    table = page_table(t[cols].rename(columns=names), name="compare-points",
                       empty="No point was measured in both runs.")._repr_html_()
    unmatched = page_table(c.unmatched, name="compare-one-run-only",
                           empty="None: every point was measured in both runs.")._repr_html_()
    inconclusive = inconclusive_lines(c, max_regression_pct)
    if failed:
        status, css = f"FAILED: at least one point is significantly worse than {max_regression_pct:g} %", "fail"
    elif inconclusive:
        status, css = (f"INCONCLUSIVE: {len(inconclusive)} point-metric(s) are worse than {max_regression_pct:g} % "
                       "by their point estimate, but the gate could not judge them (see below)"), "inconclusive"
    else:
        status, css = f"PASSED: no point is significantly worse than {max_regression_pct:g} %", "pass"
    n_unproven = int(c.table["verdict"].eq(UNPROVEN).sum()) if len(c.table) else 0
    if n_unproven:
        status += f" ({n_unproven} point-metric(s) changed by more than the within-run noise: drift not measured)"
    flagged = flagged if flagged is not None else pd.DataFrame()
    flag_items = [f"{r['point']} ({r['side']}, {r['run_id']}): {r['flags']}" for _, r in flagged.iterrows()]
    judge = (f"<h2>What the gate could not judge</h2><p>Worse than {max_regression_pct:g} % by the point "
             "estimate, without an interval that could say whether it is more than noise. What would make each "
             "conclusive:</p>" + _html_list(inconclusive, "") if inconclusive else "")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(page_title(f"{', '.join(c.new)} vs {', '.join(c.base)}", "Regression gate"))}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1.5rem}} table{{border-collapse:collapse;font-size:.85rem}}
td,th{{padding:.2rem .5rem;border-bottom:1px solid #ddd;text-align:right}} .fail{{color:#b00}} .pass{{color:#070}}
.inconclusive{{color:#b60}}</style>
</head><body>
{nav_bar(index, [], "") if index else ""}
<h1>Run comparison: {html.escape(', '.join(c.new))} (new) vs {html.escape(', '.join(c.base))} (base)</h1>
<p class="{css}"><b>{html.escape(status)}</b></p>
<p>{html.escape(c.summary)}.</p>
{judge}
<h2>Points a validity check flagged</h2>
{_html_list(flag_items, "None of the compared points carries a validity flag.")}
<h2>Settings that differ between base and new</h2>
{_html_list(differences or [], "None that the runs record (runtime, target, target size, profile, host, fio version).")}
<p>Change = new mean / base mean − 1 with its 95 % confidence interval (Fieller; Welch variances over repeats,
autocorrelation-robust variances over per-interval samples). {html.escape(latency_sentence(c))} Points are matched
by configuration.</p>
<p>A run's mean also moves from run to run (the disk, the host and its neighbours are never in the same state
twice), by more than a run's own samples show. The interval holds that part when it was measured: one sample per
run (&ge; 2 runs a side), runs interleaved in time, or other runs of the same points on this host (history);
otherwise a change beyond the within-run noise is marked <b>drift not measured</b> (orange). A point worse than the
threshold by its estimate that has no interval, or whose interval lacks the drift, makes the gate
<b>inconclusive</b> (exit status 3), never PASSED. {html.escape(drift_sentence(c.table))}</p>
{f"<p>{html.escape(drift_advice(c))}</p>" if drift_advice(c) else ""}
{fig.to_html(include_plotlyjs=plotly_js, full_html=False)}
<h2>Per point and metric</h2>
{table}
<h2>Measured in one run only</h2>
{unmatched}
</body></html>
"""


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(prog="python -m helpers.compare", description="Regression gate: compare two runs point by point "
                 "(matched by configuration) and exit 1 when a point is significantly worse than --max-regression, 3 "
                 "(inconclusive) when a point worse than it by its estimate could not be judged (no interval, "
                 "run-to-run drift not measured, or an interval too wide for the threshold), 0 otherwise, 2 on a usage error.")
    ap.add_argument("base", help="base run id(s), comma-separated, or a raw run folder")
    ap.add_argument("new", help="new run id(s), comma-separated, or a raw run folder")
    ap.add_argument("--metric", default=",".join(METRICS),
                    help=f"comma-separated metrics to compare and gate on ({', '.join(METRICS)}; default all)")
    ap.add_argument("--max-regression", default="0%",
                    help="fail only when a point is significantly worse than this (e.g. 5%%; default 0%%)")
    ap.add_argument("--processed-dir", default="", help="processed dataset folder (default data/processed)")
    ap.add_argument("--html", default="", help="HTML page to write (default reports/compare/NEW-vs-BASE.html)")
    ap.add_argument("--ignore", default="",
                    help="configuration keys to leave out of the matching, e.g. rate_iops to compare a throttled "
                         f"run with an unthrottled one (keys: {', '.join(MATCH_KEYS)})")
    ap.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    ap.add_argument("--history", default="auto",
                    help="other runs that measure the run-to-run drift: auto (default: the most recent processed runs "
                         "of the same host and target), none, or comma-separated run ids")
    ap.add_argument("--run-noise", default="",
                    help="assumed SD of a run's mean from run to run beyond its own noise, e.g. 5%% (no default: "
                         "an assumption you state, used where nothing measured the drift or as a floor)")
    try:
        args = ap.parse_args(argv)
        metrics = parse_metrics(args.metric)
        threshold = parse_threshold(args.max_regression)
        run_noise = parse_threshold(args.run_noise, "--run-noise") / 100 if args.run_noise.strip() else 0.0
        if not 0 < args.confidence < 1:
            raise UsageError(f"--confidence must be between 0 and 1 (got {args.confidence:g}).")
        ignore = [k.strip() for k in args.ignore.split(",") if k.strip()]
        bad = [k for k in ignore if k not in MATCH_KEYS]
        if bad:
            raise UsageError(f"--ignore names unknown key(s) {', '.join(bad)}: use {', '.join(MATCH_KEYS)}.")
        keys = [k for k in MATCH_KEYS if k not in ignore]
        pdir = Path(args.processed_dir) if args.processed_dir else config.PROCESSED_DIR
        with tempfile.TemporaryDirectory(prefix="compare-") as tmp:
            base_ids, base_res, base_hist, base_man = load_side(args.base, pdir, Path(tmp))
            new_ids, new_res, new_hist, new_man = load_side(args.new, pdir, Path(tmp))
        if set(base_ids) & set(new_ids):
            raise UsageError(f"base and new share run(s) {', '.join(sorted(set(base_ids) & set(new_ids)))}.")
        results = pd.concat([base_res, new_res], ignore_index=True)
        unlike = no_common_configuration(results, base_ids, new_ids, keys)
        if unlike:  # the compare page's rule too (notebooks/16-compare)
            raise UsageError(unlike)
        hists = [h for h in (base_hist, new_hist) if len(h)]
        samples = repeat_samples(results, pd.concat(hists, ignore_index=True) if hists else None)
        ts = store.load(pdir, TIMESERIES_DATASET, base_ids + new_ids) if (pdir / TIMESERIES_DATASET).is_dir() else None
        if ts is not None and len(ts):  # per-interval samples serve points without repeats
            samples = pd.concat([samples, interval_samples(ts, results)], ignore_index=True)
        hist = load_history(pdir, base_ids + new_ids, args.history)
        history = repeat_samples(hist.results, hist.histograms if len(hist.histograms) else None) if hist.run_ids else None
        c = compare_runs(samples, base_ids, new_ids, metrics=metrics, keys=keys, confidence=args.confidence,
                         history=history, run_noise=run_noise)
        if c.table.empty:
            raise UsageError(f"no point of {', '.join(new_ids)} has the configuration of a point of "
                             f"{', '.join(base_ids)}, so there is nothing to compare.")
    except (LabError, SystemExit) as exc:
        if isinstance(exc, SystemExit):  # --help
            return int(exc.code or 0)
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    failed = not c.regressions(threshold).empty
    inconclusive = inconclusive_lines(c, threshold)
    flagged = flagged_points(results, c.table, base_ids, new_ids, keys)
    differences = setting_differences(results, base_ids, new_ids, {**base_man, **new_man})
    print(table_text(c, threshold))
    print()
    print(c.summary + ".")
    if len(c.unmatched):
        print(f"Measured in one run only: {'; '.join(f'{p} ({r})' for p, r in zip(c.unmatched['point'], c.unmatched['run_id']))}.")
    if len(flagged):
        print("Compared points a validity check flagged (the number may not be the device's):")
        for _, r in flagged.iterrows():
            print(f"  {r['point']} ({r['side']}, {r['run_id']}): {r['flags']}")
    if differences:
        print("Settings that differ between base and new:")
        for d in differences:
            print(f"  {d}")
    out = Path(args.html) if args.html else DEFAULT_HTML_DIR / f"{'+'.join(new_ids)}-vs-{'+'.join(base_ids)}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html_page(c, threshold, failed, flagged, differences, plotly_source(out), index_href(out)), encoding="utf-8")
    n_bad = len(c.regressions(threshold))
    if drift_sentence(c.table):
        print(f"{drift_sentence(c.table)} {hist.note}")
    if drift_advice(c):
        print(drift_advice(c))
    n_none = int(c.table["verdict"].eq(NO_INTERVAL).sum())
    if n_none:
        print(f"Note: {n_none} point-metric(s) have no interval (measured fewer than twice in a run): repeat the "
              "points (profile 'repeat: 3') or compare >= 2 runs a side.")
    if inconclusive:
        print(f"{'Also c' if failed else 'C'}ould not judge (worse than {threshold:g} % by the point estimate, no "
              "interval that judges it):")
        for line in inconclusive:
            print(f"  {line}")
    n_unproven = int(c.table["verdict"].eq(UNPROVEN).sum())
    if failed:
        head = f"FAIL: {n_bad} point-metric(s) significantly worse than {threshold:g} %" + (
            f", {len(inconclusive)} more worse by their point estimate could not be judged" if inconclusive else "")
    elif inconclusive:
        head = (f"INCONCLUSIVE: {len(inconclusive)} point-metric(s) worse than {threshold:g} % by their point "
                "estimate could not be judged (exit 3)")
    else:
        head = f"PASS: no point significantly worse than {threshold:g} %"
    print(head + (f" ({n_unproven} point-metric(s) '{UNPROVEN}': see the note)" if n_unproven else "") +
          f"; page: {out}")
    return EXIT_FAIL if failed else EXIT_INCONCLUSIVE if inconclusive else EXIT_PASS
