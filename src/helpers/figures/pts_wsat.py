"""SNIA PTS WSAT's optional response-time figure: a pure builder of :mod:`helpers.analysis.pts_wsat`'s frames."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure


def wsat_latency_figure(series: pd.DataFrame, summary: pd.DataFrame | None = None,
                        empty: str = "This run has no WSAT test.") -> go.Figure:
    """WSAT mean total response time per log window against time; the whole test's 99.999 % and maximum dashed
    (when measured)."""
    if series is None or series.empty:
        return message_figure(empty)
    fig = go.Figure(go.Scatter(x=series["t_s"], y=series["lat_mean_us"] / 1000, mode="lines+markers",
                               name="mean response time per window"))
    if summary is not None and not summary.empty:
        row = summary.iloc[0]
        for col, label in (("99.999 % (µs)", "99.999 % (whole WSAT)"), ("max response time (µs)", "max (whole WSAT)")):
            if pd.notna(row[col]):
                fig.add_hline(y=float(row[col]) / 1000, line_dash="dash", annotation_text=label)
    fig.update_layout(title="WSAT response time: mean per window; 99.999 % and maximum over the whole test",
                      template=TEMPLATE, xaxis={"title": "time (s)"},
                      yaxis={"title": "total latency (ms)", "type": "log"})
    return fig
