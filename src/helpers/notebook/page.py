"""Notebook-only display helpers: the plotly renderer, tables and Markdown findings.

Every table a notebook shows goes through :func:`table` (one formatter: ``helpers.figures.table``), so all
pages read the same way: thousands separators, ~3 significant digits, units in headers, long sentences
wrapped (never cut), no ``None``/``<NA>`` text, and wide tables scroll inside the page instead of running
off it.
"""

from __future__ import annotations

import plotly.io as pio
from IPython.display import Markdown

from helpers import config
from helpers.figures.common import TEMPLATE
from helpers.figures.html_table import SCROLL_HEIGHT_EM as SCROLL_HEIGHT_EM
from helpers.figures.html_table import SCROLL_ROWS as SCROLL_ROWS
from helpers.figures.html_table import Table as Table
from helpers.figures.html_table import table as table

# plotly_mimetype: figures are stored as JSON in the notebook (JupyterLab draws them; the HTML export
# draws them with the one shared plotly.js of the reports folder), never with plotly.js inlined.
NOTEBOOK_RENDERER = "plotly_mimetype"


def setup() -> None:
    """Figures render as plotly JSON (small notebooks; the report export adds plotly.js once per folder)."""
    config.skip_slow_optional_imports()  # plotly's renderers import nbformat
    pio.renderers.default = NOTEBOOK_RENDERER
    pio.templates.default = TEMPLATE


def warning(text: str) -> object:
    """One warning paragraph (⚠, bold), or nothing when ``text`` is empty."""
    return Markdown(f"**⚠ {text}**" if text else "")


def findings(card) -> object:
    """The device card's findings as a Markdown bullet list (IPython display object)."""
    if not card.findings:
        return Markdown("_This run has no data to write findings from._")
    return Markdown("\n".join(f"- {f}" for f in card.findings))


def statement(text: str, items: list[str] | None = None) -> object:
    """A bold statement with its items as a bullet list below it (e.g. a conformance statement and its
    deviations); Markdown."""
    return Markdown("\n".join([f"**{text}**", "", *(f"- {i}" for i in items or [])]))
