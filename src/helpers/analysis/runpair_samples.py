"""The samples a run comparison compares (:mod:`helpers.analysis.runpair`): one per repeat of a
point (from results and json+ histograms) or one per interval of its per-window timeseries,
points keyed by configuration (:data:`MATCH_KEYS`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.points import MB
from helpers.analysis.timeseries import narrow_windows, on_grid
from helpers.fio import histogram

MATCH_KEYS = ["rw", "direction", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct", "ioengine", "direct",
              "rate_iops"]
SAMPLE_COLUMNS = ["run_id", *MATCH_KEYS, "kind", "sample", "time_s", "metric", "value", "latency"]

PERCENTILE_METRICS = {"p99": 99.0, "p99_9": 99.9}


def _empty_samples() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("value", "time_s") else "object") for c in SAMPLE_COLUMNS})


# the latency each metric's samples are of when the data does not say it per sample: fio's lat_ns mean
_LATENCY_OF = {"lat_mean": "lat"}


def _keys_present(df: pd.DataFrame, keys: list[str]) -> list[str]:
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"the results table lacks the configuration column(s) {', '.join(missing)}.")
    return keys


def _long(wide: pd.DataFrame, keys: list[str], kind: str, metrics: list[str]) -> pd.DataFrame:
    out = wide.melt(id_vars=[*keys, "sample", "time_s"], value_vars=[m for m in metrics if m in wide.columns],
                    var_name="metric", value_name="value")
    out["kind"] = kind
    out["value"] = pd.to_numeric(out["value"], errors="coerce").astype(float)
    out["time_s"] = pd.to_numeric(out["time_s"], errors="coerce").astype(float)
    latency = out["metric"].map(_LATENCY_OF).astype(object)
    if "_latency" in wide.columns:  # the json+ bins' latency, per sample, for the percentile metrics
        bins = wide[[*keys, "sample", "_latency"]].drop_duplicates([*keys, "sample"])
        kinds = out[[*keys, "sample"]].merge(bins, on=[*keys, "sample"], how="left")["_latency"].to_numpy()
        pct = out["metric"].isin(list(PERCENTILE_METRICS)).to_numpy()
        latency = latency.where(~pct, pd.Series(kinds, index=out.index, dtype=object))
    out["latency"] = latency.where(latency.notna(), None)
    return out[[*keys, "kind", "sample", "time_s", "metric", "value", "latency"]]


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
    r["_t"] = _time(r)
    names = r.groupby(["run_id", "source_file"])["job_name"].transform("nunique")
    r["sample"] = r["source_file"].astype(str).where(names <= 1, r["source_file"].astype(str) + ":" +
                                                     r["job_name"].astype(str))
    if "run_index" in r.columns:  # separate fio runs appended to one file are repeats of their own
        runs = r.groupby(["run_id", "source_file"])["run_index"].transform("nunique")
        r["sample"] = r["sample"].where(runs <= 1, r["sample"] + " run " + (r["run_index"] + 1).astype(str))
    g = r.groupby([*keys, "sample"], dropna=False, sort=True)
    wide = g.agg(iops=("iops", "sum"), bw=("bw_bytes_per_s", "sum"), _w=("_w", "sum"), _wl=("_wl", "sum"),
                 time_s=("_t", "max"))
    wide["bw"] = wide["bw"] / MB
    wide["lat_mean"] = wide["_wl"] / wide["_w"].where(wide["_w"] > 0)
    wide = wide.drop(columns=["_w", "_wl"]).reset_index()
    metrics = ["iops", "bw", "lat_mean"]
    if histograms is not None and len(histograms):
        join = _join(histograms, r)
        h = histograms.drop(columns=["job_name", "point_id"], errors="ignore").merge(
            r[list(dict.fromkeys([*join, *MATCH_KEYS, "sample"]))].drop_duplicates(join), on=join, how="inner")
        rows = []
        for key, hg in h.groupby([*keys, "sample"], dropna=False, sort=True):
            b = hg.groupby("bin_ns", sort=True)["count"].sum()
            ps = histogram.percentile(b.index.to_numpy(), b.to_numpy(), list(PERCENTILE_METRICS.values())) / 1000.0
            kinds = sorted(hg["latency"].dropna().astype(str).unique()) if "latency" in hg.columns else []
            rows.append((*key, *ps, "+".join(kinds) if kinds else None))
        pct = pd.DataFrame(rows, columns=[*keys, "sample", *PERCENTILE_METRICS, "_latency"])
        wide = wide.merge(pct, on=[*keys, "sample"], how="left")
        metrics += list(PERCENTILE_METRICS)
    return _long(wide, keys, "repeat", metrics)


def interval_samples(timeseries: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Per-interval samples from a ``timeseries`` table (fio's log entries, put on one grid of the log
    interval per point by :func:`helpers.analysis.timeseries.on_grid`; a last grid window narrower than half
    the interval left out): IOPS and bandwidth summed over the
    file's jobs per window, mean total latency IOPS-weighted; the configuration comes from the results rows
    of the same file and job entry.  Samples are named ``<source_file>@<window_start_s>``; their time is the file's fio timestamp
    (the end of the run) minus the measured runtime plus the window's start."""
    if timeseries is None or timeseries.empty or results is None or results.empty:
        return _empty_samples()
    keys = ["run_id", *_keys_present(results, MATCH_KEYS)]
    join = _join(timeseries, results)
    res = results.assign(_start=_time(results) - _num(results, "runtime_s"))
    grid = on_grid(timeseries)
    grid = grid[~narrow_windows(grid)]  # a final partial grid window is a rate over a few ms, not a sample
    if grid.empty:
        return _empty_samples()
    by = grid.groupby([*join, "log_job", "window_start_s"], sort=False, dropna=False)
    per_job = by[["iops", "bytes_per_s"]].sum(min_count=1).join(by["lat_mean_us"].mean()).reset_index()
    t = per_job.merge(res[list(dict.fromkeys([*join, *MATCH_KEYS, "_start"]))].drop_duplicates(join), on=join,
                      how="inner")
    t["_t"] = t["_start"] + pd.to_numeric(t["window_start_s"], errors="coerce").astype(float)
    t["_w"] = pd.to_numeric(t["iops"], errors="coerce").astype(float)
    t["_wl"] = t["_w"] * pd.to_numeric(t["lat_mean_us"], errors="coerce").astype(float)
    g = t.groupby([*keys, "source_file", "window_start_s"], dropna=False, sort=True)
    wide = g.agg(iops=("iops", "sum"), bw=("bytes_per_s", "sum"), _w=("_w", "sum"), _wl=("_wl", "sum"),
                 time_s=("_t", "max")).reset_index()
    wide["bw"] = wide["bw"] / MB
    wide["lat_mean"] = wide["_wl"] / wide["_w"].where(wide["_w"] > 0)
    wide["sample"] = wide["source_file"].astype(str) + "@" + wide["window_start_s"].map("{:g}".format)
    return _long(wide, keys, "interval", ["iops", "bw", "lat_mean"])


def _join(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """The keys joining a histograms or timeseries table to results: run_id, source_file, run_index (when
    both have it: the fio run of the file), job_index, direction."""
    return [k for k in histogram.KEY if k != "run_index" or (k in a.columns and k in b.columns)]


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series(np.nan, index=df.index, dtype=float)
    return pd.to_numeric(df[col], errors="coerce").astype(float)


def _time(df: pd.DataFrame) -> pd.Series:
    """fio's timestamp of each row in Unix seconds; 0 or missing (foreign or hand-made rows) is unknown."""
    t = _num(df, "timestamp_s")
    return t.where(t > 0)


def _hashable(key: tuple) -> tuple:
    """A configuration key that compares equal across tables: NaN / <NA> (which never equal themselves)
    become None."""
    return tuple(None if v is None or (not isinstance(v, str) and pd.isna(v)) else v for v in key)


def history_samples(history_results: pd.DataFrame | None, history_histograms: pd.DataFrame | None = None
                    ) -> pd.DataFrame | None:
    """The ``history`` :func:`compare_runs` takes, from other runs' loaded results (+ histograms): one sample
    per repeat; None when there are none."""
    if history_results is None or not len(history_results):
        return None
    return repeat_samples(history_results, history_histograms)


def comparison_samples(results: pd.DataFrame, histograms: pd.DataFrame | None = None,
                       timeseries: pd.DataFrame | None = None) -> pd.DataFrame:
    """The samples :func:`compare_runs` compares, from a notebook's loaded data: one per repeat (+ json+
    histograms) and, when given, one per interval of the per-window ``timeseries``."""
    samples = repeat_samples(results, histograms)
    if timeseries is not None and len(timeseries):
        samples = pd.concat([samples, interval_samples(timeseries, results)], ignore_index=True)
    return samples


