"""Open-loop latency figure: latency vs achieved load (the hockey stick)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.analysis.points import latency_columns
from helpers.figures.common import TEMPLATE, message_figure

PERCENTILES = [(50.0, "p50"), (99.0, "p99"), (99.9, "p99.9")]


def openloop_figure(table: pd.DataFrame, title: str = "Latency vs achieved load (open loop)") -> go.Figure:
    """``table`` from :func:`helpers.analysis.openloop.openloop_table`.  Points where the device
    achieved < 95 % of the offered load are drawn as open red markers and labelled."""
    if table is None or table.empty:
        return message_figure("No open-loop points (profile with rate_iops) in this run.")
    lc = latency_columns(table)  # total latency when fio measured it, else completion latency, never mixed
    fig = go.Figure()
    for p, name in PERCENTILES:
        col = lc.columns[p]
        if col not in table.columns:
            continue
        fig.add_trace(go.Scatter(
            x=table["achieved_iops"], y=table[col], mode="lines+markers", name=name,
            customdata=table[["offered_iops", "achieved_fraction"]],
            hovertemplate=(f"{name}: %{{y:.0f}} µs<br>achieved %{{x:.0f}} IOPS<br>offered %{{customdata[0]:.0f}} "
                           "(%{customdata[1]:.0%})<extra></extra>"),
        ))
    sat = table[table["saturated"]]
    if not sat.empty and lc.columns[99.0] in table.columns:
        fig.add_trace(go.Scatter(
            x=sat["achieved_iops"], y=sat[lc.columns[99.0]], mode="markers+text", name="achieved < 95 % of offered",
            marker={"symbol": "circle-open", "size": 16, "color": "red", "line": {"width": 2}},
            text=[f"offered {o:.0f}" for o in sat["offered_iops"]], textposition="top center",
        ))
    fig.update_layout(title=title, template=TEMPLATE, xaxis_title="achieved IOPS",
                      yaxis_title=f"{lc.name} (µs)", yaxis_type="log", hovermode="closest")
    return fig
