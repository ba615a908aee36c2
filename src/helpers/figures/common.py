"""Shared figure pieces: notebook renderer, empty-data message, axis conventions."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.fio.latency import column_label
from helpers.fio.latency import latency_name as fio_latency_name
from helpers.fio.units import format_bytes

TEMPLATE = "plotly_white"


def message_figure(text: str) -> go.Figure:
    """A figure that only says ``text`` (no axes): used when a view has no data for a run."""
    fig = go.Figure()
    fig.add_annotation(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                       font={"size": 15})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=160, template=TEMPLATE, margin={"l": 20, "r": 20, "t": 20, "b": 20})
    return fig


def log2_axis(values) -> dict:
    """x-axis settings for queue depth: log2 scale with a tick at every measured power of two."""
    ticks = sorted({int(v) for v in values})
    return {"type": "log", "tickvals": ticks, "ticktext": [str(t) for t in ticks]}


PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]
FLAG_SYMBOL = "x"  # flagged points (validity flags) are drawn as crosses, clean ones as circles
MB_AXIS = "Bandwidth (MB/s, decimal: 1 MB = 10^6 bytes)"
IOPS_AXIS = "IOPS (I/O operations per second)"
BS_AXIS = "Block size (binary: 4k = 4096 bytes, log2 axis)"
QD_AXIS = "Queue depth (iodepth, log2 axis)"
# axis titles (with units) for result columns plotted by name
METRIC_AXIS = {"iops": IOPS_AXIS, "bw_bytes_per_s": "Bandwidth (bytes per second)", "mb_per_s": MB_AXIS,
               **{c: (lambda t: t[0].upper() + t[1:])(column_label(c))
                  for c in ("lat_mean_us", "clat_mean_us", "clat_p50_us", "clat_p99_us", "clat_p99_9_us",
                            "lat_p50_us", "lat_p99_us", "lat_p99_9_us")}}


COMPLETION_LATENCY = fio_latency_name("clat")


def latency_name(names) -> str:
    """One name for the latency of a view's rows ('total latency' / 'completion latency (clat)');
    completion latency when unknown, both named when a view holds both."""
    found = [str(n) for n in dict.fromkeys(names) if n is not None and not pd.isna(n)]
    if not found:
        return COMPLETION_LATENCY
    return found[0] if len(found) == 1 else " or ".join(found)


def metric_axis(column: str) -> str:
    """Axis title with its unit for a results column (the column name itself carries the unit otherwise)."""
    return METRIC_AXIS.get(column, column)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def flag_symbols(flagged) -> list[str]:
    return [FLAG_SYMBOL if bool(f) else "circle" for f in flagged]


def flag_notes(reasons) -> list[str]:
    """Hover suffix per point: empty for clean points, the flag reasons for flagged ones."""
    out = []
    for r in reasons:
        r = "" if r is None or pd.isna(r) else str(r)  # None, NaN and pd.NA (string dtype) are "no flag"
        out.append("<br>⚠ flagged: " + r.replace("; ", "<br>⚠ ") if r else "")
    return out


def bs_axis(values) -> dict:
    """x-axis settings for block sizes: log scale, ticks at the measured sizes in fio's spelling."""
    ticks = sorted({int(v) for v in values})
    return {"type": "log", "tickvals": ticks, "ticktext": [format_bytes(t) for t in ticks]}


def add_step_slider(fig: go.Figure, steps: list[tuple[str, list[bool]]], prefix: str, active: int = 0,
                    y: float = -0.18, always: bool = False) -> go.Figure:
    """A plotly slider (works offline in exported HTML) whose steps show one group of traces.

    ``steps`` is (label, visibility mask over fig.data); the ``active`` step's mask is applied now.
    With a single step no slider is drawn unless ``always`` (pages whose text describes the slider show it,
    with its one value, e.g. "Queue depth: 16").
    """
    if not steps:
        return fig
    for trace, visible in zip(fig.data, steps[active][1]):
        trace.visible = visible
    if len(steps) < 2 and not always:
        return fig
    fig.update_layout(sliders=[{
        "active": active, "currentvalue": {"prefix": prefix}, "pad": {"t": 40}, "y": y, "len": 0.9, "x": 0.05,
        "steps": [{"label": label, "method": "update", "args": [{"visible": mask}]} for label, mask in steps],
    }])
    return fig
