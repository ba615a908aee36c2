"""SLO overlay figure: latency with the SLO line, IOPS with the capacity marker."""

from __future__ import annotations

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
