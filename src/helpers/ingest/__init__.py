"""Ingest: raw fio output files -> rows -> the processed Parquet datasets.

``core`` reads files (through :mod:`helpers.fio`) into result, histogram and quarantine frames and
writes them with :mod:`helpers.processed.store`.  ``python -m helpers.ingest PATH ... --out DIR``
is the command line.
"""

from helpers.ingest.core import (
    IngestResult,
    PointFacts,
    ingest,
    ingest_paths,
    ingest_run,
    manifest_facts,
    quarantine_report,
    raw_files,
    read_results,
    write_ingest,
)

__all__ = ["IngestResult", "PointFacts", "ingest", "ingest_paths", "ingest_run", "manifest_facts",
           "quarantine_report", "raw_files", "read_results", "write_ingest"]
