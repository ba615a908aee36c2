"""SNIA PTS 2.0.2 steady-state rule, as a pure function of the per-round values (the one home of the rule:
the sweep's rounds stop on it and :mod:`helpers.analysis` publishes it as ``pts_steady_state``).

A window of ``window`` consecutive rounds (PTS: 5) is steady when

* the data excursion ``max - min`` is at most ``max_range_pct`` % (PTS: 20 %) of the window's average, and
* the least-squares line through the window has an excursion over the window, ``|slope| * (window - 1)``,
  of at most ``max_excursion_pct`` % (PTS: 10 %) of that average.

The measurement window is the first window that qualifies; when none does, the last ``window`` rounds (so a
page can still show what was measured), or no window at all with fewer rounds than ``window``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

_EPS = 1e-9  # percent: a window exactly at a limit (20.000000000000004 % in floating point) holds it


@dataclass(frozen=True)
class PtsSteadyState:
    """The rule's verdict on one tracked variable.  ``first_round``/``last_round``: 1-based, the measurement
    window (None with fewer rounds than the window); ``average``, ``range_pct`` ((max - min) / average in %),
    ``excursion_pct`` (|slope| x (window - 1) / average in %), ``slope`` (per round) and ``intercept`` (the fit
    line is ``slope * round + intercept``) describe that window; ``reason`` is always set."""

    steady: bool
    first_round: int | None
    last_round: int | None
    average: float | None
    range_pct: float | None
    excursion_pct: float | None
    slope: float | None
    reason: str
    intercept: float | None = None
    rounds: int = 0  # rounds measured
    window: int = 5
    max_range_pct: float = 20.0
    max_excursion_pct: float = 10.0

    @property
    def window_rounds(self) -> list[int]:
        """The round numbers of the measurement window (empty without one)."""
        if self.first_round is None or self.last_round is None:
            return []
        return list(range(self.first_round, self.last_round + 1))

    def to_dict(self) -> dict:
        return asdict(self)


def _window_stats(y: np.ndarray, first_round: int) -> tuple[float, float, float, float, float]:
    """average, range %, excursion %, slope, intercept of the window starting at round ``first_round``."""
    x = np.arange(first_round, first_round + len(y), dtype=float)
    average = float(y.mean())
    slope, intercept = np.polyfit(x, y, 1)
    scale = abs(average)
    if scale == 0:  # all zeros: no relative spread can be stated (a zero window with any spread is not steady)
        spread = float(y.max() - y.min())
        range_pct = 0.0 if spread == 0 else float("inf")
        excursion_pct = 0.0 if slope == 0 else float("inf")
    else:
        range_pct = float(y.max() - y.min()) * 100 / scale
        excursion_pct = abs(float(slope)) * (len(y) - 1) * 100 / scale
    return average, range_pct, excursion_pct, float(slope), float(intercept)


def pts_steady_state(values, window: int = 5, max_range_pct: float = 20.0,
                     max_excursion_pct: float = 10.0, *, round_offset: int = 0) -> PtsSteadyState:
    """Apply the PTS steady-state rule to ``values`` (one tracked value per round, round 1 first).
    ``round_offset``: the values start at round ``round_offset + 1`` (a PTS run checking the window that ends at
    its latest round for every tracked variable at once, :func:`helpers.run.pts.joint_steady_state`)."""
    if window < 2:
        raise ValueError(f"window {window} must be at least 2 rounds (a line needs two points).")
    y_all = np.asarray(list(values), dtype=float)
    n = len(y_all)
    limits = {"rounds": n, "window": window, "max_range_pct": max_range_pct, "max_excursion_pct": max_excursion_pct}
    if n < window:
        return PtsSteadyState(False, None, None, None, None, None, None,
                              f"{n} of the {window} rounds of a window measured: no measurement window yet", **limits)
    if not np.all(np.isfinite(y_all)):
        bad = [i + 1 for i in np.flatnonzero(~np.isfinite(y_all))]
        return PtsSteadyState(False, None, None, None, None, None, None,
                              f"round(s) {', '.join(map(str, bad))} have no value", **limits)
    first, last_start = 1 + round_offset, n - window + 1 + round_offset
    for start in range(first, last_start + 1):
        stats = _window_stats(y_all[start - first:start - first + window], start)
        average, range_pct, excursion_pct, slope, intercept = stats
        if range_pct <= max_range_pct + _EPS and excursion_pct <= max_excursion_pct + _EPS:
            reason = (f"steady state in rounds {start}-{start + window - 1}: range {range_pct:.1f} % <= "
                      f"{max_range_pct:g} % and fit-line excursion {excursion_pct:.1f} % <= {max_excursion_pct:g} % "
                      "of the window's average")
            return PtsSteadyState(True, start, start + window - 1, average, range_pct, excursion_pct, slope, reason,
                                  intercept, **limits)
    start, end = last_start, n + round_offset
    average, range_pct, excursion_pct, slope, intercept = _window_stats(y_all[-window:], start)
    parts = []
    if range_pct > max_range_pct + _EPS:
        parts.append(f"range {range_pct:.1f} % > {max_range_pct:g} %")
    if excursion_pct > max_excursion_pct + _EPS:
        parts.append(f"fit-line excursion {excursion_pct:.1f} % > {max_excursion_pct:g} %")
    last = " and ".join(parts) or "no earlier window qualified"
    reason = (f"not steady after {end} rounds: no window of {window} rounds qualified (last window, rounds "
              f"{start}-{end}: {last} of its average)")
    return PtsSteadyState(False, start, end, average, range_pct, excursion_pct, slope, reason, intercept, **limits)
