"""Time inside a point: throughput and latency over time, per-window QoS, consistency table.

Input is :func:`helpers.analysis.timeseries.point_series` output (and :func:`consistency` for the
table).  Long series are reduced FOR DISPLAY ONLY (min and max of each bucket of windows, so stalls
and spikes stay visible; the title says so); the analysis always uses every window.  With the run's
``health`` rows (the health dataset) the device temperature is drawn on a secondary y axis, with the drive's
warning temperature when known; a point without any says why in one sentence (``health_note``, from
:func:`helpers.analysis.health_note`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.analysis.cliff import (
    MIN_WINDOWS,
    SUSTAINED_GROUP,
    cache_absorbed_reason,
    gb_written,
    point_cliff,
    rate_rows,
)
from helpers.analysis.health import temperature_at_gb, temperature_series
from helpers.analysis.timeseries import NARROW_FRACTION, narrow_windows
from helpers.figures.common import (
    IOPS_AXIS,
    TEMPLATE,
    color,
    drawn_values,
    latency_log_axis,
    message_figure,
    natural_key,
    wrap_html,
)
from helpers.fio.latency import latency_label

DISPLAY_MAX_WINDOWS = 1500  # above this many windows per trace the display shows min/max per bucket
TITLE_WIDTH = 120  # characters per line of the write-cliff figure's title (the finding)
POINT = ["run_id", "point_id", "source_file"]
NO_LOGS = ("This run has no fio time-series logs (points recorded before per-window logging, foreign files "
           "without *_iops/*_clat_hist logs, or the bundled sample run).")
TEMPERATURE_AXIS = "device temperature (°C)"
TEMPERATURE_COLOR = "#e6550d"
NO_POINT_TEMPERATURE = "no device temperature was captured during this point."


def _temperature_traces(t: pd.DataFrame, x) -> list[go.Scatter]:
    """The temperature of one point's captures at ``x`` (time or GB written) and its warning threshold."""
    phase = t["phase"].astype(str).to_numpy()
    traces = [go.Scatter(x=x, y=t["temperature_c"], mode="lines+markers", name=TEMPERATURE_AXIS,
                         line={"color": TEMPERATURE_COLOR, "width": 1},
                         marker={"size": 6, "color": TEMPERATURE_COLOR}, customdata=phase,
                         hovertemplate="device temperature %{y:g} °C (%{customdata} the point)<extra></extra>")]
    warn = t[t["warning_temp_c"].notna()]
    if len(warn) and len(x):
        w = float(warn["warning_temp_c"].iloc[0])
        src = warn["threshold_source"].iloc[0] if "threshold_source" in warn.columns else None
        src = f" ({src})" if isinstance(src, str) and src else ""
        traces.append(go.Scatter(x=[min(x), max(x)], y=[w, w], mode="lines", name=f"warning temperature {w:g} °C{src}",
                                 line={"color": TEMPERATURE_COLOR, "dash": "dash", "width": 1},
                                 hovertemplate=f"the drive's warning temperature: {w:g} °C{src}<extra></extra>"))
    return traces


def _missing_temperature(has: bool, temps: pd.DataFrame | None, health_note: str) -> str:
    """The one sentence a point without temperature shows ('' when it has some or nobody asked)."""
    if has:
        return ""
    return health_note or (NO_POINT_TEMPERATURE if temps is not None and len(temps) else "")


def display_reduce(x, y, max_windows: int = DISPLAY_MAX_WINDOWS) -> tuple[np.ndarray, np.ndarray, bool]:
    """(x, y, reduced): at most ``max_windows`` points, each bucket of windows drawn by its min and max
    (in time order), so the envelope, stalls and spikes survive.  Display only."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if n <= max_windows:
        return x, y, False
    buckets = max(1, max_windows // 2)
    edges = np.linspace(0, n, buckets + 1).astype(int)
    xs, ys = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        seg = y[a:b]
        if np.all(np.isnan(seg)):
            continue
        i, j = a + int(np.nanargmin(seg)), a + int(np.nanargmax(seg))
        for k in sorted({i, j}):
            xs.append(x[k])
            ys.append(y[k])
    return np.array(xs), np.array(ys), True


def _gaps_at_zero(start: np.ndarray, end: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of windows drawn at their ends, with 0 across the time no window covers: fio ticked there and no
    I/O completed (helpers.ingest.timeseries gives each entry only the time its rate covers).  Only gaps of at
    least half the typical width: a hidden narrow window leaves a smaller one."""
    xs, ys, prev = [], [], 0.0
    least = 0.5 * float(np.median(end - start)) if len(end) else 0.0
    for a, b, v in zip(start, end, y):
        if a > prev + least:
            xs += [prev, a]
            ys += [0.0, 0.0]
        xs.append(b)
        ys.append(v)
        prev = b
    return np.array(xs), np.array(ys)


def _narrow_note(n: int) -> str:
    return (f"{n:,} window{'s' if n != 1 else ''} narrower than {NARROW_FRACTION:g} x the log interval not drawn (a "
            "job's final partial window, a second entry in one interval: a rate over a few ms); every analysis "
            "counts them.")


def _label(key, multi_run: bool) -> str:
    run, point, _ = key
    return f"{run}: {point}" if multi_run else str(point)


def timeseries_figure(series: pd.DataFrame, summary: pd.DataFrame | None = None,
                      max_windows: int = DISPLAY_MAX_WINDOWS,
                      title: str = "Throughput and latency over time", health: pd.DataFrame | None = None,
                      health_note: str = "") -> go.Figure:
    """Top: IOPS per window and, with ``health`` rows, the device temperature on a secondary y axis; bottom:
    mean total latency per window and the window's p99 / p99.9 completion latency from fio's histogram log
    (open symbols: too few I/Os in the window for that percentile).  The ramp (before 0 s; fio does not log
    it) is shaded.  A dropdown picks the point; a point without temperature shows ``health_note``."""
    if series is None or series.empty:
        return message_figure(NO_LOGS)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("IOPS per window", "Latency per window (µs, log)"),
                        specs=[[{"secondary_y": True}], [{}]])  # yaxis2: temperature; yaxis3: latency
    temps = temperature_series(health, series) if health is not None else None
    points = sorted(series.groupby(POINT, sort=True, dropna=False),
                    key=lambda kv: tuple(natural_key(k) for k in kv[0]))
    multi_run = series["run_id"].nunique() > 1
    owner: list[int] = []
    has_temp = [False] * len(points)
    reduced_any = False
    notes = {}
    if summary is not None and not summary.empty:
        for r in summary.itertuples():
            notes.setdefault((r.run_id, r.point_id, r.source_file), []).append(f"{r.direction}: {r.summary}")
    for pi, (key, g) in enumerate(points):
        hidden = narrow_windows(g)
        if hidden.any():
            notes.setdefault(key, []).append(_narrow_note(int(hidden.sum())))
        g = g[~hidden]
        for di, (direction, s) in enumerate(g.groupby("direction", sort=True)):
            s = s.sort_values("window_end_s")
            c = color(di)
            r = s[s["iops"].notna()]
            x, y, red = display_reduce(r["window_end_s"], r["iops"], max_windows)
            if not red:
                x, y = _gaps_at_zero(r["window_start_s"].to_numpy(dtype=float), x, y)
            reduced_any |= red
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"{direction} IOPS", line={"color": c},
                                     legendgroup=direction,
                                     hovertemplate=f"{direction}: %{{y:,.0f}} IOPS in the window ending at "
                                                   "%{x:g} s<extra></extra>"), row=1, col=1)
            owner.append(pi)
            r = s[s["lat_mean_us"].notna()]
            x, y, red = display_reduce(r["window_end_s"], r["lat_mean_us"], max_windows)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"{direction} {latency_label('lat', 'mean', '')}",
                                     line={"color": c, "width": 1}, legendgroup=direction,
                                     hovertemplate=f"{direction} mean total latency: %{{y:,.1f}} µs at %{{x:g}} s"
                                                   "<extra></extra>"), row=2, col=1)
            owner.append(pi)
            for col, label, dash in (("clat_p99_us", "p99", "dot"), ("clat_p99_9_us", "p99.9", "dash")):
                h = s.dropna(subset=[col])
                if h.empty:
                    continue
                bad = h["unreliable_percentiles"].fillna("").astype(str).str.contains(col, regex=False).to_numpy()
                if len(h) > max_windows:  # display: the envelope only, hollow marks dropped
                    x, y, _ = display_reduce(h["window_end_s"], h[col], max_windows)
                    bad = np.zeros(len(x), dtype=bool)
                    ios = np.full(len(x), np.nan)
                else:
                    x, y, ios = h["window_end_s"].to_numpy(), h[col].to_numpy(), h["hist_ios"].to_numpy(dtype=float)
                fig.add_trace(go.Scatter(
                    x=x, y=y, mode="lines+markers", name=f"{direction} {latency_label('clat', label, '')}",
                    line={"color": c, "dash": dash, "width": 1}, legendgroup=direction,
                    marker={"size": 6, "symbol": ["circle-open" if b else "circle" for b in bad]},
                    customdata=np.c_[ios, bad],
                    hovertemplate=f"{direction} {label} clat: %{{y:,.1f}} µs at %{{x:g}} s, "
                                  "%{customdata[0]:,.0f} I/Os in the window<extra></extra>"), row=2, col=1)
                owner.append(pi)
        run, point, _ = points[pi][0]
        t = temps[(temps["run_id"] == run) & (temps["point_id"] == point)] if temps is not None else None
        has_temp[pi] = t is not None and len(t) > 0
        for trace in _temperature_traces(t, t["time_s"].to_numpy()) if has_temp[pi] else []:
            fig.add_trace(trace, row=1, col=1, secondary_y=True)
            owner.append(pi)
    fig.update_yaxes(title_text=IOPS_AXIS, row=1, col=1, rangemode="tozero", secondary_y=False)
    fig.update_yaxes(title_text=TEMPERATURE_AXIS, row=1, col=1, secondary_y=True, showgrid=False, tickmode="auto")
    fig.update_yaxes(title_text="Latency (µs, log)", **latency_log_axis(drawn_values(fig, 2, 1)), row=2, col=1)
    fig.update_xaxes(title_text="Time since the end of the ramp (s; end of each fio log window)", row=2, col=1)
    suffix = " (long series drawn as min/max per bucket for display; analysis uses every window)" if reduced_any else ""

    def layout_for(pi: int) -> dict:
        key, g = points[pi]
        ramp = float(g["ramp_s"].iloc[0]) if "ramp_s" in g and pd.notna(g["ramp_s"].iloc[0]) else 0.0
        shapes = []
        if ramp > 0:
            for yref in ("y domain", "y3 domain"):
                shapes.append({"type": "rect", "xref": "x", "yref": yref, "x0": -ramp, "x1": 0, "y0": 0, "y1": 1,
                               "fillcolor": "lightgrey", "opacity": 0.4, "line": {"width": 0}})
        lines = [*notes.get(key, []), _missing_temperature(has_temp[pi], temps, health_note)]
        text = "<br>".join(x for x in lines if x)
        ann = [a for a in fig.layout.annotations[:2]]  # the subplot titles
        anns = [a.to_plotly_json() for a in ann]
        if ramp > 0:
            anns.append({"text": f"ramp {ramp:g} s (not logged by fio)", "x": -ramp / 2, "xref": "x", "y": 1,
                         "yref": "y domain", "showarrow": False, "font": {"size": 10}, "textangle": -90})
        if text:
            anns.append({"text": text, "x": 0, "xref": "paper", "y": -0.22, "yref": "paper", "showarrow": False,
                         "align": "left", "xanchor": "left", "font": {"size": 11}})
        return {"shapes": shapes, "annotations": anns, "yaxis2.visible": has_temp[pi],
                "title": {"text": f"{title}: {_label(key, multi_run)}{suffix}"}}

    masks = [[o == pi for o in owner] for pi in range(len(points))]
    for trace, visible in zip(fig.data, masks[0]):
        trace.visible = visible
    first = layout_for(0)
    fig.update_layout(first, template=TEMPLATE, height=640, margin={"b": 150, "t": 90},
                      legend={"groupclick": "toggleitem"})
    if len(points) > 1:
        fig.update_layout(updatemenus=[{
            "type": "dropdown", "x": 1.0, "xanchor": "right", "y": 1.16, "yanchor": "top", "showactive": True,
            "buttons": [{"label": _label(key, multi_run), "method": "update",
                         "args": [{"visible": masks[pi]}, layout_for(pi)]} for pi, (key, _) in enumerate(points)],
        }])
    return fig


NO_SUSTAINED = ("This run has no sustained-write point with logs (run the sustained-write profile: "
                "make sweep PROFILE=sustained-write).")


def write_cliff_figure(series: pd.DataFrame, max_windows: int = DISPLAY_MAX_WINDOWS,
                       health: pd.DataFrame | None = None, health_note: str = "",
                       results: pd.DataFrame | None = None) -> go.Figure:
    """Write throughput (MB/s) against GB written for each sustained-write point (a marker per window too when
    there are too few for a cliff: one window is no line), the phases found by
    :func:`helpers.analysis.point_cliff` as horizontal lines and the cliff as a dashed vertical line;
    the title is the finding (with the run's ``results``, saying when a write-back cache absorbed the writes:
    :func:`helpers.analysis.cache_absorbed_reason`).  With ``health`` rows the device temperature (placed at the GB written when each
    capture was taken) is drawn on a secondary y axis; a point without shows ``health_note``.  A dropdown
    picks the point when there are several."""
    if series is None or series.empty:
        return message_figure(NO_SUSTAINED)
    w = series[series["point_id"].astype(str).str.startswith(SUSTAINED_GROUP) & (series["direction"] == "write")]
    if w.empty:
        return message_figure(NO_SUSTAINED)
    temps = temperature_series(health, series) if health is not None else None
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    groups = list(w.groupby(["run_id", "point_id"], sort=True))
    multi_run = w["run_id"].nunique() > 1
    owner, layouts, top = [], [], 80
    for i, ((run, point), g) in enumerate(groups):
        g = rate_rows(g)
        gb = gb_written(g).to_numpy()
        c = point_cliff(g)
        shown = ~narrow_windows(g).to_numpy()
        x, y, red = display_reduce(gb[shown], g["bytes_per_s"].to_numpy()[shown] / 1e6, max_windows)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines" if len(x) >= MIN_WINDOWS else "lines+markers",
                                 name="throughput per window", line={"color": color(0)},
                                 hovertemplate="%{y:,.0f} MB/s after %{x:.3g} GB<extra></extra>"))
        owner.append(i)
        px, py = [], []
        for p in c.segments:
            px += [p["start_gb"], p["end_gb"], None]
            py += [p["mean_bytes_per_s"] / 1e6] * 2 + [None]
        fig.add_trace(go.Scatter(x=px, y=py, mode="lines", name="phases (change points)",
                                 line={"color": color(1), "width": 3},
                                 hovertemplate="phase mean %{y:,.0f} MB/s<extra></extra>"))
        owner.append(i)
        shapes = []
        if c.cliff_gb is not None:
            shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": c.cliff_gb, "x1": c.cliff_gb,
                           "y0": 0, "y1": 1, "line": {"dash": "dash", "color": "black"}})
        t = temps[(temps["run_id"] == run) & (temps["point_id"] == point)] if temps is not None else None
        has_temp = t is not None and len(t) > 0
        for trace in _temperature_traces(t, temperature_at_gb(t, g)) if has_temp else []:
            fig.add_trace(trace, row=1, col=1, secondary_y=True)
            owner.append(i)
        label = f"{run}: {point}" if multi_run else str(point)
        note = " (drawn as min/max per bucket; analysis uses every window)" if red else ""
        missing = "<br>".join(x for x in (_narrow_note(int((~shown).sum())) if not shown.all() else "",
                                          _missing_temperature(has_temp, temps, health_note)) if x)
        reason = cache_absorbed_reason(c.reason, results, run, point)
        title = wrap_html(f"{label}: {reason}{note}", TITLE_WIDTH)
        top = max(top, 60 + 20 * title.count("<br>"))
        layouts.append({"shapes": shapes, "title": {"text": title}, "yaxis2.visible": has_temp,
                        "annotations": [{"text": missing, "x": 0, "xref": "paper", "y": -0.25, "yref": "paper",
                                         "showarrow": False, "xanchor": "left", "font": {"size": 11}}] if missing else []})
    masks = [[o == i for o in owner] for i in range(len(groups))]
    for trace, visible in zip(fig.data, masks[0]):
        trace.visible = visible
    fig.update_layout(layouts[0], template=TEMPLATE, height=400 + top, margin={"b": 110, "t": top})
    fig.update_xaxes(title_text="Data written (GB, decimal: 1 GB = 10^9 bytes)", rangemode="tozero")
    fig.update_yaxes(title_text="Write throughput per window (MB/s, decimal)", rangemode="tozero", secondary_y=False)
    fig.update_yaxes(title_text=TEMPERATURE_AXIS, secondary_y=True, showgrid=False, tickmode="auto")
    if len(groups) > 1:
        fig.update_layout(updatemenus=[{"type": "dropdown", "x": 1.0, "xanchor": "right", "y": 1.18,
                                        "buttons": [{"label": p, "method": "update",
                                                     "args": [{"visible": masks[i]}, layouts[i]]}
                                                    for i, ((_, p), _) in enumerate(groups)]}])
    return fig
