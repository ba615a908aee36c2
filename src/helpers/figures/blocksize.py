"""Block-size view: bandwidth (decimal MB/s), IOPS and mean/p99 latency against block size."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from helpers.figures.common import (
    BS_AXIS,
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
    message_figure,
    repeat_means,
)

OP_COLORS = {"read": 0, "write": 1, "randread": 2, "randwrite": 3, "rw": 4, "readwrite": 4, "randrw": 5}


def blocksize_figure(series: pd.DataFrame, plateau: pd.DataFrame | None = None,
                     title: str = "Block size", empty: str = "") -> go.Figure:
    """Four panels against block size (log2 x): bandwidth in MB/s, IOPS, mean latency and p99
    latency (log y; total latency when fio wrote its percentiles, else completion latency, named on the axis).  One line per operation (and direction); a slider steps through
    queue depths.  Flagged points are crosses with the reason in the hover; a star marks where
    bandwidth stops growing (``plateau`` from :func:`helpers.analysis.bandwidth_plateau`).

    ``series`` is the output of :func:`helpers.analysis.blocksize_series`; ``empty`` the sentence shown when it is
    empty (default: the run has no block-size sweep).
    """
    if series.empty:
        return message_figure(empty or "This run has no block-size sweep (no workload measured at two or more block "
                              "sizes).")
    lname = latency_name(series["percentile_latency"] if "percentile_latency" in series else [])
    pcol = "p99_us" if "p99_us" in series else "clat_p99_us"
    fig = make_subplots(rows=2, cols=2, vertical_spacing=0.14, horizontal_spacing=0.1,
                        subplot_titles=("Bandwidth (MB/s)", "IOPS", "Mean total latency (µs, log)",
                                        f"p99 {lname} (µs, log)"))
    qds = sorted(series["iodepth"].unique())
    groups: list[int] = []
    panels = [("mb_per_s", 1, 1, "%{y:,.0f} MB/s (%{customdata[0]:,.0f} MiB/s)"),
              ("iops", 1, 2, "%{y:,.0f} IOPS"),
              ("lat_mean_us", 2, 1, "mean total latency %{y:,.1f} µs"),
              (pcol, 2, 2, f"p99 {lname} %{{y:,.1f}} µs")]
    measured = sorted(series["bs_bytes"].unique())  # every block size the run measured, at any depth
    for name, s in series.groupby("series", sort=False):
        qd = int(s["iodepth"].iloc[0])
        # a block size this series skipped that the run measured elsewhere is a gap, never a straight line across it
        s = s.sort_values("bs_bytes")
        gaps = [b for b in measured if s["bs_bytes"].min() < b < s["bs_bytes"].max() and b not in set(s["bs_bytes"])]
        if gaps:
            s = pd.concat([s, pd.DataFrame({"bs_bytes": gaps})], ignore_index=True).sort_values("bs_bytes")
            s[["rw", "direction"]] = s[["rw", "direction"]].ffill()
            s["flagged"] = s["flagged"].astype("boolean").fillna(False).astype(bool)
            s["flag_reasons"] = s["flag_reasons"].astype("object").where(s["flag_reasons"].notna(), "")
        c = color(OP_COLORS.get(s["rw"].iloc[0], 6) + (1 if s["direction"].iloc[0] == "write"
                                                       and s["rw"].iloc[0] in ("rw", "randrw") else 0))
        notes = flag_notes(s["flag_reasons"])
        # repeats of a block size (a search's probes, repeated rounds): the line goes through their mean and each
        # repeat is a marker on its own -- a line through every repeat drew a vertical stroke at that block size
        mean = repeat_means(s, "bs_bytes", [p[0] for p in panels])
        for k, (col, row, cc, fmt) in enumerate(panels):
            if mean is not None:
                fig.add_trace(go.Scatter(
                    x=mean["bs_bytes"], y=mean[col], mode="lines", name=name, legendgroup=name, showlegend=k == 0,
                    line={"color": c}, hovertemplate=f"{name}<br>block size %{{x}} B: mean of its repeats<br>"
                                                     f"{fmt.replace(' (%{customdata[0]:,.0f} MiB/s)', '')}<extra></extra>"), row, cc)
                groups.append(qd)
            fig.add_trace(go.Scatter(
                x=s["bs_bytes"], y=s[col], mode="markers" if mean is not None else "lines+markers", name=name,
                legendgroup=name, showlegend=k == 0 and mean is None, line={"color": c},
                marker={"symbol": flag_symbols(s["flagged"]), "size": 8},
                customdata=list(zip(s["mib_per_s"], s["bs_label"], notes)),
                hovertemplate=f"{name}<br>block size %{{customdata[1]}}<br>{fmt}%{{customdata[2]}}<extra></extra>"),
                row, cc)
            groups.append(qd)
    if plateau is not None:
        for p in plateau.dropna(subset=["plateau_bs_bytes"]).itertuples():
            fig.add_trace(go.Scatter(
                x=[int(p.plateau_bs_bytes)], y=[p.plateau_mb_per_s], mode="markers", name="bandwidth stops growing",
                legendgroup="plateau", showlegend=False, marker={"symbol": "star", "size": 16, "color": "gold",
                                                                 "line": {"width": 1, "color": "black"}},
                hovertemplate=f"{p.series}: {p.note}<extra></extra>"), 1, 1)
            groups.append(int(p.iodepth))
    ax = bs_axis(series["bs_bytes"])
    for r, c in ((1, 1), (1, 2), (2, 1), (2, 2)):
        fig.update_xaxes(title_text=BS_AXIS, **ax, row=r, col=c)
    fig.update_yaxes(title_text=MB_AXIS, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text="Mean total latency (µs, log)", **latency_log_axis(series["lat_mean_us"]), row=2, col=1)
    fig.update_yaxes(title_text=f"p99 {lname} (µs, log)",
                     **latency_log_axis(series["p99_us"] if "p99_us" in series else ()), row=2, col=2)
    steps = [(f"QD {q}", [g == q for g in groups]) for q in qds]
    if len(qds) > 1:
        steps.append(("all", [True] * len(groups)))
    # the slider opens at the depth with the most measured points (a block-size sweep's own), not the deepest
    counts = series.groupby("iodepth")["bs_bytes"].size()
    first = qds.index(max(qds, key=lambda q: (counts.get(q, 0), -q)))
    fig.update_layout(title=title + " (crosses: flagged points; 1 MB = 10^6 B, 1 MiB = 2^20 B)",
                      template=TEMPLATE, height=820, legend={"orientation": "v", "x": 1.02, "y": 1},
                      margin={"b": 140})
    add_step_slider(fig, steps, "Queue depth: ", active=first, y=-0.12, held="queue depth")
    return fig
