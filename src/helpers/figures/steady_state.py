"""Steady-state convergence figure: the tracked metric round by round with the SNIA window."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure, metric_axis


def steady_state_figure(rounds: pd.DataFrame, result: dict | None = None, metric: str = "iops",
                        title: str = "Steady-state convergence") -> go.Figure:
    """``rounds``: columns ``round`` and ``metric`` (e.g. the manifest's ``steady_state.rounds``).
    ``result``: :class:`helpers.run.steady_state.SteadyState` as a dict.  Draws every round, the
    measurement window, its mean with the ±10 % band (range limit 20 % of the mean) and the
    least-squares line over the window."""
    if rounds is None or len(rounds) == 0:
        return message_figure("No steady-state rounds in this run.")
    rounds = pd.DataFrame(rounds)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=rounds["round"], y=rounds[metric], mode="lines+markers", name=metric))
    res = result or {}
    window = res.get("window") or []
    if window and res.get("mean") is not None:
        mean = res["mean"]
        half = (res.get("excursion_limit") or 0) / 2
        x0, x1 = min(window) - 0.3, max(window) + 0.3
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=mean - half, y1=mean + half, line={"width": 0},
                      fillcolor="rgba(0,150,0,0.12)" if res.get("reached") else "rgba(200,0,0,0.10)")
        fig.add_trace(go.Scatter(x=[x0, x1], y=[mean, mean], mode="lines", name="window mean",
                                 line={"dash": "dash", "color": "gray"}))
        if res.get("slope") is not None:
            xs = np.array(window, dtype=float)
            fig.add_trace(go.Scatter(x=xs, y=res["slope"] * xs + res["intercept"], mode="lines",
                                     name="least-squares fit", line={"color": "black"}))
        status = "steady state reached" if res.get("reached") else "not steady"
        fig.add_annotation(text=f"{status}: {res.get('reason', '')}", x=0, y=1.08, xref="paper", yref="paper",
                           showarrow=False, xanchor="left")
    fig.update_layout(title=title, template=TEMPLATE, xaxis_title="round", yaxis_title=metric_axis(metric),
                      xaxis={"dtick": 1})
    return fig
