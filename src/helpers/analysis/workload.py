"""Characterize an imported block I/O trace (rows of the ``traces`` dataset): pure functions on DataFrames.

Mix, block sizes and the fio ``bssplit`` that reproduces them, sequential share, the address-range zones
that fio's ``random_distribution=zoned`` can express, working set, IOPS and bandwidth over time,
inter-arrival times and burstiness, and outstanding I/O where the trace has latencies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.run.replay import bssplit_of, zoned_from_counts

OPS = ("read", "write", "trim")


def mix(ios: pd.DataFrame) -> pd.DataFrame:
    """One row per operation: I/Os, bytes and their shares (``ios_pct``, ``bytes_pct``) of the trace."""
    g = ios.groupby("op", observed=True).agg(ios=("size_bytes", "size"), bytes=("size_bytes", "sum"))
    g = g.reindex([o for o in OPS if o in g.index])
    g["ios_pct"] = 100 * g["ios"] / g["ios"].sum()
    g["bytes_pct"] = 100 * g["bytes"] / g["bytes"].sum()
    return g.reset_index()


def read_share(ios: pd.DataFrame) -> float:
    """Reads as a percentage of the reads and writes (fio's rwmixread); NaN without either."""
    rw = ios["op"].isin(["read", "write"])
    n = int(rw.sum())
    return float(100 * (ios["op"] == "read").sum() / n) if n else float("nan")


def block_sizes(ios: pd.DataFrame) -> pd.DataFrame:
    """Block-size distribution per operation: op, size_bytes, ios, pct (of that operation's I/Os)."""
    g = ios.groupby(["op", "size_bytes"], observed=True).size().rename("ios").reset_index()
    g["pct"] = 100 * g["ios"] / g.groupby("op", observed=True)["ios"].transform("sum")
    return g.sort_values(["op", "size_bytes"], key=lambda s: s.map(OPS.index) if s.name == "op" else s,
                         ignore_index=True)


def bssplit(ios: pd.DataFrame, op: str | None = None, min_pct: float = 1.0) -> str:
    """The fio ``bssplit`` of the trace's block sizes (of ``op``, or all I/Os): sizes that hold at least
    ``min_pct`` % of the I/Os, their percentages by largest remainder so they sum to 100 (fio's rule; the
    rarer sizes are folded into the others in proportion, :func:`helpers.run.replay.bssplit_of`).  '' without
    I/Os."""
    return bssplit_of((ios if op is None else ios[ios["op"] == op])["size_bytes"], min_pct)


def sequential(ios: pd.DataFrame, per_op: bool = False) -> pd.Series:
    """True for each I/O that starts where the previous I/O of its stream ended (issue order).  ``per_op``:
    a stream is (stream, op), as fio keeps one position per direction."""
    key = ["stream", "op"] if per_op else ["stream"]
    end = (ios["offset_bytes"] + ios["size_bytes"]).groupby([ios[k] for k in key], sort=False).shift()
    return (ios["offset_bytes"] == end).fillna(False).astype(bool)


def sequential_share(ios: pd.DataFrame, per_op: bool = False) -> float:
    """Percentage of the I/Os that are sequential (:func:`sequential`); the first of each stream is not."""
    return float(100 * sequential(ios, per_op).mean()) if len(ios) else float("nan")


def zones(ios: pd.DataFrame, n: int = 10, size_bytes: int | None = None) -> pd.DataFrame:
    """Access share of ``n`` equal address ranges of the target (``size_bytes``, default the trace's
    highest end): zone, start_bytes, end_bytes, ios, pct (of the I/Os, by their start offsets)."""
    size = int(size_bytes or (ios["offset_bytes"] + ios["size_bytes"]).max() or 1)
    edges = np.linspace(0, size, n + 1)
    zone = np.clip(np.searchsorted(edges, ios["offset_bytes"].to_numpy(), side="right") - 1, 0, n - 1)
    counts = np.bincount(zone, minlength=n)
    return pd.DataFrame({"zone": np.arange(n), "start_bytes": edges[:-1].astype("int64"),
                         "end_bytes": edges[1:].astype("int64"), "ios": counts,
                         "pct": 100 * counts / max(1, counts.sum())})


def zoned_distribution(ios: pd.DataFrame, n: int = 10, size_bytes: int | None = None) -> str:
    """fio's ``random_distribution=zoned:...`` for the trace: the I/Os of ``n`` equal ranges (:func:`zones`) merged
    into zones of like density (:func:`helpers.run.replay.zoned_from_counts`)."""
    return zoned_from_counts(zones(ios, n, size_bytes)["ios"].to_numpy())


def working_set_bytes(ios: pd.DataFrame) -> int:
    """Distinct bytes the trace touched (the union of its I/Os' ranges, per stream)."""
    total = 0
    for _, g in ios.groupby("stream", sort=False):
        s = g["offset_bytes"].to_numpy(dtype="int64")
        e = s + g["size_bytes"].to_numpy(dtype="int64")
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
        reach = np.maximum.accumulate(e)
        prev = np.concatenate([[s[0]], reach[:-1]]) if len(s) else reach
        # each range adds the bytes past everything before it (ranges sorted by start)
        total += int(np.maximum(0, e - np.maximum(s, prev)).sum())
    return total


def window_for(span_s: float, windows: int = 50) -> float:
    """A round window width (1, 2 or 5 x a power of ten seconds) giving about ``windows`` windows over
    ``span_s``."""
    if not span_s or span_s <= 0 or not np.isfinite(span_s):
        return 1.0
    raw = span_s / windows
    exp = 10.0 ** np.floor(np.log10(raw))
    return float(next(m * exp for m in (1, 2, 5, 10) if m * exp >= raw))


def rate_over_time(ios: pd.DataFrame, window_s: float | None = None) -> pd.DataFrame:
    """IOPS and bandwidth per ``window_s`` window of issue time (default :func:`window_for` the trace's
    span): window_start_s, op, iops, bytes_per_s."""
    t = ios.dropna(subset=["t_s"])
    if t.empty:
        return pd.DataFrame(columns=["window_start_s", "op", "iops", "bytes_per_s"])
    window_s = window_s or window_for(float(t["t_s"].max() - t["t_s"].min()))
    # rounded before the floor: a time on a window's edge (0.04 / 0.02 = 1.9999999999999998) opens that window
    w = np.floor((t["t_s"] / window_s).round(9)).astype("int64")
    g = t.groupby([w.rename("w"), t["op"]], observed=True)["size_bytes"].agg(["size", "sum"]).reset_index()
    return pd.DataFrame({"window_start_s": g["w"] * window_s, "op": g["op"], "iops": g["size"] / window_s,
                         "bytes_per_s": g["sum"] / window_s})


def interarrival(ios: pd.DataFrame) -> dict[str, float]:
    """Inter-arrival times of the trace in µs (mean, p50, p99) and their burstiness: the coefficient of
    variation (1 for Poisson arrivals, 0 for a fixed rate, above 1 for bursts)."""
    t = np.sort(ios["t_s"].dropna().to_numpy())
    d = np.diff(t) * 1e6
    if len(d) < 2:
        return {"mean_us": float("nan"), "p50_us": float("nan"), "p99_us": float("nan"), "cv": float("nan")}
    return {"mean_us": float(d.mean()), "p50_us": float(np.percentile(d, 50)),
            "p99_us": float(np.percentile(d, 99)), "cv": float(d.std() / d.mean()) if d.mean() > 0 else float("nan")}


def outstanding(ios: pd.DataFrame) -> pd.DataFrame:
    """Outstanding I/Os over time where the trace has latencies: t_s and the count in flight just after it
    (issue +1, completion -1).  Empty when the trace has no latencies."""
    x = ios.dropna(subset=["t_s", "latency_us"])
    if x.empty:
        return pd.DataFrame(columns=["t_s", "in_flight"])
    t = np.concatenate([x["t_s"].to_numpy(), x["t_s"].to_numpy() + x["latency_us"].to_numpy() / 1e6])
    step = np.concatenate([np.ones(len(x), "int64"), -np.ones(len(x), "int64")])
    order = np.lexsort((-step, t))  # at a tie the completion (-1) after the issue
    return pd.DataFrame({"t_s": t[order], "in_flight": np.cumsum(step[order])})


def mean_outstanding(ios: pd.DataFrame) -> float:
    """Time-averaged I/Os in flight (Little's law: the summed latencies over the trace's span); NaN without
    latencies."""
    x = ios.dropna(subset=["t_s", "latency_us"])
    if x.empty:
        return float("nan")
    span = (x["t_s"] + x["latency_us"] / 1e6).max() - x["t_s"].min()
    return float(x["latency_us"].sum() / 1e6 / span) if span > 0 else float("nan")


def summary(ios: pd.DataFrame, zones_n: int = 10, size_bytes: int | None = None) -> dict[str, object]:
    """The characterization in one dict (what the Workload page's table and the clone job use)."""
    span = ios["t_s"].max() - ios["t_s"].min() if ios["t_s"].notna().any() else float("nan")
    return {
        "ios": len(ios), "bytes": int(ios["size_bytes"].sum()), "duration_s": float(span),
        # arrivals per second between the first and the last I/O (exact for a steady rate)
        "iops": float((len(ios) - 1) / span) if span and span > 0 else float("nan"),
        "read_pct": read_share(ios),
        "read_bytes_pct": float(100 * ios.loc[ios["op"] == "read", "size_bytes"].sum() / ios["size_bytes"].sum())
        if len(ios) else float("nan"),
        "bssplit": bssplit(ios), "bssplit_read": bssplit(ios, "read"), "bssplit_write": bssplit(ios, "write"),
        "sequential_pct": sequential_share(ios), "sequential_per_op_pct": sequential_share(ios, per_op=True),
        "zoned": zoned_distribution(ios, zones_n, size_bytes), "working_set_bytes": working_set_bytes(ios),
        "mean_outstanding": mean_outstanding(ios), **{f"interarrival_{k}": v for k, v in interarrival(ios).items()},
    }


def heat(ios: pd.DataFrame, time_bins: int = 60, address_bins: int = 64) -> pd.DataFrame:
    """LBA access heat: I/Os per (time window, address range), long form: t_start_s, address_start_bytes,
    ios.  Empty without times."""
    x = ios.dropna(subset=["t_s"])
    if x.empty:
        return pd.DataFrame(columns=["t_start_s", "address_start_bytes", "ios"])
    span = float(x["t_s"].max()) or 1.0
    top = int((x["offset_bytes"] + x["size_bytes"]).max()) or 1
    tb = np.minimum((x["t_s"].to_numpy() / span * time_bins).astype("int64"), time_bins - 1)
    ab = np.minimum((x["offset_bytes"].to_numpy() / top * address_bins).astype("int64"), address_bins - 1)
    counts = np.bincount(tb * address_bins + ab, minlength=time_bins * address_bins)
    t_idx, a_idx = np.divmod(np.arange(time_bins * address_bins), address_bins)
    return pd.DataFrame({"t_start_s": t_idx * span / time_bins, "address_start_bytes": (a_idx * top / address_bins)
                         .astype("int64"), "ios": counts})


def trace_table(traces: pd.DataFrame, size_bytes: int | None = None) -> pd.DataFrame:
    """One row per trace of a traces dataset: its characterization (:func:`summary`) with its source."""
    rows = []
    for tid, ios in traces.groupby("trace_id", sort=False):
        s = summary(ios.sort_values("seq"), size_bytes=size_bytes)
        rows.append({"trace_id": tid, "source_file": ios["source_file"].iloc[0],
                     "source_format": ios["source_format"].iloc[0], **s})
    return pd.DataFrame(rows)


def busiest_trace(traces: pd.DataFrame) -> pd.DataFrame:
    """The I/Os of the trace with the most I/Os (the one the page's figures show), in issue order."""
    if traces.empty:
        return traces
    tid = traces["trace_id"].value_counts().index[0]
    return traces[traces["trace_id"] == tid].sort_values("seq", ignore_index=True)
