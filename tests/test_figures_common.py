"""Shared figure pieces (helpers.figures.common): message figure, axes, flag markers, step slider."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from helpers.figures import common


def test_message_figure_is_one_sentence_and_no_axes():
    fig = common.message_figure("No queue-depth sweep in this run.")
    assert not fig.data
    (note,) = fig.layout.annotations
    assert note.text == "No queue-depth sweep in this run." and not note.showarrow
    assert (note.x, note.y, note.xref, note.yref) == (0.5, 0.5, "paper", "paper")
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert fig.layout.height == 160
    assert fig.layout.template == pio.templates["plotly_white"]


def test_log2_axis_ticks_at_measured_depths():
    ax = common.log2_axis([16, 1, 4.0, 2, 16, np.int64(128)])
    assert ax == {"type": "log", "tickvals": [1, 2, 4, 16, 128], "ticktext": ["1", "2", "4", "16", "128"]}
    assert all(type(v) is int for v in ax["tickvals"])


def test_bs_axis_ticks_in_fios_spelling():
    ax = common.bs_axis(pd.Series([1048576, 4096, 512, 65536, 4096, 1536]))
    assert ax["type"] == "log"
    assert ax["tickvals"] == [512, 1536, 4096, 65536, 1048576]
    assert ax["ticktext"] == ["512", "1536", "4k", "64k", "1m"]  # 1536 is not a whole number of k


def test_axis_titles_carry_their_units():
    assert "MB/s" in common.MB_AXIS and "10^6 bytes" in common.MB_AXIS
    assert common.IOPS_AXIS.startswith("IOPS") and "per second" in common.IOPS_AXIS
    assert "4096 bytes" in common.BS_AXIS and "log2" in common.BS_AXIS
    assert "iodepth" in common.QD_AXIS and "log2" in common.QD_AXIS


def test_palette_wraps_around():
    n = len(common.PALETTE)
    assert common.color(0) == "#1f77b4" and common.color(1) == "#d62728"
    assert common.color(n) == common.color(0) and common.color(n + 3) == common.color(3)
    assert len(set(common.PALETTE)) == n


def test_flag_symbols_cross_for_flagged():
    assert common.flag_symbols([True, False, np.bool_(True), 0, 1]) == ["x", "circle", "x", "circle", "x"]
    assert common.flag_symbols(pd.Series([], dtype=bool)) == []


def test_flag_notes_one_line_per_reason():
    notes = common.flag_notes(["", "buffered I/O (direct=0)", "fio used 99 % of a CPU; ran 1.0 s", None,
                               float("nan")])
    assert notes == ["", "<br>⚠ flagged: buffered I/O (direct=0)",
                     "<br>⚠ flagged: fio used 99 % of a CPU<br>⚠ ran 1.0 s", "", ""]


def test_flag_notes_missing_string_value_is_not_a_flag():
    reasons = pd.Series(["", pd.NA, "ran 1.0 s"], dtype="string")
    assert common.flag_notes(reasons) == ["", "", "<br>⚠ flagged: ran 1.0 s"]


def three_traces() -> go.Figure:
    return go.Figure([go.Scatter(x=[1], y=[i], name=f"t{i}") for i in range(3)])


def test_step_slider_shows_the_active_group():
    steps = [("4k", [True, False, False]), ("64k", [False, True, True])]
    fig = common.add_step_slider(three_traces(), steps, "block size: ", active=1, y=-0.3)
    assert [t.visible for t in fig.data] == [False, True, True]
    (slider,) = fig.layout.sliders
    assert slider.active == 1 and slider.currentvalue.prefix == "block size: " and slider.y == -0.3
    assert [s.label for s in slider.steps] == ["4k", "64k"]
    assert [s.method for s in slider.steps] == ["update", "update"]
    assert [s.args[0]["visible"] for s in slider.steps] == [[True, False, False], [False, True, True]]


def test_step_slider_with_one_step_or_none():
    fig = common.add_step_slider(three_traces(), [("all", [True, False, True])], "x: ")
    assert [t.visible for t in fig.data] == [True, False, True] and not fig.layout.sliders
    fig = common.add_step_slider(three_traces(), [], "x: ")
    assert [t.visible for t in fig.data] == [None, None, None] and not fig.layout.sliders


def test_a_control_with_one_step_is_its_value_in_the_title_not_a_slider():
    """Issue 22.8: a slider with one position is not drawn; the title says what it would have held."""
    fig = go.Figure([go.Scatter(x=[1], y=[1])])
    fig.update_layout(title="Percentiles of total latency")
    common.add_step_slider(fig, [("QD 16", [True])], "Queue depth: ", held="queue depth")
    assert not fig.layout.sliders
    assert fig.layout.title.text == "Percentiles of total latency · queue depth held constant at 16"


def test_latency_log_axis_has_readable_ticks_at_1_2_5():
    """Issue 22.6: 10, 20, 50, 100, 200, 500, 1k µs instead of plotly's '5 · 2 · 1000 · 5'."""
    ax = common.latency_log_axis([15.0, 700.0])
    assert ax["type"] == "log"
    text = dict(zip(ax["tickvals"], ax["ticktext"]))
    assert [text[v] for v in (10, 20, 50, 100, 200, 500, 1000, 2000)] == ["10", "20", "50", "100", "200", "500",
                                                                           "1k", "2k"]
    wide = common.latency_log_axis([2.0, 5e6])  # seven decades: powers of ten only
    assert "20" not in wide["ticktext"] and {"10", "1k", "1M"} <= set(wide["ticktext"])


def test_exceedance_axis_is_in_percent_not_si_prefixes():
    """Issue 22.6: 10^-4 of I/Os reads '0.01 %', never '100µ'."""
    ax = common.exceedance_axis([0.5, 3e-5])
    text = dict(zip(ax["tickvals"], ax["ticktext"]))
    assert text[1.0] == "100 %" and text[1e-2] == "1 %" and text[1e-4] == "0.01 %" and text[1e-5] == "0.001 %"
    assert not any("µ" in t for t in ax["ticktext"])


def test_natural_sort_orders_queue_depths_and_block_sizes_by_value():
    """Issue 22.6: qd1, qd2, qd16, qd128 (not qd1, qd128, qd16, qd2); 4k < 128k < 1m."""
    assert common.natural_sorted(["qd1", "qd128", "qd16", "qd2"]) == ["qd1", "qd2", "qd16", "qd128"]
    assert common.natural_sorted(["read-bs1m-qd1", "read-bs128k-qd1", "read-bs4k-qd1"]) == [
        "read-bs4k-qd1", "read-bs128k-qd1", "read-bs1m-qd1"]
