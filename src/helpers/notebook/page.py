"""Notebook-only display helpers: the plotly renderer, tables and Markdown findings.

Every table a notebook shows goes through :func:`table` (one formatter: ``helpers.figures.table``), so all
pages read the same way: thousands separators, ~3 significant digits, units in headers, long sentences
wrapped (never cut), no ``None``/``<NA>`` text, and wide tables scroll inside the page instead of running
off it.
"""

from __future__ import annotations

import html
import itertools

import pandas as pd
import plotly.io as pio
from IPython.display import Markdown

from helpers import config
from helpers.figures.common import TEMPLATE
from helpers.figures.table import format_table, long_text_positions, numeric_positions

# plotly_mimetype: figures are stored as JSON in the notebook (JupyterLab draws them; the HTML export
# draws them with the one shared plotly.js of the reports folder), never with plotly.js inlined.
NOTEBOOK_RENDERER = "plotly_mimetype"
_ids = itertools.count()


def setup() -> None:
    """Figures render as plotly JSON (small notebooks; the report export adds plotly.js once per folder)."""
    config.skip_slow_optional_imports()  # plotly's renderers import nbformat
    pio.renderers.default = NOTEBOOK_RENDERER
    pio.templates.default = TEMPLATE


class Table:
    """An HTML table made by :func:`table`; ``cells`` is the formatted text (for tests and reuse)."""

    def __init__(self, cells: pd.DataFrame, numeric: list[int], caption: str = "", empty: str = ""):
        self.cells = cells
        self.numeric = numeric
        self.sentences = long_text_positions(cells)
        self.caption = caption
        self.empty = empty

    def _repr_html_(self) -> str:
        if self.cells.empty:  # nothing when empty is "": the figure above the table already said it
            return f"<p><em>{html.escape(self.empty)}</em></p>" if self.empty else ""
        cls = f"lab-table-{next(_ids)}"
        right = ",".join(f"table.{cls} td:nth-child({i + 1})" for i in self.numeric)
        right_th = ",".join(f"table.{cls} th:nth-child({i + 1})" for i in self.numeric)
        # !important: JupyterLab's and nbconvert's own table CSS right-aligns and never wraps cells
        style = (f"table.{cls}{{border-collapse:collapse;font-size:13px;max-width:100%;table-layout:auto;"
                 f"margin:0}}"
                 f"table.{cls} th{{text-align:left!important;vertical-align:bottom;white-space:normal!important;"
                 f"padding:3px 8px;border-bottom:1px solid #999;min-width:3em;max-width:14em}}"
                 f"table.{cls} td{{text-align:left!important;vertical-align:top;white-space:normal!important;"
                 f"overflow-wrap:break-word;padding:3px 8px;border-bottom:1px solid #e5e5e5;min-width:3em;"
                 f"max-width:40em}}"
                 + (f"{right}{{text-align:right!important;white-space:nowrap!important;"
                    f"font-variant-numeric:tabular-nums}}{right_th}{{text-align:right!important}}" if right else "")
                 + "".join(f"table.{cls} td:nth-child({i + 1}){{min-width:20em}}" for i in self.sentences))
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.cells.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
                       for row in self.cells.itertuples(index=False))
        cap = f"<caption style='caption-side:top;text-align:left'>{html.escape(self.caption)}</caption>" \
            if self.caption else ""
        return (f"<div style='overflow-x:auto;max-width:100%'><style>{style}</style>"
                f"<table class='{cls}'>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")

    def __repr__(self) -> str:  # plain-text output (terminals, text exports)
        return self.cells.to_string(index=False) if not self.cells.empty else self.empty


def table(df: pd.DataFrame, columns: list[str] | None = None, caption: str = "", latency: str = "",
          empty: str = "This run has no rows for this table.") -> Table:
    """``df`` (optionally only ``columns``, those present) as a readable HTML table; an empty frame is the
    one sentence ``empty`` (nothing when ``empty`` is "": a figure above already says there is no data)."""
    if columns is not None:
        keep = [c for c in columns if c in df.columns or c in (df.index.names or [])]
        df = df.reset_index() if any(c in (df.index.names or []) for c in keep) else df
        df = df[[c for c in keep if c in df.columns]]
    return Table(format_table(df, latency), numeric_positions(df), caption, empty)


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
