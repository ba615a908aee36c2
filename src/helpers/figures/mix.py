"""Read/write-mix view: IOPS, bandwidth and latency against the read share, per direction and total."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import (
    IOPS_AXIS,
    MB_AXIS,
    TEMPLATE,
    add_step_slider,
    color,
    flag_notes,
    flag_symbols,
    latency_log_axis,
    message_figure,
)

DIRECTION_STYLE = {"read": (color(0), "solid", 2), "write": (color(1), "solid", 2), "total": ("#222", "dash", 3)}


def mix_figure(series: pd.DataFrame, title: str = "Read/write mix") -> go.Figure:
    """IOPS, bandwidth (MB/s) and mean latency (log) against read percentage (0 = all writes,
    100 = all reads): read and write directions as measured and their total (IOPS and bandwidth
    summed, latency IOPS-weighted).  A slider steps through the block size / QD series.

    ``series`` is the output of :func:`helpers.analysis.mix_series`.
    """
    if series.empty:
        return message_figure("This run has no read/write-mix sweep (no rw/randrw workload at two or more read shares).")
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("IOPS", "Bandwidth (MB/s)", "Mean total latency (µs, log)"))
    groups: list[str] = []
    names = list(dict.fromkeys(series["series"]))
    for name in names:
        s_series = series[series["series"] == name]
        for direction in ("read", "write", "total"):
            s = s_series[s_series["direction"] == direction].sort_values("rwmixread_pct")
            if s.empty:
                continue
            c, dash, width = DIRECTION_STYLE[direction]
            notes = flag_notes(s["flag_reasons"])
            for k, (col, fmt) in enumerate((("iops", "%{y:,.0f} IOPS"), ("mb_per_s", "%{y:,.1f} MB/s"),
                                            ("lat_mean_us", "mean total latency %{y:,.1f} µs"))):
                fig.add_trace(go.Scatter(
                    x=s["rwmixread_pct"], y=s[col], mode="lines+markers", name=direction, legendgroup=direction,
                    showlegend=k == 0 and name == names[0], line={"color": c, "dash": dash, "width": width},
                    marker={"symbol": flag_symbols(s["flagged"]), "size": 8}, customdata=notes,
                    hovertemplate=f"{name} {direction}<br>%{{x:.0f}}% reads<br>{fmt}%{{customdata}}<extra></extra>"),
                    1, k + 1)
                groups.append(name)
    for col in (1, 2, 3):
        fig.update_xaxes(title_text="Read share (% of I/Os that are reads)", range=[-5, 105],
                         tickvals=sorted(series["rwmixread_pct"].unique()), row=1, col=col)
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=MB_AXIS, rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text="Mean total latency (µs, log)", **latency_log_axis(series["lat_mean_us"]),
                     row=1, col=3)
    fig.update_layout(title=title + " (dashed: read + write total; crosses: flagged points)", template=TEMPLATE,
                      height=520, legend={"orientation": "v", "x": 1.02, "y": 1},
                      margin={"b": 130})
    # each workload's latency ticks from its own latencies: ticks over every workload's span shrank to powers of ten,
    # one of them (or none) inside a single workload's range (issue 34.6)
    axis = fig.get_subplot(1, 3).yaxis.plotly_name
    steps = [(n, [g == n for g in groups], {f"{axis}.{k}": v for k, v in latency_log_axis(
        series.loc[series["series"] == n, "lat_mean_us"]).items()}) for n in names]
    add_step_slider(fig, steps, "Workload: ", y=-0.3, held="workload")
    return fig
