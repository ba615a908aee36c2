"""Time-series explorer widgets (helpers.notebook.explorer.TimeseriesExplorer)."""

import numpy as np
import pandas as pd

from helpers.notebook import explorer
from timeseries_helpers import frame


def test_point_dropdown_and_stall_slider_drive_figure_and_summary():
    iops = np.full(12, 1000.0)
    iops[5] = 450.0  # a stall below 50 % but not below 40 %
    ts = pd.concat([frame(iops, point="a"), frame(np.full(12, 300.0), point="b")], ignore_index=True)
    ex = explorer.TimeseriesExplorer(ts)
    assert list(ex.point.options) == ["a", "b"]
    assert "1 stall below 50% of the median (1 s)" in ex.info.value and ex.figure.layout.title.text.endswith(": a")
    ex.select(stall_fraction=0.4)
    assert "no stalls" in ex.info.value
    ex.select(label="b")
    assert ex.figure.layout.title.text.endswith(": b") and "median 300 IOPS" in ex.info.value


def test_no_logs_is_one_sentence():
    fig = explorer.timeseries_explorer(pd.DataFrame())
    assert "no fio time-series logs" in fig.layout.annotations[0].text
