"""Bursts that run out: a drain's rate over time with the burst, the drop and the baseline marked, and the
drains after each rest drawn over it (issue 33).

Input is :func:`helpers.analysis.point_series` output; the buckets are :func:`helpers.analysis.burst_series`'s
(every window; long series are reduced for display only, as in the time-series figures).  The title is the
finding in one sentence (and the refill's, when a rest said something of its own).  A dropdown picks the drain
when the run has several.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.analysis.burst import burst_series
from helpers.figures.common import TEMPLATE, color, message_figure, wrap_html
from helpers.figures.timeseries import DISPLAY_MAX_WINDOWS, TITLE_WIDTH, display_reduce

NO_BURST_DATA = ("This run has no sustained-write or burst time series: run the burst profile (or sustained-write) "
                 "to size a burst bucket.")


def _scale(unit: str) -> tuple[float, str, str]:
    """(divisor, axis title, hover format) of a rate unit."""
    if unit == "bytes/s":
        return 1e6, "Rate per window (MB/s, decimal)", "%{y:,.0f} MB/s at %{x:.3g} s"
    return 1.0, "Rate per window (IOPS)", "%{y:,.0f} IOPS at %{x:.3g} s"


def burst_figure(series: pd.DataFrame | None, manifests: dict | None = None,
                 max_windows: int = DISPLAY_MAX_WINDOWS) -> go.Figure:
    """Each drain's rate per window against seconds from its start; the burst and the baseline as thick
    horizontal lines at their rates over the time they held, the drop as a dashed vertical line; each drain after
    a rest in a lighter colour over its own time from its start.  Title: the bucket in one sentence.
    ``manifests`` (run id -> manifest): the rests as the device saw them (:func:`helpers.analysis.burst_series`)."""
    drains = burst_series(series, manifests)
    if not drains:
        return message_figure(NO_BURST_DATA)
    fig = go.Figure()
    owner, layouts, top = [], [], 80
    multi_run = len({d.run_id for d in drains}) > 1
    for i, d in enumerate(drains):
        div, axis, hover = _scale(d.unit)
        tb = d.bucket
        x, y, red = display_reduce(d.t_s, d.rate / div, max_windows)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers" if len(x) < 20 else "lines", name="first drain",
                                 line={"color": color(0)}, hovertemplate=hover + "<extra></extra>"))
        owner.append(i)
        for k, (rest, t, r) in enumerate(d.rests):
            if not len(t):
                continue
            rx, ry, _ = display_reduce(t, r / div, max_windows)
            fig.add_trace(go.Scatter(x=rx, y=ry, mode="lines", name=f"after a {rest:.3g} s rest", opacity=0.7,
                                     line={"color": color(2 + k), "width": 1},
                                     hovertemplate=hover + f" after a {rest:.3g} s rest<extra></extra>"))
            owner.append(i)
        shapes = []
        if tb.found:
            end = float(d.t_s[-1])
            fig.add_trace(go.Scatter(x=[0, tb.drop_s, None, tb.drop_s, end],
                                     y=[tb.burst_rate / div] * 2 + [None] + [tb.baseline_rate / div] * 2,
                                     mode="lines", name="burst, then baseline", line={"color": color(1), "width": 3},
                                     hovertemplate="%{y:,.0f}<extra></extra>"))
            owner.append(i)
            shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": tb.drop_s, "x1": tb.drop_s,
                           "y0": 0, "y1": 1, "line": {"dash": "dash", "color": "black"}})
        label = f"{d.run_id}: {d.point_id}" if multi_run else d.point_id
        note = " (drawn as min/max per bucket of windows; the analysis uses every window)" if red else ""
        text = " ".join(x for x in (f"{label}: {tb.reason}{note}", tb.refill_reason) if x)
        title = wrap_html(text, TITLE_WIDTH)
        top = max(top, 60 + 20 * title.count("<br>"))
        layouts.append({"shapes": shapes, "title": {"text": title}, "yaxis.title.text": axis})
    masks = [[o == i for o in owner] for i in range(len(drains))]
    for trace, visible in zip(fig.data, masks[0]):
        trace.visible = visible
    fig.update_layout(layouts[0], template=TEMPLATE, height=420 + top, margin={"t": top})
    fig.update_xaxes(title_text="Seconds from the drain's start", rangemode="tozero")
    fig.update_yaxes(rangemode="tozero")
    if len(drains) > 1:
        fig.update_layout(updatemenus=[{"type": "dropdown", "x": 1.0, "xanchor": "right", "y": 1.18,
                                        "buttons": [{"label": d.point_id, "method": "update",
                                                     "args": [{"visible": masks[i]}, layouts[i]]}
                                                    for i, d in enumerate(drains)]}])
    return fig
