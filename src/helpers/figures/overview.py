"""Overview views: heatmaps (operation x block size / queue depth), box plots, held-constant charts."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import (
    IOPS_AXIS,
    MB_AXIS,
    TEMPLATE,
    add_step_slider,
    bs_axis,
    color,
    flag_notes,
    flag_symbols,
    latency_log_axis,
    latency_name,
    log2_axis,
    message_figure,
    repeat_means,
)
from helpers.fio.units import format_bytes

METRICS = {  # column -> (label with unit, number format)
    "iops": ("IOPS", ",.0f"),
    "mb_per_s": ("MB/s (10^6 B/s)", ",.0f"),
    "lat_mean_us": ("mean total latency (µs)", ",.0f"),
    "p99_us": ("p99 latency (µs)", ",.0f"),  # labelled with its latency (total / clat) from the data
}


def _metrics(df: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """METRICS with the p99 label naming its latency ('p99 total latency (µs)')."""
    name = latency_name(df["percentile_latency"] if "percentile_latency" in df else [])
    return {**METRICS, "p99_us": (f"p99 {name} (µs)", ",.0f")}
AXIS_NAMES = {"bs_bytes": "Block size", "iodepth": "Queue depth", "rwmixread_pct": "Read share (%)"}


def _compact(v: float, fmt: str) -> str:
    """A heatmap cell's number, short enough to stay legible: 91.3k, 1.2M; small numbers as ``fmt``."""
    a = abs(float(v))
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e4:
        return f"{v / 1e3:.3g}k"
    return format(v, fmt)


def _value_label(factor: str, v) -> str:
    if factor == "bs_bytes":
        return format_bytes(v)
    return f"{v:g}" if isinstance(v, float) else str(v)


def heatmap_figure(grid: pd.DataFrame, x: str = "bs_bytes", held: str = "iodepth",
                   title: str = "") -> go.Figure:
    """Heatmap of a metric over operation (rows) x ``x`` (columns), one held-constant value of
    ``held`` at a time (slider); a dropdown switches the metric (IOPS, MB/s, mean, p99 latency).
    Cells whose point is flagged show ⚠ and the reason in the hover; cells an adaptive search did not measure
    (``note`` from :func:`helpers.analysis.grid` with ``plateaus``) show that sentence and no colour.

    ``grid`` is the output of :func:`helpers.analysis.grid` with the same ``x`` and ``held``.
    """
    xname, hname = AXIS_NAMES.get(x, x), AXIS_NAMES.get(held, held)
    if grid.empty:
        return message_figure(f"This run has no operation x {xname.lower()} grid (no operation measured at two or "
                              f"more {xname.lower()}s with the {hname.lower()} held constant).")
    fig = go.Figure()
    metrics = _metrics(grid)
    helds = list(dict.fromkeys(grid["held"]))
    zs: dict[str, list] = {m: [] for m in metrics}
    texts: dict[str, list] = {m: [] for m in metrics}
    for h in helds:
        g = grid[grid["held"] == h]
        ops = list(dict.fromkeys(g["operation"]))
        xs = sorted(g["x"].unique())
        xlabels = [_value_label(x, v) for v in xs]
        reasons = g.pivot_table(index="operation", columns="x", values="flag_reasons", aggfunc="first").reindex(
            index=ops, columns=xs)
        # cells a search did not measure: their sentence, never a number
        notes = (g[g["note"].fillna("") != ""] if "note" in g else g.iloc[:0]).pivot_table(
            index="operation", columns="x", values="note", aggfunc="first").reindex(index=ops, columns=xs)
        for m, (_, fmt) in metrics.items():
            z = g.pivot_table(index="operation", columns="x", values=m, aggfunc="mean", dropna=False).reindex(
                index=ops, columns=xs)
            zs[m].append(z.values.tolist())
            # a cell's text is its number, compact (91.3k), or "n/m" where a search did not measure it (the hover
            # has the sentence): a long sentence in a cell shrank every label of the heatmap to a dash
            texts[m].append([[("n/m" if isinstance(n, str) and pd.isna(v) else
                               "" if pd.isna(v) else _compact(v, fmt)) + (" ⚠" if isinstance(r, str) and r else "")
                              for v, r, n in zip(zr, rr, nr)]
                             for zr, rr, nr in zip(z.values, reasons.values, notes.values)])
        hover = [[(n if isinstance(n, str) else r if isinstance(r, str) and r else "clean") for r, n in zip(rr, nr)]
                 for rr, nr in zip(reasons.values, notes.values)]
        fig.add_trace(go.Heatmap(
            z=zs["iops"][-1], x=xlabels, y=ops, text=texts["iops"][-1], texttemplate="%{text}",
            textfont={"size": 10},
            customdata=hover, colorscale="Viridis", colorbar={"title": {"text": metrics["iops"][0]}},
            name=f"{hname} {_value_label(held, h)}",
            hovertemplate=f"%{{y}} at {xname.lower()} %{{x}}<br>%{{text}}<br>flags: %{{customdata}}<extra></extra>"))
    buttons = [{"label": label, "method": "restyle",
                "args": [{"z": zs[m], "text": texts[m], "colorbar.title.text": [label] * len(helds)}]}
               for m, (label, _) in metrics.items()]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 0.0, "y": 1.18, "xanchor": "left",
                                    "direction": "down", "showactive": True}])
    steps = [(_value_label(held, h), [i == k for i in range(len(helds))]) for k, h in enumerate(helds)]
    fig.update_xaxes(title_text=xname + (" (binary: 4k = 4096 bytes)" if x == "bs_bytes" else ""), type="category")
    fig.update_yaxes(title_text="Operation (mixed: read + write total)", autorange="reversed")
    rows = max(len(set(grid.loc[grid["held"] == h, "operation"])) for h in helds)
    fig.update_layout(title=title or f"Operation x {xname.lower()} ({hname.lower()} held constant; ⚠: flagged; "
                      "n/m: not measured, the hover says why)",
                      template=TEMPLATE, height=max(480, 26 * rows + 260), margin={"t": 110, "b": 120})
    # the page opens on the held value with the most measured cells (the largest among equals): a searched run's
    # deepest held depth can hold only cells the search did not measure (zram characterize: QD 1024, a blank map)
    measured = [int(grid.loc[grid["held"] == h, "iops"].notna().sum()) for h in helds]
    active = max(range(len(helds)), key=lambda k: (measured[k], k))
    add_step_slider(fig, steps, f"{hname} held at: ", active=active, y=-0.2, held=hname.lower())
    return fig


def box_figure(points: pd.DataFrame, title: str = "Distribution over all points") -> go.Figure:
    """Box plots per operation of IOPS, bandwidth (MB/s) and mean latency (log), every point
    drawn beside its box; flagged points are crosses with the reason in the hover.

    ``points`` is the output of :func:`helpers.analysis.distribution`.
    """
    if points.empty:
        return message_figure("This run has no data points.")
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("IOPS", "Bandwidth (MB/s)", "Mean total latency (µs, log)"))
    for i, (op, s) in enumerate(points.groupby("operation", sort=False)):
        text = [f"{op} {b} QD{q}{n}" for b, q, n in zip(s["bs_label"], s["iodepth"], flag_notes(s["flag_reasons"]))]
        for k, col in enumerate(("iops", "mb_per_s", "lat_mean_us")):
            fig.add_trace(go.Box(
                y=s[col], name=op, legendgroup=op, showlegend=k == 0, marker={"color": color(i)},
                boxpoints="all", jitter=0.4, pointpos=0, hovertext=text,
                hovertemplate="%{hovertext}<br>%{y:,.1f}<extra></extra>"), 1, k + 1)
            flagged = s[s["flagged"]]
            if len(flagged):
                fig.add_trace(go.Scatter(
                    x=[op] * len(flagged), y=flagged[col], mode="markers", name="flagged", legendgroup="flagged",
                    showlegend=(i == 0 and k == 0), marker={"symbol": "x-open", "size": 11, "color": "black"},
                    hovertext=[t for t, f in zip(text, s["flagged"]) if f],
                    hovertemplate="%{hovertext}<br>%{y:,.1f}<extra>flagged</extra>"), 1, k + 1)
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=MB_AXIS, rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text="Mean total latency (µs, log)", **latency_log_axis(points["lat_mean_us"]), row=1, col=3)
    fig.update_xaxes(title_text="Operation")
    fig.update_layout(title=title + " (crosses: flagged points)", template=TEMPLATE, height=560,
                      legend={"orientation": "h", "y": -0.4}, margin={"b": 150})
    return fig


def held_constant_figure(rows: pd.DataFrame, message: str = "", factor: str = "bs_bytes", title: str = "") -> go.Figure:
    """A metric against ``factor`` with the other factors held constant, one line per operation;
    a dropdown switches the metric (IOPS, MB/s, mean, p99 latency).  ``rows``/``message`` are the
    output of :func:`helpers.analysis.held_constant`."""
    if rows.empty:
        return message_figure(message or "No points match the values held constant.")
    fig = go.Figure()
    metrics = _metrics(rows)
    metric_of: list[str] = []
    for i, (line, s) in enumerate(rows.groupby("line", sort=False)):
        notes = flag_notes(s["flag_reasons"])
        mean = repeat_means(s, factor, list(metrics))  # repeats: markers, the line through their mean
        for m, (label, fmt) in metrics.items():
            if mean is not None:
                fig.add_trace(go.Scatter(
                    x=mean[factor], y=mean[m], mode="lines", name=line, legendgroup=line, line={"color": color(i)},
                    visible=m == "iops", hovertemplate=f"{line}<br>%{{x}}: mean of its repeats<br>%{{y:{fmt}}} "
                                                       f"{label}<extra></extra>"))
                metric_of.append(m)
            fig.add_trace(go.Scatter(
                x=s[factor], y=s[m], mode="lines+markers" if mean is None else "markers", name=line,
                legendgroup=line, showlegend=mean is None, line={"color": color(i)},
                marker={"symbol": flag_symbols(s["flagged"]), "size": 9}, customdata=notes, visible=m == "iops",
                hovertemplate=f"{line}<br>%{{x}}<br>%{{y:{fmt}}} {label}%{{customdata}}<extra></extra>"))
            metric_of.append(m)
    ylabels = {"iops": IOPS_AXIS, "mb_per_s": MB_AXIS, "lat_mean_us": "Mean total latency (µs, log)",
               "p99_us": metrics["p99_us"][0].replace("(µs)", "(µs, log)")}
    buttons = [{"label": label, "method": "update",
                "args": [{"visible": [k == m for k in metric_of]},
                         {"yaxis.title.text": ylabels[m], "yaxis.type": "log" if "lat" in m else "linear"}]}
               for m, (label, _) in metrics.items()]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 0.0, "y": 1.15, "xanchor": "left"}])
    if factor == "bs_bytes":
        fig.update_xaxes(title_text="Block size (binary: 4k = 4096 bytes, log2 axis)", **bs_axis(rows[factor]))
    elif factor == "iodepth":
        fig.update_xaxes(title_text="Queue depth (iodepth, log2 axis)", **log2_axis(rows[factor]))
    else:
        fig.update_xaxes(title_text=AXIS_NAMES.get(factor, factor))
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero")
    fig.update_layout(title=(title or "Held constant") + " (crosses: flagged points)", template=TEMPLATE,
                      height=480, margin={"t": 110})
    return fig


