"""Demand-intensity views: IOPS against outstanding I/O (jobs x QD) with one line per job count and engine (PTS's
demand variation), latency against IOPS (demand intensity), and fio's CPU % per point."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import IOPS_AXIS, TEMPLATE, color, latency_log_axis, log2_axis, message_figure

NO_POINTS = "This run has no closed-loop points to place by outstanding I/O."
CPU_LINE = 90.0  # drawn at the validity flag's CPU-bound threshold (helpers.run.demand.CPU_BOUND_PCT)


def demand_figure(points: pd.DataFrame, title: str = "Demand intensity", knees: pd.DataFrame | None = None) -> go.Figure:
    """Three panels from :func:`helpers.analysis.demand_points`: IOPS vs outstanding I/O (log2 x, one line per
    series, job count and engine), mean total latency vs IOPS (log y), fio's CPU % per job vs outstanding I/O
    (crosses: CPU-bound, at or above the dashed line); ``knees`` (:func:`helpers.analysis.demand_knee_table`): a star
    at each series' knee on outstanding I/O."""
    if points.empty:
        return message_figure(NO_POINTS)
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08, subplot_titles=(
        "IOPS vs outstanding I/O (jobs × QD)", "Mean total latency vs IOPS", "fio CPU % per job (usr + sys)"))
    for i, (line, s) in enumerate(points.groupby("line", sort=False)):
        s = s.sort_values("outstanding_io")
        c = color(i)
        sym = ["x" if b else "circle" for b in s["cpu_bound"].fillna(False)]
        hover = [f"{n} job(s) × QD {q:g}, {e}<br>outstanding {o:g}<br>{v:,.0f} IOPS<br>CPU {p:.0f} %"
                 for n, q, e, o, v, p in zip(s["numjobs"], s["iodepth"], s["ioengine"], s["outstanding_io"],
                                             s["iops"], s["cpu_pct"].fillna(float("nan")))]
        common = dict(legendgroup=line, marker={"color": c, "symbol": sym, "size": 8}, text=hover,
                      hovertemplate="%{text}<extra>" + line + "</extra>")
        fig.add_trace(go.Scatter(x=s["outstanding_io"], y=s["iops"], mode="lines+markers", name=line,
                                 line={"color": c}, **common), 1, 1)
        fig.add_trace(go.Scatter(x=s["iops"], y=s["lat_mean_us"], mode="lines+markers", name=line,
                                 line={"color": c}, showlegend=False, **common), 1, 2)
        fig.add_trace(go.Scatter(x=s["outstanding_io"], y=s["cpu_pct"], mode="markers", name=line,
                                 showlegend=False, **common), 1, 3)
    found = knees[knees["knee_outstanding_io"].notna()] if knees is not None and len(knees) else None
    if found is not None and len(found):
        fig.add_trace(go.Scatter(x=found["knee_outstanding_io"], y=found["knee_iops"], mode="markers", name="knee (outstanding I/O)",
                                 marker={"symbol": "star", "size": 16, "color": "black"},
                                 text=[f"{s}: knee at {q:g} outstanding<br>{v:,.0f} IOPS<br>{c}" for s, q, v, c in
                                       zip(found["series"], found["knee_outstanding_io"], found["knee_iops"], found["setting"])],
                                 hovertemplate="%{text}<extra></extra>"), 1, 1)
    ax = log2_axis(points["outstanding_io"])
    fig.update_xaxes(title_text="Outstanding I/O (numjobs × iodepth, log2)", **ax, row=1, col=1)
    fig.update_xaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=2)
    fig.update_xaxes(title_text="Outstanding I/O (numjobs × iodepth, log2)", **ax, row=1, col=3)
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="Mean total latency (µs, log)", **latency_log_axis(points["lat_mean_us"]), row=1,
                     col=2)
    fig.update_yaxes(title_text="fio CPU % of one CPU per job", rangemode="tozero", row=1, col=3)
    fig.add_hline(y=CPU_LINE, line={"dash": "dash", "color": "grey"}, row=1, col=3)
    fig.update_layout(title=title + " (crosses: fio CPU-bound, ≥ 90 % of a CPU per job: the host's limit)",
                      template=TEMPLATE, height=560, legend={"orientation": "h", "y": -0.3}, margin={"b": 120})
    return fig
