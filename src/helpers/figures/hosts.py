"""Multi-host figure: per-host IOPS of every point with the all-hosts aggregate."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure, metric_axis


def hosts_figure(table: pd.DataFrame, metric: str = "iops", title: str = "Per-host and aggregate") -> go.Figure:
    """``table`` from :func:`helpers.analysis.hosts.host_table`: grouped bars per host and a
    marker for the aggregate ("all hosts")."""
    if table is None or table.empty:
        return message_figure("No multi-host points in this run.")
    t = table.assign(label=table["point_id"].astype(str) + " (" + table["direction"].astype(str) + ")")
    fig = go.Figure()
    for host, g in t[t["host"] != "all hosts"].groupby("host"):
        fig.add_trace(go.Bar(x=g["label"], y=g[metric], name=str(host)))
    agg = t[t["host"] == "all hosts"]
    fig.add_trace(go.Scatter(x=agg["label"], y=agg[metric], mode="markers", name="all hosts",
                             marker={"symbol": "diamond", "size": 12, "color": "black"}))
    fig.update_layout(title=title, template=TEMPLATE, barmode="group", yaxis_title=metric_axis(metric),
                      xaxis_title="point (direction)")
    return fig
