"""Device card: the headline numbers as one figure, and the findings as Markdown."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from helpers.figures.common import TEMPLATE, message_figure, wrap_html

COLS = 4


def _wrap(text: str, width: int = 42) -> str:
    """Line breaks (<br>) that keep a sentence inside its tile."""
    return wrap_html(text, width)


def card_figure(card, title: str = "Device card") -> go.Figure:
    """One number tile per card metric (``card`` from :func:`helpers.analysis.device_card`), titled with
    what was measured when the card has its run's identity ("Peak" only for a series that varied QD);
    a metric the run did not measure says so in its tile, a flagged one (or a percentile with too few I/Os
    behind it) is marked ⚠, and a better
    value measured at a flagged point (left out of the headline) is named under it."""
    if not card.metrics:
        return message_figure("This run has no data for a device card.")
    fig = go.Figure()
    rows = math.ceil(len(card.metrics) / COLS)
    for i, m in enumerate(card.metrics):
        r, c = divmod(i, COLS)
        domain = {"x": [c / COLS + 0.01, (c + 1) / COLS - 0.01], "y": [1 - (r + 1) / rows + 0.04, 1 - r / rows - 0.08]}
        warn = " ⚠" if m.flag_reasons or m.few_ios else ""
        sub = _wrap(m.detail, 52) + ("<br>⚠ flagged point (see the table)" if m.flag_reasons else "")
        if m.few_ios:  # a percentile the point's I/O count cannot support (processed.validity's rule)
            sub += f"<br>{_wrap('⚠ ' + m.few_ios, 52)}"
        if m.better_flagged:
            sub += f"<br>{_wrap(f'a flagged {m.better_flagged} not counted', 52)}"
        if m.available:
            fmt = {"µs": ",.1f", "GB": ",.3g"}.get(m.unit, ",.0f")
            fig.add_trace(go.Indicator(
                mode="number", value=m.value, domain=domain,
                number={"valueformat": fmt, "suffix": f" {m.unit}" if m.unit != "QD" else "",
                        "prefix": "QD " if m.unit == "QD" else "", "font": {"size": 34}},
                title={"text": f"<b>{_wrap(m.label, 36)}</b>{warn}<br><span style='font-size:11px;color:#555'>{sub}</span>",
                       "font": {"size": 13}}))
        else:
            fig.add_annotation(x=(domain["x"][0] + domain["x"][1]) / 2, y=(domain["y"][0] + domain["y"][1]) / 2,
                               xref="paper", yref="paper", showarrow=False, xanchor="center",
                               text=f"<b>{_wrap(m.label)}</b><br><span style='font-size:11px;color:#555'>"
                                    f"{_wrap(m.detail, 48)}</span>",
                               font={"size": 13})
    ident = getattr(card, "identity", {}) or {}
    if ident:  # what was measured, under the title (the identity table lists it in full)
        lines = [[ident.get(k) for k in ("device model", "kernel device", "capacity")],
                 [ident.get("target")], [ident.get(k) for k in ("host", "kernel", "fio version", "profile", "date")]]
        if "run" in ident:
            lines = [[ident["run"]]]
        for line in lines:
            title += "<br><span style='font-size:11px;color:#555'>" + " · ".join(str(f) for f in line if f) + "</span>"
    top = 60 + 30 * title.count("<br>")
    fig.update_layout(title={"text": title, "y": 1.0, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
                      template=TEMPLATE, height=190 * rows + top, margin={"l": 10, "r": 10, "t": top})
    return fig

