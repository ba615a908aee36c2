"""Steady-state runs: the rounds the sweep measured until the SNIA rule held, as recorded in the manifest
(``steady_state.rounds`` and ``steady_state.result``, see :mod:`helpers.run.steady_state`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

ROUND_COLUMNS = ["run_id", "round", "point_id", "iops", "lat_mean_us", "steady"]


@dataclass
class SteadyStateRun:
    """One run's convergence: ``rounds`` (one row per round), ``result`` (the rule's verdict as a dict:
    reached, window, mean, slope, intercept, excursion_limit, reason) and the run id."""

    run_id: str | None = None
    rounds: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ROUND_COLUMNS))
    result: dict[str, Any] = field(default_factory=dict)


def steady_state_runs(manifests: dict[str, dict[str, Any]]) -> list[SteadyStateRun]:
    """Every run (of {run_id: manifest}) that recorded steady-state rounds, in run order."""
    out = []
    for run_id, m in manifests.items():
        state = (m or {}).get("steady_state") or {}
        rounds = state.get("rounds") or []
        if rounds:
            df = pd.DataFrame(rounds)
            df.insert(0, "run_id", run_id)
            out.append(SteadyStateRun(run_id, df[[c for c in ROUND_COLUMNS if c in df.columns]],
                                      dict(state.get("result") or {})))
    return out


def first_steady_state_run(manifests: dict[str, dict[str, Any]]) -> SteadyStateRun:
    """The first run with steady-state rounds, or an empty one (its figure then says there are none)."""
    runs = steady_state_runs(manifests)
    return runs[0] if runs else SteadyStateRun()
