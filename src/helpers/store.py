"""The processed dataset on disk: ``data/processed/<dataset>/run_id=<RUN>/part-0.parquet``.

Hive-style partitions let pandas, pyarrow, DuckDB or Spark read one run or all;
writing a run replaces that run's partition atomically (re-ingest never duplicates rows).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import config, schema


def run_partition(processed_dir: Path, dataset: str, run_id: str) -> Path:
    return Path(processed_dir) / dataset / f"run_id={run_id}"


def write_run(processed_dir: Path, dataset: str, run_id: str, df: pd.DataFrame) -> Path:
    """Replace the partition of ``run_id`` in ``dataset`` with ``df`` (its run_id column is the folder)."""
    part = run_partition(processed_dir, dataset, run_id)
    part.parent.mkdir(parents=True, exist_ok=True)
    tmp = part.parent / f".tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    table = pa.Table.from_pandas(df.drop(columns=["run_id"], errors="ignore"), preserve_index=False)
    pq.write_table(table, tmp / "part-0.parquet")
    old = part.parent / f".old-{uuid.uuid4().hex}"
    if part.exists():
        os.replace(part, old)
    os.replace(tmp, part)
    shutil.rmtree(old, ignore_errors=True)
    return part


def list_runs(processed_dir: Path = config.PROCESSED_DIR, dataset: str = config.RESULTS_DATASET) -> list[str]:
    base = Path(processed_dir) / dataset
    if not base.exists():
        return []
    return sorted(p.name.split("=", 1)[1] for p in base.glob("run_id=*") if (p / "part-0.parquet").exists())


def load(processed_dir: Path = config.PROCESSED_DIR, dataset: str = config.RESULTS_DATASET,
         run_ids: list[str] | str | None = None) -> pd.DataFrame:
    """Rows of the given runs (all runs when None), with ``run_id`` as a string column first."""
    if isinstance(run_ids, str):
        run_ids = [run_ids]
    runs = list_runs(processed_dir, dataset) if run_ids is None else list(run_ids)
    frames = []
    for run in runs:
        f = run_partition(processed_dir, dataset, run) / "part-0.parquet"
        if not f.exists():
            continue
        df = pq.read_table(f).to_pandas()
        df.insert(0, "run_id", pd.Series([run] * len(df), dtype="string", index=df.index))
        frames.append(df)
    if not frames:
        cols = schema.RESULT_COLUMNS if dataset == config.RESULTS_DATASET else schema.QUARANTINE_COLUMNS
        if dataset in (config.RESULTS_DATASET, config.QUARANTINE_DATASET):
            return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in cols})
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
