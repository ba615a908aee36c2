"""Queueing views: knee, Little's Law check, linear region and USL fit.

Pure builders: the DataFrames come from :mod:`helpers.analysis` (``qd_series``,
``knee_table``, ``littles_law``, ``linear_region_table``, ``usl_table``).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.analysis.points import with_latency
from helpers.analysis.repeats import mean_ci
from helpers.analysis.usl import usl
from helpers.figures.common import (
    TEMPLATE,
    drawn_values,
    latency_log_axis,
    latency_name,
    legend_toggle,
    log2_axis,
    message_figure,
    side_legend,
)

FLAG_COLOR = "#d62728"
OK_COLOR = "#1f77b4"


def _color(i: int) -> str:
    return f"hsl({(i * 67) % 360},65%,45%)"


def _layout(fig: go.Figure, title: str, height: int = 480) -> go.Figure:
    fig.update_layout(title=title, template=TEMPLATE, height=height, legend={"orientation": "h", "y": -0.25})
    return fig


def knee_figure(series: pd.DataFrame, knees: pd.DataFrame, title: str = "Knee: where depth stops paying") -> go.Figure:
    """IOPS against QD (log2) with the throughput knee, and the trade-off p99 latency against
    IOPS with the latency knee.  ``series``: ``qd_series`` output; ``knees``: ``knee_table``."""
    if series.empty:
        return message_figure("This run has no queue-depth sweep: no knee to find.")
    series = series if "p99_us" in series else with_latency(series)
    lname = latency_name(series["percentile_latency"])
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Throughput knee (Kneedle, x = log2 QD)", f"Trade-off: p99 {lname} vs IOPS"))
    by_series = knees.set_index("series") if not knees.empty else pd.DataFrame()
    for i, (name, s) in enumerate(series.groupby("series", sort=False)):
        c = _color(i)
        m = s.groupby("iodepth", as_index=False)[["iops", "p99_us"]].mean()
        fig.add_trace(go.Scatter(x=m["iodepth"], y=m["iops"], mode="lines+markers", name=f"{name} IOPS",
                                 legendgroup=name, line={"color": c},
                                 hovertemplate="QD %{x}<br>%{y:,.0f} IOPS<extra>" + name + "</extra>"), 1, 1)
        fig.add_trace(go.Scatter(x=m["iops"], y=m["p99_us"], mode="lines+markers", name=f"{name} p99",
                                 legendgroup=name, line={"color": c, "dash": "dot"}, text=m["iodepth"],
                                 hovertemplate="QD %{text}<br>%{x:,.0f} IOPS<br>p99 %{y:,.0f} µs<extra>"
                                 + name + "</extra>"), 1, 2)
        if name not in by_series.index:
            continue
        k = by_series.loc[name]
        if pd.notna(k["knee_qd"]):
            fig.add_trace(go.Scatter(x=[k["knee_qd"]], y=[k["knee_iops"]], mode="markers", legendgroup=name,
                                     name=f"{name} knee QD {k['knee_qd']:g}",
                                     marker={"symbol": "star", "size": 16, "color": c, "line": {"width": 1}},
                                     hovertext=k["reason"], hoverinfo="text"), 1, 1)
            if pd.notna(k.get("knee_p99_us")):
                fig.add_trace(go.Scatter(x=[k["knee_iops"]], y=[k["knee_p99_us"]], mode="markers",
                                         legendgroup=name, showlegend=False,
                                         marker={"symbol": "star", "size": 16, "color": c}, hovertext=k["reason"],
                                         hoverinfo="text"), 1, 2)
        if pd.notna(k.get("latency_knee_iops")):
            fig.add_trace(go.Scatter(x=[k["latency_knee_iops"]], y=[k["latency_knee_p99_us"]], mode="markers",
                                     legendgroup=name, name=f"{name} latency knee QD {k['latency_knee_qd']:g}",
                                     marker={"symbol": "diamond-open", "size": 16, "color": c, "line": {"width": 2}},
                                     hovertext=k["latency_reason"], hoverinfo="text"), 1, 2)
    fig.update_xaxes(title_text="Queue depth (iodepth, log2)", **log2_axis(series["iodepth"]), row=1, col=1)
    fig.update_yaxes(title_text="IOPS (I/O per second)", rangemode="tozero", row=1, col=1)
    fig.update_xaxes(title_text="IOPS (I/O per second)", rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text=f"p99 {lname} (µs, log)", **latency_log_axis(drawn_values(fig, 1, 2)), row=1, col=2)
    _layout(fig, title + " (stars: throughput knees; open diamonds: latency knees)")
    fig.update_layout(title={"y": 0.98, "yanchor": "top"}, margin={"t": 110})
    return legend_toggle(side_legend(fig))


def littles_figure(table: pd.DataFrame, tolerance: float = 0.10,
                   title: str = "Little's Law: measured L̂ = IOPS × latency vs configured outstanding I/O") -> go.Figure:
    """L̂ against iodepth × numjobs (log-log) with the identity line and the ±``tolerance`` band;
    flagged points in red, the likely reason on hover.  ``table``: ``littles_law`` output."""
    if table.empty:
        return message_figure("No measured points: nothing to check against Little's Law.")
    lo, hi = float(table["outstanding_io"].min()), float(table["outstanding_io"].max())
    line = np.geomspace(max(lo / 1.5, 0.5), hi * 1.5, 50)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=line, y=line * (1 + tolerance), mode="lines", line={"width": 0}, showlegend=False,
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=line, y=line * (1 - tolerance), mode="lines", line={"width": 0}, fill="tonexty",
                             fillcolor="rgba(120,120,120,0.15)", name=f"±{100 * tolerance:.0f} %", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=line, y=line, mode="lines", line={"color": "grey", "dash": "dash"},
                             name="L̂ = configured depth", hoverinfo="skip"))
    label = table.get("point_id", pd.Series([""] * len(table), index=table.index)).astype(str)
    for flagged, color, name in ((False, OK_COLOR, "within tolerance"), (True, FLAG_COLOR, "flagged")):
        t = table[table["littles_flag"] == flagged]
        if t.empty:
            continue
        hover = [f"{p}<br>configured {o:g}, L̂ {lh:.2f} (ratio {r:.2f})" + (f"<br>{why}" if why else "")
                 for p, o, lh, r, why in zip(label[t.index], t["outstanding_io"], t["littles_l"], t["littles_ratio"],
                                            t["littles_reason"].fillna(""))]
        fig.add_trace(go.Scatter(x=t["outstanding_io"], y=t["littles_l"], mode="markers", name=name,
                                 marker={"color": color, "size": 10}, hovertext=hover, hoverinfo="text"))
    fig.update_xaxes(title_text="Configured outstanding I/O (iodepth × numjobs, log)", type="log")
    fig.update_yaxes(title_text="Measured L̂ = IOPS × mean total latency (I/Os, log)", type="log")
    return _layout(fig, title)


def linear_region_figure(lin: pd.DataFrame,
                         title: str = "Linear region: IOPS = outstanding I/O / service latency") -> go.Figure:
    """Measured IOPS and the linear-region line through the origin (top), residuals in % of the
    line (bottom).  ``lin``: ``linear_region_table`` output."""
    if lin.empty:
        return message_figure("This run has no queue-depth sweep: no linear region to fit.")
    # series without a line (fewer than two points on a line through the origin) are not drawn: one sentence per
    # reason names them (their points are in the tables), so the plot holds only what has a linear region
    missing: dict[str, list[str]] = {}
    for name, s in lin[lin["service_latency_us"].isna()].groupby("series", sort=False):
        missing.setdefault(str(s["linear_reason"].iloc[0]), []).append(str(name))
    notes = [f"No line for {', '.join(names)}: {reason}." for reason, names in missing.items()]
    if lin["service_latency_us"].isna().all():  # no series has a line: one sentence, not an empty plot
        return message_figure("No linear region was found. " + " ".join(notes))
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.06)
    for i, (name, s) in enumerate(lin.groupby("series", sort=False)):
        c = _color(i)
        lat = s["service_latency_us"].iloc[0]
        if pd.isna(lat):
            continue
        fig.add_trace(go.Scatter(x=s["outstanding_io"], y=s["iops"], mode="markers", name=f"{name} measured",
                                 legendgroup=name, marker={"color": c, "size": 9,
                                                           "symbol": np.where(s["in_linear_region"], "circle",
                                                                              "circle-open")}), 1, 1)
        fig.add_trace(go.Scatter(x=s["outstanding_io"], y=s["linear_iops"], mode="lines", legendgroup=name,
                                 name=f"{name} line: service latency {lat:,.1f} µs", line={"color": c, "dash": "dash"},
                                 hovertext=s["linear_reason"], hoverinfo="text+y"), 1, 1)
        fig.add_trace(go.Bar(x=s["outstanding_io"], y=s["residual_pct"], name=f"{name} residual", legendgroup=name,
                             marker={"color": c}, showlegend=False,
                             hovertemplate="N %{x}<br>%{y:+.1f} % vs line<extra>" + name + "</extra>"), 2, 1)
    ax = log2_axis(lin["outstanding_io"])
    fig.update_xaxes(**ax, row=1, col=1)
    fig.update_xaxes(title_text="Outstanding I/O (iodepth × numjobs, log2)", **ax, row=2, col=1)
    fig.update_yaxes(title_text="IOPS (log)", type="log", row=1, col=1)
    fig.update_yaxes(title_text="Residual (% of line)", row=2, col=1)
    lines = [ln for n in notes for ln in textwrap.wrap(n, 170)]
    fig = _layout(fig, title, height=560 + 16 * len(lines))
    if lines:
        fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=0, y=1.02, yanchor="bottom",
                           showarrow=False, xanchor="left", align="left", font={"size": 12, "color": "#555"})
        fig.update_layout(margin={"t": 90 + 16 * len(lines)})
    return fig


def usl_figure(points: pd.DataFrame, fits: pd.DataFrame, x: str = "outstanding_io", extend: float = 4.0,
               title: str = "Universal Scalability Law fit") -> go.Figure:
    """Measured IOPS (mean ± 95 % CI when repeated) against ``x`` with the fitted USL curve,
    dashed beyond the measured range up to ``extend`` × the largest N, and N* marked.
    ``points``: series rows (``qd_series`` or ``numjobs_series``); ``fits``: ``usl_table`` rows."""
    if points.empty:
        return message_figure("No series to fit the Universal Scalability Law to.")
    fig = go.Figure()
    fits = fits.set_index("series") if not fits.empty else fits
    notes = []
    for i, (name, s) in enumerate(points.groupby("series", sort=False)):
        c = _color(i)
        stats = pd.DataFrame([(n, *mean_ci(g["iops"])) for n, g in s.groupby(x)],
                             columns=[x, "mean", "lo", "hi", "count"])
        err = (stats["hi"] - stats["mean"]).where(stats["count"] > 1)
        fig.add_trace(go.Scatter(x=stats[x], y=stats["mean"], mode="markers", name=f"{name} measured",
                                 legendgroup=name, marker={"color": c, "size": 9},
                                 error_y={"type": "data", "array": err, "visible": bool(err.notna().any())}))
        if name not in fits.index:
            continue
        f = fits.loc[name]
        if isinstance(f, pd.DataFrame):
            f = f.iloc[0]
        if pd.isna(f["lam"]):
            notes.append(f"{name}: {f.get('credibility') or f['reason']}")
            continue
        credible = bool(f.get("extrapolate", True))
        if not credible:
            notes.append(f"{name}: {f['credibility']}")
        n_max = float(f["n_max"])
        inside = np.geomspace(max(float(f["n_min"]), 1e-3), n_max, 120)
        beyond = np.geomspace(n_max, n_max * extend, 60)
        label = f"{name} USL: λ {f['lam']:,.0f}, σ {f['sigma']:.3f}, κ {f['kappa']:.2e}, R² {f['r2']:.3f}"
        fig.add_trace(go.Scatter(x=inside, y=usl(inside, f["lam"], f["sigma"], f["kappa"]), mode="lines",
                                 name=label, legendgroup=name, line={"color": c}))
        if credible:
            fig.add_trace(go.Scatter(x=beyond, y=usl(beyond, f["lam"], f["sigma"], f["kappa"]), mode="lines",
                                     name=f"{name} prediction beyond N = {n_max:g}", legendgroup=name,
                                     line={"color": c, "dash": "dash"}))
        if pd.notna(f["n_star"]) and f["n_star"] <= (n_max * extend if credible else n_max):
            fig.add_trace(go.Scatter(x=[f["n_star"]], y=[f["x_peak"]], mode="markers", legendgroup=name,
                                     name=f"{name} N* = {f['n_star']:.1f}",
                                     marker={"symbol": "x", "size": 13, "color": c}, hovertext=f["reason"],
                                     hoverinfo="text"))
    xlabel = "Outstanding I/O (iodepth × numjobs, log2)" if x == "outstanding_io" else f"{x} (log2)"
    fig.update_xaxes(title_text=xlabel, type="log")
    fig.update_yaxes(title_text="IOPS (I/O per second)", rangemode="tozero")
    if notes:  # one sentence per series whose curve is not extended (or not fitted)
        fig.add_annotation(text="<br>".join(notes), xref="paper", yref="paper", x=0, y=1.1, showarrow=False,
                           xanchor="left", align="left", font={"size": 12, "color": "#555"})
        fig.update_layout(margin={"t": 80 + 18 * len(notes)})
    return _layout(fig, title)
