"""Tail-latency views: fio's latency percentiles per point, and the latency distribution (histogram and
tail 1 - CDF) from fio's json+ bins.  Every axis names its latency: total latency (slat + clat) when fio
wrote total-latency percentiles, else completion latency (clat)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.analysis.tail import HIST_KEYS
from helpers.figures.common import (
    COMPLETION_LATENCY,
    TEMPLATE,
    add_step_slider,
    color,
    exceedance_axis,
    flag_notes,
    flag_symbols,
    latency_log_axis,
    latency_name,
    message_figure,
    natural_key,
)
from helpers.fio import latency as fio_latency

# fio's json+ bins are completion latency: an I/O that completed while io_submit was still running has its
# device time counted as submission latency (slat), so its clat is about 1 µs.
CLAT_SPIKE_US = 5.0
CLAT_SPIKE_NOTE = ("Bins below 5 µs are I/Os that completed while fio was still submitting them: their device "
                   f"time is in the {fio_latency.latency_name('slat')}, so their {fio_latency.latency_name('clat')} "
                   f"is ~1 µs. {fio_latency.latency_name('lat').capitalize()} has no such spike.")


def _qd_steps(groups: list[int], extra_all: bool = True) -> list[tuple[str, list[bool]]]:
    qds = sorted(set(groups))
    steps = [(f"QD {q}", [g == q for g in groups]) for q in qds]
    if extra_all and len(qds) > 1:
        steps.append(("all", [True] * len(groups)))
    return steps


def percentiles_figure(long: pd.DataFrame, title: str = "") -> go.Figure:
    """Latency (log y) at p50, p90, p95, p99, p99.9 and p99.99 for every point, one line per point;
    a slider steps through queue depths.  Flagged points (e.g. too few I/Os for p99.99) are crosses.

    ``long`` is the output of :func:`helpers.analysis.percentiles_long`.
    """
    if long.empty:
        return message_figure("This run reports no latency percentiles.")
    name = latency_name(long["latency"] if "latency" in long else [])
    fig = go.Figure()
    groups: list[int] = []
    order = list(dict.fromkeys(long.sort_values("percentile")["percentile_label"]))
    labels = sorted(dict.fromkeys(long["label"]), key=natural_key)
    by_label = dict(tuple(long.groupby("label", sort=False)))
    for i, (label, s) in enumerate((lab, by_label[lab]) for lab in labels):
        s = s.sort_values("percentile")
        fig.add_trace(go.Scatter(
            x=s["percentile_label"], y=s["latency_us"], mode="lines+markers", name=label,
            line={"color": color(i)}, marker={"symbol": flag_symbols(s["flagged"]), "size": 8},
            customdata=flag_notes(s["flag_reasons"]),
            hovertemplate=label + "<br>%{x}: %{y:,.1f} µs%{customdata}<extra></extra>"))
        groups.append(int(s["iodepth"].iloc[0]))
    fig.update_xaxes(title_text=f"Percentile of {name}", type="category", categoryorder="array",
                     categoryarray=order)
    fig.update_yaxes(title_text=f"{name[0].upper() + name[1:]} (µs, log)", **latency_log_axis(long["latency_us"]))
    title = title or f"Percentiles of {name}"
    fig.update_layout(title=title + " (crosses: flagged points)", template=TEMPLATE, height=520,
                      margin={"b": 110})
    add_step_slider(fig, _qd_steps(groups), "Queue depth: ", y=-0.2, held="queue depth")
    return fig


def latency_distribution_figure(dist: pd.DataFrame, message: str = "",
                                title: str = "Latency distribution from fio's histogram bins") -> go.Figure:
    """Left: share of I/Os per latency bin (log x; the x axis names the latency of the bins); right: tail, the share of I/Os slower than x
    (1 - CDF, log-log).  One line per point and direction; a slider steps through queue depths.

    ``dist`` is the output of :func:`helpers.analysis.latency_distribution`; when it is empty
    ``message`` (or a default sentence) is shown instead.
    """
    if dist is None or dist.empty:
        return message_figure(message or "This run has no latency histogram (fio json+ bins were not ingested).")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Histogram: share of I/Os per bin", "Tail: share of I/Os slower than x"))
    keys = [k for k in HIST_KEYS if k in dist.columns]
    groups: list[int] = []
    has_qd = "iodepth" in dist.columns and dist["iodepth"].notna().any()
    grouped = sorted(dist.groupby(keys, sort=False, dropna=False), key=lambda kv: natural_key(kv[1]["label"].iloc[0]))
    for i, (_, s) in enumerate(grouped):
        s = s.sort_values("latency_us")
        label = str(s["label"].iloc[0])
        flagged = bool(s["flagged"].iloc[0]) if "flagged" in s and pd.notna(s["flagged"].iloc[0]) else False
        note = flag_notes([s["flag_reasons"].iloc[0] if "flag_reasons" in s else ""])[0]
        line = {"color": color(i), "dash": "dot" if flagged else "solid"}
        fig.add_trace(go.Scatter(x=s["latency_us"], y=s["share"] * 100, mode="lines", name=label, legendgroup=label,
                                 line=line, hovertemplate=label + "<br>%{x:,.1f} µs: %{y:.3f}% of I/Os" + note +
                                 "<extra></extra>"), 1, 1)
        fig.add_trace(go.Scatter(x=s["latency_us"], y=s["exceedance"].where(s["exceedance"] > 0), mode="lines",
                                 name=label, legendgroup=label, showlegend=False, line=line,
                                 hovertemplate=label + "<br>%{y:.2e} of I/Os slower than %{x:,.1f} µs" + note +
                                 "<extra></extra>"), 1, 2)
        qd = int(s["iodepth"].iloc[0]) if has_qd and pd.notna(s["iodepth"].iloc[0]) else 0
        groups += [qd, qd]
    name = latency_name(dist["latency"] if "latency" in dist else [])
    fig.update_xaxes(title_text=f"{name[0].upper() + name[1:]} (µs, log)", **latency_log_axis(dist["latency_us"]))
    if name == COMPLETION_LATENCY and (dist["latency_us"] < CLAT_SPIKE_US).any():
        fig.add_annotation(text=CLAT_SPIKE_NOTE, xref="paper", yref="paper", x=0, y=1.2, showarrow=False,
                           xanchor="left", align="left", font={"size": 11, "color": "#555"})
    fig.update_yaxes(title_text="Share of I/Os in the bin (%)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="Share of I/Os slower (1 - CDF, % of I/Os, log)",
                     **exceedance_axis(dist["exceedance"]), row=1, col=2)
    fig.update_layout(title=f"{title}: {name} (dotted: flagged points)", template=TEMPLATE, height=560,
                      margin={"b": 120, "t": 140})
    if has_qd:
        add_step_slider(fig, _qd_steps(groups), "Queue depth: ", y=-0.25, held="queue depth")
    return fig
