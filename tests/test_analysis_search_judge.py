"""The benchmarks' one judging rule (helpers.analysis.search_judge), on curves whose answers are known: a device
whose IOPS rise linearly with the queue depth up to a saturation depth and stay flat beyond it has its knee at that
depth (find_knee), and its plateau level is the flat value."""

from __future__ import annotations

import pytest

from helpers.analysis.search_judge import grid_position, judge_search

POWERS = [2**i for i in range(11)]  # bench_adaptive's grid: every power of two 1..1024
COURSE = [1, 16, 64, 256, 1024]  # bench_characterize's grid


def saturating(knee: int, level: float, depths: list[int]) -> dict[int, float]:
    return {q: level * min(q, knee) / knee for q in depths}


def grid(knee: int, level: float, depths: list[int] = POWERS) -> dict:
    return {"level": level, "curve": saturating(knee, level, depths)}


def test_grid_position_is_the_column_log_interpolated_and_clamped():
    assert grid_position(16, COURSE) == 1.0 and grid_position(1024, COURSE) == 4.0
    assert grid_position(4, COURSE) == 0.5  # log2 4 = 2, halfway from QD 1 (0) to QD 16 (4)
    assert grid_position(32, COURSE) == 1.5 and grid_position(128, COURSE) == 2.5
    assert grid_position(2048, COURSE) == 4.0 and grid_position(0.5, COURSE) == 0.0  # clamped to the grid
    assert grid_position(None, COURSE) is None
    assert grid_position(96, POWERS) == pytest.approx(6.584962500721156)  # on every power of two: log2 QD


def test_a_search_that_concludes_what_the_grids_measured():
    before, after = grid(16, 1000.0), grid(16, 1040.0)
    c = saturating(16, 1071.0, POWERS)
    j = judge_search(1071.0, (list(c), list(c.values())), before, after, POWERS)
    assert j["level"] == 1020.0  # the grids' mean level
    assert j["change"] == pytest.approx(0.05) and j["peak"] == pytest.approx(0.05)
    assert (j["g_knee"], j["s_knee"], j["knee"]) == (16.0, 16.0, 0.0)
    assert j["g_self"] == pytest.approx(40 / 1020) and j["repro"]
    assert j["g_knee_reason"] and j["s_knee_reason"]


def test_a_knee_a_doubling_deeper_and_a_low_peak():
    c = saturating(32, 900.0, POWERS)
    j = judge_search(900.0, (list(c), list(c.values())), grid(16, 1000.0), grid(16, 1000.0), POWERS)
    assert j["change"] == pytest.approx(-0.1) and j["peak"] == pytest.approx(0.1)
    assert (j["g_knee"], j["s_knee"], j["knee"]) == (16.0, 32.0, 1.0)  # one doubling = one step on this grid


def test_knee_steps_are_columns_of_the_course_grid():
    """On the course grid (1, 16, 64, 256, 1024) a search's knee at QD 4 sits at position 0.5 (halfway, in log2,
    from QD 1 to QD 16) and the grids' knee at QD 16 at 1.0: half a step apart."""
    before, after = grid(16, 1000.0, COURSE), grid(16, 1000.0, COURSE)
    c = saturating(4, 1000.0, POWERS[:5])  # the search probed 1, 2, 4, 8, 16
    j = judge_search(1000.0, (list(c), list(c.values())), before, after, COURSE)
    assert (j["g_knee"], j["s_knee"]) == (16.0, 4.0)
    assert j["knee"] == pytest.approx(0.5)


def test_grids_that_do_not_reproduce_each_other_and_a_curve_without_a_knee():
    flat = {q: 500.0 for q in POWERS}  # no rise: Kneedle finds no knee
    j = judge_search(1100.0, (list(flat), list(flat.values())), grid(16, 1000.0), grid(16, 1200.0), POWERS)
    assert j["g_self"] == pytest.approx(200 / 1100) and not j["repro"]
    assert j["s_knee"] is None and j["knee"] is None and j["g_knee"] == 16.0
