"""Compare two runs (or two groups of runs) point by point, with statistics (issue 13).

Points are matched by CONFIGURATION (:data:`MATCH_KEYS`: rw, direction, block size, iodepth,
numjobs, read share, engine, direct, offered rate), never by point name; points measured in only
one run are listed in ``unmatched``.  The data behind a point is a long *samples* table::

    run_id, <MATCH_KEYS>, kind ("repeat" or "interval"), sample, time_s, metric, value

(``time_s``: when the sample was measured, Unix seconds from fio's timestamp; NaN when unknown)

* :func:`repeat_samples` makes it from processed results (+ json+ histograms): one sample per raw
  file of the point (its repeats; numjobs clones and hosts of one file summed);
* :func:`interval_samples` makes it from a per-window ``timeseries`` table (run_id, source_file,
  job_index, direction, window_start_s, iops, bytes_per_s, lat_mean_us) joined to the results;

and :func:`compare_runs` compares whatever samples the table has: repeats (>= 2 a side) with the
``independent`` method, else per-interval samples with the autocorrelation-robust ``series`` method
(:func:`helpers.analysis.compare_samples`, docs/statistics.md).

Run-to-run drift (docs/statistics.md, "Two runs back to back").  A run's samples show the noise
inside the run, not how far the whole run's mean moves from one run to the next, and on a shared
disk the second is the larger part.  Per point and metric the comparison says where that part came
from (column ``drift``):

* ``runs as samples``: both sides have >= 2 runs of the point; each run's mean is one sample;
* ``interleaved``: the two runs' samples were taken in the same span of time (at least half of each
  side's samples fall strictly inside the other side's time span), so a drift of the disk hits both
  alike and shows in the samples' spread (the A/A false-alarm rate of interleaved runs was 2 %);
* ``history``: >= 2 other runs of the point (the ``history`` samples: same configuration, and the
  caller picks the same host and target) give the variance of a run's mean from run to run, when
  they span at least the time between the compared runs (a spread over one minute says nothing
  about drift over a day);
* ``assumed``: a stated ``run_noise`` (SD of a run's mean between runs, fraction of the mean);
* ``not measured``: none of these.  The interval is the within-run one; if it excludes 1 the
  verdict is "drift not measured", never "faster" or "slower": a single pair of runs back to back
  cannot tell a change from drift, and the gate does not fail on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analysis.points import point_label
from helpers.analysis.runpair_samples import MATCH_KEYS, _hashable, comparison_samples, history_samples
from helpers.analysis.runpair_samples import PERCENTILE_METRICS as PERCENTILE_METRICS
from helpers.analysis.runpair_samples import SAMPLE_COLUMNS as SAMPLE_COLUMNS
from helpers.analysis.runpair_samples import interval_samples as interval_samples
from helpers.analysis.runpair_samples import repeat_samples as repeat_samples
from helpers.analysis.runpair_settings import RUNTIME_DIFFERS as RUNTIME_DIFFERS
from helpers.analysis.runpair_settings import flagged_points as flagged_points
from helpers.analysis.runpair_settings import setting_differences as setting_differences
from helpers.analysis.samples import DRIFT_ASSUMED, DRIFT_HISTORY, compare_samples, run_variance
from helpers.fio.latency import latency_label


def no_common_configuration(results: pd.DataFrame, base: str | list[str], new: str | list[str],
                            keys: list[str] | None = None) -> str:
    """'' when run(s) ``new`` measured at least one configuration (``keys``, default :data:`MATCH_KEYS`) that run(s)
    ``base`` measured too; else the one sentence the regression gate refuses with (exit 2) and the compare page
    says instead of comparing: the same rule for both."""
    base, new = [base] if isinstance(base, str) else list(base), [new] if isinstance(new, str) else list(new)
    keys = [k for k in (keys or MATCH_KEYS) if k in results.columns]

    def configs(ids: list[str]) -> set:
        r = results[results["run_id"].isin(ids)][keys].astype("object")
        return set(map(tuple, r.where(r.notna(), None).itertuples(index=False)))

    if not base or not new or configs(base) & configs(new):
        return ""
    return (f"no point of {', '.join(new)} has the configuration of a point of {', '.join(base)}, so there is "
            "nothing to compare.")
# where the between-run part of a comparison's uncertainty came from (RunComparison.table["drift"])
DRIFT_RUNS = "runs as samples"
DRIFT_INTERLEAVED = "interleaved"
DRIFT_NOT_MEASURED = "not measured"
DRIFT_SOURCES = (DRIFT_RUNS, DRIFT_INTERLEAVED, DRIFT_HISTORY, DRIFT_ASSUMED, DRIFT_NOT_MEASURED)
UNPROVEN = "drift not measured"  # the verdict of a change beyond within-run noise that drift may explain
NO_INTERVAL = "not enough samples"  # the verdict of a point-metric without an interval (samples.VERDICTS)
# the gate's verdict of a point-metric worse than the threshold by its point estimate whose interval could
# not be computed (NO_INTERVAL) or does not hold the run-to-run drift (UNPROVEN): the gate cannot judge it
INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Metric:
    name: str
    label: str  # what it is; a latency's name comes from the data (:func:`metric_label`)
    unit: str
    higher_is_better: bool
    stat: str = ""  # latency metrics: 'mean', 'p99', ... (the latency itself is named by the samples)


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("iops", "IOPS", "IOPS", True),
    Metric("bw", "bandwidth", "MB/s", True),  # decimal, as on the pages and spec sheets
    Metric("lat_mean", latency_label("lat", "mean", ""), "µs", False, "mean"),
    Metric("p99", "p99 latency", "µs", False, "p99"),
    Metric("p99_9", "p99.9 latency", "µs", False, "p99.9"),
]}


def metric_label(metric: str, latencies=()) -> str:
    """What a compared metric is, its latency named from the samples' ``latency`` column ('lat': fio's
    total-latency bins, lat_percentiles=1; 'clat': completion latency): 'p99 total latency'.  Without a
    latency named (samples made before the column existed) the metric's generic label."""
    m = METRICS[metric]
    kinds = [k for k in dict.fromkeys(latencies) if isinstance(k, str) and k]
    if not m.stat or not kinds:
        return m.label
    return latency_label(kinds, m.stat, "")
SHORT = {"iops": "IOPS", "bw": "bw", "lat_mean": "mean lat", "p99": "p99", "p99_9": "p99.9"}

TABLE_COLUMNS = ["point", *MATCH_KEYS, "metric", "metric_label", "unit", "base_mean", "new_mean", "ratio", "low",
                 "high", "change_pct", "low_pct", "high_pct", "verdict", "effect_size", "method", "n_base",
                 "n_new", "drift", "run_cv_pct", "history_runs", "reason"]


def _pct(v: float) -> str:
    return "+inf %" if math.isinf(v) else f"{(v - 1) * 100:+.0f} %"


@dataclass
class RunComparison:
    """Result of :func:`compare_runs`: ``table`` (one row per matched point and metric), ``unmatched``
    (points of one side only, with the run that has them) and ``summary`` (one line)."""

    base: list[str]
    new: list[str]
    table: pd.DataFrame
    unmatched: pd.DataFrame
    summary: str
    metrics: list[str] = field(default_factory=list)

    @property
    def drift_summary(self) -> str:
        """One sentence: where the run-to-run part of the intervals came from (:func:`drift_sentence`)."""
        return drift_sentence(self.table)

    @property
    def unmatched_empty(self) -> str:
        """What an empty ``unmatched`` means, in one sentence ("" without two sides: nothing was compared,
        and the comparison's summary already says so)."""
        return "Every measured configuration appears in both runs." if self.base and self.new else ""

    @property
    def matched_points(self) -> int:
        return int(self.table["point"].nunique()) if len(self.table) else 0

    def regressions(self, max_regression_pct: float = 0.0) -> pd.DataFrame:
        """Rows significantly worse than ``max_regression_pct``: the whole interval beyond 1 − x % for
        IOPS/bandwidth, beyond 1 + x % for latency (for 0: the verdict is "slower")."""
        t = self.table
        if t.empty:
            return t
        x = max_regression_pct / 100.0
        hib = t["metric"].map(lambda m: METRICS[m].higher_is_better)
        worse = np.where(hib, t["high"] < 1 - x, t["low"] > 1 + x)
        return t[worse & t["verdict"].eq("slower")]

    def inconclusive(self, max_regression_pct: float = 0.0) -> pd.DataFrame:
        """Rows the gate cannot judge: worse than ``max_regression_pct`` by their point estimate (new/base
        below 1 − x % for IOPS/bandwidth, above 1 + x % for latency) while their verdict is "not enough
        samples" (no interval) or "drift not measured" (an interval without the run-to-run part), or, for
        x > 0, while their interval holds both no regression beyond x and one beyond it (too wide to judge
        x: -85 % by its estimate within [0.05, 1.2] is not a pass).  Column ``conclusive_with`` says what
        would make each one conclusive."""
        t = self.table
        if t.empty:
            return t.assign(conclusive_with=pd.Series(dtype="object"))
        x = max_regression_pct / 100.0
        hib = t["metric"].map(lambda m: METRICS[m].higher_is_better)
        ratio = t["ratio"].astype(float)
        worse = np.where(hib, ratio < 1 - x, ratio > 1 + x)
        wide = np.zeros(len(t), dtype=bool)
        if x > 0:
            judged = ~t["verdict"].isin([NO_INTERVAL, UNPROVEN]) & t["low"].notna() & t["high"].notna()
            wide = judged & np.where(hib, t["high"] >= 1 - x, t["low"] <= 1 + x)
        out = t[worse & (t["verdict"].isin([NO_INTERVAL, UNPROVEN]) | wide)].copy()
        out["conclusive_with"] = out["verdict"].map(
            {NO_INTERVAL: CONCLUSIVE_WITH_SAMPLES, UNPROVEN: CONCLUSIVE_WITH_DRIFT}).fillna(CONCLUSIVE_WITH_NARROWER)
        return out

    def gate_verdicts(self, max_regression_pct: float = 0.0) -> pd.Series:
        """Per table row, the verdict the gate acts on: "regression" (significantly worse than the threshold),
        "inconclusive" (:meth:`inconclusive`), else the comparison's verdict."""
        v = self.table["verdict"].astype(object).copy()
        v[self.inconclusive(max_regression_pct).index] = INCONCLUSIVE
        v[self.regressions(max_regression_pct).index] = "regression"
        return v


CONCLUSIVE_WITH_SAMPLES = ("an interval: repeat the point (profile 'repeat: 3'), or compare >= 2 runs a side "
                           "(BASE1,BASE2 NEW1,NEW2)")
CONCLUSIVE_WITH_NARROWER = ("a narrower interval: its interval holds both no change beyond the threshold and a "
                            "regression beyond it; more repeats a side, or runs interleaved in time")
CONCLUSIVE_WITH_DRIFT = ("the run-to-run drift: >= 2 runs a side, >= 2 earlier runs of the point on this host and "
                         "target (history), runs interleaved in time, or an assumed one (--run-noise 5%)")


def _runs(r) -> list[str]:
    return [r] if isinstance(r, str) else list(r)


def interleaved(times_a, times_b) -> bool:
    """True when two runs' samples were taken in the same span of time: at least half of each side's
    samples lie strictly inside the other side's time span (both spans longer than 0).  Back-to-back
    runs (all of A, then all of B) are not; A r0, B r0, A r1, B r1, ... is.  Unknown times: False."""
    ta, tb = np.asarray(times_a, dtype=float), np.asarray(times_b, dtype=float)
    if len(ta) < 2 or len(tb) < 2 or np.isnan(ta).any() or np.isnan(tb).any():
        return False
    if ta.max() <= ta.min() or tb.max() <= tb.min():
        return False
    inside_a = np.mean((ta > tb.min()) & (ta < tb.max()))
    inside_b = np.mean((tb > ta.min()) & (tb < ta.max()))
    return bool(inside_a >= 0.5 and inside_b >= 0.5)


def compare_runs(samples: pd.DataFrame, base: str | list[str], new: str | list[str],
                 metrics: list[str] | None = None, keys: list[str] | None = None,
                 confidence: float = 0.95, history: pd.DataFrame | None = None,
                 run_noise: float = 0.0) -> RunComparison:
    """Compare run(s) ``new`` with run(s) ``base`` on every point both measured (same configuration).

    ``samples``: a long table (:data:`SAMPLE_COLUMNS`, e.g. :func:`repeat_samples` and/or
    :func:`interval_samples` concatenated).  ``metrics``: names of :data:`METRICS` (default all
    present).  ``keys``: the configuration columns that must be equal (default :data:`MATCH_KEYS`;
    leaving ``rate_iops`` out compares a throttled run with an unthrottled one).  Per point and
    metric, repeats are used when both sides have at least two, else per-interval samples when both
    have them (``series`` method), else whatever there is (no interval with one sample a side).

    Groups of runs: when both sides have at least two runs of a point, the RUN is the sample (the
    mean of its repeats, or of its windows), because a machine drifts between runs by more than
    repeats within one run show.

    Run-to-run drift (module docstring): ``history`` is a samples table of OTHER runs of the same
    points (same host and target: the caller chooses them; rows of ``base``/``new`` are ignored), from
    which the run-to-run variance of a run's mean is measured per point and metric (>= 2 runs);
    ``run_noise`` a stated SD of a run's mean between runs (fraction of the mean, 0 = none).  They
    are used for points whose runs were not interleaved in time; with neither, such a point's change
    beyond the within-run noise gets the verdict "drift not measured"."""
    base, new = _runs(base), _runs(new)
    keys = list(keys or MATCH_KEYS)
    unknown = [m for m in (metrics or []) if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}: use {', '.join(METRICS)}.")
    metrics = list(metrics or METRICS)
    s = samples[samples["run_id"].isin(base + new) & samples["metric"].isin(metrics)].copy()
    if "time_s" not in s.columns:
        s["time_s"] = np.nan
    s["side"] = np.where(s["run_id"].isin(base), "base", "new")
    if len(base) >= 2 and len(new) >= 2:
        s = _run_level(s, keys)
    hist = _history_by_point(history, keys, metrics, set(base + new))
    sides = s.groupby(keys, dropna=False).agg(sides=("side", "nunique"), side=("side", "first"),
                                               runs=("run_id", lambda r: ", ".join(sorted(set(r))))).reset_index()
    unmatched = sides[sides["sides"] < 2].drop(columns="sides").rename(columns={"runs": "run_id"})
    unmatched.insert(0, "point", [point_label(r) for _, r in unmatched.iterrows()])
    unmatched = unmatched.reset_index(drop=True)
    rows = []
    for key, g in s.groupby(keys, dropna=False, sort=True):
        if g["side"].nunique() < 2:
            continue
        label = point_label(dict(zip(keys, key)))
        by_metric = dict(tuple(g.groupby("metric", sort=False)))
        for m in metrics:
            gm = by_metric.get(m)
            if gm is None or gm["value"].notna().sum() == 0:
                continue
            kinds = gm["latency"].dropna() if "latency" in gm.columns else ()
            rows.append({"point": label, **dict(zip(keys, key)), "metric": m,
                         "metric_label": metric_label(m, [k for x in kinds for k in str(x).split("+")]),
                         "unit": METRICS[m].unit,
                         **_compare_point(gm, hist.get(_hashable((*key, m)), {}), METRICS[m], confidence,
                                          run_noise)})
    table = pd.DataFrame(rows, columns=[c for c in TABLE_COLUMNS if c not in MATCH_KEYS or c in keys])
    return RunComparison(base, new, table, unmatched, summarize(table, unmatched), metrics)


def _compare_point(gm: pd.DataFrame, history: dict[str, dict[str, tuple[np.ndarray, float]]], metric: Metric,
                   confidence: float, run_noise: float) -> dict:
    """One table row's numbers: pick the samples, decide where the between-run part comes from,
    compare."""
    a, b, kind, (ta, tb) = _pick(gm)
    method = "series" if kind == "interval" else "independent"
    hib = metric.higher_is_better
    short = ""  # why other runs of the point could not measure the drift
    if kind == "run":
        c, drift = compare_samples(a, b, confidence, hib, method), DRIFT_RUNS
    elif interleaved(ta, tb):
        c, drift = compare_samples(a, b, confidence, hib, method), DRIFT_INTERLEAVED
    else:
        # each other run's samples of the same kind, else of the other kind (a run measured once has one
        # repeat, not windows: its mean is what counts)
        other = "repeat" if kind == "interval" else "interval"
        mine, theirs = history.get(kind, {}), history.get(other, {})
        runs = [(*mine[r], method) if r in mine else (*theirs[r], "series" if other == "interval" else "independent")
                for r in dict.fromkeys([*mine, *theirs])]
        # a side with several runs of the point holds run-to-run evidence too
        for sd in ("base", "new"):
            ok = (gm["side"] == sd) & (gm["kind"] == kind) & gm["value"].notna()
            if gm.loc[ok, "run_id"].nunique() >= 2:
                runs += [(v["value"].to_numpy(dtype=float), v["time_s"].mean(), method)
                         for _, v in gm[ok].groupby("run_id")]
        rv = run_variance([(v, m) for v, _, m in runs], method)
        short = _history_too_short([t for _, t, _ in runs], ta, tb) if rv is not None else ""
        c = compare_samples(a, b, confidence, hib, method, history=None if short else rv, run_noise=run_noise)
        drift = c.drift if c.drift in (DRIFT_HISTORY, DRIFT_ASSUMED) else DRIFT_NOT_MEASURED
    verdict, reason = c.verdict, c.reason
    if drift == DRIFT_NOT_MEASURED and verdict in ("faster", "slower"):
        verdict = UNPROVEN
        why = short or "there are not two other runs of this point (history)"
        reason = (f"{c.text()} is beyond the within-run noise ({reason[:-1]}), but run-to-run "
                  f"drift was not measured: the runs were not interleaved in time, {why}, and no run_noise was "
                  "stated, so drift alone could explain it.")
    elif short:
        reason = reason[:-1] + f"; {short}."
    elif drift == DRIFT_INTERLEAVED:
        reason = reason[:-1] + "; the runs were interleaved in time, so drift shows in the samples' spread."
    elif drift == DRIFT_RUNS:
        reason = reason[:-1] + "; one sample per run, so drift between runs is in the spread."
    return {"base_mean": c.mean_a, "new_mean": c.mean_b, "ratio": c.ratio, "low": c.low, "high": c.high,
            "change_pct": c.change_pct, "low_pct": c.low_pct, "high_pct": c.high_pct, "verdict": verdict,
            "effect_size": c.effect_size, "method": c.method, "n_base": c.n_a, "n_new": c.n_b, "drift": drift,
            "run_cv_pct": 100 * c.run_cv, "history_runs": c.history_runs, "reason": reason}


def _history_too_short(run_times: list[float], ta: np.ndarray, tb: np.ndarray) -> str:
    """Why the history cannot stand for the drift between the compared runs ('' when it can): the
    spread of run means over a span of time shows drift at scales up to that span, so the other runs
    must span at least the time between the compared runs (when both are known)."""
    t = np.array([x for x in run_times if np.isfinite(x)], dtype=float)
    ta, tb = ta[np.isfinite(ta)], tb[np.isfinite(tb)]
    gap = abs(float(tb.mean()) - float(ta.mean())) if len(ta) and len(tb) else float("nan")
    if len(t) < 2 or not np.isfinite(gap) or t.max() - t.min() >= gap:
        return ""
    return (f"the other runs of the point span {_duration(t.max() - t.min())}, less than the {_duration(gap)} "
            "between the compared runs, so they do not show drift at that scale and are not used")


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def _history_by_point(history: pd.DataFrame | None, keys: list[str], metrics: list[str],
                      exclude: set[str]) -> dict[tuple, dict[str, dict[str, tuple[np.ndarray, float]]]]:
    """{(*key, metric): {kind: {run_id: (values, mean time)}}} of the history samples (rows of ``exclude``
    dropped)."""
    if history is None or history.empty:
        return {}
    h = history[~history["run_id"].isin(exclude) & history["metric"].isin(metrics) & history["value"].notna()]
    if h.empty:
        return {}
    missing = [k for k in keys if k not in h.columns]
    if missing:
        raise ValueError(f"the history samples lack the configuration column(s) {', '.join(missing)}.")
    out: dict[tuple, dict[str, dict[str, np.ndarray]]] = {}
    if "time_s" not in h.columns:
        h = h.assign(time_s=np.nan)
    for (*key, metric, kind, run), g in h.groupby([*keys, "metric", "kind", "run_id"], dropna=False, sort=False):
        out.setdefault(_hashable((*key, metric)), {}).setdefault(kind, {})[run] = (
            g["value"].to_numpy(dtype=float), float(g["time_s"].mean()))
    return out


def _run_level(s: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One sample per run, point and metric (the mean of the run's samples of one kind), kind "run"
    for points measured in at least two runs on both sides; other points keep their samples."""
    runs_per_side = s.groupby([*keys, "side"], dropna=False)["run_id"].transform("nunique")
    multi = s.assign(_n=runs_per_side).groupby(keys, dropna=False)["_n"].transform("min") >= 2
    one = s[multi]
    if one.empty:
        return s
    # per run: repeats if the run has any, else its windows
    has_rep = one.groupby([*keys, "run_id", "metric"], dropna=False)["kind"].transform(lambda k: (k == "repeat").any())
    one = one[(one["kind"] == "repeat") | ~has_rep]
    extra = {"latency": ("latency", "first")} if "latency" in one.columns else {}
    agg = (one.groupby([*keys, "run_id", "side", "metric"], dropna=False)
           .agg(value=("value", "mean"), time_s=("time_s", "mean"), **extra).reset_index()
           .assign(kind="run", sample=lambda d: d["run_id"].astype(str)))
    return pd.concat([s[~multi], agg[s.columns.intersection(agg.columns)]], ignore_index=True)


def _pick(gm: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, str, tuple[np.ndarray, np.ndarray]]:
    """(base values, new values, kind, (base times, new times)): runs, else repeats (>= 2 a side), else
    windows (>= 2 a side), else the repeats there are."""
    kind = gm["kind"].to_numpy(dtype=object)
    side = gm["side"].to_numpy(dtype=object)
    value = gm["value"].to_numpy(dtype=float)
    time = gm["time_s"].to_numpy(dtype=float)
    ok = ~np.isnan(value)

    def pick(k: str, sd: str) -> np.ndarray:
        return ok & (kind == k) & (side == sd)

    for k in ("run", "repeat", "interval"):
        ia, ib = pick(k, "base"), pick(k, "new")
        if ia.sum() >= 2 and ib.sum() >= 2:
            return value[ia], value[ib], k, (time[ia], time[ib])
    ia, ib = pick("repeat", "base"), pick("repeat", "new")
    return value[ia], value[ib], "repeat", (time[ia], time[ib])


def summarize(table: pd.DataFrame, unmatched: pd.DataFrame | None = None) -> str:
    """'12 of 14 points within noise; 4k randwrite QD32 p99 +38 % [+21 %, +55 %]; ...'."""
    n_unmatched = 0 if unmatched is None else len(unmatched.drop_duplicates("point"))
    tail = f"; {n_unmatched} point(s) measured in one run only" if n_unmatched else ""
    if table.empty:
        return "No point was measured with the same configuration in both runs" + tail + "."
    points = table.groupby("point", sort=False)["verdict"]
    noise = int(points.apply(lambda v: v.eq("within noise").all()).sum())
    none = int(points.apply(lambda v: v.eq("not enough samples").all()).sum())
    partial = int(points.apply(lambda v: v.eq("not enough samples").any()).sum()) - none
    text = f"{noise} of {points.ngroups} points within noise"
    sig = table[table["verdict"].isin(["faster", "slower"])].copy()
    if len(sig):
        sig["_size"] = np.abs(np.log(sig["ratio"].astype(float)))
        sig["_worse"] = sig["verdict"].eq("slower")
        top = sig.sort_values(["_worse", "_size"], ascending=False).drop_duplicates("point").head(2)
        text += "; " + "; ".join(
            f"{r['point']} {SHORT[r['metric']]} {_pct(r['ratio'])} [{_pct(r['low'])}, {_pct(r['high'])}] ({r['verdict']})"
            for _, r in top.iterrows())
        n_slow = int(sig.loc[sig["_worse"], "point"].nunique())
        n_fast = int(sig.loc[~sig["_worse"], "point"].nunique())
        text += f"; {n_slow} point(s) slower, {n_fast} faster in some metric"
    unproven = table[table["verdict"].eq(UNPROVEN)]
    if len(unproven):
        r = unproven.assign(_size=np.abs(np.log(unproven["ratio"].astype(float)))).sort_values("_size").iloc[-1]
        text += (f"; {unproven['point'].nunique()} point(s) changed beyond the within-run noise (e.g. {r['point']} "
                 f"{SHORT[r['metric']]} {_pct(r['ratio'])}) but run-to-run drift was not measured, so they are not "
                 "called slower or faster: compare >= 2 runs a side, keep >= 2 earlier runs of the points (history) "
                 "or interleave the runs")
    if none:
        text += f"; {none} of {points.ngroups} without any interval (fewer than 2 samples a side: ratios only)"
    if partial:
        text += f"; {partial} without an interval for some metric"
    return text + tail


def drift_sentence(table: pd.DataFrame) -> str:
    """One sentence: where the run-to-run part of the intervals came from, point-metrics counted by
    source ('' for an empty table)."""
    if table is None or table.empty or "drift" not in table.columns:
        return ""
    table = table[table["verdict"] != "not enough samples"]  # no interval: nothing to widen
    if table.empty:
        return ""
    n = table["drift"].value_counts()
    parts = []
    if n.get(DRIFT_RUNS):
        parts.append(f"{n[DRIFT_RUNS]} from the spread of whole runs (>= 2 runs a side)")
    if n.get(DRIFT_INTERLEAVED):
        parts.append(f"{n[DRIFT_INTERLEAVED]} from runs interleaved in time (drift hits both alike)")
    if n.get(DRIFT_HISTORY):
        h = table.loc[table["drift"].eq(DRIFT_HISTORY)]
        parts.append(f"{n[DRIFT_HISTORY]} from earlier runs of the same points ("
                     f"{_span(h['history_runs'], '{:.0f}')} runs; run-to-run SD {_span(h['run_cv_pct'], '{:.1f}')} % "
                     "of the mean)")
    if n.get(DRIFT_ASSUMED):
        parts.append(f"{n[DRIFT_ASSUMED]} from an assumed run-to-run SD (run_noise, not measured)")
    if n.get(DRIFT_NOT_MEASURED):
        parts.append(f"{n[DRIFT_NOT_MEASURED]} not measured (single runs one after the other and no earlier runs of "
                     "the points: a change beyond the within-run noise is marked 'drift not measured')")
    return "Run-to-run drift in the intervals (point-metrics): " + "; ".join(parts) + "."


def _span(v: pd.Series, fmt: str) -> str:
    lo, hi = fmt.format(v.min()), fmt.format(v.max())
    return lo if lo == hi else f"{lo}–{hi}"


def needs_runs_message(run_ids: list[str]) -> str:
    """The one sentence every comparison view shows when it has fewer than two runs."""
    return (f"Comparing needs two or more runs; this report has {len(run_ids)} ({', '.join(run_ids) or 'none'}): "
            f"pass run_id as a comma-separated list, e.g. sample-grid-vm,sample-quick-vm.")


def run_comparison(results: pd.DataFrame, histograms: pd.DataFrame | None, run_ids: list[str],
                   metrics: list[str] | None = None, timeseries: pd.DataFrame | None = None,
                   history_results: pd.DataFrame | None = None, history_histograms: pd.DataFrame | None = None,
                   run_noise: float = 0.0) -> RunComparison:
    """Notebook entry: the first run of ``run_ids`` is the base, the second the new run (more are
    ignored); samples from repeats (+ histograms) and, when given, the per-interval ``timeseries``.
    ``history_results`` (+ ``history_histograms``): other runs of the same points on the same host and
    target, for the run-to-run variance (:func:`compare_runs`); ``run_noise``: a stated one.
    With fewer than two runs the comparison is empty and its summary says a second run is needed."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        return RunComparison(run_ids, [], pd.DataFrame(columns=TABLE_COLUMNS), pd.DataFrame(),
                             needs_runs_message(run_ids), metrics or [])
    return compare_runs(comparison_samples(results, histograms, timeseries), run_ids[0], run_ids[1],
                        metrics=metrics, history=history_samples(history_results, history_histograms),
                        run_noise=run_noise)


