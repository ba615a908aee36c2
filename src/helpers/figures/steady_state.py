"""Steady-state figures: the tracked metric round by round with the PTS measurement window (values, average,
±half the range limit band, least-squares line), for snia-lite runs and each tracked variable of a PTS run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure, metric_axis


def steady_state_figure(rounds: pd.DataFrame, result: dict | None = None, metric: str = "iops",
                        title: str = "Steady-state convergence") -> go.Figure:
    """``rounds``: columns ``round`` and ``metric`` (e.g. the manifest's ``steady_state.rounds``).
    ``result``: :func:`helpers.analysis.pts_steady_state`'s verdict as a dict (``steady``, ``first_round``,
    ``last_round``, ``average``, ``max_range_pct``, ``slope``, ``intercept``, ``reason``).  Draws every round,
    the measurement window, its average with the ±``max_range_pct``/2 band (±10 % for the PTS's 20 % range)
    and the least-squares line over the window."""
    if rounds is None or len(rounds) == 0:
        return message_figure("No steady-state rounds in this run.")
    rounds = pd.DataFrame(rounds)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=rounds["round"], y=rounds[metric], mode="lines+markers", name=metric))
    res = result or {}
    first, last, average = res.get("first_round"), res.get("last_round"), res.get("average")
    if first is not None and last is not None and average is not None:
        half = abs(average) * (res.get("max_range_pct") or 0) / 200
        x0, x1 = first - 0.3, last + 0.3
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=average - half, y1=average + half, line={"width": 0},
                      fillcolor="rgba(0,150,0,0.12)" if res.get("steady") else "rgba(200,0,0,0.10)")
        fig.add_trace(go.Scatter(x=[x0, x1], y=[average, average], mode="lines", name="window average",
                                 line={"dash": "dash", "color": "gray"}))
        if res.get("slope") is not None and res.get("intercept") is not None:
            xs = np.arange(first, last + 1, dtype=float)
            fig.add_trace(go.Scatter(x=xs, y=res["slope"] * xs + res["intercept"], mode="lines",
                                     name="least-squares fit", line={"color": "black"}))
        status = "steady state reached" if res.get("steady") else "not steady"
        fig.add_annotation(text=f"{status}: {res.get('reason', '')}", x=0, y=1.08, xref="paper", yref="paper",
                           showarrow=False, xanchor="left")
    fig.update_layout(title=title, template=TEMPLATE, xaxis_title="round", yaxis_title=metric_axis(metric),
                      xaxis={"dtick": 1})
    return fig
