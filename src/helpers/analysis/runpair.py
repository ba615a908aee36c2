"""Compare two runs (or two groups of runs) point by point, with statistics (issue 13).

Points are matched by CONFIGURATION (:data:`MATCH_KEYS`: rw, direction, block size, iodepth,
numjobs, read share, engine, direct, offered rate), never by point name; points measured in only
one run are listed in ``unmatched``.  The data behind a point is a long *samples* table::

    run_id, <MATCH_KEYS>, kind ("repeat" or "interval"), sample, metric, value

* :func:`repeat_samples` makes it from processed results (+ json+ histograms): one sample per raw
  file of the point (its repeats; numjobs clones and hosts of one file summed);
* :func:`interval_samples` makes it from a per-window ``timeseries`` table (run_id, source_file,
  job_index, direction, window_start_s, iops, bytes_per_s, lat_mean_us) joined to the results;

and :func:`compare_runs` compares whatever samples the table has: repeats (>= 2 a side) with the
``independent`` method, else per-interval samples with the autocorrelation-robust ``series`` method
(:func:`helpers.analysis.compare_samples`, docs/statistics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analysis.samples import compare_samples
from helpers.fio import histogram
from helpers.fio.options import MIXED_MODES
from helpers.fio.units import format_bytes

MATCH_KEYS = ["rw", "direction", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct", "ioengine", "direct",
              "rate_iops"]
SAMPLE_COLUMNS = ["run_id", *MATCH_KEYS, "kind", "sample", "metric", "value"]


@dataclass(frozen=True)
class Metric:
    name: str
    label: str  # what it is, with which latency
    unit: str
    higher_is_better: bool


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("iops", "IOPS", "IOPS", True),
    Metric("bw", "bandwidth", "bytes/s", True),
    Metric("lat_mean", "mean total latency (lat)", "µs", False),
    Metric("p99", "p99 completion latency (clat)", "µs", False),
    Metric("p99_9", "p99.9 completion latency (clat)", "µs", False),
]}
PERCENTILE_METRICS = {"p99": 99.0, "p99_9": 99.9}
SHORT = {"iops": "IOPS", "bw": "bw", "lat_mean": "mean lat", "p99": "p99", "p99_9": "p99.9"}

TABLE_COLUMNS = ["point", *MATCH_KEYS, "metric", "metric_label", "unit", "base_mean", "new_mean", "ratio", "low",
                 "high", "change_pct", "low_pct", "high_pct", "verdict", "effect_size", "method", "n_base",
                 "n_new", "reason"]


def _empty_samples() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="float64" if c == "value" else "object") for c in SAMPLE_COLUMNS})


def _keys_present(df: pd.DataFrame, keys: list[str]) -> list[str]:
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"the results table lacks the configuration column(s) {', '.join(missing)}.")
    return keys


def _long(wide: pd.DataFrame, keys: list[str], kind: str, metrics: list[str]) -> pd.DataFrame:
    out = wide.melt(id_vars=[*keys, "sample"], value_vars=[m for m in metrics if m in wide.columns],
                    var_name="metric", value_name="value")
    out["kind"] = kind
    out["value"] = pd.to_numeric(out["value"], errors="coerce").astype(float)
    return out[[*keys, "kind", "sample", "metric", "value"]]


def repeat_samples(results: pd.DataFrame, histograms: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-repeat samples of every point: one per (run, configuration, raw file, fio job name), named
    ``<source_file>`` (``<source_file>:<job_name>`` when a file holds several job names, e.g. stonewalled
    repeats in one job file).

    IOPS and bandwidth are summed over the job entries of one name (numjobs clones, hosts: they ran
    at the same time), mean total latency is their I/O-weighted mean, p99 / p99.9 completion latency come
    from the file's summed json+ histogram by fio's rule (:func:`helpers.fio.histogram.percentile`);
    without histograms the percentiles are left out (fio's printed percentiles of clones cannot be
    combined)."""
    if results is None or results.empty:
        return _empty_samples()
    keys = ["run_id", *_keys_present(results, MATCH_KEYS)]
    r = results.copy()
    w = pd.to_numeric(r["total_ios"], errors="coerce").astype(float)
    r["_w"] = w.where(w > 0, pd.to_numeric(r["iops"], errors="coerce").astype(float))
    r["_wl"] = r["_w"] * pd.to_numeric(r["lat_mean_us"], errors="coerce").astype(float)
    names = r.groupby(["run_id", "source_file"])["job_name"].transform("nunique")
    r["sample"] = r["source_file"].astype(str).where(names <= 1, r["source_file"].astype(str) + ":" +
                                                     r["job_name"].astype(str))
    g = r.groupby([*keys, "sample"], dropna=False, sort=True)
    wide = g.agg(iops=("iops", "sum"), bw=("bw_bytes_per_s", "sum"), _w=("_w", "sum"), _wl=("_wl", "sum"))
    wide["lat_mean"] = wide["_wl"] / wide["_w"].where(wide["_w"] > 0)
    wide = wide.drop(columns=["_w", "_wl"]).reset_index()
    metrics = ["iops", "bw", "lat_mean"]
    if histograms is not None and len(histograms):
        join = ["run_id", "source_file", "job_index", "direction"]
        h = histograms.drop(columns=["job_name", "point_id"], errors="ignore").merge(
            r[list(dict.fromkeys([*join, *MATCH_KEYS, "sample"]))].drop_duplicates(join), on=join, how="inner")
        rows = []
        for key, hg in h.groupby([*keys, "sample"], dropna=False, sort=True):
            b = hg.groupby("bin_ns", sort=True)["count"].sum()
            ps = histogram.percentile(b.index.to_numpy(), b.to_numpy(), list(PERCENTILE_METRICS.values())) / 1000.0
            rows.append((*key, *ps))
        pct = pd.DataFrame(rows, columns=[*keys, "sample", *PERCENTILE_METRICS])
        wide = wide.merge(pct, on=[*keys, "sample"], how="left")
        metrics += list(PERCENTILE_METRICS)
    return _long(wide, keys, "repeat", metrics)


def interval_samples(timeseries: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Per-interval samples from a ``timeseries`` table (one row per run, file, job entry, direction
    and time window): IOPS and bandwidth summed over the file's job entries per window, mean total
    latency IOPS-weighted; the configuration comes from the results rows of the same file and job
    entry.  Samples are named ``<source_file>@<window_start_s>``."""
    if timeseries is None or timeseries.empty or results is None or results.empty:
        return _empty_samples()
    keys = ["run_id", *_keys_present(results, MATCH_KEYS)]
    join = ["run_id", "source_file", "job_index", "direction"]
    t = timeseries.merge(results[list(dict.fromkeys([*join, *MATCH_KEYS]))].drop_duplicates(join), on=join, how="inner")
    t["_w"] = pd.to_numeric(t["iops"], errors="coerce").astype(float)
    t["_wl"] = t["_w"] * pd.to_numeric(t["lat_mean_us"], errors="coerce").astype(float)
    g = t.groupby([*keys, "source_file", "window_start_s"], dropna=False, sort=True)
    wide = g.agg(iops=("iops", "sum"), bw=("bytes_per_s", "sum"), _w=("_w", "sum"), _wl=("_wl", "sum")).reset_index()
    wide["lat_mean"] = wide["_wl"] / wide["_w"].where(wide["_w"] > 0)
    wide["sample"] = wide["source_file"].astype(str) + "@" + wide["window_start_s"].map("{:g}".format)
    return _long(wide, keys, "interval", ["iops", "bw", "lat_mean"])


def point_label(row) -> str:
    """'4k randwrite QD32' (+ direction of a mixed workload, jobs, read share, rate, engine, buffered)."""
    rw, direction = str(row["rw"]), str(row["direction"])
    parts = [format_bytes(row["bs_bytes"]), rw]
    if rw in ("rw", "readwrite", "randrw", "trimwrite", "randtrimwrite") or direction == "trim":
        parts.append(direction)
    parts.append(f"QD{int(row['iodepth'])}")
    nj = row.get("numjobs")
    if nj is not None and not pd.isna(nj) and int(nj) != 1:
        parts.append(f"x{int(nj)} jobs")
    mix = row.get("rwmixread_pct")
    if mix is not None and not pd.isna(mix) and rw in MIXED_MODES:
        parts.append(f"{mix:g} % read")
    rate = row.get("rate_iops")
    if rate is not None and not pd.isna(rate):
        parts.append(f"@ {rate:,.0f} IOPS offered")
    if str(row.get("ioengine")) not in ("libaio", "None", "<NA>"):
        parts.append(str(row["ioengine"]))
    if row.get("direct") is not None and not pd.isna(row.get("direct")) and int(row["direct"]) == 0:
        parts.append("buffered")
    return " ".join(parts)


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


def _runs(r) -> list[str]:
    return [r] if isinstance(r, str) else list(r)


def compare_runs(samples: pd.DataFrame, base: str | list[str], new: str | list[str],
                 metrics: list[str] | None = None, keys: list[str] | None = None,
                 confidence: float = 0.95) -> RunComparison:
    """Compare run(s) ``new`` with run(s) ``base`` on every point both measured (same configuration).

    ``samples``: a long table (:data:`SAMPLE_COLUMNS`, e.g. :func:`repeat_samples` and/or
    :func:`interval_samples` concatenated).  ``metrics``: names of :data:`METRICS` (default all
    present).  ``keys``: the configuration columns that must be equal (default :data:`MATCH_KEYS`;
    leaving ``rate_iops`` out compares a throttled run with an unthrottled one).  Per point and
    metric, repeats are used when both sides have at least two, else per-interval samples when both
    have them (``series`` method), else whatever there is (no interval with one sample a side).

    Groups of runs: when both sides have at least two runs of a point, the RUN is the sample (the
    mean of its repeats, or of its windows), because a machine drifts between runs by more than
    repeats within one run show (docs/statistics.md: pooling repeats of separate runs raised the A/A
    false-alarm rate to ~20 % here)."""
    base, new = _runs(base), _runs(new)
    keys = list(keys or MATCH_KEYS)
    unknown = [m for m in (metrics or []) if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}: use {', '.join(METRICS)}.")
    metrics = list(metrics or METRICS)
    s = samples[samples["run_id"].isin(base + new) & samples["metric"].isin(metrics)].copy()
    s["side"] = np.where(s["run_id"].isin(base), "base", "new")
    if len(base) >= 2 and len(new) >= 2:
        s = _run_level(s, keys)
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
            a, b, method = _pick(gm)
            c = compare_samples(a, b, confidence=confidence, higher_is_better=METRICS[m].higher_is_better,
                                method=method)
            rows.append({"point": label, **dict(zip(keys, key)), "metric": m, "metric_label": METRICS[m].label,
                         "unit": METRICS[m].unit, "base_mean": c.mean_a, "new_mean": c.mean_b, "ratio": c.ratio,
                         "low": c.low, "high": c.high, "change_pct": c.change_pct, "low_pct": c.low_pct,
                         "high_pct": c.high_pct, "verdict": c.verdict, "effect_size": c.effect_size,
                         "method": c.method, "n_base": c.n_a, "n_new": c.n_b, "reason": c.reason})
    table = pd.DataFrame(rows, columns=[c for c in TABLE_COLUMNS if c not in MATCH_KEYS or c in keys])
    return RunComparison(base, new, table, unmatched, summarize(table, unmatched), metrics)


def _run_level(s: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One sample per run, point and metric (the mean of the run's samples of one kind), kind "repeat"
    for points measured in at least two runs on both sides; other points keep their samples."""
    runs_per_side = s.groupby([*keys, "side"], dropna=False)["run_id"].transform("nunique")
    multi = s.assign(_n=runs_per_side).groupby(keys, dropna=False)["_n"].transform("min") >= 2
    one = s[multi]
    if one.empty:
        return s
    # per run: repeats if the run has any, else its windows
    has_rep = one.groupby([*keys, "run_id", "metric"], dropna=False)["kind"].transform(lambda k: (k == "repeat").any())
    one = one[(one["kind"] == "repeat") | ~has_rep]
    agg = (one.groupby([*keys, "run_id", "side", "metric"], dropna=False)["value"].mean().reset_index()
           .assign(kind="repeat", sample=lambda d: d["run_id"].astype(str)))
    return pd.concat([s[~multi], agg[s.columns.intersection(agg.columns)]], ignore_index=True)


def _pick(gm: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, str]:
    kind = gm["kind"].to_numpy(dtype=object)
    side = gm["side"].to_numpy(dtype=object)
    value = gm["value"].to_numpy(dtype=float)
    ok = ~np.isnan(value)

    def pick(k: str, sd: str) -> np.ndarray:
        return value[ok & (kind == k) & (side == sd)]

    ra, rb = pick("repeat", "base"), pick("repeat", "new")
    if len(ra) >= 2 and len(rb) >= 2:
        return ra, rb, "independent"
    ia, ib = pick("interval", "base"), pick("interval", "new")
    if len(ia) >= 2 and len(ib) >= 2:
        return ia, ib, "series"
    return ra, rb, "independent"


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
    if none:
        text += f"; {none} of {points.ngroups} without any interval (fewer than 2 samples a side: ratios only)"
    if partial:
        text += f"; {partial} without an interval for some metric"
    return text + tail


def run_comparison(results: pd.DataFrame, histograms: pd.DataFrame | None, run_ids: list[str],
                   metrics: list[str] | None = None, timeseries: pd.DataFrame | None = None) -> RunComparison:
    """Notebook entry: the first run of ``run_ids`` is the base, the second the new run (more are
    ignored); samples from repeats (+ histograms) and, when given, the per-interval ``timeseries``.
    With fewer than two runs the comparison is empty and its summary says a second run is needed."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        msg = (f"A statistical comparison needs a second run: pass run_id as 'BASE,NEW' "
               f"(this report has {', '.join(run_ids) or 'no run'}).")
        return RunComparison(run_ids, [], pd.DataFrame(columns=TABLE_COLUMNS), pd.DataFrame(), msg, metrics or [])
    return compare_runs(comparison_samples(results, histograms, timeseries), run_ids[0], run_ids[1], metrics=metrics)


def comparison_samples(results: pd.DataFrame, histograms: pd.DataFrame | None = None,
                       timeseries: pd.DataFrame | None = None) -> pd.DataFrame:
    """The samples :func:`compare_runs` compares, from a notebook's loaded data: one per repeat (+ json+
    histograms) and, when given, one per interval of the per-window ``timeseries``."""
    samples = repeat_samples(results, histograms)
    if timeseries is not None and len(timeseries):
        samples = pd.concat([samples, interval_samples(timeseries, results)], ignore_index=True)
    return samples
