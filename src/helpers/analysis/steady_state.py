"""Steady-state runs: the rounds the sweep measured until the SNIA rule held, as recorded in the manifest
(``steady_state.rounds`` and ``steady_state.result``).  The rule itself has one home,
:func:`helpers.run.steady_state.pts_steady_state` (the sweep stops its rounds on it); it is published here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from helpers.run.steady_state import PtsSteadyState, pts_steady_state

__all__ = ["PtsSteadyState", "SteadyStateRun", "first_steady_state_run", "pts_steady_state", "steady_state_result",
           "steady_state_runs"]

ROUND_COLUMNS = ["run_id", "round", "point_id", "iops", "lat_mean_us", "steady"]


@dataclass
class SteadyStateRun:
    """One run's convergence: ``rounds`` (one row per round), ``result`` (the rule's verdict as a dict, the
    fields of :class:`PtsSteadyState`) and the run id."""

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
                                      steady_state_result(state.get("result"), state.get("settings"))))
    return out


def steady_state_result(result: dict[str, Any] | None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A manifest's verdict in :class:`PtsSteadyState`'s fields; runs recorded before the rule had one home
    (``reached``, ``window`` as a list of rounds, ``mean``, ``excursion_limit``) are translated."""
    res = dict(result or {})
    if "steady" in res or not res:
        return res
    window = res.get("window") or []
    mean = res.get("mean")
    range_pct = (settings or {}).get("range_pct", 20.0)
    if res.get("excursion_limit") is not None and mean:
        range_pct = res["excursion_limit"] / abs(mean) * 100
    return {"steady": bool(res.get("reached")), "first_round": min(window) if window else None,
            "last_round": max(window) if window else None, "average": mean, "slope": res.get("slope"),
            "intercept": res.get("intercept"), "max_range_pct": range_pct, "reason": res.get("reason", ""),
            "rounds": res.get("rounds", 0)}


def first_steady_state_run(manifests: dict[str, dict[str, Any]]) -> SteadyStateRun:
    """The first run with steady-state rounds, or an empty one (its figure then says there are none)."""
    runs = steady_state_runs(manifests)
    return runs[0] if runs else SteadyStateRun()
