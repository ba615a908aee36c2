"""Tail latency: fio's completion-latency percentiles per point, and latency distributions from the
json+ histogram bins (``histograms`` dataset: run_id, point, direction, bin_ns, count)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.points import with_units
from helpers.fio import histogram

PERCENTILE_COLUMNS: dict[float, str] = {
    50.0: "clat_p50_us", 90.0: "clat_p90_us", 95.0: "clat_p95_us",
    99.0: "clat_p99_us", 99.9: "clat_p99_9_us", 99.99: "clat_p99_99_us",
}
HIST_KEYS = ["run_id", "source_file", "point_id", "job_name", "job_index", "direction"]  # one histogram


def percentile_label(p: float) -> str:
    return f"p{p:g}"


def point_label(r, with_run: bool = False) -> str:
    mix = "" if pd.isna(r.rwmixread_pct) else f" {r.rwmixread_pct:.0f}% read"
    direction = "" if r.rw in ("read", "write", "randread", "randwrite") else f" ({r.direction})"
    label = f"{r.rw}{mix}{direction} {r.bs_label} QD{r.iodepth}"
    return f"{r.run_id}: {label}" if with_run else label


def labelled(df: pd.DataFrame) -> pd.DataFrame:
    out = with_units(df)
    multi_run = out["run_id"].nunique() > 1 if len(out) else False
    out["label"] = pd.Series([point_label(r, multi_run) for r in out.itertuples()], index=out.index, dtype="string")
    return out


def percentiles_long(df: pd.DataFrame) -> pd.DataFrame:
    """One row per point, direction and percentile: ``percentile`` (50 … 99.99), ``percentile_label``
    (p50 …), ``latency_us``; points without any percentile are dropped.  A percentile with too few
    I/Os behind it (named in ``unreliable_percentiles``) is ``flagged`` with that reason added."""
    cols = ["run_id", "point_id", "label", "rw", "direction", "bs_bytes", "iodepth", "rwmixread_pct",
            "flagged", "flag_reasons", "percentile", "percentile_label", "latency_us"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    present = {p: c for p, c in PERCENTILE_COLUMNS.items() if c in df.columns}
    base = labelled(df)
    frames = []
    for p, c in present.items():
        f = base[[c2 for c2 in cols[:10]]].copy()
        f["percentile"], f["percentile_label"], f["latency_us"] = p, percentile_label(p), base[c]
        if "unreliable_percentiles" in base.columns:
            few = base["unreliable_percentiles"].fillna("").astype(str).str.split(",").map(lambda cs, col=c: col in cs)
            label = percentile_label(p)
            f["flagged"] = f["flagged"] | few
            f["flag_reasons"] = ["; ".join(x for x in (r, f"too few I/Os ({n:,.0f}) for {label}") if x) if bad else r
                                 for r, bad, n in zip(f["flag_reasons"], few, base["total_ios"])]
        frames.append(f)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    out = out[out["latency_us"].notna()]
    return out.sort_values(["iodepth", "label", "percentile"]).reset_index(drop=True)


def hist_keys(hist: pd.DataFrame) -> list[str]:
    return [k for k in HIST_KEYS if k in hist.columns]


def latency_distribution(hist: pd.DataFrame, results: pd.DataFrame | None = None) -> pd.DataFrame:
    """Histogram bins -> per point and direction: ``latency_us`` (bin value), ``count``, ``share``
    (count / total), ``cdf`` (share of I/Os at or below the bin) and ``exceedance`` (1 - cdf, the
    tail).  When ``results`` is given, points get a ``label`` and the result columns rw, bs_bytes,
    iodepth, flagged, flag_reasons (joined on run_id, source_file, job_index and direction, or on
    point_id when the histograms have no source_file)."""
    cols = ["latency_us", "count", "share", "cdf", "exceedance"]
    if hist is None or hist.empty or not {"bin_ns", "count", "direction"} <= set(hist.columns):
        return pd.DataFrame(columns=hist_keys(hist) + cols if hist is not None else cols)
    keys = hist_keys(hist)
    h = hist[hist["count"] > 0].groupby(keys + ["bin_ns"], dropna=False, as_index=False)["count"].sum()
    h = h.sort_values(keys + ["bin_ns"]).reset_index(drop=True)
    grp = h.groupby(keys, dropna=False, sort=False)["count"]
    total = grp.transform("sum")
    h["latency_us"] = h["bin_ns"] / 1000.0
    h["share"] = h["count"] / total
    h["cdf"] = grp.cumsum() / total
    h["exceedance"] = np.clip(1.0 - h["cdf"], 0.0, None)
    if results is not None and not results.empty:
        meta = labelled(results)
        join = [k for k in ("run_id", "source_file", "job_index", "direction") if k in h.columns]
        if "source_file" not in join:
            join = [k for k in ("run_id", "point_id", "direction") if k in h.columns]
        extra = [c for c in ("label", "rw", "bs_bytes", "iodepth", "rwmixread_pct", "flagged", "flag_reasons")
                 if c not in h.columns or c in join]
        meta = meta.drop_duplicates(join)[join + [c for c in extra if c not in join]]
        h = h.merge(meta, on=join, how="left")
    if "label" not in h.columns:
        h["label"] = [" ".join(str(getattr(r, k)) for k in keys) for r in h.itertuples()]
    h["label"] = h["label"].fillna(pd.Series([" ".join(str(v) for v in r) for r in h[keys].itertuples(index=False)],
                                             index=h.index))
    return h


def distribution_percentile(dist: pd.DataFrame, p: float) -> pd.DataFrame:
    """Per point and direction, the p-th percentile (µs) of the bins by fio's own rule
    (:func:`helpers.fio.histogram.percentile`: the first bin whose cumulative count reaches p % of N)."""
    keys = [k for k in HIST_KEYS if k in dist.columns]
    rows = [(*(key if isinstance(key, tuple) else (key,)),
             histogram.percentile(g["bin_ns"].to_numpy(), g["count"].to_numpy(), p) / 1000.0)
            for key, g in dist.groupby(keys, dropna=False, sort=True)]
    return pd.DataFrame(rows, columns=[*keys, "latency_us"])
