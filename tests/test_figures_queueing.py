"""Queueing figure builders: figures from analysis output, messages on empty input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from helpers import analysis, figures

QD = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)


def series():
    iops = 10_000 * np.minimum(QD, 8)
    lat = QD / iops * 1e6
    return pd.DataFrame({"series": "randread 4k (read)", "iodepth": QD, "numjobs": 1, "outstanding_io": QD,
                         "iops": iops, "lat_mean_us": lat, "clat_p99_us": 2.5 * lat})


def test_knee_figure_marks_both_knees():
    s = series()
    fig = figures.knee_figure(s, analysis.knee_table(s))
    assert isinstance(fig, go.Figure)
    names = [t.name or "" for t in fig.data]
    assert any("knee QD 8" in n for n in names) and any("latency knee" in n for n in names)


def test_littles_figure_separates_flagged_points():
    t = pd.DataFrame({"point_id": ["a", "b"], "outstanding_io": [4, 16], "littles_l": [4.0, 1.0],
                      "littles_ratio": [1.0, 1 / 16], "littles_flag": [False, True],
                      "littles_reason": ["", "synchronous engine psync ..."]})
    fig = figures.littles_figure(t)
    names = [t.name for t in fig.data]
    assert "flagged" in names and "within tolerance" in names


def test_linear_and_usl_figures():
    s = series()
    fig = figures.linear_region_figure(analysis.linear_region_table(s))
    assert any(isinstance(t, go.Bar) for t in fig.data)
    s2 = s.assign(iops=analysis.usl(QD, 10_000, 0.05, 0.002))
    fig = figures.usl_figure(s2, analysis.usl_table(s2))
    names = [t.name or "" for t in fig.data]
    assert any("prediction beyond N = 64" in n for n in names) and any("N* =" in n for n in names)


def test_empty_inputs_give_messages():
    empty = series().iloc[0:0]
    for fig in (figures.knee_figure(empty, analysis.knee_table(empty)),
                figures.littles_figure(analysis.littles_law(pd.DataFrame(columns=["iops"]))),
                figures.linear_region_figure(analysis.linear_region_table(empty)),
                figures.usl_figure(empty, analysis.usl_table(empty))):
        assert fig.layout.annotations and not fig.data


def test_usl_curve_is_not_extended_when_the_fit_is_not_credible_and_says_so():
    s = series().assign(iops=[100.0, 1000, 1000, 1000, 1000, 1000, 1000])
    fig = figures.usl_figure(s, analysis.usl_table(s))
    names = [t.name or "" for t in fig.data]
    assert not any("prediction beyond" in n for n in names) and any(" USL: " in n for n in names)
    assert "not credible beyond the measured range" in fig.layout.annotations[0].text


def test_linear_region_without_two_points_draws_no_line():
    s = series().assign(iops=[100.0, 120, 130, 135, 136, 137, 138])
    fig = figures.linear_region_figure(analysis.linear_region_table(s))
    assert not any("line: service latency" in (t.name or "") for t in fig.data)
    assert "no linear region" in fig.layout.annotations[0].text


def test_linear_region_with_no_line_in_any_series_is_one_sentence_not_an_empty_plot():
    """Issue 22.8: the linear-region plot is not drawn empty (no axes, no residual panel without bars)."""
    s = series().assign(iops=[100.0, 120, 130, 135, 136, 137, 138])
    fig = figures.linear_region_figure(analysis.linear_region_table(s))
    assert not fig.data and fig.layout.xaxis.visible is False
    assert fig.layout.annotations[0].text.startswith("No linear region was found. No line for ")


def test_series_without_a_linear_region_are_named_in_one_sentence_not_drawn():
    """Issue 22.8 on the grid sample's shape: one series has a line, the others none -- only the one is drawn,
    the others are named once per reason above the plot (15 notes covered the plot before)."""
    flat = [series().assign(series=f"randwrite {b} (write)", iops=[100.0, 120, 130, 135, 136, 137, 138])
            for b in ("4k", "16k")]
    fig = figures.linear_region_figure(analysis.linear_region_table(pd.concat([series(), *flat], ignore_index=True)))
    assert {t.legendgroup for t in fig.data} == {"randread 4k (read)"}
    (note,) = [a.text for a in fig.layout.annotations if "No line for" in a.text]
    assert note.count("No line for") == 1 and "randwrite 4k (write), randwrite 16k (write)" in note.replace("<br>", " ")


def test_knee_trade_off_latency_axis_ticks_at_1_2_5_over_the_data():
    """Issue 22.6: the trade-off axis was built without the data (a nine-decade default span: powers of ten
    only), so p99 from 250 to 2,000 µs read '1k' alone; now 200 · 500 · 1k · 2k label the drawn values."""
    fig = figures.knee_figure(series(), analysis.knee_table(series()))
    assert fig.layout.yaxis2.type == "log" and {"200", "500", "1k", "2k"} <= set(fig.layout.yaxis2.ticktext)


def test_knee_legend_of_many_series_has_show_all_and_hide_all():
    """Issue 34.6: a characterize run's knee figure has 32 series, a scrolling legend of 32 entries: 'hide all' /
    'show all' buttons above it (then one click brings back a series); a figure of one series has none."""
    many = pd.concat([series().assign(series=f"randread {b}k (read) QD{i}") for i, b in enumerate(range(4, 68, 4))])
    fig = figures.knee_figure(many, analysis.knee_table(many))
    toggle = [m for m in fig.layout.updatemenus if [b.label for b in m.buttons] == ["show all", "hide all"]]
    assert len(toggle) == 1 and toggle[0].x >= 1  # over the legend, beside the panels
    show, hide = toggle[0].buttons
    assert show.args[0]["visible"] == [True] * len(fig.data)
    assert hide.args[0]["visible"] == ["legendonly"] * len(fig.data)
    one = figures.knee_figure(series(), analysis.knee_table(series()))
    assert not one.layout.updatemenus
