"""Reference drive specifications: a plain CSV (one drive per row, a ``source`` column per row).

Spec-sheet numbers are vendor maxima (usually at high queue depth, decimal MB/s). Add a drive by
adding a row to ``drives.csv``; leave a cell empty when the source does not give that figure.  A spec
figure is compared like for like only: ``rand_qd`` is the queue depth (outstanding I/Os, e.g. 4 workers x
QD32 = 128) of the random 4k figures, ``seq_bs`` (e.g. 128k) and ``seq_qd`` those of the sequential ones;
empty when the source does not state them (then no ratio is shown).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from helpers import config

DRIVES_CSV = config.DRIVES_CSV
SPEC_METRICS = ["rand_read_4k_iops", "rand_write_4k_iops", "seq_read_mb_per_s", "seq_write_mb_per_s"]


def load_drive_specs(path: str | Path = "") -> pd.DataFrame:
    """The reference drives table (``drives.csv`` next to this file unless ``path`` is given)."""
    df = pd.read_csv(Path(path) if path else DRIVES_CSV, dtype={"capacity": "string"})
    for c in SPEC_METRICS + ["rand_qd", "seq_qd"]:
        df[c] = pd.to_numeric(df[c], errors="coerce") if c in df.columns else float("nan")
    if "seq_bs" not in df.columns:
        df["seq_bs"] = pd.NA
    return df
