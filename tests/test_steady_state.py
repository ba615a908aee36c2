"""SNIA PTS steady-state rule (helpers.analysis.pts_steady_state, whose one home is helpers.run.steady_state):
known answers for each criterion failing alone, both failing, the first qualifying window, no window
qualifying and fewer rounds than the window."""

from __future__ import annotations

import math

import pytest

from helpers.analysis import pts_steady_state
from helpers.run import steady_state as run_rule


def test_public_function_is_the_runs_rule():
    assert pts_steady_state is run_rule.pts_steady_state  # one home: the sweep stops its rounds on the same rule


def test_constant_rounds_are_steady_in_rounds_1_to_5():
    r = pts_steady_state([100.0] * 5)
    assert (r.steady, r.first_round, r.last_round) == (True, 1, 5)
    assert r.average == 100 and r.range_pct == 0 and r.excursion_pct == pytest.approx(0, abs=1e-9)
    assert r.slope == pytest.approx(0, abs=1e-12) and r.reason.startswith("steady state in rounds 1-5")


def test_range_fails_alone():
    # average 110, range 25 = 22.7 % > 20 %; symmetric about round 3, so the fit line is flat (excursion 0)
    r = pts_steady_state([100, 125, 100, 125, 100])
    assert not r.steady and (r.first_round, r.last_round) == (1, 5)
    assert r.average == pytest.approx(110) and r.range_pct == pytest.approx(25 / 110 * 100)
    assert r.slope == pytest.approx(0, abs=1e-9) and r.excursion_pct == pytest.approx(0, abs=1e-9)
    assert "range 22.7 % > 20 %" in r.reason and "excursion" not in r.reason


def test_excursion_fails_alone():
    # average 108, range 16 = 14.8 % <= 20 %; slope 4 per round, excursion 4 x 4 = 16 = 14.8 % > 10 %
    r = pts_steady_state([100, 104, 108, 112, 116])
    assert not r.steady and (r.first_round, r.last_round) == (1, 5)
    assert r.slope == pytest.approx(4.0) and r.intercept == pytest.approx(96.0)
    assert r.range_pct == pytest.approx(16 / 108 * 100) and r.excursion_pct == pytest.approx(16 / 108 * 100)
    assert "fit-line excursion 14.8 % > 10 %" in r.reason and "range" not in r.reason.split("(")[1]


def test_both_fail_and_the_window_is_the_last_rounds():
    r = pts_steady_state([100, 120, 140, 160, 180, 200])  # range and slope both far out, in every window
    assert not r.steady and (r.first_round, r.last_round) == (2, 6) and r.window_rounds == [2, 3, 4, 5, 6]
    assert r.average == pytest.approx(160) and r.slope == pytest.approx(20)
    assert r.reason.startswith("not steady after 6 rounds") and "range 50.0 %" in r.reason
    assert "excursion 50.0 %" in r.reason


def test_first_qualifying_window_not_the_last():
    # rounds 3-7 qualify (average 100.4); rounds 4-8 qualify too, but the measurement window is the first
    r = pts_steady_state([50, 300, 100, 101, 99, 100, 102, 100])
    assert r.steady and (r.first_round, r.last_round) == (3, 7)
    assert r.average == pytest.approx(100.4) and r.range_pct == pytest.approx(3 / 100.4 * 100)
    assert r.slope == pytest.approx(0.3)  # least squares through (3,100) (4,101) (5,99) (6,100) (7,102)


def test_limits_are_inclusive():
    # average 100, range exactly 20 %, slope 2 per round: excursion 8 %
    r = pts_steady_state([90, 110, 90, 110, 100])
    assert r.steady and r.range_pct == pytest.approx(20.0) and r.excursion_pct == pytest.approx(8.0)
    assert not pts_steady_state([90, 110, 90, 110, 100], max_range_pct=19.9).steady
    assert not pts_steady_state([90, 110, 90, 110, 100], max_excursion_pct=7.9).steady


def test_fewer_rounds_than_the_window():
    r = pts_steady_state([100, 100, 100, 100])
    assert not r.steady and r.first_round is None and r.last_round is None and r.average is None
    assert r.window_rounds == [] and r.reason == "4 of the 5 rounds of a window measured: no measurement window yet"
    assert pts_steady_state([]).reason.startswith("0 of the 5")


def test_custom_window_and_limits():
    r = pts_steady_state([10, 10, 10], window=3)
    assert r.steady and r.window_rounds == [1, 2, 3] and r.to_dict()["window"] == 3
    r = pts_steady_state([100, 104, 108, 112, 116], max_excursion_pct=15)  # 14.8 % now holds
    assert r.steady and (r.first_round, r.last_round) == (1, 5)
    r = pts_steady_state([100, 104, 108, 112, 116], round_offset=10)  # the values of rounds 11-15
    assert (r.first_round, r.last_round) == (11, 15) and r.slope == pytest.approx(4.0)
    assert r.intercept == pytest.approx(56.0) and "rounds 11-15" in r.reason  # 4 x 11 + 56 = 100
    with pytest.raises(ValueError):
        pts_steady_state([1, 2, 3], window=1)


def test_zero_and_missing_values_never_pass_silently():
    assert pts_steady_state([0, 0, 0, 0, 0]).steady  # a flat zero is flat
    r = pts_steady_state([0, 0, 1, 0, 0])  # average 0.2, range 1 = 500 %
    assert not r.steady and r.range_pct == pytest.approx(500.0)
    r = pts_steady_state([1, -1, 0, 1, -1])  # average 0 with a spread: no relative limit can hold
    assert not r.steady and math.isinf(r.range_pct)
    r = pts_steady_state([100, float("nan"), 100, 100, 100])
    assert not r.steady and "round(s) 2 have no value" in r.reason
