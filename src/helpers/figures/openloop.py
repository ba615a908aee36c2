"""Open-loop latency figure: latency vs achieved load (the hockey stick)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.analysis.points import latency_columns
from helpers.figures.common import TEMPLATE, drawn_values, latency_log_axis, message_figure
from helpers.fio.units import format_bytes

PERCENTILES = [(50.0, "p50"), (99.0, "p99"), (99.9, "p99.9")]
SERIES = ["run_id", "rw", "bs_bytes", "iodepth"]  # one line per run and workload: loads of one series only


def _series(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows by offered load) per series; the label is empty when there is only one."""
    keys = [k for k in SERIES if k in table.columns]
    groups = [g.sort_values("offered_iops") for _, g in table.groupby(keys, sort=False, dropna=False)] \
        if keys else [table]
    if len(groups) == 1:
        return [("", groups[0])]
    runs = "run_id" in table.columns and table["run_id"].nunique() > 1
    return [((f"{g['run_id'].iloc[0]}: " if runs else "") +
             f"{g['rw'].iloc[0]} {format_bytes(g['bs_bytes'].iloc[0])} QD{g['iodepth'].iloc[0]}", g) for g in groups]


def openloop_figure(table: pd.DataFrame, title: str = "Latency vs achieved load (open loop)") -> go.Figure:
    """``table`` from :func:`helpers.analysis.openloop.openloop_table`: one line per percentile and series (run,
    rw, bs, QD), through its offered loads in order.  Points where the device achieved < 95 % of the offered
    load are drawn as open red markers and labelled."""
    if table is None or table.empty:
        return message_figure("No open-loop points (profile with rate_iops) in this run.")
    lc = latency_columns(table)  # total latency when fio measured it, else completion latency, never mixed
    fig = go.Figure()
    for label, g in _series(table):
        for p, name in PERCENTILES:
            col = lc.columns[p]
            if col not in g.columns:
                continue
            shown = f"{name} {label}" if label else name
            fig.add_trace(go.Scatter(
                x=g["achieved_iops"], y=g[col], mode="lines+markers", name=shown,
                customdata=g[["offered_iops", "achieved_fraction"]],
                hovertemplate=(f"{shown}: %{{y:.0f}} µs<br>achieved %{{x:.0f}} IOPS<br>offered "
                               "%{customdata[0]:.0f} (%{customdata[1]:.0%})<extra></extra>"),
            ))
    sat = table[table["saturated"]]
    if not sat.empty and lc.columns[99.0] in table.columns:
        fig.add_trace(go.Scatter(
            x=sat["achieved_iops"], y=sat[lc.columns[99.0]], mode="markers+text", name="achieved < 95 % of offered",
            marker={"symbol": "circle-open", "size": 16, "color": "red", "line": {"width": 2}},
            text=[f"offered {o:.0f}" for o in sat["offered_iops"]], textposition="top center",
        ))
    fig.update_layout(title=title, template=TEMPLATE, xaxis_title="achieved IOPS",
                      yaxis_title=f"{lc.name} (µs)", hovermode="closest")
    fig.update_yaxes(**latency_log_axis(drawn_values(fig)))
    return fig
