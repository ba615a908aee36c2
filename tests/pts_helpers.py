"""The tiny PTS profile the PTS tests and the 22-pts page's fixture run (not fixtures: conftest.py is shared)."""

from __future__ import annotations

from pathlib import Path

import yaml

# every test of the procedure, 2 points per round, rounds of 0.3 s, window 2 of at most 2 rounds, WSAT 4 x the
# active range logged per 0.1 s (a curve of several windows even on a fast disk), DIRTH T2/T1 x Q1, XSR 2 + 2 + 2
# samples of 0.3 s, HIR 2 waits x 1 cycle: ~34 s of fio
TINY_PTS = {"class": "client", "numjobs": 1, "iodepth": 8, "round_s": 0.3, "window": 2, "max_rounds": 2,
            "precondition_volume": 1, "iops_bs": ["4k", "64k"], "iops_mixes": [65, 0], "tp_bs": ["128k"],
            "lat_bs": ["4k"], "lat_mixes": [100, 0], "wsat_volume": 4, "wsat_max_s": 3, "wsat_window_s": 0.1,
            "dirth_threads": [2, 1], "dirth_qds": [1], "dirth_prewrite_s": 0.3, "dirth_hist_s": 0.5,
            "xsr_sample_s": 0.3, "xsr_seq_samples": 2, "xsr_rnd_samples": 2, "xsr_qd": 4,
            "hir_waits": [0.2, 0.4], "hir_cycles": 1, "hir_write_s": 0.3}


def write_pts_profile(directory: Path, name: str = "tiny-pts", **overrides) -> Path:
    path = Path(directory) / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"description": f"{name}: the PTS procedure in seconds", "mode": "pts",
                                    "pts": {**TINY_PTS, **overrides}}))
    return path
