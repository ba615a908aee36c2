"""The one table renderer of the pages: a DataFrame as an HTML table (formatted by
:func:`helpers.figures.table.format_table`) with a link that downloads it as CSV at full precision.
Notebooks show it through ``helpers.notebook.page.table``; the regression gate's page uses it too."""

from __future__ import annotations

import html
import itertools
import re
import urllib.parse

import pandas as pd

from helpers.figures.table import csv_table, format_table, long_text_positions, numeric_positions

_ids = itertools.count()
SCROLL_ROWS = 20  # a table with more rows scrolls inside a box of SCROLL_HEIGHT_EM
SCROLL_HEIGHT_EM = 36


class Table:
    """An HTML table made by :func:`table`; ``cells`` is the formatted text (for tests and reuse), ``data``
    the same rows at full precision with unit-bearing headers (the table's CSV download)."""

    def __init__(self, cells: pd.DataFrame, numeric: list[int], caption: str = "", empty: str = "",
                 data: pd.DataFrame | None = None, name: str = ""):
        self.cells = cells
        self.data = data if data is not None else cells
        self.name = name
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
                 f"padding:3px 6px;border-bottom:1px solid #999;min-width:3em;max-width:9em}}"
                 f"table.{cls} td{{text-align:left!important;vertical-align:top;white-space:normal!important;"
                 f"overflow-wrap:break-word;padding:3px 6px;border-bottom:1px solid #e5e5e5;min-width:3em;"
                 f"max-width:40em}}"
                 + (f"{right}{{text-align:right!important;white-space:nowrap!important;"
                    f"font-variant-numeric:tabular-nums}}{right_th}{{text-align:right!important}}" if right else "")
                 + "".join(f"table.{cls} td:nth-child({i + 1}){{min-width:16em}}" for i in self.sentences))
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.cells.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
                       for row in self.cells.itertuples(index=False))
        cap = f"<caption style='caption-side:top;text-align:left'>{html.escape(self.caption)}</caption>" \
            if self.caption else ""
        box = "overflow-x:auto;max-width:100%"
        if len(self.cells) > SCROLL_ROWS:  # a long table scrolls inside its box, its header kept in view: the page
            # stays short (a queue-depth page was 61,000 px tall), every row stays in the page and the CSV whole
            box += f";max-height:{SCROLL_HEIGHT_EM}em;overflow-y:auto;border:1px solid #ddd"
            style += f"table.{cls} thead th{{position:sticky;top:0;background:#fff;z-index:1}}"
        return (f"<div class='lab-table-box' style='{box}'><style>{style}</style>"
                f"<table class='{cls}'>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
                f"{self.download_link()}")

    def csv(self) -> str:
        """The table's rows at full precision (numbers as fio and the analysis computed them), units in headers."""
        return self.data.to_csv(index=False, lineterminator="\n")

    def download_link(self) -> str:
        """A link that saves the table as CSV from the page itself: the data is in the link (a data: URI), so
        it works offline, from a mailed copy of the page, with no server."""
        name = self.name or f"table-{next(_ids)}"
        uri = "data:text/csv;charset=utf-8," + urllib.parse.quote(self.csv(), safe="")
        return (f"<p class='lab-csv' style='margin:2px 0 10px;font-size:12px'><a download='{html.escape(name)}.csv' "
                f"href='{uri}'>⤓ CSV ({len(self.data):,} row{'' if len(self.data) == 1 else 's'}, full precision)</a></p>")

    def __repr__(self) -> str:  # plain-text output (terminals, text exports)
        return self.cells.to_string(index=False) if not self.cells.empty else self.empty


def table(df: pd.DataFrame, columns: list[str] | None = None, caption: str = "", latency: str = "",
          empty: str = "This run has no rows for this table.", name: str = "") -> Table:
    """``df`` (optionally only ``columns``, those present) as a readable HTML table with a link that downloads
    it as CSV (full precision, units in the headers; saved as ``name``.csv, default from the caption); an
    empty frame is the one sentence ``empty`` (nothing when ``empty`` is "": a figure above already says
    there is no data)."""
    if columns is not None:
        keep = [c for c in columns if c in df.columns or c in (df.index.names or [])]
        df = df.reset_index() if any(c in (df.index.names or []) for c in keep) else df
        df = df[[c for c in keep if c in df.columns]]
    name = name or re.sub(r"[^a-z0-9]+", "-", caption.lower()).strip("-")[:40]
    return Table(format_table(df, latency), numeric_positions(df), caption, empty, csv_table(df, latency), name)


