"""SNIA PTS report figures: convergence of every tracked variable, the steady-state windows, IOPS against block
size (one line per R/W mix) and WSAT IOPS against time and against GB written.  Pure builders of the frames
:mod:`helpers.analysis.pts` makes."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import TEMPLATE, message_figure, wrap_html
from helpers.figures.steady_state import steady_state_figure

NO_PTS = "This run has no PTS tests: run the pts or pts-lite profile (mode: pts)."


def _unit(variable: str) -> str:
    if "MB/s" in variable:
        return "MB/s (10^6 bytes per second)"
    if "bytes/s" in variable:
        return "bytes per second"
    if "latency" in variable:
        return "mean total latency (µs)"
    return "IOPS (all directions)"


def convergence_figure(conv: pd.DataFrame, empty: str = NO_PTS) -> go.Figure:
    """One panel per test, one line per tracked variable, value against round; a filled marker where the
    joint steady-state rule held after that round."""
    if conv is None or conv.empty:
        return message_figure(empty)
    tests = list(dict.fromkeys(conv["test"]))
    fig = make_subplots(rows=len(tests), cols=1, subplot_titles=tests, vertical_spacing=0.3 / max(len(tests), 1))
    for i, test in enumerate(tests, start=1):
        d = conv[conv["test"] == test]
        for var, g in d.groupby("variable", sort=False):
            fig.add_trace(go.Scatter(x=g["round"], y=g["value"], mode="lines+markers", name=f"{test}: {var}",
                                     marker={"symbol": ["circle" if s else "circle-open" for s in g["steady"]]}),
                          row=i, col=1)
        fig.update_yaxes(title_text=_unit(str(d["variable"].iloc[0])), row=i, col=1, rangemode="tozero")
        fig.update_xaxes(title_text="round", dtick=1, row=i, col=1)
    fig.update_layout(title="Convergence: every tracked variable per round (filled: steady after that round)",
                      template=TEMPLATE, height=260 * len(tests) + 120)
    return fig


def steady_windows_figure(windows: list[dict], empty: str = NO_PTS) -> go.Figure:
    """One panel per tracked variable: every round, the measurement window's average with the ±10 % band (half
    the 20 % range limit; green when steady), and the least-squares line over the window
    (:func:`helpers.figures.steady_state.steady_state_figure` per panel)."""
    if not windows:
        return message_figure(empty)
    titles = []
    panels = []
    for w in windows:
        res = w.get("result") or {}
        verdict = "steady" if res.get("steady") else "not steady"
        titles.append(f"{w['test']}: {w['variable']} ({verdict})")
        panels.append(steady_state_figure(w["rounds"], res, metric="value"))
    fig = make_subplots(rows=len(panels), cols=1, subplot_titles=titles, vertical_spacing=0.25 / len(panels))
    for i, (w, panel) in enumerate(zip(windows, panels), start=1):
        for trace in panel.data:
            trace.name = f"{w['variable']}: {trace.name if trace.name != 'value' else 'per round'}"
            trace.legendgroup = w["variable"]
            fig.add_trace(trace, row=i, col=1)
        axis = "" if i == 1 else str(i)
        for shape in panel.layout.shapes:
            fig.add_shape(shape.update(xref=f"x{axis}", yref=f"y{axis}"))
        fig.update_yaxes(title_text=_unit(w["variable"]), row=i, col=1)
        fig.update_xaxes(title_text="round", dtick=1, row=i, col=1)
    fig.update_layout(title="Steady-state window: values, window average, ±10 % band (20 % range), fit line",
                      template=TEMPLATE, height=280 * len(panels) + 120)
    return fig


def iops_blocksize_figure(long: pd.DataFrame, empty: str = NO_PTS) -> go.Figure:
    """IOPS (average over the measurement window) against block size, one line per R/W mix (log axes)."""
    if long is None or long.empty:
        return message_figure(empty)
    fig = go.Figure()
    for mix in sorted(long["mix"].unique(), reverse=True):  # 100/0 first, as the table's columns
        g = long[long["mix"] == mix].sort_values("bs_bytes")
        fig.add_trace(go.Scatter(x=g["bs_bytes"] / 1024, y=g["iops"], mode="lines+markers",
                                 name=f"R/W {g['rw_mix'].iloc[0]}"))
    fig.update_layout(title="IOPS test: IOPS against block size over the steady-state window, one line per R/W mix",
                      template=TEMPLATE, xaxis={"title": "block size (KiB)", "type": "log"},
                      yaxis={"title": "IOPS (all directions)", "type": "log"})
    return fig


def wsat_figure(series: pd.DataFrame, empty: str = "This run has no WSAT test.",
                start: str = "the purged state") -> go.Figure:
    """WSAT: write IOPS per log window against time (left) and against GB written (right); ``start`` is the state
    it started from (:func:`helpers.analysis.pts.wsat_start`)."""
    if series is None or series.empty:
        return message_figure(empty)
    mode = "lines+markers" if len(series) <= 60 else "lines"  # a short WSAT's few windows stay visible
    fig = make_subplots(rows=1, cols=2, subplot_titles=("IOPS against time", "IOPS against data written"))
    fig.add_trace(go.Scatter(x=series["t_s"], y=series["iops"], mode=mode, name="IOPS vs time"), row=1, col=1)
    fig.add_trace(go.Scatter(x=series["gb_written"], y=series["iops"], mode=mode, name="IOPS vs GB written"),
                  row=1, col=2)
    fig.update_xaxes(title_text="time (s)", row=1, col=1)
    fig.update_xaxes(title_text="GB written (10^9 bytes)", row=1, col=2)
    fig.update_yaxes(title_text="write IOPS (4k random)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    fig.update_layout(title=wrap_html(f"WSAT: random 4k writes from {start}", 120), template=TEMPLATE)
    return fig


def tp_figure(table: pd.DataFrame, empty: str = NO_PTS) -> go.Figure:
    """TP: bandwidth over the window against block size, one bar per direction (MB/s = 10^6 bytes per second); a
    bar whose test never reached steady state, or whose writes a cache absorbed, is hatched (hover: why)."""
    if table is None or table.empty:
        return message_figure(empty)
    fig = go.Figure()
    for direction, g in table.groupby("direction", sort=False):
        odd = [("not steady" in w) or bool(n) for w, n in zip(g["window"], g["note"])]
        fig.add_trace(go.Bar(x=g["block size"], y=g["bw_bytes_per_s"] / 1e6, name=direction,
                             marker={"pattern": {"shape": ["x" if o else "" for o in odd]}},
                             customdata=list(zip(g["window"], g["note"])),
                             hovertemplate="%{x} " + direction + "s: %{y:,.0f} MB/s<br>%{customdata[0]}"
                                           "<br>%{customdata[1]}<extra></extra>"))
    fig.update_layout(title="Throughput test: bandwidth over the window per block size (hatched: not steady, or a "
                      "cache's)", template=TEMPLATE, barmode="group",
                      xaxis={"title": "block size"}, yaxis={"title": "MB/s (10^6 bytes per second)",
                                                            "rangemode": "tozero"})
    return fig


def lat_figure(table: pd.DataFrame, empty: str = NO_PTS) -> go.Figure:
    """LAT: average, maximum and 99.999 % total latency per block size and R/W mix (log µs axis)."""
    if table is None or table.empty:
        return message_figure(empty)
    x = [f"{b} {m}" for b, m in zip(table["block size"], table["R/W"])]
    fig = go.Figure()
    for col, name in (("avg latency (µs)", "average"), ("99.999 % latency (µs)", "99.999 %"),
                      ("max latency (µs)", "maximum")):
        fig.add_trace(go.Bar(x=x, y=table[col], name=name, customdata=table["note"],
                             hovertemplate="%{x}: " + name + " %{y:,.1f} µs<br>%{customdata}<extra></extra>"))
    fig.update_layout(title="Latency test (T1/Q1): total latency per block size and R/W mix", template=TEMPLATE,
                      barmode="group", xaxis={"title": "block size and R/W mix"},
                      yaxis={"title": "total latency (µs, log)", "type": "log"})
    return fig
