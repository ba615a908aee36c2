"""Compare views: several runs on the same axes, and measured numbers against spec sheets."""

from __future__ import annotations

import textwrap

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import TEMPLATE, color, message_figure
from helpers.figures.table import label_with_unit


def run_metrics_figure(metrics: pd.DataFrame, title: str = "Headline numbers per run", unlike: str = "") -> go.Figure:
    """One small panel per device-card metric, one bar per run on the same axis (hover: where it
    was measured); a single run's own numbers when there is one (the comparison views say once that a
    second run is needed).  ``metrics`` is the output of :func:`helpers.analysis.run_metrics`; only the metrics every
    run measured the same way are drawn (the others are named under the figure), and with none, one sentence that
    begins with ``unlike`` (:func:`helpers.analysis.no_common_configuration`) when the runs share no configuration."""
    runs = list(dict.fromkeys(metrics["run_id"])) if len(metrics) else []
    if not runs:
        return message_figure("No run has a headline number to show.")
    apart = []
    if len(runs) > 1 and "comparable" in metrics:  # numbers measured differently are never drawn side by side
        apart = list(dict.fromkeys(metrics.loc[~metrics["comparable"].astype(bool), "metric"]))
        metrics = metrics[metrics["comparable"].astype(bool)]
        if metrics.empty:  # ``unlike``: the regression gate's sentence when the runs share no configuration
            lead = f"{unlike[:1].upper()}{unlike[1:]} " if unlike else ""
            return message_figure(f"{lead}No headline number was measured the same way in every run "
                                  f"({', '.join(apart)}: other settings or procedures), so none is drawn side by "
                                  "side: see each run's device card.")
    names = list(dict.fromkeys(metrics["metric"]))
    cols = 4
    rows = -(-len(names) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=names, vertical_spacing=0.22, horizontal_spacing=0.07)
    for i, name in enumerate(names):
        m = metrics[metrics["metric"] == name].set_index("run_id").reindex(runs)
        unit = m["unit"].dropna().iloc[0] if m["unit"].notna().any() else ""
        r, c = divmod(i, cols)
        fig.add_trace(go.Bar(
            x=runs, y=m["value"], marker={"color": [color(k) for k in range(len(runs))],
                                          "pattern": {"shape": ["x" if f else "" for f in m["flag_reasons"].fillna("")]}},
            showlegend=False, customdata=m["measured_at"].fillna(""),
            hovertemplate="%{x}<br>%{y:,.1f} " + unit + "<br>%{customdata}<extra>" + name + "</extra>"), r + 1, c + 1)
        fig.update_yaxes(title_text=unit, row=r + 1, col=c + 1)
        if m["value"].isna().all():  # no run measured it: say why in the panel, not an empty axis
            why = next((str(x) for x in m["measured_at"] if isinstance(x, str) and x.strip()), "not measured")
            fig.add_annotation(text="<br>".join(textwrap.wrap(why, 28)), x=0.5, y=0.5, xref="x domain",
                               yref="y domain", showarrow=False, font={"size": 11, "color": "#666"},
                               row=r + 1, col=c + 1)
            fig.update_yaxes(visible=False, row=r + 1, col=c + 1)
    fig.update_layout(title=title + " (hatched: flagged point)", template=TEMPLATE, height=300 * rows + 80)
    if apart:
        fig.add_annotation(text="<br>".join(textwrap.wrap(f"Not drawn side by side (measured at other settings or by "
                                                          f"another procedure in some run): {', '.join(apart)}.", 150)),
                           x=0, y=-0.08, xref="paper", yref="paper", showarrow=False, xanchor="left",
                           yanchor="top", font={"size": 11, "color": "#555"})
        fig.update_layout(margin={"b": 90})
    return fig


def ratio_figure(table: pd.DataFrame, title: str = "Measured / spec ratio") -> go.Figure:
    """Bars of measured / spec per metric, grouped by reference drive, one colour per run (1.0 = spec)."""
    t = table.dropna(subset=["ratio"]) if len(table) else table
    if t.empty:
        return message_figure("No measured metric has a spec figure to compare with.")
    fig = go.Figure()
    for i, (run, s) in enumerate(t.groupby("run_id", sort=False)):
        fig.add_trace(go.Bar(x=[s["drive"], s["metric"]], y=s["ratio"], name=run, marker={"color": color(i)},
                             customdata=list(zip(s["measured"], s["spec"], s["unit"])),
                             hovertemplate="%{x}<br>measured %{customdata[0]:,.0f} / spec %{customdata[1]:,.0f} "
                                           "%{customdata[2]} = %{y:.2f}<extra>" + run + "</extra>"))
    fig.add_hline(y=1.0, line_dash="dash", annotation_text="spec")
    fig.update_yaxes(title_text="Measured / spec (1.0 = as specified)", type="log")
    fig.update_layout(title=title, template=TEMPLATE, height=520, barmode="group", margin={"b": 140})
    return fig


VERDICT_COLORS = {"slower": "#d62728", "faster": "#2ca02c", "within noise": "#7f7f7f",
                  "not enough samples": "#bbbbbb", "drift not measured": "#ff7f0e"}
VERDICT_SYMBOLS = {"not enough samples": "circle-open", "drift not measured": "diamond-open"}


def forest_figure(table: pd.DataFrame, summary: str = "", title: str = "Change per point, new vs base") -> go.Figure:
    """Forest plot of a run comparison: one row per matched point, one panel per metric, the change
    in % (new / base − 1) with its confidence interval against 0.  Red: significantly worse, green:
    better, grey: within noise, hollow: no interval (fewer than two samples a side), orange hollow
    diamond: beyond the within-run noise, but run-to-run drift was not measured (the bar is then the
    within-run interval only).  ``table`` is
    ``RunComparison.table`` (:func:`helpers.analysis.compare_runs`); ``summary`` its one-line summary."""
    if table is None or table.empty:
        return message_figure(summary or "No point was measured with the same configuration in both runs.")
    metrics = list(dict.fromkeys(table["metric"]))
    labels = {m: table.loc[table["metric"] == m, "metric_label"].iloc[0] for m in metrics}
    points = list(dict.fromkeys(table["point"]))
    fig = make_subplots(rows=1, cols=len(metrics), shared_yaxes=True, horizontal_spacing=0.02,
                        subplot_titles=[labels[m] for m in metrics])
    finite = table[["low_pct", "high_pct", "change_pct"]].replace([float("inf"), -float("inf")], float("nan"))
    span = float(pd.concat([finite[c] for c in finite]).abs().max()) if finite.notna().any().any() else 10.0
    cap = max(span, 1.0) * 1.1
    for i, m in enumerate(metrics):
        t = table[table["metric"] == m]
        for verdict, g in t.groupby("verdict", sort=False):
            hi = g["high_pct"].clip(upper=cap)
            has = g["low_pct"].notna()
            fig.add_trace(go.Scatter(
                x=g["change_pct"], y=g["point"], mode="markers", name=verdict, legendgroup=verdict,
                showlegend=i == 0 and verdict not in [tr.name for tr in fig.data],
                marker={"color": VERDICT_COLORS.get(verdict, "#000"), "size": 9,
                        "symbol": VERDICT_SYMBOLS.get(verdict, "circle")},
                error_x={"type": "data", "symmetric": False, "array": (hi - g["change_pct"]).where(has, 0),
                         "arrayminus": (g["change_pct"] - g["low_pct"]).where(has, 0), "thickness": 2},
                customdata=list(zip(g["base_mean"], g["new_mean"], g["low_pct"].fillna(float("nan")),
                                    g["high_pct"], g["n_base"], g["n_new"], g["method"],
                                    g["drift"] if "drift" in g.columns else [""] * len(g))),
                hovertemplate=("%{y}<br>" + label_with_unit(labels[m], g["unit"].iloc[0]) + ": base %{customdata[0]:,.1f}"
                               " → new %{customdata[1]:,.1f}<br>change %{x:+.1f} % [%{customdata[2]:+.1f} %, "
                               "%{customdata[3]:+.1f} %]<br>samples %{customdata[4]} / %{customdata[5]} "
                               "(%{customdata[6]})<br>run-to-run drift: %{customdata[7]}<extra>" + verdict
                               + "</extra>")), 1, i + 1)
        fig.add_vline(x=0, line_dash="dash", line_color="#444", row=1, col=i + 1)
        fig.update_xaxes(title_text="change, new vs base (%)", range=[-cap, cap], row=1, col=i + 1)
    fig.update_yaxes(categoryorder="array", categoryarray=points[::-1], type="category")
    lines = textwrap.wrap(summary, 170) if summary else []  # a long summary wraps instead of running off the page
    sub = "".join(f"<br><sup>{line}</sup>" for line in lines)
    top = 110 + 16 * max(len(lines) - 1, 0)
    fig.update_layout(title={"text": title + sub}, template=TEMPLATE,
                      height=top + 80 + max(28 * len(points), 100),  # a plot area of at least 100 px
                      legend={"orientation": "h", "y": 1.0, "x": 1.0, "xanchor": "right", "yanchor": "bottom"},
                      margin={"l": 10, "t": top})
    return fig
