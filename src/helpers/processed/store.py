"""The processed dataset on disk: ``data/processed/<dataset>/run_id=<RUN>/part-0.parquet``.

Hive-style partitions let pandas, pyarrow, DuckDB or Spark read one run or all;
writing a run replaces that run's partition atomically (re-ingest never duplicates rows).
"""

from __future__ import annotations

import base64
import os
import shutil
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from helpers import config
from helpers.processed import schema


def run_partition(processed_dir: Path, dataset: str, run_id: str) -> Path:
    return Path(processed_dir) / dataset / f"run_id={run_id}"


def arrow_table(df: pd.DataFrame) -> pa.Table:
    """The table written for ``df`` (its run_id column is the partition's folder name)."""
    # nthreads=1: one batch is small; pyarrow's conversion thread pool costs more than it saves
    return pa.Table.from_pandas(df.drop(columns=["run_id"], errors="ignore"), preserve_index=False, nthreads=1)


# datasets whose numbers repeat (the histograms' bins and counts: 7x smaller with dictionary pages for every column)
DICTIONARY_DATASETS = frozenset({config.HISTOGRAM_DATASET})


def _is_text(t: pa.DataType) -> bool:
    """A string column (or a dictionary of strings)."""
    t = t.value_type if pa.types.is_dictionary(t) else t
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def decoded_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with every dictionary type replaced by its value type (metadata kept)."""
    return pa.schema([pa.field(f.name, f.type.value_type, f.nullable, f.metadata)
                      if pa.types.is_dictionary(f.type) else f for f in schema], metadata=schema.metadata)


class RunWriter:
    """Stream DataFrames of one run into a dataset partition, replacing it atomically on close.

    Memory stays bounded by the largest frame written (one ingest batch), not by the run's size::

        with RunWriter(processed_dir, "results", run_id) as w:
            for df in batches:
                w.write(df)
    """

    def __init__(self, processed_dir: Path, dataset: str, run_id: str, statistics: list[str] | None = None,
                 dictionary: bool | None = None):
        """``statistics``: the columns whose row-group min/max are written (default: all).  ``dictionary``:
        dictionary pages for every column (worth it where numbers repeat, as the histograms' bins and
        counts do) or only for the string columns (the measured numbers of a results row are nearly all
        distinct, and a dictionary pyarrow builds for them only to fall back from it costs time and makes
        the file larger); default: every column for :data:`DICTIONARY_DATASETS`, strings only otherwise."""
        self.part = run_partition(processed_dir, dataset, run_id)
        self.statistics = statistics
        self.dictionary = dataset in DICTIONARY_DATASETS if dictionary is None else dictionary
        self._stored_schema: dict | None = None
        self.part.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.part.parent / f".tmp-{uuid.uuid4().hex}"
        self.tmp.mkdir()
        self._writer: pq.ParquetWriter | None = None
        self._empty: pd.DataFrame | None = None
        self.rows = 0

    def write(self, df: pd.DataFrame | pa.Table) -> None:
        """Append ``df``: a frame, or a pyarrow Table as written (no run_id column, the schema's metadata
        that of :func:`arrow_table`), whose dictionary columns go into Parquet's dictionary pages as they
        are and read back as their value type: the file is the one the decoded table would give."""
        if isinstance(df, pa.Table):
            if not df.num_rows:
                return
            table = df
        elif not len(df):
            self._empty = df if self._empty is None else self._empty
            return
        else:
            table = arrow_table(df)
        if self._writer is None:
            self._writer = self._open(table.schema)
        elif isinstance(df, pd.DataFrame) or not table.schema.equals(self._writer.schema):
            table = table.cast(self._writer.schema)  # all-<NA> columns of a batch get the first batch's type
        self._writer.write_table(table)
        self.rows += len(table)

    def _open(self, schema: pa.Schema) -> pq.ParquetWriter:
        opts: dict = {} if self.statistics is None else {"write_statistics": list(self.statistics)}
        if not self.dictionary:
            opts["use_dictionary"] = [f.name for f in schema if _is_text(f.type)]
        if not any(pa.types.is_dictionary(t) for t in schema.types):
            return pq.ParquetWriter(self.tmp / "part-0.parquet", schema, **opts)
        # the stored Arrow schema (which readers follow) is the decoded one, as if the values were written
        plain = decoded_schema(schema)
        self._stored_schema = {**(plain.metadata or {}),
                               b"ARROW:schema": base64.b64encode(plain.serialize().to_pybytes())}
        return pq.ParquetWriter(self.tmp / "part-0.parquet", schema, store_schema=False, **opts)

    def close(self, empty: pd.DataFrame | None = None) -> Path:
        """Replace the partition with what was written; when nothing was, with an empty file of ``empty``'s
        columns (default: the first empty frame written), so readers still find the run's schema."""
        if empty is not None:
            self._empty = empty
        if self._writer is not None:
            if self._stored_schema is not None:
                self._writer.add_key_value_metadata(self._stored_schema)
            self._writer.close()
        elif self._empty is not None:
            pq.write_table(arrow_table(self._empty), self.tmp / "part-0.parquet")
        old = self.part.parent / f".old-{uuid.uuid4().hex}"
        if self.part.exists():
            os.replace(self.part, old)
        os.replace(self.tmp, self.part)
        shutil.rmtree(old, ignore_errors=True)
        return self.part

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_run(processed_dir: Path, dataset: str, run_id: str, df: pd.DataFrame, dictionary: bool | None = None
              ) -> Path:
    """Replace the partition of ``run_id`` in ``dataset`` with ``df`` (its run_id column is the folder);
    ``dictionary`` as :class:`RunWriter`'s."""
    w = RunWriter(processed_dir, dataset, run_id, dictionary=dictionary)
    try:
        w.write(df)
    except BaseException:
        w.abort()
        raise
    return w.close(empty=df)


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
        if dataset in schema.DATASETS:
            return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of(dataset)})
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def load_where(processed_dir: Path = config.PROCESSED_DIR, dataset: str = config.RESULTS_DATASET,
               where: dict[str, object] | None = None, run_ids: list[str] | None = None,
               columns: list[str] | None = None) -> pd.DataFrame:
    """Rows whose columns equal ``where`` (e.g. ``{"host": "lab-3"}``), over all runs or ``run_ids``,
    read with a pyarrow dataset filter: run partitions are pruned by folder name and the other
    conditions are pushed into the Parquet scan (row groups skipped by their statistics), so a large
    history is never read whole.  ``run_id`` comes back as a string column first, like :func:`load`."""
    base = Path(processed_dir) / dataset
    if not base.exists():
        return load(processed_dir, dataset, [])
    part = pads.partitioning(pa.schema([("run_id", pa.string())]), flavor="hive")
    ds = pads.dataset(base, format="parquet", partitioning=part, exclude_invalid_files=False,
                      ignore_prefixes=[".tmp-", ".old-", "."])
    expr = None
    for k, v in (where or {}).items():
        e = pads.field(k) == v
        expr = e if expr is None else expr & e
    if run_ids is not None:
        e = pads.field("run_id").isin(list(run_ids))
        expr = e if expr is None else expr & e
    df = ds.to_table(filter=expr, columns=columns if columns is None or "run_id" in columns else
                     ["run_id", *columns]).to_pandas()
    run = df.pop("run_id").astype("string")
    df.insert(0, "run_id", run)
    return df
