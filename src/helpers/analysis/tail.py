"""Tail latency: fio's latency percentiles per point (total latency when fio wrote them, else completion
latency, see :func:`helpers.analysis.points.latency_columns`), and latency distributions from the json+
histogram bins (``histograms`` dataset: run_id, point, direction, bin_ns, count)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.points import (
    COMPLETION_LATENCY,
    TOTAL_LATENCY,
    latency_columns,
    numeric_order,
    percentile_suffix,
    with_units,
)
from helpers.fio import histogram

HIST_KEYS = ["run_id", "source_file", "run_index", "point_id", "job_name", "job_index", "direction"]  # one histogram


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
    (p50 …), ``latency_us`` and ``latency`` (which latency: "total latency", or "completion latency (clat)"
    for files without total-latency percentiles); points without any percentile are dropped.  A percentile
    with too few I/Os behind it (named in ``unreliable_percentiles``) is ``flagged`` with that reason added."""
    cols = ["run_id", "point_id", "label", "rw", "direction", "bs_bytes", "iodepth", "rwmixread_pct",
            "flagged", "flag_reasons", "percentile", "percentile_label", "latency_us", "latency"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    lc = latency_columns(df)
    present = {p: c for p, c in lc.columns.items() if c in df.columns}
    base = labelled(df)
    frames = []
    for p, c in present.items():
        f = base[[c2 for c2 in cols[:10]]].copy()
        f["percentile"], f["percentile_label"], f["latency_us"] = p, percentile_label(p), base[c]
        f["latency"] = lc.name
        if "unreliable_percentiles" in base.columns:
            # the I/O count behind a percentile is the same for clat and total latency: match by level
            suffix = percentile_suffix(p)
            few = pd.Series([any(x.split("_", 1)[-1] == suffix for x in cs.split(",") if x)
                             for cs in base["unreliable_percentiles"].fillna("").astype(str)], index=base.index)
            label = percentile_label(p)
            f["flagged"] = f["flagged"] | few
            f["flag_reasons"] = ["; ".join(x for x in (r, f"too few I/Os ({n:,.0f}) for {label}") if x) if bad else r
                                 for r, bad, n in zip(f["flag_reasons"], few, base["total_ios"])]
        frames.append(f)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    out = out[out["latency_us"].notna()]
    return numeric_order(out, ["iodepth", "run_id", "rw", "bs_bytes", "rwmixread_pct", "direction", "label",
                               "percentile"])


def hist_keys(hist: pd.DataFrame) -> list[str]:
    return [k for k in HIST_KEYS if k in hist.columns]


HIST_LATENCY = {"lat": TOTAL_LATENCY, "clat": COMPLETION_LATENCY}


def _one_latency_per_histogram(hist: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``hist`` with a ``latency`` name column, one latency per histogram: the total-latency bins when
    the dataset holds them (a ``latency`` column 'lat'/'clat'), else fio's json+ clat bins."""
    if "latency" not in hist.columns:
        return hist.assign(latency=COMPLETION_LATENCY)
    kind = hist["latency"].astype("string").fillna("clat")
    is_lat = kind == "lat"
    has_lat = is_lat.groupby([hist[k] for k in keys], dropna=False).transform("any") if keys else is_lat.any()
    keep = is_lat | ~has_lat
    return hist[keep].assign(latency=kind[keep].map(lambda k: HIST_LATENCY.get(k, k)).astype("string"))


def latency_distribution(hist: pd.DataFrame, results: pd.DataFrame | None = None) -> pd.DataFrame:
    """Histogram bins -> per point and direction: ``latency_us`` (bin value), ``count``, ``share``
    (count / total), ``cdf`` (share of I/Os at or below the bin), ``exceedance`` (1 - cdf, the
    tail) and ``latency`` (which latency the bins are: fio's json+ bins are completion latency (clat),
    total-latency bins are used when the histograms dataset holds them).  When ``results`` is given, points get a ``label`` and the result columns rw, bs_bytes,
    iodepth, flagged, flag_reasons (joined on run_id, source_file, run_index, job_index and direction, or on
    point_id when the histograms have no source_file)."""
    cols = ["latency_us", "count", "share", "cdf", "exceedance"]
    if hist is None or hist.empty or not {"bin_ns", "count", "direction"} <= set(hist.columns):
        return pd.DataFrame(columns=hist_keys(hist) + cols if hist is not None else cols)
    keys = hist_keys(hist)
    hist = _one_latency_per_histogram(hist, keys)
    h = hist[hist["count"] > 0].groupby(keys + ["latency", "bin_ns"], dropna=False, as_index=False)["count"].sum()
    h = h.sort_values(keys + ["bin_ns"]).reset_index(drop=True)
    grp = h.groupby(keys, dropna=False, sort=False)["count"]
    total = grp.transform("sum")
    h["latency_us"] = h["bin_ns"] / 1000.0
    h["share"] = h["count"] / total
    h["cdf"] = grp.cumsum() / total
    h["exceedance"] = np.clip(1.0 - h["cdf"], 0.0, None)
    if results is not None and not results.empty:
        meta = labelled(results)
        join = [k for k in histogram.KEY if k in h.columns and k in meta.columns]
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
