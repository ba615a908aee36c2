"""A SNIA PTS run as the report reads it: the specification's constants, the tests' names and the run's manifests gathered (PtsRun)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from helpers.analysis.pts_xsr import xsr_recovery  # noqa: F401  (the public name, issue 32)
from helpers.run.pts_dirth import dirth_operating_points  # noqa: F401  (the public name, issue 32)

FIVE_NINES_MIN_IOS = 100_000  # a 99.999 % latency names the 1-in-100,000 I/O: fewer I/Os cannot show it


PTS_ROUND_S = 60.0  # PTS 2.0.2: one minute per point per round


PTS_WINDOW, PTS_MAX_RANGE_PCT, PTS_MAX_EXCURSION_PCT = 5, 20.0, 10.0


PTS_PRECONDITION_X = 2.0  # workload-independent preconditioning: twice the capacity


PTS_WSAT_X = 4.0  # WSAT: four times the capacity (or its time limit)


PTS_WSAT_MAX_S = 24 * 3600.0  # WSAT's time limit: 24 hours


PTS_PRECONDITION_BS = "128k"  # workload-independent preconditioning: 128 KiB sequential writes


MISSING_TESTS: tuple[str, ...] = ()  # PTS 2.0.2 tests the lab does not run (docs/sweeps.md)


TEST_NAMES = {"iops": "IOPS", "lat": "LAT", "wsat": "WSAT", "dirth": "DIRTH", "xsr": "XSR", "hir": "HIR", "cbw": "CBW"}


PTS_MAX_ROUNDS = 25  # PTS 2.0.2: steady state within at most 25 rounds


PTS_DIRTH_PREWRITE_S, PTS_DIRTH_HIST_S = 300.0, 600.0  # DIRTH: 5 min pre-write per round, 10 min per operating point


def test_title(test: str) -> str:
    """"iops" -> "IOPS", "tp-128k" -> "TP 128k"."""
    return f"TP {test.removeprefix('tp-')}" if test.startswith("tp-") else TEST_NAMES.get(test, test)


def mix_label(read_pct: float | None) -> str:
    """Read % -> the PTS's R/W label, "65/35"."""
    if read_pct is None or pd.isna(read_pct):
        return ""
    return f"{int(read_pct)}/{100 - int(read_pct)}"


@dataclass
class PtsRun:
    """The first PTS run of the chosen runs (``run_id`` None and an empty manifest when there is none)."""

    run_id: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    looked_at: list[str] = field(default_factory=list)  # the run ids searched (named when none has PTS tests)

    @property
    def pts(self) -> dict[str, Any]:
        return self.manifest.get("pts") or {}

    @property
    def tests(self) -> dict[str, dict]:
        return self.pts.get("tests") or {}

    @property
    def settings(self) -> dict[str, Any]:
        return self.pts.get("settings") or {}

    @property
    def empty_note(self) -> str:
        if self.run_id:
            return ""
        who = f"Run {', '.join(self.looked_at)}" if self.looked_at else "This run"
        return f"{who} has no PTS tests: run the pts or pts-lite profile (mode: pts)."


def pts_run(manifests: dict[str, dict]) -> PtsRun:
    """The first of {run_id: manifest} with PTS tests."""
    for run_id, m in manifests.items():
        if (m or {}).get("pts", {}).get("tests"):
            return PtsRun(run_id, m, list(manifests))
    return PtsRun(looked_at=list(manifests))
