"""The burst figure (helpers.figures.burst): the drain, the burst and baseline lines, the drop, the rests' drains
and the finding as the title; one sentence without data."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.analysis import burst_series, point_series
from helpers.figures import burst_figure
from helpers.figures.burst import NO_BURST_DATA
from test_analysis_burst import burst_frame
from timeseries_helpers import frame


def test_burst_figure_marks_burst_drop_and_baseline():
    ts = point_series(burst_frame())
    tb = burst_series(ts)[0].bucket
    fig = burst_figure(ts)
    assert fig.layout.title.text.replace("<br>", " ") == f"burst-randwrite-bs4k-qd32-nj1: {tb.reason}"
    names = [t.name for t in fig.data]
    assert names == ["first drain", "after a 10 s rest", "after a 30 s rest", "burst, then baseline"]
    lines = fig.data[3]
    assert list(lines.y[:2]) == [pytest.approx(tb.burst_rate)] * 2
    assert list(lines.y[3:]) == [pytest.approx(tb.baseline_rate)] * 2
    assert fig.layout.shapes[0].x0 == pytest.approx(tb.drop_s) and 55 <= tb.drop_s <= 65
    assert fig.layout.yaxis.title.text == "Rate per window (IOPS)"
    assert len(fig.data[0].x) == 120


def test_flat_drain_says_no_burst_and_draws_no_lines():
    ts = point_series(frame(np.full(60, 800.0), point="burst-randwrite-bs4k-qd32-nj1", direction="write"))
    fig = burst_figure(ts)
    assert "no burst found: the rate held at 800 IOPS within 0 % for 60 s" in fig.layout.title.text
    assert [t.name for t in fig.data] == ["first drain"] and not fig.layout.shapes


def test_no_data_is_one_sentence():
    for ts in (None, point_series(frame(np.full(20, 1000.0), point="grid-randread-bs4k-qd1-nj1"))):
        fig = burst_figure(ts)
        assert not fig.data and fig.layout.annotations[0].text == NO_BURST_DATA
