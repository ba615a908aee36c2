"""SLO capacity: the most IOPS a device delivers while a tail latency stays within an SLO.

Closed loop (a queue-depth series): :func:`slo_capacity` takes the measured (iodepth, IOPS, p99)
points, averages repeats per queue depth, and where p99 crosses the SLO between two measured depths
interpolates linearly in log space (log p99 and log IOPS against log QD) for the depth where p99 equals
the SLO and the IOPS there.  Open loop (offered rates): :func:`slo_rate_capacity` takes the largest
offered load whose achieved rate (>= 95 % of offered) and p99 both meet the SLO (no interpolation: an
offered load above the last good one was measured to fail).

Which latency: the results carry the p99 of *completion* latency (``clat_p99_us``, fio's default
percentiles); when fio ran with ``lat_percentiles=1`` a ``lat_p99_us`` column (total latency,
submission + completion) is preferred.  :func:`latency_column` picks it and says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.analysis.openloop import SATURATION_FRACTION, openloop_table
from helpers.analysis.points import latency_columns
from helpers.analysis.qd import qd_series
from helpers.fio.latency import latency_label, latency_name
from helpers.fio.units import format_bytes

PERCENTILE_SUFFIX = {99.0: "p99", 99.9: "p99_9", 99.99: "p99_99", 95.0: "p95", 90.0: "p90", 50.0: "p50"}


@dataclass(frozen=True)
class SloCapacity:
    """``max_iops`` (None when no measured point meets the SLO), ``at_iodepth`` (closed loop; fractional
    when interpolated) or ``at_rate_iops`` (open loop: the offered load), ``reason`` (one sentence),
    ``interpolated`` (True when between two measured points), ``limited_by`` ("slo": the SLO bounds
    it, "range": met at every measured point, so the capacity is at least ``max_iops``, "none")."""

    max_iops: float | None
    at_iodepth: float | None
    reason: str
    slo_us: float
    interpolated: bool = False
    limited_by: str = "slo"
    at_rate_iops: float | None = None
    latency_us: float | None = None  # the percentile at max_iops (= slo_us when interpolated)


def latency_column(df: pd.DataFrame, percentile: float = 99.0) -> tuple[str, str]:
    """(column, label) of the tail-latency column to hold against an SLO: total latency
    ``lat_<p>_us`` when present with values (fio ``lat_percentiles=1``), else completion latency
    ``clat_<p>_us``."""
    suffix = PERCENTILE_SUFFIX.get(float(percentile))
    if suffix is None:
        raise ValueError(f"percentile {percentile} has no results column (use one of {sorted(PERCENTILE_SUFFIX)}).")
    name = suffix.replace("_", ".")
    if latency_columns(df).kind == "lat":  # the one choice every view makes (helpers.analysis.points)
        return f"lat_{suffix}_us", latency_label("lat", name, "")
    return f"clat_{suffix}_us", latency_label("clat", name, "")


def _loginterp(x0: float, x1: float, y0: float, y1: float, y: float) -> float:
    """x where the line through (log x0, log y0), (log x1, log y1) reaches log y."""
    if y1 == y0:
        return x0
    f = (math.log(y) - math.log(y0)) / (math.log(y1) - math.log(y0))
    return math.exp(math.log(x0) + f * (math.log(x1) - math.log(x0)))


def _logat(x0: float, x1: float, v0: float, v1: float, x: float) -> float:
    """Value at x on the line through (log x0, log v0), (log x1, log v1)."""
    if x1 == x0:
        return v0
    f = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return math.exp(math.log(v0) + f * (math.log(v1) - math.log(v0)))


def slo_capacity(iodepth, iops, p99_us, slo_us: float, latency_label: str = "p99 latency") -> SloCapacity:
    """Max IOPS of one closed-loop queue-depth series with ``p99_us`` <= ``slo_us`` (see module doc).

    Repeats (equal iodepths) are averaged.  Candidates are every measured depth that meets the SLO and
    every crossing between a depth that meets it and a neighbour that does not; the largest IOPS wins.
    """
    if not slo_us or slo_us <= 0 or math.isnan(slo_us):
        raise ValueError("slo_us must be a positive latency in microseconds.")
    d = pd.DataFrame({"qd": pd.to_numeric(pd.Series(list(iodepth)), errors="coerce"),
                      "iops": pd.to_numeric(pd.Series(list(iops)), errors="coerce"),
                      "lat": pd.to_numeric(pd.Series(list(p99_us)), errors="coerce")}).dropna()
    d = d[(d["qd"] > 0) & (d["iops"] > 0) & (d["lat"] > 0)]
    if d.empty:
        return SloCapacity(None, None, "no measured point with IOPS and latency.", slo_us, limited_by="none")
    d = d.groupby("qd", as_index=False).mean().sort_values("qd").reset_index(drop=True)
    ok = d["lat"] <= slo_us
    qmax = d["qd"].iloc[-1]
    if not ok.any():
        r = d.loc[d["lat"].idxmin()]
        return SloCapacity(None, None, f"no measured queue depth meets {latency_label} ≤ {slo_us:,.0f} µs (lowest "
                                       f"{r['lat']:,.0f} µs at QD {r['qd']:g}).", slo_us, limited_by="none")
    cands = [(float(r["iops"]), float(r["qd"]), False, float(r["lat"])) for _, r in d[ok].iterrows()]
    for i in range(len(d) - 1):
        a, b = d.iloc[i], d.iloc[i + 1]
        if bool(a["lat"] <= slo_us) != bool(b["lat"] <= slo_us):
            q = _loginterp(a["qd"], b["qd"], a["lat"], b["lat"], slo_us)
            cands.append((_logat(a["qd"], b["qd"], a["iops"], b["iops"], q), q, True, float(slo_us)))
    best = max(cands, key=lambda c: c[0])
    x, q, interp, lat = best
    if ok.all():
        return SloCapacity(x, q, f"{latency_label} ≤ {slo_us:,.0f} µs at every measured queue depth up to QD "
                                 f"{qmax:g}: at least {x:,.0f} IOPS (at QD {q:g}); the SLO limit lies beyond the "
                                 f"measured range.", slo_us, False, "range", latency_us=lat)
    if interp:
        lo = d["qd"][d["qd"] <= q].max()
        hi = d["qd"][d["qd"] >= q].min()
        why = (f"{latency_label} reaches {slo_us:,.0f} µs at QD {q:.1f} (interpolated in log space between QD "
               f"{lo:g} and {hi:g}): {x:,.0f} IOPS.")
    else:
        why = f"{latency_label} ≤ {slo_us:,.0f} µs up to {x:,.0f} IOPS at QD {q:g} ({lat:,.0f} µs, measured)."
    return SloCapacity(x, q, why, slo_us, interp, "slo", latency_us=lat)


def slo_rate_capacity(offered_iops, achieved_iops, p99_us, slo_us: float, fraction: float = SATURATION_FRACTION,
                      latency_label: str = "p99 latency") -> SloCapacity:
    """Open loop: the largest offered load whose achieved rate is at least ``fraction`` x offered and
    whose ``p99_us`` <= ``slo_us``; ``max_iops`` is the achieved rate there."""
    d = pd.DataFrame({"off": pd.to_numeric(pd.Series(list(offered_iops)), errors="coerce"),
                      "ach": pd.to_numeric(pd.Series(list(achieved_iops)), errors="coerce"),
                      "lat": pd.to_numeric(pd.Series(list(p99_us)), errors="coerce")}).dropna()
    if d.empty:
        return SloCapacity(None, None, "no measured offered load.", slo_us, limited_by="none")
    d = d.groupby("off", as_index=False).mean().sort_values("off")
    good = d[(d["ach"] >= fraction * d["off"]) & (d["lat"] <= slo_us)]
    if good.empty:
        return SloCapacity(None, None, f"no offered load meets {latency_label} ≤ {slo_us:,.0f} µs with the achieved "
                                       f"rate ≥ {fraction:.0%} of offered (lowest load {d['off'].iloc[0]:,.0f} IOPS).",
                           slo_us, limited_by="none")
    r = good.iloc[-1]
    top = r["off"] == d["off"].iloc[-1]
    why = (f"the largest offered load meeting {latency_label} ≤ {slo_us:,.0f} µs is {r['off']:,.0f} IOPS "
           f"(achieved {r['ach']:,.0f}, {r['lat']:,.0f} µs)"
           + ("; it is the largest load measured, so the limit lies beyond." if top else
              f"; the next load measured, {d['off'][d['off'] > r['off']].min():,.0f} IOPS, fails."))
    return SloCapacity(float(r["ach"]), None, why, slo_us, False, "range" if top else "slo",
                       at_rate_iops=float(r["off"]), latency_us=float(r["lat"]))


SLO_TABLE_COLUMNS = ["series", "mode", "slo_us", "latency", "latency_column", "max_iops", "max_iops_low",
                     "max_iops_high", "at_iodepth", "at_rate_iops",
                     "interpolated", "limited_by", "reason"]


def slo_table(df: pd.DataFrame, slo_us: float = 1000.0, percentile: float = 99.0) -> pd.DataFrame:
    """SLO capacity of every closed-loop queue-depth series (one per operation, block size, jobs, ...;
    open-loop points left out) and of every open-loop rate series (rw, block size, iodepth) of ``df``.
    ``max_iops_low``/``_high``: 95 % interval from the repeats (:func:`slo_capacity_interval`; NaN
    without repeats at every depth)."""
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(columns=SLO_TABLE_COLUMNS)
    col, label = latency_column(df, percentile)
    closed = df[df["rate_iops"].isna()] if "rate_iops" in df.columns else df
    s = qd_series(closed)
    for name, g in s.groupby("series", sort=False):
        if col not in g.columns:
            continue
        c = slo_capacity(g["iodepth"], g["iops"], g[col], slo_us, label)
        low, high, _ = slo_capacity_interval(g["iodepth"], g["iops"], g[col], slo_us)
        rows.append({"series": name, "mode": "closed loop (QD)", "slo_us": slo_us, "latency": label,
                     "latency_column": col, "max_iops": c.max_iops, "max_iops_low": low, "max_iops_high": high, "at_iodepth": c.at_iodepth, "at_rate_iops": None,
                     "interpolated": c.interpolated, "limited_by": c.limited_by, "reason": c.reason})
    if "rate_iops" in df.columns and df["rate_iops"].notna().any():
        ocol = col
        t = openloop_table(df[df["rate_iops"].notna()])
        if ocol in t.columns:
            keys = [k for k in ("run_id", "rw", "bs_bytes", "iodepth") if k in t.columns]
            multi_run = "run_id" in t.columns and t["run_id"].nunique() > 1
            for key, g in t.groupby(keys, sort=True):
                k = dict(zip(keys, key))
                c = slo_rate_capacity(g["offered_iops"], g["achieved_iops"], g[ocol], slo_us, latency_label=label)
                name = f"{k['rw']} {format_bytes(k['bs_bytes'])} QD{int(k['iodepth'])} (offered rate)"
                rows.append({"series": f"{k['run_id']}: {name}" if multi_run else name, "mode": "open loop (rate)",
                             "slo_us": slo_us, "latency": label, "latency_column": ocol, "max_iops": c.max_iops, "at_iodepth": None,
                             "at_rate_iops": c.at_rate_iops, "interpolated": False, "limited_by": c.limited_by,
                             "reason": c.reason})
    return pd.DataFrame(rows, columns=SLO_TABLE_COLUMNS)


def slo_card_sentence(df: pd.DataFrame, slo_us: float = 1000.0, percentile: float = 99.0) -> str:
    """One sentence for the device card: the 4k random-read queue-depth series' SLO capacity."""
    if df is None or df.empty:
        return "No results: no SLO capacity."
    col, label = latency_column(df, percentile)
    rr = df[(df["rw"] == "randread") & (df["bs_bytes"] == 4096) & (df["direction"] == "read") & (df["numjobs"] == 1)]
    if "rate_iops" in rr.columns:
        rr = rr[rr["rate_iops"].isna()]
    if rr["iodepth"].nunique() < 2 or col not in rr.columns:
        return "No 4k random-read queue-depth sweep in this run: no SLO capacity."
    c = slo_capacity(rr["iodepth"], rr["iops"], rr[col], slo_us, label)
    if c.max_iops is None:
        return f"SLO {label} ≤ {slo_us:,.0f} µs: not met by 4k random reads at any measured queue depth ({c.reason})"
    at = f"QD {c.at_iodepth:.1f}, interpolated" if c.interpolated else f"QD {c.at_iodepth:g}"
    more = " (met at every measured depth: at least this)" if c.limited_by == "range" else ""
    low, high, _ = slo_capacity_interval(rr["iodepth"], rr["iops"], rr[col], slo_us)
    if not math.isnan(low):
        more += f" (95 % interval from repeats {low:,.0f}-{high:,.0f} IOPS)"
    return f"Max 4k random-read IOPS with {label} ≤ {slo_us:,.0f} µs: {c.max_iops:,.0f} IOPS at {at}{more}."


def slo_points(table: pd.DataFrame) -> pd.DataFrame:
    """The closed-loop rows of :func:`slo_table` that have a capacity (series, at_iodepth, max_iops, ...),
    for a figure overlay."""
    cols = ["series", "at_iodepth", "max_iops", "interpolated", "limited_by"]
    t = table[table["mode"].eq("closed loop (QD)") & table["max_iops"].notna()] if len(table) else table
    return t.reindex(columns=cols).astype({"at_iodepth": float, "max_iops": float}).reset_index(drop=True)


def _capacity_matrix(qd: np.ndarray, iops: np.ndarray, lat: np.ndarray, slo_us: float) -> np.ndarray:
    """Max IOPS with lat <= slo of many curves at once: ``iops``/``lat`` are (replicates, depths) means
    at the sorted depths ``qd``; NaN where no depth meets the SLO.  Same rule as :func:`slo_capacity`."""
    ok = lat <= slo_us
    cand = np.where(ok, iops, -np.inf)
    best = cand.max(axis=1)
    lq, li, ll = np.log(qd), np.log(iops), np.log(lat)
    for i in range(len(qd) - 1):  # overflow where a segment does not cross is masked below
        cross = ok[:, i] != ok[:, i + 1]
        dl = ll[:, i + 1] - ll[:, i]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            f = np.where(dl != 0, (math.log(slo_us) - ll[:, i]) / dl, 0.0)
            q = lq[i] + f * (lq[i + 1] - lq[i])
            x = np.exp(li[:, i] + (q - lq[i]) / (lq[i + 1] - lq[i]) * (li[:, i + 1] - li[:, i]))
        best = np.maximum(best, np.where(cross, x, -np.inf))
    return np.where(np.isfinite(best), best, np.nan)


def slo_capacity_interval(iodepth, iops, p99_us, slo_us: float, confidence: float = 0.95, n_boot: int = 2000,
                          seed: int = 0) -> tuple[float, float, float]:
    """(low, high, share_none) of ``max_iops`` from the REPEATS of a closed-loop series (>= 2 at every
    depth, else NaN, NaN, NaN): a bootstrap that resamples the repeats at every depth, with each
    resampled mean's deviation from the sample mean scaled (in log space, so values stay positive) by
    sqrt(n / (n - 1)) x t(n - 1) / z — the Student-t correction a plain percentile bootstrap lacks with
    3-5 repeats (in the test's simulation a plain one covered 80 % with 3 repeats and 89 % with 5 at
    nominal 95 %; this one 97.5 % and 96 %) — and the
    capacity rule of :func:`slo_capacity` on every resampled curve.  ``share_none`` is the share of
    resampled curves where no depth met the SLO (counted as 0 IOPS)."""
    d = pd.DataFrame({"qd": pd.to_numeric(pd.Series(list(iodepth)), errors="coerce"),
                      "iops": pd.to_numeric(pd.Series(list(iops)), errors="coerce"),
                      "lat": pd.to_numeric(pd.Series(list(p99_us)), errors="coerce")}).dropna()
    d = d[(d["qd"] > 0) & (d["iops"] > 0) & (d["lat"] > 0)]
    groups = [g for _, g in d.groupby("qd", sort=True)]
    if not groups or any(len(g) < 2 for g in groups):
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    # heavy (~0.8 s): imported where used, so a notebook kernel that never calls this starts faster
    from scipy import stats

    z = stats.norm.ppf(0.5 + confidence / 2)
    qd = np.array([g["qd"].iloc[0] for g in groups], dtype=float)
    mi = np.empty((n_boot, len(groups)))
    ml = np.empty((n_boot, len(groups)))
    for j, g in enumerate(groups):
        n = len(g)
        idx = rng.integers(0, n, (n_boot, n))
        k = math.sqrt(n / (n - 1)) * stats.t.ppf(0.5 + confidence / 2, n - 1) / z
        for col, out in (("iops", mi), ("lat", ml)):
            v = g[col].to_numpy(float)
            out[:, j] = v.mean() * np.exp(k * (np.log(v[idx].mean(axis=1)) - math.log(v.mean())))
    cap = _capacity_matrix(qd, mi, ml, slo_us)
    none = float(np.mean(np.isnan(cap)))
    a = (1 - confidence) / 2
    filled = np.where(np.isnan(cap), 0.0, cap)
    return float(np.quantile(filled, a)), float(np.quantile(filled, 1 - a)), none


# ------------------------------------------------------------------ the SLO search against fio's latency_target

LATENCY_NAMES = {k: latency_name(k) for k in ("lat", "clat")}
CROSS_CHECK_COLUMNS = ["run_id", "series", "slo_us", "percentile", "search_rate_iops", "search_iops",
                       "search_latency_us", "search_latency", "search_setting", "host_limit", "fio_iops", "fio_depth",
                       "fio_max_depth", "fio_latency_us", "fio_window_s", "fio_settled", "difference_pct", "agree", "verdict",
                       "search_points", "search_device_s", "grid_points", "grid_device_s", "cross_check_device_s",
                       "device_time"]
STEP_COLUMNS = ["run_id", "series", "step", "kind", "offered_iops", "achieved_iops", "latency_us", "latency",
                "meets", "jobs", "iodepth", "ioengine", "cpu_pct", "superseded"]


@dataclass(frozen=True)
class CrossCheck:
    """The SLO search's answer against fio's latency_target's: ``difference_pct`` (fio's IOPS against the
    search's achieved IOPS at its capacity, NaN when either found none), ``agree`` (True / False; None when
    there is nothing to compare) and ``sentence`` (both numbers, the verdict and, when they differ, why)."""

    agree: bool | None
    difference_pct: float
    sentence: str


def _us(v: float) -> str:
    return f"{v:,.0f} µs"


def _range(low: float, high: float) -> str:
    return f"≥ {low:,.0f}" if math.isinf(high) else f"{low:,.0f}–{high:,.0f}"


def cross_check_verdict(search: dict, fio: dict | None, point_runtime_s: float | None = None,
                        tolerance_pct: float = 10.0) -> CrossCheck:
    """Compare one series' SLO search (its manifest ``slo`` entry: ``capacity_rate_iops``,
    ``first_failing_rate_iops``, ``steps``, ``slo_us``, ``percentile``) with its fio latency_target
    cross-check (the entry's ``cross_check``: ``iops``, ``depth``, ``max_depth``, ``latency_us``,
    ``target_us``, ``window_s``, ``stats_s``, ``settled``).

    Each answer is a range: the search's capacity lies between the achieved IOPS at the largest load that
    met the SLO and the first offered load that failed (open above when none failed); fio's between its
    IOPS at the depth it settled on and that IOPS x (depth + 1) / depth, the next whole depth (open above
    when it settled on the largest depth allowed).  They AGREE when the two ranges overlap, with
    ``tolerance_pct`` for run-to-run noise; otherwise they differ by ``difference_pct`` and the sentence
    says why, from what the data shows (loop, windows, depth steps, an unsettled or failing fio result)."""
    slo = float(search.get("slo_us", float("nan")))
    pct = float(search.get("percentile", 99.0))
    steps = search.get("steps") or []
    kinds = {s.get("latency", "clat") for s in steps}
    kind = "lat" if "lat" in kinds else "clat"
    lo, hi = search.get("capacity_rate_iops"), search.get("first_failing_rate_iops")
    at = next((s for s in steps if s.get("rate") == lo), None) if lo is not None else None
    over = f" over each {point_runtime_s:g} s point" if point_runtime_s else ""
    if at is not None:
        s_iops = float(at["achieved_iops"])
        s_text = (f"SLO search (open loop, offered rate_iops): {s_iops:,.0f} IOPS achieved at {lo:,} offered with "
                  f"p{pct:g} {LATENCY_NAMES[kind]} {_us(at['latency_us'])} ≤ {_us(slo)}{over}"
                  + (" (met up to max_rate: at least this)" if hi is None else f", {hi:,} offered fails"))
    else:
        s_iops = float("nan")
        low = min((s["rate"] for s in steps), default=None)
        s_text = (f"SLO search (open loop): no offered load{f' down to {low:,} IOPS' if low else ''} met p{pct:g} "
                  f"{LATENCY_NAMES[kind]} ≤ {_us(slo)}")
    if not fio:
        return CrossCheck(None, float("nan"), f"{s_text}; no fio latency_target cross-check in this run.")
    if fio.get("error"):
        return CrossCheck(None, float("nan"), f"{s_text}; the fio latency_target cross-check failed: {fio['error']}")
    f_iops, depth, top = float(fio["iops"]), int(fio["depth"]), fio.get("max_depth")
    target, window = float(fio.get("target_us", slo)), float(fio["window_s"])
    f_lat = float(fio.get("latency_us", float("nan")))
    f_pct = float(fio.get("percentile", pct))
    met = not math.isnan(f_lat) and f_lat <= target
    f_text = (f"fio latency_target (closed loop: fio picks the queue depth for p{f_pct:g} total latency ≤ "
              f"{_us(target)} in each {window:g} s window): {f_iops:,.0f} IOPS at QD {depth}"
              + (f" of at most {top}" if top else "")
              + f" (p{pct:g} of its final statistics: {_us(f_lat) if not math.isnan(f_lat) else 'not reported'})")
    why = []
    settled = bool(fio.get("settled"))
    stats_s = float(fio.get("stats_s", float("nan")))
    cap = float(fio.get("max_seconds") or float("nan"))
    if not settled:
        if stats_s < 0.9 * window:
            why.append(f"fio's {cap:g} s runtime cap cut its final window short ({stats_s:.2f} s of {window:g} s)")
        elif stats_s >= 0.9 * cap:
            why.append(f"fio never settled within its {cap:g} s runtime cap, so its statistics cover every depth "
                       "it tried")
        else:
            why.append(f"fio did not settle cleanly: its final statistics cover {stats_s:.1f} s, not one {window:g} s "
                       "window (a later window failed and the depth moved again), so they mix depths")
    if not met and not math.isnan(f_lat):
        why.append(f"fio's final statistics have p{pct:g} {_us(f_lat)}, above the target: fio ends on the last depth "
                   "it tried, not necessarily one that met it")
    if kind != "lat":
        why.append(f"the search held {latency_name('clat')} (its points had no total-latency percentiles) while "
                   f"fio holds {latency_name('lat')}")
    if f_pct != pct or abs(target - slo) > 1e-9:
        why.append(f"fio ran with p{f_pct:g} ≤ {_us(target)}, the search with p{pct:g} ≤ {_us(slo)}")
    fio_found = met or depth > 1
    if math.isnan(s_iops) and not fio_found:
        return CrossCheck(True, float("nan"), f"{s_text}; {f_text}; they agree: neither found a load meeting the SLO"
                          + (f" (note: {'; '.join(why)})." if why else "."))
    if math.isnan(s_iops) or not fio_found:
        who = "the search found none" if math.isnan(s_iops) else "fio could not meet it even at QD 1"
        return CrossCheck(False, float("nan"), f"{s_text}; {f_text}; they differ: {who} — see why: "
                          + "; ".join(why or ["the open-loop search and fio's closed loop load the device "
                                              "differently (Poisson bursts against a fixed queue depth)"]) + ".")
    diff = (f_iops / s_iops - 1) * 100
    s_hi = float(hi) if hi is not None else math.inf
    f_hi = math.inf if top and depth >= int(top) else f_iops * (depth + 1) / depth
    lower, upper = max(s_iops, f_iops), min(s_hi, f_hi)
    agree = lower <= upper * (1 + tolerance_pct / 100)
    ranges = f"search {_range(s_iops, s_hi)}, fio {_range(f_iops, f_hi)} IOPS"
    gap = "overlap" if lower <= upper else f"are {(lower / upper - 1) * 100:.1f} % apart"
    if top and depth >= int(top):
        why.append(f"fio still met the target at the largest depth allowed (QD {top}): its result is a lower bound")
    if hi is None:
        why.append("the search met the SLO up to its max_rate: its result is a lower bound")
    if agree:
        verdict = (f"they agree: fio {diff:+.0f} %, and their ranges ({ranges}: the search's bracket, fio's depth "
                   f"to the next) {gap}" + ("" if lower <= upper else f", within the {tolerance_pct:g} % allowed for noise"))
        return CrossCheck(True, diff, f"{s_text}; {f_text}; {verdict}" + (f" (note: {'; '.join(why)})." if why else "."))
    if diff > 0:
        why.append("open against closed loop: Poisson arrivals bunch up and queue in the device, while at a fixed "
                   f"queue depth no more than QD {depth} I/Os ever wait, so the same p{pct:g} holds at a higher "
                   "closed-loop throughput")
    else:
        why.append(f"fio needs EVERY {window:g} s window to meet the target and backs off at the first that fails "
                   f"(one noisy window lowers it), where the search judges one p{pct:g}{over or ' per point'}; and "
                   f"fio's depth moves in whole steps (QD {depth} → {depth + 1} is +{100 / depth:.0f} %)")
    return CrossCheck(False, diff, f"{s_text}; {f_text}; they differ by {diff:+.0f} % (fio "
                      f"{'higher' if diff > 0 else 'lower'}; their ranges, {ranges}, {gap}) — see why: "
                      + "; ".join(why) + ".")


def _point_runtime(manifest: dict, series: str) -> float | None:
    """The runtime (s) of a series' search points, from the manifest's point parameters."""
    for v in (manifest.get("points") or {}).values():
        info = v.get("slo") or {}
        if info.get("series") == series and info.get("kind") != "cross-check":
            return (v.get("parameters") or {}).get("runtime_s")
    return None


def slo_cross_check(manifests: dict[str, dict], tolerance_pct: float = 10.0) -> pd.DataFrame:
    """One row per SLO-search series of ``manifests`` ({run_id: manifest}): the search's capacity and fio's
    latency_target result side by side, their ``difference_pct`` and ``agree`` (:func:`cross_check_verdict`,
    whose sentence is ``verdict``), and the device time: the search's points against a full rate grid of the
    same resolution (``device_time``), the cross-check's own seconds separately.  Empty without SLO searches."""
    rows = []
    for run_id, m in (manifests or {}).items():
        for series, s in ((m or {}).get("slo") or {}).items():
            if "steps" not in s:  # the search stopped on a failed point
                rows.append({"run_id": run_id, "series": series, "verdict": s.get("error", "no SLO search result")})
                continue
            fio = s.get("cross_check")
            v = cross_check_verdict(s, fio, _point_runtime(m, series), tolerance_pct)
            at = next((x for x in s["steps"] if x.get("rate") == s.get("capacity_rate_iops")
                       and not x.get("superseded")), {})
            ok = bool(fio) and not fio.get("error")
            cc_s = (fio or {}).get("device_seconds")
            device = (f"search: {len(s['steps'])} points, {s['device_seconds']:g} s of device time (a rate grid of the "
                      f"same resolution: {s['grid_points']} points, {s['grid_device_seconds']:g} s)"
                      + (f"; cross-check: {cc_s:g} s more" if cc_s is not None else ""))
            rows.append({"run_id": run_id, "series": series, "slo_us": s.get("slo_us"), "percentile": s.get("percentile"),
                         "search_rate_iops": s.get("capacity_rate_iops"), "search_iops": at.get("achieved_iops"),
                         "search_latency_us": at.get("latency_us"), "search_latency": at.get("latency"),
                         "search_setting": s.get("setting"), "host_limit": bool(s.get("host_limit")),
                         "fio_iops": fio["iops"] if ok else None, "fio_depth": fio["depth"] if ok else None,
                         "fio_max_depth": fio.get("max_depth") if ok else None,
                         "fio_latency_us": fio.get("latency_us") if ok else None,
                         "fio_window_s": fio.get("window_s") if ok else None,
                         "fio_settled": fio.get("settled") if ok else None,
                         "difference_pct": v.difference_pct, "agree": v.agree,
                         "verdict": (f"{s['host_sentence']} " if s.get("host_sentence") else "") + v.sentence,
                         "search_points": len(s["steps"]), "search_device_s": s.get("device_seconds"),
                         "grid_points": s.get("grid_points"), "grid_device_s": s.get("grid_device_seconds"),
                         "cross_check_device_s": cc_s, "device_time": device})
    return pd.DataFrame(rows, columns=CROSS_CHECK_COLUMNS)


def slo_search_steps(manifests: dict[str, dict]) -> pd.DataFrame:
    """One row per measured step of every SLO search in ``manifests`` (offered and achieved IOPS, the
    percentile latency held against the SLO, whether the step met it, the configuration it was offered with:
    jobs, per-job ``iodepth``, ``ioengine``, fio's ``cpu_pct`` per job, and ``superseded``: it failed while fio
    was CPU-bound, so the load was offered again with more jobs or io_uring), in measuring order."""
    rows = []
    for run_id, m in (manifests or {}).items():
        for series, s in ((m or {}).get("slo") or {}).items():
            for i, st in enumerate(s.get("steps") or [], start=1):
                rows.append({"run_id": run_id, "series": series, "step": i, "kind": st.get("kind"),
                             "offered_iops": st.get("rate"), "achieved_iops": st.get("achieved_iops"),
                             "latency_us": st.get("latency_us"), "latency": st.get("latency"),
                             "meets": st.get("meets"), "jobs": st.get("jobs", 1), "iodepth": st.get("qd"),
                             "ioengine": st.get("ioengine"), "cpu_pct": st.get("cpu_pct"),
                             "superseded": bool(st.get("superseded", False))})
    return pd.DataFrame(rows, columns=STEP_COLUMNS)
