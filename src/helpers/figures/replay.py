"""Replay views: how far behind the trace fio issued each I/O, and latency per I/O of the replay, the clone and
the trace's own.  Inputs come from :mod:`helpers.analysis.replay` (via helpers.notebook.replay)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, color, message_figure

OP_COLOR = {"read": color(0), "write": color(1), "trim": color(2)}
ECDF_POINTS = 2000  # at most this many points per drawn distribution (evenly spaced in rank)
LAG_POINTS = 20000  # at most this many I/Os drawn in the lag figure (every k-th in trace order; the text has all)


def lag_figure(matched: pd.DataFrame, text: str, empty: str) -> go.Figure:
    """Lag (ms: the replay's issue time less the trace's) of every replayed I/O against the trace's time."""
    if matched.empty:
        return message_figure(empty)
    fig = go.Figure()
    step = -(-len(matched) // LAG_POINTS)
    if step > 1:
        text += f" (one I/O in {step} drawn)"
    for op, g in matched.iloc[::step].groupby("op", sort=False):
        fig.add_scatter(x=g["trace_s"], y=g["lag_ms"], mode="markers", name=str(op), marker={
            "color": OP_COLOR.get(str(op)), "size": 5}, hovertemplate="trace %{x:.4f} s: %{y:.2f} ms behind"
            "<extra>" + str(op) + "</extra>")
    fig.add_hline(y=0, line={"color": "#888", "dash": "dot"})
    fig.update_layout(template=TEMPLATE, height=420, title={"text": f"Achieved timing against the trace<br><sup>{text}"
                                                            "</sup>"}, margin={"t": 100},
                      xaxis_title="the trace's time (s since its first I/O, scaled)",
                      yaxis_title="lag (ms: issued this much after the trace's time)")
    return fig


def latency_figure(latencies: dict[str, pd.Series], empty: str) -> go.Figure:
    """Latency per I/O (total: issue to completion, µs) as distributions: the replay's, the clone's and the trace's
    own (where it has completions), log scale."""
    drawn = {k: np.sort(v.to_numpy(dtype="float64")) for k, v in latencies.items() if len(v)}
    if not drawn:
        return message_figure(empty)
    fig = go.Figure()
    for i, (name, v) in enumerate(drawn.items()):
        idx = np.unique(np.linspace(0, len(v) - 1, min(len(v), ECDF_POINTS)).astype(int))
        fig.add_scatter(x=v[idx], y=100 * (idx + 1) / len(v), mode="lines", name=f"{name} ({len(v):,} I/Os)",
                        line={"color": color(i), "shape": "hv"},
                        hovertemplate="%{y:.1f} % of I/Os within %{x:,.1f} µs<extra>" + name + "</extra>")
    fig.update_layout(template=TEMPLATE, height=420, title="Latency per I/O: replay, clone and the trace's own",
                      xaxis={"type": "log", "title": "latency (µs, total: issue to completion; the trace's: its "
                                                     "issue to its completion event)"},
                      yaxis_title="% of I/Os at or below")
    return fig
