"""Run a small real fio job file and ingest its output (shared by the real-fio tests)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pandas as pd

from helpers.ingest import core as ingest

SIZE = "64m"


def prefill(fio: str, target: Path) -> None:
    """Write the whole 64 MiB target once (reads of a sparse file never reach the device); a block device (the
    reference device) is written every time, fio's report of it discarded."""
    device = Path(target).is_block_device()
    if device or not target.exists() or target.stat().st_size < 64 << 20:
        subprocess.run([fio, "--name=prefill", f"--filename={target}", f"--size={SIZE}", "--rw=write", "--bs=1m",
                        "--ioengine=libaio", "--iodepth=8", "--direct=1", "--output-format=json",
                        f"--output={os.devnull if device else f'{target}.prefill.json'}"], check=True,
                       capture_output=True, timeout=60)


def run_jobs(fio: str, target: Path, jobs: dict[str, dict], out: Path, runtime_s: float = 1.0,
             ramp_s: float = 0.25, **global_options) -> pd.DataFrame:
    """Run ``jobs`` (name -> fio options) one after another (stonewall) in one fio process and
    return the ingested results (flags included)."""
    opts = {"filename": target, "size": SIZE, "time_based": 1, "runtime": f"{runtime_s:g}s",
            "ramp_time": f"{ramp_s:g}s", "randrepeat": 0, **global_options}
    lines = ["[global]", *(f"{k}={v}" for k, v in opts.items())]
    for name, o in jobs.items():
        lines += [f"[{name}]", "stonewall", *(f"{k}={v}" for k, v in o.items())]
    jobfile = out.with_suffix(".fio")
    jobfile.write_text("\n".join(lines) + "\n")
    subprocess.run([fio, "--output-format=json", f"--output={out}", str(jobfile)], check=True,
                   capture_output=True, timeout=60 + len(jobs) * (runtime_s + ramp_s) * 3)
    rows, bad = ingest.rows_from_bytes(out.read_bytes(), "real-fio", out.name)
    assert not bad, bad
    results, _ = ingest.to_frames(rows, bad)
    return results
