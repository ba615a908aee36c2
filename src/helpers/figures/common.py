"""Shared figure pieces: notebook renderer, empty-data message, axis conventions."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

# plotly_mimetype shows figures in JupyterLab; notebook embeds plotly.js once so that the
# nbconvert HTML export renders offline (no CDN).
NOTEBOOK_RENDERER = "plotly_mimetype+notebook"
TEMPLATE = "plotly_white"


def setup_notebook() -> None:
    pio.renderers.default = NOTEBOOK_RENDERER
    pio.templates.default = TEMPLATE


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
