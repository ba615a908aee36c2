"""Shared figure pieces: notebook renderer, empty-data message, axis conventions."""

from __future__ import annotations

import math
import numbers
import re
import textwrap

import pandas as pd
import plotly.graph_objects as go

from helpers.fio.latency import column_label
from helpers.fio.latency import latency_name as fio_latency_name
from helpers.fio.units import format_bytes

TEMPLATE = "plotly_white"
NO_DATA = "lab_no_data"  # layout.meta key of a figure that only says a view has no data (its sentence)


def wrap_html(text: str, width: int) -> str:
    """``text`` with line breaks (<br>) every ``width`` characters at most: plotly wraps no title or annotation."""
    return "<br>".join(textwrap.wrap(str(text or ""), width))


def message_figure(text: str) -> go.Figure:
    """A figure that only says ``text`` (no axes): used when a view has no data for a run."""
    fig = go.Figure()
    lines = [text] if "<br>" in text else textwrap.wrap(text, 130) or [""]  # plotly does not wrap annotations
    fig.add_annotation(text="<br>".join(lines), x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                       font={"size": 15})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=140 + 20 * len(lines), template=TEMPLATE, margin={"l": 20, "r": 20, "t": 20, "b": 20},
                      meta={NO_DATA: text})  # the report export tells a page without data by this mark
    return fig


def log2_axis(values) -> dict:
    """x-axis settings for queue depth: log2 scale with a tick at every measured depth; when the depths include
    others than powers of two (a search's refine steps: 23, 45, 91, ...), ticks at the powers of two only, so the
    labels stay legible (the hover names every point's depth)."""
    ticks = sorted({int(v) for v in values})
    if any(t & (t - 1) for t in ticks if t > 0) and len(ticks) > 8:
        ticks = sorted({1 << (t.bit_length() - 1) for t in ticks if t > 0})
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


def repeat_means(s: pd.DataFrame, x: str, columns: list[str]) -> pd.DataFrame | None:
    """The mean of ``columns`` per value of ``x`` when ``s`` holds repeats of an ``x`` (a search's probes, repeated
    rounds), else None.  A series' line goes through these means and each repeat is a marker of its own: a line
    through every repeat draws a vertical stroke at that ``x``."""
    if not s[x].dropna().duplicated().any():
        return None
    return s.groupby(x, as_index=False)[[c for c in columns if c in s]].mean()


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


def side_legend(fig: go.Figure, title: str = "series (click: hide)", width_px: int = 240) -> go.Figure:
    """One legend entry per legend group (its first trace; clicking it hides the group in every panel), in a
    column to the right of the panels with room kept for it: a legend of every trace of every series grew to
    dozens of entries over the axes and sliders below them."""
    seen: set = set()
    for t in fig.data:
        group = t.legendgroup or t.name
        if t.showlegend is False:
            continue
        t.showlegend = group not in seen
        seen.add(group)
    margin = fig.layout.margin
    fig.update_layout(legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top",
                              "title": {"text": title}, "font": {"size": 11}},
                      margin={"r": width_px, "t": margin.t if margin.t is not None else 110,
                              "b": margin.b if margin.b is not None else 80})
    return fig


def legend_toggle(fig: go.Figure, min_entries: int = 12) -> go.Figure:
    """'show all' / 'hide all' buttons above a legend of ``min_entries`` or more entries: with 32 series drawn at
    once nobody reads one; hide all, then a click on an entry brings back the series to compare (a double-click on
    an entry shows it alone)."""
    if sum(t.showlegend is not False for t in fig.data) < min_entries:
        return fig
    n = len(fig.data)
    toggle = {"type": "buttons", "direction": "right", "x": 1.02, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
              "showactive": False, "pad": {"t": 0, "b": 0},
              "buttons": [{"label": "show all", "method": "restyle", "args": [{"visible": [True] * n}]},
                          {"label": "hide all", "method": "restyle", "args": [{"visible": ["legendonly"] * n}]}]}
    fig.update_layout(updatemenus=[*fig.layout.updatemenus, toggle])
    return fig


def add_step_slider(fig: go.Figure, steps: list[tuple[str, list[bool]]], prefix: str, active: int = 0,
                    y: float = -0.18, held: str = "") -> go.Figure:
    """A plotly slider (works offline in exported HTML) whose steps show one group of traces.

    ``steps`` is (label, visibility mask over fig.data[, layout update for that step]); the ``active`` step's mask
    (and layout) is applied now.
    With a single step no slider is drawn: a control with one position says nothing a sentence cannot, so
    with ``held`` (what the slider steps through, e.g. "queue depth") the figure's title gains "queue depth
    held constant at 16" (call this after setting the title).
    """
    if not steps:
        return fig
    for trace, visible in zip(fig.data, steps[active][1]):
        trace.visible = visible
    if len(steps) < 2:
        if held:
            note = held_note(held, steps[0][0].removeprefix("QD "))
            title = fig.layout.title.text or ""
            fig.update_layout(title_text=f"{title} · {note}" if title else note)
        return fig
    fig.update_layout(sliders=[{
        "active": active, "currentvalue": {"prefix": prefix}, "pad": {"t": 40}, "y": y, "len": 0.9, "x": 0.05,
        "steps": [{"label": step[0], "method": "update", "args": [{"visible": step[1]}, *step[2:]]} for step in steps],
    }])
    if len(steps[active]) > 2:  # a step's layout (e.g. its own latency ticks) applies now too
        fig.update_layout(steps[active][2])
    return fig


# ---------------------------------------------------------------------------- readable axes and orders

def _tick_us(v: float) -> str:
    """A latency tick in µs: 0.5 · 20 · 500 · 1k · 20k · 1M (k = 1,000 µs, M = 1,000,000 µs)."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


def latency_log_axis(values=()) -> dict:
    """Axis settings for latency in µs on a log scale with explicit ticks at 1, 2, 5 × 10^k (10, 20, 50, 100,
    200, 500, 1k, 2k, ... µs) instead of plotly's '5 · 2 · 1000 · 5'; over more than four decades of
    ``values`` (the plotted latencies, optional) only the powers of ten are labelled, over less than a factor of 5
    also 1.5, 3, 4, 6 and 8 x 10^k."""
    v = pd.to_numeric(pd.Series(list(values), dtype="float64"), errors="coerce")
    v = v[(v > 0) & v.notna() & (v != float("inf"))]
    lo, hi = (float(v.min()), float(v.max())) if len(v) else (0.1, 1e8)
    # over less than a decade 1, 2, 5 x 10^k leaves one tick or none inside the data: finer steps there
    steps = (1,) if hi / lo > 1e4 else (1, 2, 5) if hi / lo > 5 else (1, 1.5, 2, 3, 4, 5, 6, 8)
    first, last = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in steps]
    return {"type": "log", "tickvals": ticks, "ticktext": [_tick_us(t) for t in ticks]}


def drawn_values(fig: go.Figure, row: int | None = None, col: int | None = None) -> list[float]:
    """The y values of the traces drawn on one subplot's (primary) y axis (every trace without ``row``): what a
    latency axis must label, so :func:`latency_log_axis` ticks at 1, 2, 5 x 10^k over the data, not only at
    the powers of ten of a default nine-decade span."""
    axis = "y" if row is None else fig.get_subplot(row, col).yaxis.plotly_name.replace("axis", "")
    return [float(v) for t in fig.data if row is None or (t.yaxis or "y") == axis
            for v in (t.y if t.y is not None else ()) if isinstance(v, numbers.Real) and not isinstance(v, bool)]


def exceedance_axis(values=()) -> dict:
    """Axis settings for a share of I/Os (a fraction, 1 - CDF) on a log scale, labelled in percent at the
    powers of ten (100 %, 10 %, 1 %, 0.1 %, 0.01 % = 1 in 10,000 I/Os), never plotly's SI '100µ' for 10^-4."""
    v = pd.to_numeric(pd.Series(list(values), dtype="float64"), errors="coerce")
    v = v[(v > 0) & v.notna()]
    lowest = math.floor(math.log10(float(v.min()))) if len(v) else -8
    ticks = [10.0 ** e for e in range(0, min(lowest, 0) - 1, -1)]
    return {"type": "log", "tickvals": ticks, "ticktext": [f"{t * 100:.{max(0, -int(round(math.log10(t))) - 2)}f} %"
                                                         for t in ticks]}


_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_TOKEN = re.compile(r"(\d+(?:\.\d+)?)([kmgt](?![a-z]))?", re.IGNORECASE)


def natural_key(label) -> tuple:
    """Sort key that orders numbers by value inside labels: qd1, qd2, qd16, qd128 (not qd1, qd128, qd16,
    qd2) and block sizes with fio's suffixes by size: 4k < 128k < 1m."""
    text = "" if label is None else str(label)
    parts: list = []
    pos = 0
    for m in _TOKEN.finditer(text):
        parts += [(0, text[pos:m.start()].lower(), 0.0)]
        parts += [(1, "", float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])]
        pos = m.end()
    parts.append((0, text[pos:].lower(), 0.0))
    return tuple(parts)


def natural_sorted(labels) -> list:
    """``labels`` (unique, first-seen kept) in :func:`natural_key` order."""
    return sorted(dict.fromkeys(labels), key=natural_key)


def held_note(what: str, value: str) -> str:
    """What a one-step control would have shown, for the figure's title: 'queue depth held constant at 16'."""
    return f"{what} held constant at {value}"


def level_trace(x_lo: float, x_hi: float, y: float, name: str, dash: str = "dash", color: str = "black") -> go.Scatter:
    """A horizontal level from ``x_lo`` to ``x_hi`` as a named trace (legend and hover), in data units on any
    axis type: ``add_hline``'s annotation is placed at log10 of its y on a log axis (a 224 ms level there put its
    label at 10^224 and stretched the axis to it)."""
    return go.Scatter(x=[x_lo, x_hi], y=[y, y], mode="lines", name=name, line={"dash": dash, "color": color, "width": 1.5},
                      hovertemplate=f"{name}: %{{y:.4g}}<extra></extra>")
