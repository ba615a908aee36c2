"""Open-loop figure (helpers.figures.openloop): latency percentiles against achieved IOPS, points the
device could not keep up with marked, and a one-sentence message without open-loop points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis.openloop import openloop_table
from helpers.figures.openloop import openloop_figure


def table() -> pd.DataFrame:
    rows = pd.DataFrame({
        "point_id": ["ol-rate1000", "ol-rate2000", "ol-rate4000"], "rw": "randread", "bs_bytes": 4096,
        "iodepth": 64, "direction": "read", "iops": [1000.0, 1960.0, 2500.0],
        "clat_p50_us": [80.0, 90.0, 4000.0], "clat_p99_us": [150.0, 300.0, 9000.0],
        "clat_p99_9_us": [400.0, 900.0, 20000.0]})
    return openloop_table(rows)  # 4000 offered, 2500 achieved = 62.5 %: saturated


def test_percentile_traces_against_achieved_load():
    fig = openloop_figure(table())
    assert [t.name for t in fig.data] == ["p50", "p99", "p99.9", "achieved < 95 % of offered"]
    p50, p99, p999, sat = fig.data
    for tr in (p50, p99, p999):
        assert list(tr.x) == [1000.0, 1960.0, 2500.0] and tr.mode == "lines+markers"
    assert list(p50.y) == [80.0, 90.0, 4000.0]
    assert list(p99.y) == [150.0, 300.0, 9000.0]
    assert list(p999.y) == [400.0, 900.0, 20000.0]
    # hover data: offered load and the achieved fraction (1960 / 2000 = 0.98, 2500 / 4000 = 0.625)
    cd = np.asarray(p99.customdata, dtype=float)
    assert cd[:, 0].tolist() == [1000.0, 2000.0, 4000.0]
    assert cd[:, 1].tolist() == pytest.approx([1.0, 0.98, 0.625])
    assert "µs" in p99.hovertemplate and "offered" in p99.hovertemplate


def test_saturated_points_marked_on_the_p99_curve():
    sat = openloop_figure(table()).data[-1]
    assert list(sat.x) == [2500.0] and list(sat.y) == [9000.0] and list(sat.text) == ["offered 4000"]
    assert sat.marker.symbol == "circle-open" and sat.marker.color == "red"


def test_axes_titles_with_units_and_log_latency():
    fig = openloop_figure(table(), title="Hockey stick")
    assert fig.layout.xaxis.title.text == "achieved IOPS"
    assert fig.layout.yaxis.title.text == "completion latency (clat) (µs)" and fig.layout.yaxis.type == "log"
    assert fig.layout.title.text == "Hockey stick"


def test_no_saturated_point_no_marker_trace():
    t = table().iloc[:2]
    assert [tr.name for tr in openloop_figure(t).data] == ["p50", "p99", "p99.9"]


def test_partial_table_draws_what_it_has():
    t = table().drop(columns=["clat_p99_9_us", "clat_p50_us"])
    assert [tr.name for tr in openloop_figure(t).data] == ["p99", "achieved < 95 % of offered"]
    # the saturation marker sits on p99: without p99 there is nothing to put it on
    no_p99 = table().drop(columns=["clat_p99_us"])
    assert [tr.name for tr in openloop_figure(no_p99).data] == ["p50", "p99.9"]


def test_no_open_loop_points_says_so_in_one_sentence():
    closed = pd.DataFrame({"point_id": ["qd32"], "rw": ["randread"], "bs_bytes": [4096], "iodepth": [32],
                           "direction": ["read"], "iops": [90000.0]})
    for empty in (None, pd.DataFrame(), openloop_table(closed)):
        fig = openloop_figure(empty)
        assert not fig.data
        assert [a.text for a in fig.layout.annotations] == ["No open-loop points (profile with rate_iops) in this run."]


def test_one_line_per_series_never_joining_two_workloads():
    """Two workloads (and two runs) in one table: each line goes through the loads of one series only, in
    the order they were offered."""
    rows = pd.DataFrame({
        "run_id": ["a", "a", "a", "a", "b", "b"],
        "point_id": ["r-rate1000", "r-rate2000", "w-rate500", "w-rate1000", "r-rate1000", "r-rate2000"],
        "rw": ["randread", "randread", "randwrite", "randwrite", "randread", "randread"], "bs_bytes": 4096,
        "iodepth": 32, "direction": ["read", "read", "write", "write", "read", "read"],
        "iops": [1000.0, 2000.0, 500.0, 990.0, 1000.0, 1990.0],
        "clat_p50_us": 80.0, "clat_p99_us": [150.0, 300.0, 200.0, 400.0, 160.0, 310.0], "clat_p99_9_us": 900.0})
    fig = openloop_figure(openloop_table(rows))
    p99 = {t.name: list(t.x) for t in fig.data if t.name.startswith("p99 ")}
    assert p99 == {"p99 a: randread 4k QD32": [1000.0, 2000.0], "p99 a: randwrite 4k QD32": [500.0, 990.0],
                   "p99 b: randread 4k QD32": [1000.0, 1990.0]}


def test_latency_axis_ticks_at_1_2_5_over_the_drawn_percentiles():
    """Issue 22.6: p50 80 µs to p99.9 20,000 µs (2.4 decades) read '100 · 1k · 10k'; now 1, 2, 5 x 10^k."""
    assert {"50", "100", "200", "500", "1k", "2k", "5k", "10k", "20k"} <= set(openloop_figure(table()).layout.yaxis.ticktext)
