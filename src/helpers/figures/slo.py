"""SLO capacity overlay: tail latency and IOPS against queue depth, with the SLO line and the capacity."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import (
    IOPS_AXIS,
    QD_AXIS,
    TEMPLATE,
    color,
    drawn_values,
    latency_log_axis,
    log2_axis,
    message_figure,
)
from helpers.fio.latency import column_label, latency_name


def slo_figure(series: pd.DataFrame, table: pd.DataFrame, slo_us: float) -> go.Figure:
    """Left: the table's latency column (µs, log axis; p99 of total latency when fio measured it, else of
    completion latency) against queue depth per series, the SLO as a dashed line;
    right: IOPS against queue depth with a star at each series' SLO capacity (hollow when interpolated
    between two measured depths; a diamond when the SLO held at every measured depth, i.e. at least).
    ``series`` is :func:`helpers.analysis.qd_series` output, ``table`` :func:`helpers.analysis.slo_table`."""
    latency_column, latency_label = "clat_p99_us", column_label("clat_p99_us").removesuffix(" (µs)")
    if len(table):
        latency_column, latency_label = table["latency_column"].iloc[0], table["latency"].iloc[0]
    if series is None or series.empty or latency_column not in series.columns:
        return message_figure("This run has no queue-depth sweep to hold against a latency SLO.")
    s = series[series["rate_iops"].isna()] if "rate_iops" in series.columns else series
    s = s.groupby(["series", "iodepth"], as_index=False, sort=False).agg(
        iops=("iops", "mean"), lat=(latency_column, "mean"))
    closed = table[table["mode"].eq("closed loop (QD)")].set_index("series") if len(table) else table
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=[f"{latency_label} vs queue depth", "IOPS vs queue depth, SLO capacity"])
    for i, (name, g) in enumerate(s.groupby("series", sort=False)):
        c = color(i)
        fig.add_trace(go.Scatter(x=g["iodepth"], y=g["lat"], mode="lines+markers", name=name, legendgroup=name,
                                 line={"color": c}, hovertemplate="QD %{x}<br>%{y:,.0f} µs<extra>" + name + "</extra>"),
                      1, 1)
        fig.add_trace(go.Scatter(x=g["iodepth"], y=g["iops"], mode="lines+markers", name=name, legendgroup=name,
                                 showlegend=False, line={"color": c},
                                 hovertemplate="QD %{x}<br>%{y:,.0f} IOPS<extra>" + name + "</extra>"), 1, 2)
        if name in getattr(closed, "index", []) and pd.notna(closed.loc[name, "max_iops"]):
            r = closed.loc[name]
            sym = "diamond" if r["limited_by"] == "range" else ("star-open" if r["interpolated"] else "star")
            fig.add_trace(go.Scatter(
                x=[r["at_iodepth"]], y=[r["max_iops"]], mode="markers", showlegend=False, legendgroup=name,
                marker={"symbol": sym, "size": 16, "color": c, "line": {"width": 2, "color": c}},
                hovertemplate=f"{r['reason']}<extra>SLO {slo_us:,.0f} µs</extra>"), 1, 2)
    fig.add_hline(y=slo_us, line_dash="dash", line_color="#d62728", annotation_text=f"SLO {slo_us:,.0f} µs",
                  row=1, col=1)
    axis = log2_axis(s["iodepth"])
    for col in (1, 2):
        fig.update_xaxes(title_text=QD_AXIS, row=1, col=col, **axis)
    fig.update_yaxes(title_text=f"{latency_label} (µs, log axis)", **latency_log_axis([*drawn_values(fig, 1, 1), slo_us]),
                     row=1, col=1)
    fig.update_yaxes(title_text=IOPS_AXIS, row=1, col=2)
    fig.update_layout(title=f"SLO capacity: most IOPS with {latency_label} ≤ {slo_us:,.0f} µs (star; hollow: "
                            "interpolated in log space; diamond: met at every depth, so at least)",
                      template=TEMPLATE, height=480)
    return fig


NO_SLO_SEARCH = "No SLO search in this run (profile mode: slo, e.g. the slo profile), so nothing to cross-check."


def _settings(steps: pd.DataFrame) -> list[str]:
    """Each step's configuration for its hover: '1 job × QD 256, libaio, fio 100 % CPU per job' (what is known)."""
    out = []
    for r in steps.to_dict("records"):
        jobs, qd, eng, cpu = r.get("jobs"), r.get("iodepth"), r.get("ioengine"), r.get("cpu_pct")
        text = f"{int(jobs)} job{'s' if int(jobs) != 1 else ''}" if pd.notna(jobs) else "jobs not recorded"
        text += f" × QD {int(qd)}" if pd.notna(qd) and qd else ""
        text += f", {eng}" if isinstance(eng, str) and eng else ""
        text += f", fio {float(cpu):.0f} % CPU per job" if pd.notna(cpu) else ""
        out.append(text)
    return out


def slo_search_figure(steps: pd.DataFrame, cross_check: pd.DataFrame) -> go.Figure:
    """The SLO search against fio's latency_target: every search step as its p-percentile latency against
    its achieved IOPS (log axes; filled green: met the SLO, red cross: failed it, numbered in measuring
    order), the SLO as a dashed line, and fio's latency_target result as a star at its IOPS and the same
    percentile of its final statistics (hollow when fio did not settle cleanly).  ``steps`` is
    :func:`helpers.analysis.slo_search_steps`, ``cross_check`` :func:`helpers.analysis.slo_cross_check`."""
    if steps is None or steps.empty:
        return message_figure(NO_SLO_SEARCH)
    fig = go.Figure()
    multi = steps["run_id"].nunique() > 1
    for i, ((run, series), g) in enumerate(steps.groupby(["run_id", "series"], sort=False)):
        name = f"{run}: {series}" if multi else series
        c = color(i)
        met = g["meets"].astype(bool)
        gone = g["superseded"].fillna(False).astype(bool) if "superseded" in g else pd.Series(False, index=g.index)
        verdict = [("failed while fio was CPU-bound (host-limited): offered again with more demand" if x else
                    "meets the SLO" if m else "fails the SLO") for m, x in zip(met, gone)]
        fig.add_trace(go.Scatter(
            x=g["achieved_iops"], y=g["latency_us"], mode="markers+text", text=g["step"].astype(str),
            textposition="top center", name=f"{name}: SLO search steps", legendgroup=name,
            marker={"size": 11, "color": ["#aaaaaa" if x else "#2ca02c" if m else "#d62728" for m, x in zip(met, gone)],
                    "symbol": ["circle-open" if x else "circle" if m else "x" for m, x in zip(met, gone)],
                    "line": {"width": 1, "color": c}},
            customdata=list(zip(g["offered_iops"], g["kind"], verdict, _settings(g))),
            hovertemplate="step %{text} (%{customdata[1]}): offered %{customdata[0]:,} IOPS at %{customdata[3]}, "
                          "achieved %{x:,.0f}<br>%{y:,.0f} µs: %{customdata[2]}<extra>" + name + "</extra>"))
        cc = cross_check[(cross_check["run_id"] == run) & (cross_check["series"] == series)] if len(cross_check) else None
        if cc is not None and len(cc) and pd.notna(cc["fio_iops"].iloc[0]):
            r = cc.iloc[0]
            fig.add_trace(go.Scatter(
                x=[r["fio_iops"]], y=[r["fio_latency_us"]], mode="markers", legendgroup=name,
                name=f"{name}: fio latency_target (QD {int(r['fio_depth'])})",
                marker={"symbol": "star" if r["fio_settled"] else "star-open", "size": 18, "color": c,
                        "line": {"width": 2, "color": c}},
                hovertemplate=f"fio latency_target: %{{x:,.0f}} IOPS at QD {int(r['fio_depth'])}<br>%{{y:,.0f}} µs "
                              f"in its final statistics<extra>{name}</extra>"))
    slo = cross_check["slo_us"].dropna() if len(cross_check) else pd.Series(dtype=float)
    if len(slo):
        fig.add_hline(y=float(slo.iloc[0]), line_dash="dash", line_color="#d62728",
                      annotation_text=f"SLO {float(slo.iloc[0]):,.0f} µs")
    kinds = steps["latency"].dropna().unique()
    lat = latency_name("lat" if "lat" in kinds else "clat")
    pct = cross_check["percentile"].dropna() if len(cross_check) else pd.Series(dtype=float)
    p = f"p{float(pct.iloc[0]):g}" if len(pct) else "percentile"
    fig.update_xaxes(title_text=f"Achieved {IOPS_AXIS} (log axis)", type="log")
    fig.update_yaxes(title_text=f"{p} {lat} (µs, log axis)", **latency_log_axis([*drawn_values(fig), *slo]))
    fig.update_layout(title=f"SLO search (open loop) against fio's latency_target (closed loop)<br><sup>{p} {lat} "
                            "against achieved IOPS; dots: the search's steps in order (green: met the SLO, red ×: "
                            "failed, grey ring: failed while fio was CPU-bound, offered again with more jobs or io_uring); "
                            "star: fio's result (hollow: fio did not settle)</sup>",
                      template=TEMPLATE, height=500, legend={"orientation": "h", "y": -0.2})
    return fig
