"""SLO overlay figure: latency with the SLO line, IOPS with the capacity marker."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import rows
from helpers import analysis, figures


def qd_rows():
    return rows([{"iodepth": q, "iops": x, "clat_p99_us": p} for q, x, p in
                 zip([1, 2, 4, 8, 16], [10e3, 20e3, 40e3, 60e3, 70e3], [100, 150, 400, 1600, 6400])])


def test_capacity_star_and_slo_line():
    df = qd_rows()
    fig = figures.slo_figure(analysis.qd_series(df), analysis.slo_table(df, 800), 800)
    star = [t for t in fig.data if t.marker.symbol == "star-open"]
    assert len(star) == 1 and star[0].x[0] == pytest.approx(5.657, rel=1e-3) and star[0].y[0] == pytest.approx(48990, 1e-4)
    assert fig.layout.shapes[0].y0 == 800 and fig.layout.yaxis.type == "log"
    assert "µs" in fig.layout.yaxis.title.text and "completion latency (clat)" in fig.layout.yaxis.title.text
    every = figures.slo_figure(analysis.qd_series(df), analysis.slo_table(df, 1e4), 1e4)
    assert [t.marker.symbol for t in every.data if t.marker.symbol == "diamond"] == ["diamond"]


def test_no_sweep_says_so():
    fig = figures.slo_figure(analysis.qd_series(rows([{}])), analysis.slo_table(rows([{}]), 800), 800)
    assert not fig.data and "no queue-depth sweep" in fig.layout.annotations[0].text


def test_search_steps_and_fio_star():
    steps = pd.DataFrame({"run_id": "r", "series": "s", "step": [1, 2, 3], "kind": ["ladder", "ladder", "bisect"],
                          "offered_iops": [1000, 4000, 2000], "achieved_iops": [1000.0, 3000.0, 2000.0],
                          "latency_us": [200.0, 5000.0, 800.0], "latency": "lat", "meets": [True, False, True]})
    cc = pd.DataFrame({"run_id": ["r"], "series": ["s"], "slo_us": [1000.0], "percentile": [99.0],
                       "fio_iops": [2500.0], "fio_depth": [3], "fio_latency_us": [900.0], "fio_settled": [False]})
    fig = figures.slo_search_figure(steps, cc)
    search, star = fig.data
    assert list(search.x) == [1000, 3000, 2000] and list(search.marker.symbol) == ["circle", "x", "circle"]
    assert star.name == "s: fio latency_target (QD 3)" and star.marker.symbol == "star-open" and star.x[0] == 2500
    assert fig.layout.shapes[0].y0 == 1000 and "p99 total latency" in fig.layout.yaxis.title.text
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    empty = figures.slo_search_figure(steps.iloc[:0], cc.iloc[:0])
    assert not empty.data and "No SLO search in this run" in empty.layout.annotations[0].text


def test_latency_axes_tick_at_1_2_5_over_the_drawn_values():
    """Issue 22.6: the SLO figures' latency axes had only powers of ten (p99 100-6,400 µs: '100', '1k');
    now 1, 2, 5 x 10^k over what is drawn, the SLO line included."""
    df = qd_rows()
    fig = figures.slo_figure(analysis.qd_series(df), analysis.slo_table(df, 800), 800)
    assert {"100", "200", "500", "1k", "2k", "5k"} <= set(fig.layout.yaxis.ticktext)
