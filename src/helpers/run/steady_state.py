"""SNIA PTS steady-state rule, as a pure function of the per-round values.

Steady state is reached at round ``n`` when, for the window of the last ``window`` rounds
(PTS: 5):

* the data excursion ``max - min`` is at most ``range_pct`` % (PTS: 20 %) of the window mean, and
* the least-squares line through the window has a slope whose excursion over the window
  (``|slope| * (window - 1)`` rounds) is at most ``slope_pct`` % (PTS: 10 %) of the window mean.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class SteadyState:
    reached: bool
    rounds: int  # rounds measured
    window: list[int]  # the round numbers of the last window (empty if fewer rounds than the window)
    mean: float | None = None
    excursion: float | None = None  # max - min in the window
    excursion_limit: float | None = None
    slope: float | None = None  # per round
    intercept: float | None = None
    slope_excursion: float | None = None  # |slope| * (window - 1)
    slope_limit: float | None = None
    reason: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def check_steady_state(values: list[float], window: int = 5, range_pct: float = 20.0,
                       slope_pct: float = 10.0, first_round: int = 1) -> SteadyState:
    """Apply the rule to ``values`` (one per round, in order, round numbers from ``first_round``)."""
    n = len(values)
    if n < window:
        return SteadyState(False, n, [], reason=f"{n} of the {window} rounds of the window measured")
    y = np.asarray(values[-window:], dtype=float)
    x = np.arange(first_round + n - window, first_round + n, dtype=float)
    mean = float(y.mean())
    excursion = float(y.max() - y.min())
    slope, intercept = np.polyfit(x, y, 1)
    slope_exc = abs(float(slope)) * (window - 1)
    ex_lim, sl_lim = abs(mean) * range_pct / 100, abs(mean) * slope_pct / 100
    ok_range, ok_slope = excursion <= ex_lim, slope_exc <= sl_lim
    if ok_range and ok_slope:
        reason = (f"steady state at round {int(x[-1])}: range {excursion:.4g} <= {ex_lim:.4g} and "
                  f"slope excursion {slope_exc:.4g} <= {sl_lim:.4g}")
    else:
        parts = []
        if not ok_range:
            parts.append(f"range {excursion:.4g} > {range_pct:g} % of the mean ({ex_lim:.4g})")
        if not ok_slope:
            parts.append(f"slope excursion {slope_exc:.4g} > {slope_pct:g} % of the mean ({sl_lim:.4g})")
        reason = "not steady: " + " and ".join(parts)
    return SteadyState(ok_range and ok_slope, n, [int(v) for v in x], mean, excursion, ex_lim, float(slope),
                       float(intercept), slope_exc, sl_lim, reason)
