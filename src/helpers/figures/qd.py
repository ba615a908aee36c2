"""Queue-depth view: throughput and latency against queue depth."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import TEMPLATE, log2_axis, message_figure


def qd_figure(series: pd.DataFrame, title: str = "Queue depth") -> go.Figure:
    """IOPS (left) and mean / p99 completion latency (right, log axis) against queue depth.

    ``series`` is the output of :func:`helpers.analysis.qd_series`.
    """
    if series.empty:
        return message_figure("This run has no queue-depth sweep (no series with two or more iodepths).")
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Throughput", "Latency"), horizontal_spacing=0.1)
    for i, (name, s) in enumerate(series.groupby("series", sort=False)):
        color = f"hsl({(i * 67) % 360},65%,45%)"
        fig.add_trace(go.Scatter(x=s["iodepth"], y=s["iops"], mode="lines+markers", name=f"{name} IOPS",
                                 legendgroup=name, line={"color": color},
                                 hovertemplate="QD %{x}<br>%{y:,.0f} IOPS<extra>" + name + "</extra>"), 1, 1)
        fig.add_trace(go.Scatter(x=s["iodepth"], y=s["lat_mean_us"], mode="lines+markers",
                                 name=f"{name} mean latency", legendgroup=name, line={"color": color},
                                 hovertemplate="QD %{x}<br>mean %{y:,.1f} µs<extra>" + name + "</extra>"), 1, 2)
        fig.add_trace(go.Scatter(x=s["iodepth"], y=s["clat_p99_us"], mode="lines+markers",
                                 name=f"{name} p99 latency", legendgroup=name,
                                 line={"color": color, "dash": "dot"},
                                 hovertemplate="QD %{x}<br>p99 %{y:,.1f} µs<extra>" + name + "</extra>"), 1, 2)
    ax = log2_axis(series["iodepth"])
    fig.update_xaxes(title_text="Queue depth (iodepth, log2)", **ax, row=1, col=1)
    fig.update_xaxes(title_text="Queue depth (iodepth, log2)", **ax, row=1, col=2)
    fig.update_yaxes(title_text="IOPS (I/O per second)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="Latency (µs, log)", type="log", row=1, col=2)
    fig.update_layout(title=title, template=TEMPLATE, height=480, legend={"orientation": "h", "y": -0.25})
    return fig
