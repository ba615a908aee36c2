"""SNIA PTS XSR figure: throughput, mean and maximum total response time per sample against time, the three
segments shaded.  A pure builder of :func:`helpers.analysis.pts_xsr.xsr_series`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import TEMPLATE, message_figure

SEGMENT_COLOURS = {1: "rgba(31,119,180,0.08)", 2: "rgba(214,39,40,0.08)", 3: "rgba(44,160,44,0.08)"}


def xsr_figure(series: pd.DataFrame, recovery_s: float | None = None,
               empty: str = "This run has no XSR test.") -> go.Figure:
    """Top: write throughput per sample (MB/s); bottom: mean and maximum total response time (ms, log)."""
    if series is None or series.empty:
        return message_figure(empty)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("throughput", "response time"))
    fig.add_trace(go.Scatter(x=series["t_s"], y=series["bytes_per_s"] / 1e6, mode="lines+markers",
                             name="throughput (MB/s)"), row=1, col=1)
    fig.add_trace(go.Scatter(x=series["t_s"], y=series["lat_mean_us"] / 1000, mode="lines+markers",
                             name="mean response time (ms)"), row=2, col=1)
    fig.add_trace(go.Scatter(x=series["t_s"], y=series["lat_max_us"] / 1000, mode="lines+markers",
                             name="max response time (ms)"), row=2, col=1)
    step = float(series["t_s"].diff().median()) if len(series) > 1 else float(series["t_s"].iloc[0])
    for seg, g in series.groupby("segment"):
        fig.add_vrect(x0=float(g["t_s"].min()) - step, x1=float(g["t_s"].max()),
                      fillcolor=SEGMENT_COLOURS.get(int(seg), "rgba(0,0,0,0.05)"), line_width=0,
                      annotation_text=f"segment {int(seg)}", annotation_position="top left")
    fig.update_yaxes(title_text="write MB/s (10^6 bytes/s)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="total latency (ms)", type="log", row=2, col=1)
    fig.update_xaxes(title_text="time (s)", row=2, col=1)
    rec = f"; segment 3 back at segment 1's mean after {recovery_s:g} s" if recovery_s is not None else ""
    fig.update_layout(title=f"XSR: sequential 1024k, random 8k, sequential 1024k writes (T1){rec}",
                      template=TEMPLATE, height=650)
    return fig

