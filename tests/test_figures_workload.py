"""helpers.figures.workload: the Workload page's figures from analysis output; no data says so in one sentence."""

from __future__ import annotations

import pandas as pd
from tests.test_analysis_workload import generated

from helpers.analysis import workload as W
from helpers.figures import workload as F
from helpers.figures.common import NO_DATA


def test_figures_show_the_trace():
    ios = generated()
    fig = F.block_size_figure(W.block_sizes(ios))
    assert {t.name for t in fig.data} == {"read", "write"}
    read = next(t for t in fig.data if t.name == "read")
    assert list(read.x) == ["4k", "16k", "64k"] and round(read.y[0], 3) == round(500 / 7, 3)
    heat = F.heat_figure(W.heat(ios, 10, 10))
    assert heat.data[0].z.sum() == 1000
    rate = F.rate_figure(W.rate_over_time(ios), W.outstanding(ios))
    assert [t.name for t in rate.data] == ["read", "write", "in flight"]


def test_no_data_is_one_sentence():
    empty = pd.DataFrame(columns=["stream", "t_s", "op", "offset_bytes", "size_bytes", "latency_us"])
    for fig in (F.block_size_figure(W.block_sizes(empty)), F.heat_figure(W.heat(empty)),
                F.rate_figure(W.rate_over_time(empty), W.outstanding(empty))):
        assert fig.layout.meta[NO_DATA].endswith(".")
