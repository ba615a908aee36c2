"""Adaptive QD searches (adaptive and characterize runs): every probe a search measured, per series."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import IOPS_AXIS, QD_AXIS, TEMPLATE, color, log2_axis, message_figure

KIND_SYMBOLS = {"ladder": "circle", "reprobe": "x", "refine": "diamond", "confirm": "star"}


def search_figure(steps: pd.DataFrame, title: str = "Adaptive QD searches: every probe") -> go.Figure:
    """``steps`` from :func:`helpers.analysis.search_steps`: per series (``label``) a line through its ladder and
    refine probes by depth (a re-probed depth by each reading: crosses; a refine step: diamond), and its plateau level
    (the median of its plateau probes, dashed, over the depths it stood on).  A dropdown shows one series or all.
    Only measured probes are drawn: depths a search skipped or stopped before have no marker."""
    if steps is None or steps.empty or steps["qd"].dropna().empty:
        return message_figure("No adaptive queue-depth search in this run: run the adaptive or characterize profile "
                              "to see its probes here.")
    s = steps.dropna(subset=["qd"])
    fig = go.Figure()
    labels = list(dict.fromkeys(s["label"]))
    owner: list[str] = []
    for i, label in enumerate(labels):
        g = s[s["label"] == label].sort_values("qd", kind="stable")
        c = color(i)
        hover = [f"{label}<br>QD {int(r.qd)} ({r.kind}): {r.iops:,.0f} IOPS, mean clat {r.clat_mean_us:,.0f} µs<br>"
                 + (f"settled after {r.settled_after_s:g} s" if pd.notna(r.settled_after_s) else "ran in full")
                 for r in g.itertuples()]
        fig.add_trace(go.Scatter(x=g["qd"], y=g["iops"], mode="lines+markers", name=label, legendgroup=label,
                                 line={"color": c, "width": 1.5},
                                 marker={"color": c, "size": 8, "symbol": [KIND_SYMBOLS.get(k, "circle")
                                                                           for k in g["kind"]]},
                                 hovertext=hover, hoverinfo="text"))
        owner.append(label)
        level = g["plateau_iops"].dropna()
        on = g[g["on_plateau"].fillna(False).astype(bool)]
        if len(level) and len(on):
            fig.add_trace(go.Scatter(x=[on["qd"].min(), on["qd"].max()], y=[level.iloc[0]] * 2, mode="lines",
                                     name=f"{label}: plateau {level.iloc[0]:,.0f} IOPS", legendgroup=label,
                                     showlegend=False, line={"color": c, "dash": "dash", "width": 2},
                                     hoverinfo="name"))
            owner.append(label)
    buttons = [{"label": "all series", "method": "update", "args": [{"visible": [True] * len(owner)}]}]
    buttons += [{"label": label, "method": "update", "args": [{"visible": [o == label for o in owner]}]}
                for label in labels]
    fig.update_layout(title=title, template=TEMPLATE, xaxis_title=QD_AXIS, yaxis_title=IOPS_AXIS, height=480,
                      updatemenus=[{"buttons": buttons, "x": 1.0, "xanchor": "right", "y": 1.15, "yanchor": "top"}],
                      legend={"title": "series (circle: ladder, x: re-probe, diamond: refine; dashed: plateau)"})
    fig.update_xaxes(**log2_axis(s["qd"]))
    return fig
