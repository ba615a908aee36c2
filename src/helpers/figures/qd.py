"""Queue-depth view: throughput and latency against queue depth, and the throughput-latency trade-off."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.analysis.points import with_latency
from helpers.figures.common import (
    IOPS_AXIS,
    MB_AXIS,
    QD_AXIS,
    TEMPLATE,
    add_step_slider,
    color,
    flag_notes,
    flag_symbols,
    latency_log_axis,
    latency_name,
    log2_axis,
    message_figure,
    side_legend,
)
from helpers.fio.units import format_bytes

NO_SWEEP = "This run has no queue-depth sweep (no series with two or more iodepths)."


def _latency(s: pd.DataFrame) -> str:
    return latency_name(s["percentile_latency"] if "percentile_latency" in s else [])


def _prepare(series: pd.DataFrame) -> pd.DataFrame:
    s = with_latency(series) if "percentile_latency" not in series else series.copy()
    if "mb_per_s" not in s:
        s["mb_per_s"] = s["bw_bytes_per_s"] / 1e6
    if "flag_reasons" not in s:
        s["flag_reasons"] = ""
    s["flag_reasons"] = s["flag_reasons"].fillna("").astype(str)
    s["flagged"] = s["flag_reasons"] != ""
    return s


def _lat_axis(s: pd.DataFrame) -> dict:
    return latency_log_axis(pd.concat([s[c] for c in ("lat_mean_us", "p50_us", "p99_us") if c in s]))


def _bs_steps(groups: list[int]) -> list[tuple[str, list[bool]]]:
    sizes = sorted(set(groups))
    steps = [(format_bytes(b), [g == b for g in groups]) for b in sizes]
    if len(sizes) > 1:
        steps.append(("all", [True] * len(groups)))
    return steps


def qd_figure(series: pd.DataFrame, title: str = "Queue depth", empty: str = NO_SWEEP) -> go.Figure:
    """IOPS, bandwidth (MB/s) and mean / p50 / p99 latency (log axis) against queue depth (log2 x).

    ``series`` is the output of :func:`helpers.analysis.qd_series`.  When the run has queue-depth
    series at several block sizes a slider steps through them; flagged points are crosses.  ``empty`` is the
    sentence shown when there is no series.
    """
    if series.empty:
        return message_figure(empty)
    s_all = _prepare(series)
    lname = _latency(s_all)
    # panel titles short enough for their panel at a 1400 px page: the latency panel's long title ran into the
    # legend's title beside it (which latency each line is: the figure title and the axis say)
    fig = make_subplots(rows=1, cols=3, subplot_titles=("Throughput (IOPS)", "Bandwidth (MB/s)", "Latency (µs, log)"),
                        horizontal_spacing=0.08)
    groups: list[int] = []
    for i, (name, s) in enumerate(s_all.groupby("series", sort=False)):
        c = color(i)
        notes = flag_notes(s["flag_reasons"])
        marker = {"symbol": flag_symbols(s["flagged"]), "size": 8}
        specs = [("iops", 1, f"{name} IOPS", "solid", "%{y:,.0f} IOPS"),
                 ("mb_per_s", 2, f"{name} MB/s", "solid", "%{y:,.1f} MB/s"),
                 ("lat_mean_us", 3, f"{name} mean total latency", "solid", "mean total latency %{y:,.1f} µs"),
                 ("p50_us", 3, f"{name} p50 {lname}", "dash", f"p50 {lname} %{{y:,.1f}} µs"),
                 ("p99_us", 3, f"{name} p99 {lname}", "dot", f"p99 {lname} %{{y:,.1f}} µs")]
        for col, panel, label, dash, fmt in specs:
            if col not in s or s[col].isna().all():
                continue
            # one legend entry per series (its IOPS trace; the line styles are in the title): a legend of every
            # metric of every series grew to 40 entries over the slider
            fig.add_trace(go.Scatter(
                x=s["iodepth"], y=s[col], mode="lines+markers", name=label, legendgroup=name,
                line={"color": c, "dash": dash}, marker=marker, customdata=notes,
                hovertemplate="QD %{x}<br>" + fmt + "%{customdata}<extra>" + name + "</extra>"), 1, panel)
            groups.append(int(s["bs_bytes"].iloc[0]))
    ax = log2_axis(s_all["iodepth"])
    for col in (1, 2, 3):
        fig.update_xaxes(title_text=QD_AXIS, **ax, row=1, col=col)
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=MB_AXIS, rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text=f"Mean total latency; p50, p99 {lname} (µs, log)", **_lat_axis(s_all), row=1, col=3)
    # the title above the panels' own titles, the legend to the right (a click hides a series in every panel), the
    # slider alone below the axes: nothing drawn over anything else
    fig.update_layout(title={"text": title + f" (solid: mean total latency, dashed: p50, dotted: p99 {lname}; "
                             "crosses: flagged points)", "y": 0.98, "yanchor": "top"},
                      template=TEMPLATE, height=600, margin={"t": 110, "b": 150})
    side_legend(fig)
    add_step_slider(fig, _bs_steps(groups), "Block size: ", y=-0.3, held="block size")
    return fig


def qd_tradeoff_figure(series: pd.DataFrame, title: str = "Throughput-latency trade-off") -> go.Figure:
    """Latency (log y) against IOPS, one curve per queue-depth series, each point labelled with its
    QD: the further right a curve goes before it turns up, the more throughput the device gives
    before queueing only adds latency.  Dotted: p99, solid: mean; a slider steps through block sizes
    when there are several."""
    if series.empty:
        return message_figure(NO_SWEEP)
    s_all = _prepare(series)
    lname = _latency(s_all)
    fig = go.Figure()
    groups: list[int] = []
    for i, (name, s) in enumerate(s_all.groupby("series", sort=False)):
        notes = flag_notes(s["flag_reasons"])
        for col, dash in (("p99_us", "dot"), ("lat_mean_us", "solid")):
            if col not in s or s[col].isna().all():
                continue
            what = f"p99 {lname}" if col == "p99_us" else "mean total latency"
            fig.add_trace(go.Scatter(
                x=s["iops"], y=s[col], mode="lines+markers+text", name=f"{name} ({what})",
                text=[f"QD{q}" for q in s["iodepth"]], textposition="top left",
                line={"color": color(i), "dash": dash},
                marker={"symbol": flag_symbols(s["flagged"]), "size": 9}, customdata=list(zip(s["iodepth"], notes)),
                hovertemplate="QD %{customdata[0]}<br>%{x:,.0f} IOPS<br>" + what + " %{y:,.1f} µs%{customdata[1]}"
                              "<extra>" + name + "</extra>"))
            groups.append(int(s["bs_bytes"].iloc[0]))
    fig.update_xaxes(title_text=IOPS_AXIS, rangemode="tozero")
    fig.update_yaxes(title_text=f"Latency (µs, log): mean total latency, p99 {lname}", **_lat_axis(s_all))
    fig.update_layout(title=title + f" (points labelled by QD; dotted: p99 {lname}, solid: mean total latency; "
                      "crosses: flagged points)",
                      template=TEMPLATE, height=560, legend={"orientation": "h", "y": -0.45}, margin={"b": 120})
    add_step_slider(fig, _bs_steps(groups), "Block size: ", y=-0.2, held="block size")
    return fig
