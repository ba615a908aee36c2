"""SNIA PTS HIR figure: IOPS of every cycle against time, each wait state shaded, the steady-state baseline dashed.
A pure builder of :func:`helpers.analysis.pts_hir.hir_samples`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure


def hir_figure(samples: pd.DataFrame, baseline: float | None = None,
               empty: str = "This run has no HIR test.") -> go.Figure:
    """IOPS per cycle against its start time: markers for cycles after a wait, a line for the return to
    baseline; the span of each wait state's cycles shaded and named."""
    if samples is None or samples.empty:
        return message_figure(empty)
    fig = go.Figure()
    for phase, name, mode in (("wait", "after a wait (writes, then idle)", "markers"),
                              ("baseline", "return to baseline (no waits)", "lines+markers")):
        g = samples[samples["phase"] == phase]
        fig.add_trace(go.Scatter(x=g["t_s"], y=g["iops"], mode=mode, name=name))
    for i, (wait, g) in enumerate(samples[samples["phase"] == "wait"].groupby("wait_s", sort=False)):
        fig.add_vrect(x0=float(g["t_s"].min()), x1=float(g["t_s"].max()), line_width=0,
                      fillcolor="rgba(255,165,0,0.15)" if i % 2 == 0 else "rgba(148,103,189,0.15)",
                      annotation_text=f"wait {wait:g} s", annotation_position="top left")
    if baseline:
        fig.add_hline(y=baseline, line_dash="dash", annotation_text="steady-state baseline")
    fig.update_layout(title="HIR: 4k random-write IOPS per cycle, wait states shaded", template=TEMPLATE,
                      xaxis={"title": "time since the first cycle (s, idle waits included)"},
                      yaxis={"title": "write IOPS (4k random)", "rangemode": "tozero"})
    return fig
