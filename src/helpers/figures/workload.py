"""Workload views of an imported trace: block sizes by operation, LBA access heat over time, and IOPS
with outstanding I/O over time.  Inputs come from :mod:`helpers.analysis.workload`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import TEMPLATE, color, message_figure

NO_TRACE = "This run has no imported trace: import one with python -m helpers.ingest.traces FILE --run RUN."
OP_COLOR = {"read": color(0), "write": color(1), "trim": color(2)}


def _size_label(n: int) -> str:
    return f"{n // 1024}k" if n % 1024 == 0 else f"{n} B"


def block_size_figure(sizes: pd.DataFrame, title: str = "Block sizes by operation") -> go.Figure:
    """Share of each operation's I/Os per block size (``analysis.workload.block_sizes``), bars per op."""
    if sizes.empty:
        return message_figure(NO_TRACE)
    order = sorted(sizes["size_bytes"].unique())
    fig = go.Figure()
    for op, g in sizes.groupby("op", sort=False):
        g = g.set_index("size_bytes").reindex(order)
        fig.add_bar(x=[_size_label(int(s)) for s in order], y=g["pct"], name=str(op),
                    marker_color=OP_COLOR.get(str(op)), customdata=g["ios"],
                    hovertemplate="%{x}: %{y:.1f} % of " + str(op) + "s (%{customdata} I/Os)<extra></extra>")
    fig.update_layout(title=title, template=TEMPLATE, barmode="group", height=380,
                      xaxis_title="block size", yaxis_title="% of the operation's I/Os")
    return fig


def heat_figure(heat: pd.DataFrame, title: str = "LBA access heat (I/Os per time window and address range)"
                ) -> go.Figure:
    """Heatmap of ``analysis.workload.heat``: time across, address (MiB) up, colour the I/O count."""
    if heat.empty:
        return message_figure("This trace has no times (fio iolog v2), so it has no heat over time.")
    piv = heat.pivot(index="address_start_bytes", columns="t_start_s", values="ios")
    fig = go.Figure(go.Heatmap(x=piv.columns, y=piv.index / (1 << 20), z=piv.to_numpy(), colorscale="Viridis",
                               colorbar={"title": "I/Os"},
                               hovertemplate="t %{x:.2f} s, %{y:.1f} MiB: %{z} I/Os<extra></extra>"))
    fig.update_layout(title=title, template=TEMPLATE, height=420, xaxis_title="time since the first I/O (s)",
                      yaxis_title="address (MiB from the start)")
    return fig


def rate_figure(rate: pd.DataFrame, in_flight: pd.DataFrame, title: str = "IOPS and outstanding I/O over time"
                ) -> go.Figure:
    """IOPS per window and operation (``rate_over_time``) and, where the trace has latencies, the I/Os in
    flight (``outstanding``) on a second panel."""
    if rate.empty:
        return message_figure("This trace has no times (fio iolog v2), so it has no rate over time.")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("IOPS (issued, per window)", "I/Os in flight (from the trace's latencies)"))
    for op, g in rate.groupby("op", sort=False):
        fig.add_scatter(x=g["window_start_s"], y=g["iops"], name=str(op), mode="lines+markers",
                        line={"color": OP_COLOR.get(str(op)), "shape": "hv"}, row=1, col=1)
    if in_flight.empty:
        fig.add_annotation(text="The trace has no completion times: no outstanding I/O.", x=0.5, y=0.2,
                           xref="paper", yref="paper", showarrow=False)
    else:
        fig.add_scatter(x=in_flight["t_s"], y=in_flight["in_flight"], name="in flight", mode="lines",
                        line={"color": "#222", "shape": "hv"}, row=2, col=1)
    fig.update_layout(title=title, template=TEMPLATE, height=520)
    fig.update_xaxes(title_text="time since the first I/O (s)", row=2, col=1)
    return fig
