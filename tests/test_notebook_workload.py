"""The Workload page (notebooks/25-workload.ipynb) on a run with the real trace of a known fio job."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import config
from helpers.ingest import traces as T
from helpers.report import pipeline

DATA = Path(__file__).parent / "data" / "traces"


@pytest.mark.notebooks
def test_workload_page_characterizes_an_imported_trace(tmp_path):
    processed = tmp_path / "processed"
    _, sentence = T.import_traces([DATA / "known-fio-tracefs.trace", DATA / "blkparse-sample.txt"], "tr", processed)
    assert sentence.startswith("337 I/Os imported from 2 traces")
    out = pipeline.execute(config.NOTEBOOKS_DIR / "25-workload.ipynb", tmp_path / "wl.ipynb",
                           {"run_id": "latest", "processed_dir": str(processed)})
    text = out.read_text()
    assert '"ename"' not in text
    # the table's row of the known job (read share 69.5 %, its bssplit) and the figures of that trace
    assert "the figures show known-fio-tracefs (334 I/Os, tracepoints)" in text
    assert "4k/52:16k/28:64k/20" in text and "69.5" in text
    assert "Block sizes by operation" in text and "LBA access heat" in text
