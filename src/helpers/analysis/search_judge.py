"""A queue-depth search judged against full grids: the one rule of the benchmarks that weigh a search
(``benchmarks/bench_adaptive.py``, ``benchmarks/bench_characterize.py``).

A search concludes a plateau level (IOPS) and a curve (its probes, its level carried to the deepest depth,
:func:`helpers.run.adaptive.concluded_curve`).  Its reference is the mean of two grid runs measured either side
of it -- a drift of the device over the round then cancels -- each a plateau level by the search's own rule
(:func:`helpers.run.adaptive.curve_level`) and a curve {QD: IOPS}.  The judgement, on one shape for both
benches:

* the peak: the search's level against the mean of the grids' levels (a fraction of that mean);
* the knee: :func:`helpers.analysis.find_knee` (S = 1) on the search's curve against the same on both grids' points,
  their distance in grid steps -- positions on the grid's depth list, log-interpolated between its columns (on a
  grid of every power of two a step is a doubling);
* whether the grids reproduce each other: their levels within 5 % of their mean.  A goal is judged only where they
  do (where they do not, the device moved more than the goal allows during the round).
"""

from __future__ import annotations

import math
import statistics

from helpers.analysis.knee import find_knee

REPRODUCED = 0.05  # two grids whose plateau levels lie within 5 % of their mean reproduce each other


def grid_position(qd: float | None, depths: list[int]) -> float | None:
    """A queue depth as a position on the grid's ``depths`` (0 = the first column, 1 = the second, ...),
    log-interpolated between columns and clamped to the grid; None without a depth."""
    if not qd:
        return None
    logs = [math.log2(q) for q in depths]
    x = min(max(math.log2(qd), logs[0]), logs[-1])
    for i in range(len(logs) - 1):
        if x <= logs[i + 1]:
            return i + (x - logs[i]) / (logs[i + 1] - logs[i])
    return float(len(logs) - 1)


def judge_search(level: float, curve: tuple[list, list], before: dict, after: dict, depths: list[int]) -> dict:
    """A search's ``level`` and ``curve`` (QDs, IOPS) against the grids ``before`` and ``after`` it (each
    {"level": plateau level, "curve": {QD: IOPS}}) measured at ``depths``.  Returns ``level`` (the reference: the
    grids' mean level), ``change`` (the search's level against it, signed fraction) and ``peak`` (its size),
    ``g_knee``/``s_knee`` (the grids' and the search's knee QD, None when Kneedle found none) with their
    ``g_knee_reason``/``s_knee_reason``, ``knee`` (their distance in grid steps; None when either has none),
    ``g_self`` (the grids' levels apart, a fraction of their mean) and ``repro`` (``g_self`` within 5 %)."""
    ref = statistics.fmean((before["level"], after["level"]))
    g = find_knee(list(before["curve"]) + list(after["curve"]),
                  list(before["curve"].values()) + list(after["curve"].values()), S=1.0)
    s = find_knee(*curve, S=1.0)
    gp, sp = grid_position(g.knee_qd, depths), grid_position(s.knee_qd, depths)
    g_self = abs(before["level"] - after["level"]) / ref
    return {"level": ref, "change": level / ref - 1, "peak": abs(level - ref) / ref,
            "g_knee": g.knee_qd, "g_knee_reason": g.reason, "s_knee": s.knee_qd, "s_knee_reason": s.reason,
            "knee": abs(gp - sp) if gp is not None and sp is not None else None,
            "g_self": g_self, "repro": g_self <= REPRODUCED}
