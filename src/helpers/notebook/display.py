"""What only a notebook needs to show things: the plotly renderer and Markdown findings."""

from __future__ import annotations

import plotly.io as pio
from IPython.display import Markdown

from helpers.figures.common import TEMPLATE

# plotly_mimetype shows figures in JupyterLab; notebook embeds plotly.js once so that the
# nbconvert HTML export renders offline (no CDN).
NOTEBOOK_RENDERER = "plotly_mimetype+notebook"


def setup_notebook() -> None:
    """Select the renderer that works in JupyterLab and in the offline HTML export, and the template."""
    pio.renderers.default = NOTEBOOK_RENDERER
    pio.templates.default = TEMPLATE


def findings_markdown(findings: list[str], empty: str = "This run has no data to write findings from.") -> Markdown:
    """Findings (sentences) as a Markdown bullet list; one italic sentence when there are none."""
    if not findings:
        return Markdown(f"_{empty}_")
    return Markdown("\n".join(f"- {f}" for f in findings))
