"""Real fio runs for the comparison tests and benchmark: repeats of several configurations, interleaved
in time (A r0, B r0, A' r0, A r1, ...), one raw file per repeat and one run folder per configuration."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd

from helpers.analysis.runpair import repeat_samples
from helpers.ingest.core import ingest_paths
from realfio import SIZE, prefill

POINT = {"rw": "randread", "bs": "4k", "iodepth": 4, "ioengine": "libaio", "direct": 1}


def fio_repeat(fio: str, target: Path, out: Path, runtime_s: float = 1.0, ramp_s: float = 0.25, **options) -> Path:
    """One repeat of the point (POINT + options) as its own fio process and json+ file."""
    opts = {"name": "cmp", "filename": target, "size": SIZE, **POINT, "time_based": 1, "runtime": f"{runtime_s:g}s",
            "ramp_time": f"{ramp_s:g}s", "randrepeat": 0, **options}
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([fio, *(f"--{k}={v}" for k, v in opts.items()), "--output-format=json+", f"--output={out}"],
                   check=True, capture_output=True, timeout=60)
    return out


def interleaved(fio: str, target: Path, root: Path, configs: dict[str, dict], repeats: int = 3,
                runtime_s: float = 1.0, ramp_s: float = 0.25) -> pd.DataFrame:
    """Run every configuration ``repeats`` times, alternating between them; return the per-repeat samples
    (run_id = configuration name) of :func:`helpers.analysis.runpair.repeat_samples`."""
    prefill(fio, target)
    for r in range(repeats):
        for name, opts in configs.items():
            fio_repeat(fio, target, root / name / f"r{r}.json", runtime_s, ramp_s, **opts)
    return pd.concat([samples_of(root / name, name) for name in configs], ignore_index=True)


def sequential(fio: str, target: Path, root: Path, configs: dict[str, dict], repeats: int = 3,
               runtime_s: float = 1.0, ramp_s: float = 0.25) -> pd.DataFrame:
    """Like :func:`interleaved`, but each configuration's repeats back to back (two separate runs)."""
    prefill(fio, target)
    for name, opts in configs.items():
        for r in range(repeats):
            fio_repeat(fio, target, root / name / f"r{r}.json", runtime_s, ramp_s, **opts)
    return pd.concat([samples_of(root / name, name) for name in configs], ignore_index=True)


def samples_of(folder: Path, run_id: str) -> pd.DataFrame:
    res = ingest_paths([folder], run_id)
    assert len(res.quarantine) == 0, res.quarantine
    return repeat_samples(res.results, res.histograms)


def mean_iops(samples: pd.DataFrame, run_id: str) -> float:
    return float(samples.loc[(samples["run_id"] == run_id) & (samples["metric"] == "iops"), "value"].mean())
