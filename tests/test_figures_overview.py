import pandas as pd
import pytest

from figdata import bs_sweep, rows
from helpers import analysis, figures


def test_heatmap_operation_by_block_size_with_qd_slider_and_metric_dropdown():
    df = bs_sweep("read", qds=(1, 16))
    g = analysis.grid(df, "bs_bytes", "iodepth")
    fig = figures.heatmap_figure(g, "bs_bytes", "iodepth")
    assert len(fig.data) == 2 and list(fig.data[1].x) == ["4k", "64k", "1m"] and list(fig.data[1].y) == ["read"]
    assert fig.data[1].z[0] == pytest.approx([100e6 / 4096, 400e6 / 65536, 410e6 / 1048576])
    assert [s.label for s in fig.layout.sliders[0].steps] == ["1", "16"]
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels[0] == "IOPS" and any("MB/s" in b for b in labels)
    mb = fig.layout.updatemenus[0].buttons[1].args[0]["z"][1][0]
    assert mb == pytest.approx([100, 400, 410])


def test_heatmap_opens_on_the_held_value_with_the_most_measured_cells():
    """A searched run's deepest held depth can hold only cells the search did not measure (zram characterize,
    2026-11-29: the page opened on QD 1024, a blank map); the page opens where the most was measured, the largest
    held value among equals (a full grid: the last, as before)."""
    df = bs_sweep("read", qds=(1, 16))
    g = analysis.grid(df, "bs_bytes", "iodepth")
    assert figures.heatmap_figure(g, "bs_bytes", "iodepth").layout.sliders[0].active == 1
    blank = g[g["held"] == 16].assign(held=1024, iops=float("nan"), note="not measured by the search: past its plateau")
    fig = figures.heatmap_figure(pd.concat([g, blank], ignore_index=True), "bs_bytes", "iodepth")
    assert [s.label for s in fig.layout.sliders[0].steps] == ["1", "16", "1024"]
    assert fig.layout.sliders[0].active == 1 and [t.visible for t in fig.data] == [False, True, False]


def test_no_grid_is_one_sentence():
    fig = figures.heatmap_figure(analysis.grid(rows([{}])), "bs_bytes", "iodepth")
    assert not fig.data and "no operation x block size grid" in fig.layout.annotations[0].text


def test_box_plot_per_operation_and_flagged_points_marked():
    df = bs_sweep("read")
    df.loc[0, "flag_reasons"] = "CPU-bound"
    fig = figures.box_figure(analysis.distribution(df))
    boxes = [t for t in fig.data if t.type == "box"]
    assert len(boxes) == 3 and boxes[0].name == "read" and len(boxes[0].y) == 6
    assert any(t.name == "flagged" for t in fig.data)
    assert fig.layout.yaxis3.type == "log"


def test_held_constant_at_a_qd_and_message_when_absent():
    df = bs_sweep("read", qds=(1, 16))
    r, msg = analysis.held_constant(df, "bs_bytes", {"iodepth": 16})
    assert msg == "" and set(r["iodepth"]) == {16}
    fig = figures.held_constant_figure(r, msg, factor="bs_bytes")
    assert list(fig.data[0].y) == pytest.approx([100e6 / 4096, 400e6 / 65536, 410e6 / 1048576])
    r, msg = analysis.held_constant(df, "bs_bytes", {"iodepth": 64})
    assert "no points at QD 64 (measured: QD 1, QD 16)" in msg
    assert msg in figures.held_constant_figure(r, msg).layout.annotations[0].text


def test_held_constant_two_engines_are_two_lines_not_repeats():
    """zram characterize, 2026-11-29: at QD 16 and 2 jobs the demand search measured libaio and io_uring; the
    'Block size at QD 16' chart drew both as repeats of one line through their mean.  The engine names the line
    where it varies, and only there."""
    pts = [{"rw": "read", "direction": "read", "bs_bytes": b, "iodepth": 16, "numjobs": 2, "ioengine": e, "iops": i}
           for e, b, i in [("libaio", 4096, 700e3), ("libaio", 16384, 500e3), ("io_uring", 4096, 800e3),
                           ("io_uring", 16384, 600e3)]]
    r, msg = analysis.held_constant(rows(pts), "bs_bytes", {"iodepth": 16})
    assert msg == "" and sorted(set(r["line"])) == ["read io_uring", "read libaio"]
    fig = figures.held_constant_figure(r, msg, factor="bs_bytes")
    shown = {t.name: list(t.y) for t in fig.data if t.visible is not False}
    assert shown == {"read io_uring": [800e3, 600e3], "read libaio": [700e3, 500e3]}
    one = analysis.held_constant(rows([p for p in pts if p["ioengine"] == "libaio"]), "bs_bytes", {"iodepth": 16})[0]
    assert set(one["line"]) == {"read"}


def test_held_constant_repeats_are_markers_and_the_line_goes_through_their_mean():
    """Issue 34.6: the overview's 'Block size at QD 16' drew write 4k's two repeats (110k and 97k IOPS) as a
    vertical stroke.  The line goes through their mean; every repeat is a marker; the metric menu still shows one
    metric's traces at a time."""
    pts = [{"rw": "write", "direction": "write", "bs_bytes": 4096, "iodepth": 16, "iops": i} for i in (110e3, 97e3)]
    pts.append({"rw": "write", "direction": "write", "bs_bytes": 65536, "iodepth": 16, "iops": 20e3})
    r, msg = analysis.held_constant(rows(pts), "bs_bytes", {"iodepth": 16})
    fig = figures.held_constant_figure(r, msg, factor="bs_bytes")
    shown = [t for t in fig.data if t.visible is not False]
    lines = [t for t in shown if "lines" in t.mode]
    assert len(lines) == 1 and list(lines[0].x) == [4096, 65536]
    assert list(lines[0].y) == pytest.approx([103.5e3, 20e3])
    marks = [t for t in shown if t.mode == "markers"]
    assert len(marks) == 1 and sorted(marks[0].y) == pytest.approx([20e3, 97e3, 110e3])
    for button in fig.layout.updatemenus[0].buttons:  # each metric: its line and its markers
        assert sum(button.args[0]["visible"]) == 2
