"""SNIA PTS WSAT's optional response-time figure: a pure builder of :mod:`helpers.analysis.pts_wsat`'s frames."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, level_trace, message_figure


def wsat_latency_figure(series: pd.DataFrame, summary: pd.DataFrame | None = None,
                        empty: str = "This run has no WSAT test.", tail: pd.DataFrame | None = None) -> go.Figure:
    """WSAT response time against time: the mean total response time per log window; per histogram window the
    99.999 % (filled markers where the window has enough I/Os, open where it has too few) and the maximum of
    completion latency; the whole test's 99.999 % and maximum dashed (when measured)."""
    if (series is None or series.empty) and (tail is None or tail.empty):
        return message_figure(empty)
    fig = go.Figure()
    if series is not None and not series.empty:
        fig.add_trace(go.Scatter(x=series["t_s"], y=series["lat_mean_us"] / 1000, mode="lines+markers",
                                 name="mean total latency per window"))
    if tail is not None and not tail.empty:
        ok = tail["reliable"].astype(bool)
        for sel, label, symbol in ((ok, "99.999 % per window (>= 100,000 I/Os)", "diamond"),
                                   (~ok, "99.999 % per window (too few I/Os)", "diamond-open")):
            if sel.any():
                fig.add_trace(go.Scatter(x=tail["t_s"][sel], y=tail["p99_999_us"][sel] / 1000, mode="markers",
                                         marker={"symbol": symbol, "size": 7}, name=label,
                                         customdata=tail["ios"][sel],
                                         hovertemplate="%{y:.3f} ms at %{x} s, %{customdata:,} I/Os<extra></extra>"))
        fig.add_trace(go.Scatter(x=tail["t_s"], y=tail["max_us"] / 1000, mode="lines", line={"dash": "dot"},
                                 name="max completion latency per window"))
    if summary is not None and not summary.empty:
        row = summary.iloc[0]
        have = [d["t_s"].astype(float) for d in (series, tail) if d is not None and not d.empty]
        xs, xe = [t.min() for t in have] or [0.0], [t.max() for t in have] or [1.0]
        for col, label, dash in (("99.999 % (µs)", "99.999 % (whole WSAT, total latency)", "dash"),
                                 ("max response time (µs)", "max (whole WSAT, total latency)", "dashdot")):
            if pd.notna(row[col]):
                fig.add_trace(level_trace(min(xs), max(xe), float(row[col]) / 1000, label, dash, "gray"))
    fig.update_layout(title="WSAT response time over time: mean (total latency), 99.999 % and maximum (completion "
                            "latency) per window", template=TEMPLATE, xaxis={"title": "time (s)"},
                      yaxis={"title": "latency (ms, log scale)", "type": "log"},
                      legend={"orientation": "h", "y": -0.2})
    return fig
