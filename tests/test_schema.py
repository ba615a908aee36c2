"""docs/schema.md is generated from schema.py and current; datasets carry exactly the schema."""

from __future__ import annotations

from pathlib import Path

from helpers.ingest import core as ingest
from helpers.processed import schema

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).parent / "data" / "fio"


def test_schema_doc_is_current():
    assert (ROOT / "docs" / "schema.md").read_text() == schema.document(), \
        "run: .venv/bin/python -m helpers.processed.schema > docs/schema.md"


def test_every_column_has_a_unit_or_is_a_label():
    units = ("_us", "_ns", "_s", "_bytes", "_per_s", "_pct", "_ios", "_merges", "iops", "iodepth", "numjobs",
             "direct", "count", "_index")
    labels = {"run_id", "host", "fio_version", "source_file", "point_id", "group", "job_name", "rw", "direction",
              "ioengine", "group_reporting", "flag_reasons", "unreliable_percentiles", "reason",
              "source_format", "rounded_columns", "config_note", "latency", "target_file"}
    for name, _, _ in schema.RESULT_COLUMNS + schema.HISTOGRAM_COLUMNS + schema.QUARANTINE_COLUMNS:
        assert name.startswith("flag_") or name in labels or name.endswith(units), name


def test_frames_have_schema_columns_and_types():
    r = ingest.ingest_paths([CORPUS], "s")
    for df, cols in ((r.results, schema.RESULT_COLUMNS), (r.histograms, schema.HISTOGRAM_COLUMNS),
                     (r.quarantine, schema.QUARANTINE_COLUMNS)):
        assert list(df.columns) == schema.column_names(cols)
        for c, t, _ in cols:
            kind = str(df[c].dtype)
            assert kind == t or (t == "int64" and kind == "Int64") or (t == "string" and kind in ("str", "string")), \
                (c, kind, t)
