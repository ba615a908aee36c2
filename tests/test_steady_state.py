"""SNIA PTS steady-state rule (helpers.run.steady_state): known answers for the range and slope criteria."""

from __future__ import annotations

import pytest

from helpers.run.steady_state import check_steady_state


@pytest.mark.parametrize("values, reached", [
    ([100, 100, 100, 100, 100], True),
    ([50, 300, 100, 101, 99, 100, 102], True),  # only the last 5 rounds count
    ([100, 120, 140, 160, 180], False),  # range 80 > 20 % of 140
    ([100, 104, 108, 112, 116], False),  # range 16 <= 21.6, but slope excursion 16 > 10.8
    ([100, 100, 100, 100], False),  # fewer rounds than the window
])
def test_snia_steady_state_rule(values, reached):
    r = check_steady_state(values)
    assert r.reached is reached
    if len(values) >= 5:
        assert r.window == list(range(len(values) - 4, len(values) + 1))
    if values == [100, 104, 108, 112, 116]:
        assert r.slope == pytest.approx(4.0) and "slope excursion" in r.reason and "range" not in r.reason


def test_custom_window_and_first_round():
    r = check_steady_state([10, 10, 10], window=3, first_round=4)
    assert r.reached and r.window == [4, 5, 6] and r.mean == 10 and r.excursion == 0
    r = check_steady_state([100, 100, 100, 100, 125])  # range 25 > 20 % of 105
    assert not r.reached and r.excursion_limit == pytest.approx(21.0) and "range 25" in r.reason
