"""SNIA PTS DIRTH figures: demand variation (IOPS against QD, one line per thread count), demand intensity (mean
response time against IOPS, one line per thread count, the ceiling and the operating points marked), the
response-time histograms at the operating points and CPU per threads x QD.  Pure builders of the frames
:mod:`helpers.analysis.pts_dirth` makes."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, level_trace, message_figure

NO_DIRTH = "This run has no DIRTH test: run the pts or pts-lite profile with dirth among its tests."


def demand_variation_figure(table: pd.DataFrame, empty: str = NO_DIRTH, name: str = "DIRTH") -> go.Figure:
    """IOPS (all directions, window average) against queue depth per thread, one line per thread count."""
    if table is None or table.empty:
        return message_figure(empty)
    fig = go.Figure()
    for t in sorted(table["numjobs"].unique(), reverse=True):
        g = table[table["numjobs"] == t].sort_values("iodepth")
        fig.add_trace(go.Scatter(x=g["iodepth"], y=g["iops"], mode="lines+markers", name=f"T{int(t)}"))
    fig.update_layout(title=f"{name} demand variation: IOPS against queue depth, one line per thread count",
                      template=TEMPLATE, xaxis={"title": "queue depth per thread", "type": "log",
                                                "tickvals": sorted(table["iodepth"].unique())},
                      yaxis={"title": "IOPS (all directions)", "rangemode": "tozero"})
    return fig


def demand_intensity_figure(table: pd.DataFrame, points: pd.DataFrame | None = None, art_limit_us: float = 5000.0,
                            empty: str = NO_DIRTH, name: str = "DIRTH") -> go.Figure:
    """Mean total response time against IOPS, one line per thread count (QD rising along it), the ceiling of
    the max operating point dashed and the chosen operating points marked."""
    if table is None or table.empty:
        return message_figure(empty)
    fig = go.Figure()
    for t in sorted(table["numjobs"].unique(), reverse=True):
        g = table[table["numjobs"] == t].sort_values("iodepth")
        fig.add_trace(go.Scatter(x=g["iops"], y=g["lat_mean_us"] / 1000, mode="lines+markers", name=f"T{int(t)}",
                                 text=[f"T{int(t)}/Q{int(q)}" for q in g["iodepth"]]))
    if points is not None and not points.empty:
        p = points.dropna(subset=["threads"])
        fig.add_trace(go.Scatter(x=p["window IOPS"], y=p["window mean response time (µs)"] / 1000, mode="markers+text",
                                 name="operating points", text=p["operating point"], textposition="top center",
                                 marker={"size": 14, "symbol": "diamond-open", "color": "black"}))
    fig.add_trace(level_trace(float(table["iops"].min()), float(table["iops"].max()), art_limit_us / 1000,
                              f"ceiling {art_limit_us / 1000:g} ms (max operating point)"))
    fig.update_layout(title=f"{name} demand intensity: mean response time against IOPS, one line per thread count",
                      template=TEMPLATE, xaxis={"title": "IOPS (all directions)"},
                      yaxis={"title": "mean total response time (ms)", "type": "log"})
    return fig


def histograms_figure(bins: pd.DataFrame, empty: str = NO_DIRTH, name: str = "DIRTH") -> go.Figure:
    """The share of I/Os per latency bin at each operating point (log axes: the tail stays visible)."""
    if bins is None or bins.empty:
        return message_figure(empty)
    fig = go.Figure()
    for point, g in bins.groupby("operating point", sort=False):
        fig.add_trace(go.Scatter(x=g["latency_us"], y=g["share"] * 100, mode="lines+markers", name=str(point),
                                 line={"shape": "hv"}))
    kinds = sorted(set(bins["latency"])) if "latency" in bins.columns else []
    kind = f"{kinds[0]} latency" if len(kinds) == 1 else "response time"
    fig.update_layout(title=f"{name} response-time histograms at the max, mid and min operating points",
                      template=TEMPLATE, xaxis={"title": f"{kind} (µs, fio histogram bin)", "type": "log"},
                      yaxis={"title": "share of I/Os (%)", "type": "log"})
    return fig


def cpu_figure(table: pd.DataFrame, empty: str = NO_DIRTH, name: str = "DIRTH") -> go.Figure:
    """fio's CPU (user + system, as fio reports it for the point's jobs) per threads x QD, a heat map."""
    if table is None or table.empty or table["cpu_pct"].isna().all():
        return message_figure(empty)
    wide = table.pivot(index="numjobs", columns="iodepth", values="cpu_pct").sort_index()
    fig = go.Figure(go.Heatmap(z=wide.to_numpy(), x=[f"Q{int(c)}" for c in wide.columns],
                               y=[f"T{int(i)}" for i in wide.index], colorbar={"title": "CPU %"},
                               texttemplate="%{z:.0f}"))
    fig.update_layout(title=f"{name}: fio CPU % (user + system, as fio reports it for the jobs) per threads x QD",
                      template=TEMPLATE,
                      xaxis={"title": "queue depth per thread"}, yaxis={"title": "threads (fio numjobs)"})
    return fig
