"""PTS report figures (helpers.figures.pts): traces, panels and bands on hand-made frames; no data is one
sentence."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.analysis import pts_steady_state
from helpers.figures import pts as f


def test_empty_inputs_say_so_in_one_sentence():
    for fig in (f.convergence_figure(pd.DataFrame()), f.steady_windows_figure([]), f.iops_blocksize_figure(None),
                f.wsat_figure(pd.DataFrame(), empty="This run has no WSAT test.")):
        assert not fig.data and len(fig.layout.annotations) == 1
    assert f.wsat_figure(None).layout.annotations[0].text == "This run has no WSAT test."


def test_convergence_one_panel_per_test_filled_when_steady():
    conv = pd.DataFrame({"test": ["IOPS"] * 4 + ["LAT"] * 2, "round": [1, 1, 2, 2, 1, 2],
                         "variable": ["a", "b", "a", "b", "lat", "lat"], "value": [1, 2, 3, 4, 5, 6],
                         "steady": [False, False, True, True, False, False]})
    fig = f.convergence_figure(conv)
    assert [t.name for t in fig.data] == ["IOPS: a", "IOPS: b", "LAT: lat"]
    assert list(fig.data[0].marker.symbol) == ["circle-open", "circle"]
    assert fig.data[2].yaxis == "y2" and [a.text for a in fig.layout.annotations] == ["IOPS", "LAT"]


def test_steady_window_panels_band_and_fit():
    values = [50.0, 300.0, 100.0, 101.0, 99.0]
    res = pts_steady_state(values, window=3).to_dict()  # rounds 3-5, average 100, slope -0.5
    windows = [{"test": "IOPS", "variable": "IOPS 4k 0/100", "result": res,
                "rounds": pd.DataFrame({"round": range(1, 6), "value": values})},
               {"test": "LAT", "variable": "mean latency 4k 0/100 us", "result": {},
                "rounds": pd.DataFrame({"round": [1], "value": [10.0]})}]
    fig = f.steady_windows_figure(windows)
    names = [t.name for t in fig.data]
    assert names == ["IOPS 4k 0/100: per round", "IOPS 4k 0/100: window average", "IOPS 4k 0/100: least-squares fit",
                     "mean latency 4k 0/100 us: per round"]
    (band,) = fig.layout.shapes  # +-10 % of the window's average, on the first panel only
    assert (band.y0, band.y1) == pytest.approx((90.0, 110.0)) and band.yref == "y" and band.xref == "x"
    assert list(fig.data[2].y) == pytest.approx([100.5, 100.0, 99.5])
    assert fig.layout.yaxis2.title.text == "mean total latency (µs)"


def test_iops_lines_per_mix_and_wsat_two_axes():
    long = pd.DataFrame({"bs_bytes": [4096, 65536, 4096, 65536], "mix": [0, 0, 100, 100],
                         "rw_mix": ["0/100", "0/100", "100/0", "100/0"], "iops": [10.0, 5.0, 20.0, 8.0]})
    fig = f.iops_blocksize_figure(long)
    assert [t.name for t in fig.data] == ["R/W 100/0", "R/W 0/100"] and list(fig.data[0].x) == [4.0, 64.0]
    series = pd.DataFrame({"t_s": [1.0, 2.0], "iops": [100.0, 50.0], "bytes_per_s": [4e5, 2e5],
                           "gb_written": [0.0004, 0.0006]})
    fig = f.wsat_figure(series)
    assert list(fig.data[1].x) == [0.0004, 0.0006] and fig.data[1].xaxis == "x2"
