"""Overview: the whole run at once (operation x block size / queue depth grids, distributions,
and one factor's effect with the others held constant)."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.points import operation_label, operations, percentile_latency, sorted_operations
from helpers.fio.latency import latency_name
from helpers.fio.units import format_bytes
from helpers.run.profiles import qd_ladder

METRICS: dict[str, str] = {  # column -> label with unit
    "iops": "IOPS (I/O per second)",
    "mb_per_s": "Bandwidth (MB/s, 1 MB = 10^6 B)",
    "lat_mean_us": "Mean total latency (µs)",
    "p99_us": f"p99 latency (µs): {latency_name('lat')} when fio wrote its percentiles, else {latency_name('clat')}",
}
FACTORS: dict[str, str] = {"bs_bytes": "Block size", "iodepth": "Queue depth", "rwmixread_pct": "Read share (%)"}


def factor_value_label(factor: str, v) -> str:
    if factor == "bs_bytes":
        return format_bytes(v)
    if factor == "iodepth":
        return f"QD {int(v)}"
    return f"{v:g}% read" if factor == "rwmixread_pct" else str(v)


def grid(df: pd.DataFrame, x: str = "bs_bytes", held: str = "iodepth",
         plateaus: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean of each metric per (held value, operation, x value) over single-job points, mixed
    modes as read+write totals; ``flagged``/``flag_reasons`` say whether any point in a cell is
    flagged; ``p99_us`` is of the latency named in ``percentile_latency``.  Empty when no operation has ≥ 2 values of ``x`` at one held value.

    ``plateaus`` (:func:`helpers.analysis.search_plateaus`: the QD series an adaptive search measured) adds a
    row for every (operation, block size, queue depth) cell of a searched series that the search did not measure,
    over the ladder's depths up to its ``max_qd`` and the depths other series measured: metrics empty, ``note`` in one
    wording, "not measured by the search: <why>" -- past its plateau ≈ X IOPS (the median of its probes, with their
    range when known), on its plateau (measured on either side), skipped on its ladder or below its seeded start,
    or it stopped before this depth (no plateau); never a number in a metric."""
    cols = ["held", "operation", "x", *METRICS, "n_points", "flagged", "flag_reasons", "percentile_latency", "note"]
    ops = operations(df)
    if ops.empty:
        return pd.DataFrame(columns=cols)
    ops = ops[ops["numjobs"] == 1]
    agg = {m: "mean" for m in METRICS}
    g = ops.groupby([held, "operation", x], as_index=False, dropna=False).agg(
        **{m: (m, "mean") for m in agg}, n_points=("iops", "size"), flagged=("flagged", "any"),
        flag_reasons=("flag_reasons", lambda s: "; ".join(dict.fromkeys(r for r in s if r))))
    g = g.rename(columns={held: "held", x: "x"}).assign(percentile_latency=percentile_latency(ops), note="")
    if plateaus is not None and len(plateaus) and "iodepth" in (x, held):
        g = pd.concat([g, _unmeasured(g, plateaus, x, held)], ignore_index=True)
    n_x = g.groupby(["held", "operation"])["x"].transform("nunique")
    g = g[n_x >= 2]
    if g.empty or g["operation"].nunique() < 1:
        return pd.DataFrame(columns=cols)
    order = {op: i for i, op in enumerate(sorted_operations(g["operation"]))}
    g = g.sort_values(["held", "operation", "x"], key=lambda s: s.map(order) if s.name == "operation" else s)
    return g[cols].reset_index(drop=True)


def _unmeasured(g: pd.DataFrame, plateaus: pd.DataFrame, x: str, held: str) -> pd.DataFrame:
    """The cells of searched series the search did not measure (see :func:`grid`), as rows without metrics."""
    other = x if held == "iodepth" else held  # the series' other coordinate (its block size)
    measured = set(zip(g["held"], g["operation"], g["x"]))
    shown = {int(q) for q in g["held" if held == "iodepth" else "x"].dropna()}  # depths other series measured
    rows = []
    for _, s in plateaus[plateaus["numjobs"].fillna(1) == 1].iterrows():
        op = operation_label(s["rw"], s["rwmixread_pct"] if s["rwmixread_pct"] is not None else float("nan"))
        depths = sorted(set(qd_ladder(1, int(s["max_qd"]))) | {q for q in shown if q <= s["max_qd"]})
        for qd in depths:
            if qd in s["measured_qds"]:
                continue
            key = (qd, s[other]) if held == "iodepth" else (s[other], qd)
            if (key[0], op, key[1]) in measured:
                continue
            # one wording, "not measured by the search: <why>"; a plateau is named with its probes' range, so a
            # measured cell above its median never reads as contradicting it
            level = (f"plateau ≈ {s['plateau_iops']:,.0f} IOPS, the median of its probes"
                     + (f" ({s['plateau_low_iops']:,.0f}–{s['plateau_high_iops']:,.0f})"
                        if pd.notna(s.get("plateau_low_iops")) else "")) if pd.notna(s["plateau_iops"]) else ""
            if qd > s["last_qd"]:
                why = f"past its {level}" if level else "it stopped before this depth"
            elif level and pd.notna(s.get("plateau_from_qd")) and qd > s["plateau_from_qd"]:
                why = f"on its {level}, measured on either side"
            elif isinstance(s.get("seeded_from"), str) and qd < (s.get("seed_start_qd") or 0):
                why = f"skipped below its seeded start (seeded by {s['seeded_from']})"
            else:
                why = "skipped on its ladder"
            note = f"not measured by the search: {why}"
            rows.append({"held": key[0], "operation": op, "x": key[1], "n_points": 0, "flagged": False,
                         "flag_reasons": "", "note": note})
    out = pd.DataFrame(rows, columns=list(g.columns))
    return out.astype({c: g[c].dtype for c in ("held", "x") if c in g})


def distribution(df: pd.DataFrame) -> pd.DataFrame:
    """Every point once (mixed modes as totals) with its operation, for box plots of throughput and latency."""
    ops = operations(df)
    return ops.assign(order=ops["operation"].map(
        {op: i for i, op in enumerate(sorted_operations(ops["operation"]))})).sort_values(
        "order", kind="stable").reset_index(drop=True)  # stable: points keep their order within an operation


def held_constant(df: pd.DataFrame, factor: str, fixed: dict[str, float]) -> tuple[pd.DataFrame, str]:
    """Points where every ``fixed`` column equals its value, varying ``factor`` (≥ 2 values per line).

    Returns (rows with a ``line`` label, message): the message is one sentence when nothing matches
    (naming the values that were measured), empty otherwise.
    """
    ops = operations(df)
    if ops.empty:
        return ops.assign(line=pd.Series(dtype="string")), "This run has no data points."
    rows = ops
    for col, val in fixed.items():
        present = sorted(v for v in rows[col].dropna().unique())
        rows = rows[rows[col] == val]
        if rows.empty:
            have = ", ".join(factor_value_label(col, v) for v in present) or "none"
            return rows.assign(line=pd.Series(dtype="string")), (
                f"This run has no points at {factor_value_label(col, val)} (measured: {have}).")
    # the engine too: a demand search measures libaio and io_uring at the same jobs and depth, which are not repeats
    others = [f for f in ("iodepth", "bs_bytes", "numjobs", "ioengine") if f != factor and f not in fixed
              and f in rows.columns]
    varying = [f for f in others if rows[f].nunique() > 1]
    rows = rows.copy()
    # the operation label of a mixed mode carries its read share: when the read share is the factor, lines
    # are named by rw alone so one line spans the read shares
    base = "rw" if factor == "rwmixread_pct" else "operation"
    rows["line"] = [" ".join([r[base]] + [
        (f"QD{int(r[f])}" if f == "iodepth" else format_bytes(r[f]) if f == "bs_bytes" else
         f"x{int(r[f])} jobs" if f == "numjobs" else str(r[f]))
        for f in varying]) for _, r in rows.iterrows()]
    n = rows.groupby("line")[factor].transform("nunique")
    rows = rows[n >= 2]
    if rows.empty:
        what = " and ".join(factor_value_label(c, v) for c, v in fixed.items())
        return rows, f"At {what} this run varies {FACTORS.get(factor, factor).lower()} over fewer than two values."
    return rows.sort_values(["line", factor]).reset_index(drop=True), ""


def pick_held(df: pd.DataFrame, factor: str, held: str) -> float | None:
    """The value of ``held`` to hold constant when charting ``factor``: among the values the run has, the
    one giving the most points that vary ``factor`` (ties: the most common value); None when ``held`` was
    never measured."""
    ops = operations(df)
    if ops.empty or held not in ops.columns:
        return None
    counts = ops[held].dropna().value_counts()
    if counts.empty:
        return None
    best, best_n = counts.index[0], 0
    for v in counts.index:  # most common first: a tie keeps the more common value
        n = len(held_constant(df, factor, {held: v})[0])
        if n > best_n:
            best, best_n = v, n
    return best.item() if hasattr(best, "item") else best


def held_section(df: pd.DataFrame, factor: str, held: str, value=None) -> tuple[pd.DataFrame, str, str, str]:
    """(rows, message, factor, title) for :func:`helpers.figures.held_constant_figure`: ``factor`` with
    ``held`` fixed at ``value``; ``value`` None or negative (or a QD of 0) means "chosen from the run"
    (:func:`pick_held`).  When chosen automatically and the run never varies ``factor`` at any value of
    ``held`` but does vary ``held`` (e.g. read/write mixes measured at one block size), the section shows
    ``held`` against ``factor`` held instead, and says so in its title."""
    auto = value is None or value < 0 or (held == "iodepth" and value == 0)
    if auto:
        value = pick_held(df, factor, held)
    if value is None:
        return operations(df).iloc[0:0].assign(line=pd.Series(dtype="string")), (
            f"This run has no points with a {FACTORS.get(held, held).lower()}."), factor, ""
    rows, message = held_constant(df, factor, {held: value})
    title = f"{FACTORS.get(factor, factor)} at {factor_value_label(held, value)}"
    if rows.empty and auto:
        other = pick_held(df, held, factor)
        if other is not None:
            swapped, swapped_msg = held_constant(df, held, {factor: other})
            if not swapped.empty:
                word = {"bs_bytes": "block size", "iodepth": "queue depth", "rwmixread_pct": "read share"}
                return swapped, swapped_msg, held, (
                    f"{word.get(held, held).capitalize()} at {factor_value_label(factor, other)} (this run varies "
                    f"the {word.get(held, held)} at one {word.get(factor, factor)} only)")
    return rows, message, factor, title
