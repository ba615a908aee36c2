"""Steady-state convergence figure (helpers.figures.steady_state): every round, the window band around
its mean, the least-squares line and the verdict.  Known answers on hand-made rounds, no fio."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.analysis import pts_steady_state, steady_state_result
from helpers.figures.steady_state import steady_state_figure

ROUNDS = [{"round": 1, "iops": 100.0}, {"round": 2, "iops": 50.0}, {"round": 3, "iops": 98.0},
          {"round": 4, "iops": 100.0}, {"round": 5, "iops": 102.0}]


def test_reached_window_band_mean_and_fit():
    # window 3 = rounds 3..5: mean 100, range 4 <= 20 % of 100, fit y = 2 x + 92 (98, 100, 102)
    result = pts_steady_state([r["iops"] for r in ROUNDS], window=3).to_dict()
    assert result["steady"] and (result["first_round"], result["last_round"]) == (3, 5)  # the set-up
    fig = steady_state_figure(ROUNDS, result)
    assert [t.name for t in fig.data] == ["iops", "window average", "least-squares fit"]
    rounds, mean, fit = fig.data
    assert list(rounds.x) == [1, 2, 3, 4, 5] and list(rounds.y) == [100.0, 50.0, 98.0, 100.0, 102.0]
    assert list(mean.x) == pytest.approx([2.7, 5.3]) and list(mean.y) == pytest.approx([100.0, 100.0])
    assert list(fit.x) == [3.0, 4.0, 5.0] and list(fit.y) == pytest.approx([98.0, 100.0, 102.0])
    (band,) = fig.layout.shapes
    # +-10 % of the mean (half of the 20 % range limit), 0.3 of a round beyond the window
    assert (band.x0, band.x1) == pytest.approx((2.7, 5.3)) and (band.y0, band.y1) == pytest.approx((90.0, 110.0))
    assert band.fillcolor == "rgba(0,150,0,0.12)"  # green: reached
    (note,) = fig.layout.annotations
    assert note.text.startswith("steady state reached: steady state in rounds 3-5")


def test_not_steady_band_is_red_and_says_why():
    # a manifest written before the rule had one home (reached, window list, mean, excursion_limit)
    result = steady_state_result({"reached": False, "window": [2, 3], "mean": 200.0, "excursion_limit": 40.0,
                                  "slope": 10.0, "intercept": 170.0,
                                  "reason": "not steady: range 60 > 20 % of the mean (40)"})
    fig = steady_state_figure(pd.DataFrame({"round": [1, 2, 3], "iops": [300.0, 170.0, 230.0]}), result)
    (band,) = fig.layout.shapes
    assert (band.x0, band.x1, band.y0, band.y1) == pytest.approx((1.7, 3.3, 180.0, 220.0))
    assert band.fillcolor == "rgba(200,0,0,0.10)"
    assert list(fig.data[2].y) == pytest.approx([190.0, 200.0])  # 10 x + 170 at rounds 2, 3
    assert fig.layout.annotations[0].text == "not steady: not steady: range 60 > 20 % of the mean (40)"


def test_axes_and_other_metrics():
    rounds = [{"round": r, "bw_bytes_per_s": 1e9 + r} for r in (1, 2)]
    fig = steady_state_figure(rounds, metric="bw_bytes_per_s", title="Bandwidth rounds")
    assert fig.layout.xaxis.title.text == "round" and fig.layout.xaxis.dtick == 1
    assert fig.layout.yaxis.title.text == "Bandwidth (bytes per second)" and fig.layout.title.text == "Bandwidth rounds"
    assert list(fig.data[0].y) == [1e9 + 1, 1e9 + 2]


def test_partial_results_draw_only_the_rounds():
    # too few rounds for the window: no band, no lines, no verdict
    short = pts_steady_state([100.0, 90.0], window=5).to_dict()
    assert short["first_round"] is None
    for result in (None, {}, short, {"first_round": 1, "last_round": 2, "average": None}):
        fig = steady_state_figure(ROUNDS[:2], result)
        assert [t.name for t in fig.data] == ["iops"] and not fig.layout.shapes and not fig.layout.annotations
    # window and mean but no fit yet: band and mean line, no least-squares line
    fig = steady_state_figure(ROUNDS, {"first_round": 4, "last_round": 5, "average": 101.0, "steady": False})
    assert [t.name for t in fig.data] == ["iops", "window average"]
    (band,) = fig.layout.shapes
    assert band.y0 == band.y1 == 101.0  # no limit known: a zero-height band
    assert fig.layout.annotations[0].text == "not steady: "


def test_no_rounds_says_so_in_one_sentence():
    for empty in (None, [], pd.DataFrame(columns=["round", "iops"])):
        fig = steady_state_figure(empty)
        assert not fig.data
        assert [a.text for a in fig.layout.annotations] == ["No steady-state rounds in this run."]
