"""Every notebook executed headless with papermill: the stages on a real smoke sweep, the analysis
and interactive notebooks on that run (partial data) and on the bundled sample run."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from helpers import config
from helpers.notebook import runs
from helpers.processed import store
from helpers.report import pipeline
from helpers.run.manifest import read_manifest

pytestmark = pytest.mark.notebooks

ANALYSIS = pipeline.analysis_notebooks() + pipeline.interactive_notebooks()
INTERACTIVE = {p.name for p in pipeline.interactive_notebooks()}


def expected_mimetype(nb_path: Path) -> str:
    """Report notebooks show plotly figures; interactive ones (JupyterLab only) show ipywidgets that
    hold plotly FigureWidgets, so their outputs carry the widget mimetype instead."""
    if nb_path.name in INTERACTIVE:
        return "application/vnd.jupyter.widget-view+json"
    return "application/vnd.plotly.v1+json"


def outputs_text(nb_path: Path) -> str:
    nb = nbformat.read(nb_path, as_version=4)
    return json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])


def test_source_notebooks_are_clean_and_parameterized():
    for nb_path in sorted(config.NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(nb_path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), nb_path.name
        params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
        assert len(params) == 1, f"{nb_path.name} needs exactly one parameters cell"
        for line in params[0].source.splitlines():
            assert "  # " in line and ":" in line.split("=")[0], f"{nb_path.name}: '{line}' needs a type and a comment"
        assert not any("def " in c.source or "lambda" in c.source for c in code), f"{nb_path.name} defines a function"


@pytest.fixture(scope="module")
def notebook_run(tmp_path_factory, scratch_dir, fio_path):
    """00-sweep (smoke profile, 64 MiB) and 01-ingest executed into temporary folders."""
    tmp = tmp_path_factory.mktemp("nbrun")
    raw, processed, out = tmp / "raw", tmp / "processed", tmp / "executed"
    pipeline.execute(config.NOTEBOOKS_DIR / pipeline.SWEEP_NB, out / pipeline.SWEEP_NB, {
        "target": str(scratch_dir / "nb-target.bin"), "profile": "smoke", "run_id": "nb-smoke",
        "runtime_s": 1.0, "size": "64m", "raw_dir": str(raw)})
    pipeline.execute(config.NOTEBOOKS_DIR / pipeline.INGEST_NB, out / pipeline.INGEST_NB, {
        "run_id": "nb-smoke", "raw_dir": str(raw), "processed_dir": str(processed)})
    return {"raw": raw, "processed": processed, "out": out}


def test_sweep_notebook_wrote_raw_json_and_manifest(notebook_run):
    run_dir = notebook_run["raw"] / "nb-smoke"
    manifest = read_manifest(run_dir)
    assert manifest["status"] == "complete" and manifest["profile"] == "smoke"
    assert manifest["fio_version"].startswith("fio-") and manifest["host"] and manifest["kernel"]
    assert manifest["target"]["path"].endswith("nb-target.bin")
    for pid, entry in manifest["points"].items():
        assert entry["status"] == "ok"
        data = json.loads((run_dir / f"{pid}.json").read_text())
        assert data["jobs"][0]["jobname"] == pid and data["jobs"][0]["error"] == 0
    assert not list(run_dir.glob(".*.tmp"))


def test_ingest_notebook_wrote_parquet(notebook_run):
    df = store.load(notebook_run["processed"], run_ids="nb-smoke")
    manifest = read_manifest(notebook_run["raw"] / "nb-smoke")
    assert set(df["point_id"]) == set(manifest["points"])
    assert "rows" in outputs_text(notebook_run["out"] / pipeline.INGEST_NB)


@pytest.mark.parametrize("nb_path", ANALYSIS, ids=lambda p: p.stem)
def test_analysis_notebook_on_smoke_run(nb_path, notebook_run):
    out = notebook_run["out"] / nb_path.name
    pipeline.execute(nb_path, out, {"run_id": "nb-smoke", "processed_dir": str(notebook_run["processed"])})
    text = outputs_text(out)
    assert expected_mimetype(nb_path) in text
    assert '"ename"' not in text


@pytest.mark.parametrize("nb_path", ANALYSIS, ids=lambda p: p.stem)
def test_analysis_notebook_on_bundled_sample(nb_path, tmp_path):
    run = runs.ensure_sample(tmp_path)
    out = tmp_path / nb_path.name
    pipeline.execute(nb_path, out, {"run_id": run, "processed_dir": str(tmp_path)})
    text = outputs_text(out)
    assert expected_mimetype(nb_path) in text
    assert '"ename"' not in text
