"""A trace's replay and clone against the trace: pure functions on DataFrames.

Inputs: the trace's I/Os (the ``traces`` dataset's columns: ``t_s`` issue time, ``op``, ``offset_bytes``,
``size_bytes``, ``latency_us`` where the trace has completions) and fio's per-I/O logs of the replay and the
clone (:func:`helpers.fio.logs.read_io_log` of ``<point>_lat.N.log``: completion ms, total latency ns,
direction, size, offset).

- :func:`achieved`: each logged I/O's issue time (its completion less its latency; fio stamps completions in
  whole ms, so an issue time is known to within 1 ms) and its latency in µs;
- :func:`lag`: each replayed I/O matched to the trace's (by operation, offset as replayed and size, in order) and
  how far behind the trace's (scaled) time fio issued it; :func:`lag_summary` its percentiles;
- :func:`measures` / :func:`fidelity`: IOPS, bandwidth, read share, block-size mix and p50/p99 latency of the
  trace, the replay and the clone, each with the clone's difference from the replay, and :func:`fidelity_sentence`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

DIRECTION_OP = {0: "read", 1: "write", 2: "trim"}
TOLERANCE_PCT = 10.0  # the clone is "close" when its IOPS and read share are within this % of the replay's
LAG_PERCENTILES = (50, 90, 99)


def achieved(log: pd.DataFrame) -> pd.DataFrame:
    """Per-I/O log -> t_s (issue time, s since the job began), op, offset_bytes, size_bytes, latency_us."""
    lat_us = log["value"].to_numpy(dtype="float64") / 1e3
    return pd.DataFrame({"t_s": (log["time_ms"].to_numpy() - lat_us / 1e3) / 1e3,
                         "op": log["direction"].map(DIRECTION_OP).astype("string"),
                         "offset_bytes": log["offset_bytes"].to_numpy(), "size_bytes": log["bs_bytes"].to_numpy(),
                         "latency_us": lat_us}).sort_values("t_s", kind="stable", ignore_index=True)


def _key(df: pd.DataFrame) -> pd.DataFrame:
    k = df[["op", "offset_bytes", "size_bytes"]].astype({"op": "string", "offset_bytes": "int64",
                                                         "size_bytes": "int64"})
    return k.assign(nth=k.groupby(["op", "offset_bytes", "size_bytes"]).cumcount())


def lag(trace: pd.DataFrame, replayed: pd.DataFrame, offsets: np.ndarray | None = None,
        time_scale_pct: float = 100.0) -> pd.DataFrame:
    """One row per trace I/O the replay did: trace_s (the trace's time from its first I/O, scaled by
    ``time_scale_pct``), issue_s (the replay's, from its first I/O), lag_ms (issue - trace: how far behind the
    trace fio ran), latency_us (the replay's) and trace_latency_us.  ``offsets``: the trace's offsets as replayed
    (helpers.run.replay.fit_offsets), default as traced."""
    t = trace.reset_index(drop=True)
    if offsets is not None:
        t = t.assign(offset_bytes=np.asarray(offsets))
    left = pd.concat([_key(t), pd.DataFrame({"trace_s": (t["t_s"] - t["t_s"].min()) * 100.0 / time_scale_pct,
                                             "trace_latency_us": t.get("latency_us")})], axis=1)
    r = replayed.reset_index(drop=True)
    right = pd.concat([_key(r), pd.DataFrame({"issue_s": r["t_s"] - r["t_s"].min(),
                                              "latency_us": r["latency_us"]})], axis=1)
    m = left.merge(right, on=["op", "offset_bytes", "size_bytes", "nth"], how="inner").sort_values("trace_s")
    m["lag_ms"] = (m["issue_s"] - m["trace_s"]) * 1e3
    return m.drop(columns="nth").reset_index(drop=True)


def lag_summary(matched: pd.DataFrame, trace_ios: int) -> dict[str, float]:
    """I/Os matched (of the trace's), the lag's percentiles and maximum in ms, and the replay's span against the
    trace's (how much longer fio took)."""
    out: dict[str, float] = {"matched": len(matched), "trace_ios": trace_ios}
    lagv = matched["lag_ms"].to_numpy()
    for p in LAG_PERCENTILES:
        out[f"p{p}_ms"] = float(np.percentile(lagv, p, method="inverted_cdf")) if len(lagv) else math.nan
    out["max_ms"] = float(lagv.max()) if len(lagv) else math.nan
    span_t, span_r = matched["trace_s"].max(), matched["issue_s"].max()
    out["stretch_pct"] = float(100 * (span_r / span_t - 1)) if len(matched) and span_t > 0 else math.nan
    return out


def lag_text(s: dict[str, float]) -> str:
    """One sentence: how far behind the trace fio issued the I/Os."""
    if not s.get("matched"):
        return "No replayed I/O matched the trace: no lag to show."
    return (f"fio issued {s['matched']:,} of the trace's {s['trace_ios']:,} I/Os; behind the trace's times by "
            f"p50 {s['p50_ms']:.1f} ms, p90 {s['p90_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, at most "
            f"{s['max_ms']:.1f} ms (to within 1 ms: fio stamps completions in whole ms), and took "
            f"{s['stretch_pct']:+.1f} % of the trace's time.")


def measures(ios: pd.DataFrame) -> dict[str, object]:
    """IOPS and bandwidth (the I/Os after the first over the span of issue times), read share (% of reads and
    writes), the size distribution, p50/p99 latency in µs (fio's percentile rule; NaN without latencies)."""
    span = float(ios["t_s"].max() - ios["t_s"].min()) if len(ios) > 1 else math.nan
    rw = ios["op"].isin(["read", "write"])
    lat = ios["latency_us"].dropna().to_numpy() if "latency_us" in ios else np.empty(0)
    pct = lambda p: float(np.percentile(lat, p, method="inverted_cdf")) if len(lat) else math.nan  # noqa: E731
    return {"ios": len(ios), "iops": (len(ios) - 1) / span if span and span > 0 else math.nan,
            "mb_per_s": float(ios["size_bytes"].iloc[1:].sum()) / span / 1e6 if span and span > 0 else math.nan,
            "read_pct": float(100 * (ios["op"] == "read").sum() / max(1, int(rw.sum()))),
            "sizes": ios["size_bytes"].value_counts(normalize=True), "p50_us": pct(50), "p99_us": pct(99)}


def _size_mix(sizes: pd.Series) -> str:
    top = sizes.sort_values(ascending=False).head(3)
    return ", ".join(f"{int(s) // 1024 if s % 1024 == 0 else s}{'k' if s % 1024 == 0 else ' B'} "
                     f"{100 * v:.0f} %" for s, v in top.items())


def size_distance_pct(a: pd.Series, b: pd.Series) -> float:
    """The share of I/Os whose size would have to change to turn one size mix into the other (total variation
    distance, %)."""
    both = pd.concat([a, b], axis=1).fillna(0.0)
    return float(50 * (both.iloc[:, 0] - both.iloc[:, 1]).abs().sum())


def fidelity(replay: dict, clone: dict, trace: dict | None = None) -> pd.DataFrame:
    """The fidelity table: quantity, trace, replay, clone, difference (the clone's from the replay: % for
    rates and latencies, points for the read share, % of I/Os for the size mix)."""
    trace = trace or {}

    def rel(k):
        a, b = replay.get(k, math.nan), clone.get(k, math.nan)
        return f"{100 * (b - a) / a:+.1f} %" if a and np.isfinite(a) and np.isfinite(b) else ""

    def num(d, k, fmt):
        v = d.get(k, math.nan)
        return fmt.format(v) if v is not None and np.isfinite(v) else "–"

    rows = [("IOPS", *(num(d, "iops", "{:,.1f}") for d in (trace, replay, clone)), rel("iops")),
            ("Bandwidth (MB/s)", *(num(d, "mb_per_s", "{:,.3f}") for d in (trace, replay, clone)), rel("mb_per_s")),
            ("Read share (% of reads and writes)", *(num(d, "read_pct", "{:.1f} %") for d in (trace, replay, clone)),
             f"{clone['read_pct'] - replay['read_pct']:+.1f} points ({rel('read_pct')})"),
            ("Block sizes (the three most frequent)", *(_size_mix(d["sizes"]) if "sizes" in d else "–"
                                                        for d in (trace, replay, clone)),
             f"{size_distance_pct(replay['sizes'], clone['sizes']):.1f} % of I/Os differ"),
            ("Latency p50 (µs, total: issue to completion)", *(num(d, "p50_us", "{:,.1f}")
                                                               for d in (trace, replay, clone)), rel("p50_us")),
            ("Latency p99 (µs, total)", *(num(d, "p99_us", "{:,.1f}") for d in (trace, replay, clone)),
             rel("p99_us"))]
    return pd.DataFrame(rows, columns=["quantity", "trace", "replay", "clone", "clone vs replay"])


def fidelity_sentence(replay: dict, clone: dict, tolerance_pct: float = TOLERANCE_PCT, trace: dict | None = None,
                      stretch_pct: float | None = None) -> str:
    """How close the clone came to the replay on IOPS and read share, within ``tolerance_pct`` or not, and why it
    may not be: with the ``trace``'s measures, the clone's and the replay's IOPS against the trace's, and how much
    longer than the trace fio's timed replay took (``stretch_pct``, :func:`lag_summary`)."""
    d_iops = 100 * (clone["iops"] - replay["iops"]) / replay["iops"]
    d_read = 100 * (clone["read_pct"] - replay["read_pct"]) / replay["read_pct"] if replay["read_pct"] else math.nan
    ok = abs(d_iops) <= tolerance_pct and abs(d_read) <= tolerance_pct
    head = (f"The clone came within {max(abs(d_iops), abs(d_read)):.1f} % of the replay (IOPS {d_iops:+.1f} %, read "
            f"share {d_read:+.1f} %)")
    if ok:
        return head + f": within the {tolerance_pct:g} % a clone should hold."
    why = ("fio paces the clone evenly (or poisson) at the trace's mean rate and mix, so bursts, the order of the "
           "I/Os and a replay running behind the trace are not reproduced")
    if trace and np.isfinite(trace.get("iops", math.nan)):
        c, r = (100 * (d["iops"] / trace["iops"] - 1) for d in (clone, replay))
        why = (f"against the trace's {trace['iops']:,.1f} IOPS the clone ran {c:+.1f} % and the replay {r:+.1f} %"
               + (f": fio's timed replay took {stretch_pct:+.1f} % of the trace's time (its per-I/O delays run "
                  "behind the trace, fio issue 1537)" if stretch_pct is not None and np.isfinite(stretch_pct) else ""))
    return head + f": not within {tolerance_pct:g} %; {why}."
