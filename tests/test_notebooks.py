"""Every notebook's executed copy: the stages on a real smoke sweep and the analysis and interactive notebooks on
the bundled sample run (nbval's executions, tests/nbval_lab.py), the analysis and interactive notebooks on the
smoke run (partial data; the reports stage, papermill)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from helpers import config
from helpers.fio.logs import parse_log_name
from helpers.processed import store
from helpers.report import pipeline
from helpers.run.manifest import read_manifest
from notebook_outputs import outputs_text, plotly_figures

pytestmark = pytest.mark.notebooks

ANALYSIS = pipeline.analysis_notebooks() + pipeline.interactive_notebooks()
INTERACTIVE = {p.name for p in pipeline.interactive_notebooks()}


def expected_mimetype(nb_path: Path) -> str:
    """Report notebooks show plotly figures; interactive ones (JupyterLab only) show ipywidgets that
    hold plotly FigureWidgets, so their outputs carry the widget mimetype instead."""
    if nb_path.name in INTERACTIVE:
        return "application/vnd.jupyter.widget-view+json"
    return "application/vnd.plotly.v1+json"


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


def test_sweep_notebook_wrote_raw_json_and_manifest(smoke_run):
    run_dir = smoke_run["run_dir"]
    manifest = read_manifest(run_dir)
    assert manifest["status"] == "complete" and manifest["profile"] == "smoke"
    assert manifest["fio_version"].startswith("fio-") and manifest["host"] and manifest["kernel"]
    assert manifest["target"]["path"].endswith("smoke-target.bin")
    clock = manifest["fio_clocksource"]  # asked once (helpers.fio.binary.fio_clocksource), given to every point
    assert clock in ("cpu", "clock_gettime", "gettimeofday")
    for pid, entry in manifest["points"].items():
        assert entry["status"] == "ok" and f"--clocksource={clock}" in entry["argv"]
        data = json.loads((run_dir / f"{pid}.json").read_text())
        assert data["jobs"][0]["jobname"] == pid and data["jobs"][0]["error"] == 0
    assert not list(run_dir.glob(".*.tmp"))
    assert '"ename"' not in outputs_text(smoke_run["executed"] / pipeline.SWEEP_NB)


def test_ingest_notebook_wrote_parquet(smoke_processed):
    df = store.load(smoke_processed["processed_dir"], run_ids=smoke_processed["run_id"])
    manifest = read_manifest(smoke_processed["run_dir"])
    assert set(df["point_id"]) == set(manifest["points"])
    assert "rows" in outputs_text(smoke_processed["executed"] / pipeline.INGEST_NB)
    # what `make ingest` prints: the notebook's summary line, the counts of what it read
    line = pipeline.ingest_summary(smoke_processed["executed"] / pipeline.INGEST_NB)
    ts = store.load(smoke_processed["processed_dir"], config.TIMESERIES_DATASET, smoke_processed["run_id"])
    logs = sum(1 for f in smoke_processed["run_dir"].rglob("*") if parse_log_name(f.name))
    m = re.fullmatch(r"(\d+) files: (\d+) results \(([\d,]+) rows\), ([\d,]+) fio logs \(([\d,]+) windows\), "
                     r"0 quarantined", line or "")
    assert m, line
    assert int(m[2]) == len(manifest["points"]) and int(m[1]) >= int(m[2])
    assert (m[3], m[4], m[5]) == (f"{len(df):,}", f"{logs:,}", f"{len(ts):,}"), line


def check_executed(executed: Path) -> None:
    text = outputs_text(executed)
    assert expected_mimetype(executed) in text, executed.name
    assert '"ename"' not in text, executed.name


@pytest.mark.parametrize("nb_path", ANALYSIS, ids=lambda p: p.stem)
def test_analysis_notebook_on_smoke_run(nb_path, smoke_reports):
    """Executed once per session by the smoke_reports fixture (reports stage), partial data."""
    check_executed(smoke_reports["executed"] / nb_path.name)


@pytest.mark.parametrize("nb_path", ANALYSIS, ids=lambda p: p.stem)
def test_analysis_notebook_on_bundled_sample_with_default_run_id(nb_path, sample_reports):
    """Executed once per session with run_id left at its default ("latest": the sample when the processed
    folder has no own run)."""
    executed = sample_reports["executed"] / nb_path.name
    check_executed(executed)
    assert sample_reports["run"] in outputs_text(executed)


def test_sweep_modes_page_says_in_one_sentence_when_a_run_has_none_of_that_data(smoke_reports):
    nb = nbformat.read(smoke_reports["executed"] / "17-sweep-modes.ipynb", as_version=4)
    cells = [json.dumps(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]
    for sentence in ("No adaptive queue-depth search", "No open-loop points", "No multi-host points",
                     "No steady-state rounds", "No SLO search in this run"):
        assert sum(sentence in c for c in cells) == 1, sentence  # once: the figure says it, its table adds nothing


def test_compare_page_with_one_run_says_once_that_it_needs_a_second(smoke_reports):
    """One run: its headline numbers are drawn (they are data), the forest plot says once that a comparison needs
    a second run, and the tables under it add no sentence of their own."""
    nb = nbformat.read(smoke_reports["executed"] / "16-compare.ipynb", as_version=4)
    cells = [json.dumps(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]
    assert sum("Comparing needs two or more runs" in c for c in cells) == 1
    assert not any("appears in both runs" in c or "this page has one" in c for c in cells)
    headline = plotly_figures(smoke_reports["executed"] / "16-compare.ipynb")[0]
    bars = [t for t in headline["data"] if t["type"] == "bar"]
    assert bars and all(list(t["x"]) == [smoke_reports["run_id"]] for t in bars)


def test_time_series_pages_say_why_there_is_no_device_temperature(smoke_reports):
    """Issue 12 point 5 on a real sweep of this machine: without device temperature (this VM: a virtio disk, no
    SMART source) the time-series figure says why in one sentence, once -- the sentence the page's data gives
    (analysis.health_note: the manifest's health.note when the page finds the run's manifest) -- and the device
    card's 'device health' line is that sentence; on a disk that reports health the temperature is drawn.
    (These report pages do not see the smoke run's raw folder, so here the sentence is that no manifest was found;
    tests/test_health.py checks the virtio sentence itself on a real sweep.)"""
    from helpers.notebook import runs

    data = runs.load_results(smoke_reports["run_id"], smoke_reports["processed_dir"])
    note = data.health_note
    fig = plotly_figures(smoke_reports["executed"] / "20-time-series.ipynb")[-1]
    names = [t.get("name") for t in fig["data"]]
    if not note:
        assert "device temperature (°C)" in names
        return
    assert note.startswith("no SMART/health data") and "device temperature (°C)" not in names
    texts = [a.get("text", "") for a in fig["layout"].get("annotations", [])]
    assert sum(t.count("no SMART/health data") for t in texts) == 1 and any(note in t for t in texts)
    if data.manifest:  # else the card says in one sentence that the run's manifest was not found
        assert note in outputs_text(smoke_reports["executed"] / "11-device-card.ipynb")


def test_explorer_compare_section_with_one_run_is_one_sentence(sample_reports):
    """The bundled sample alone ("latest"): the explorer's comparison says in one sentence that it needs two runs."""
    text = outputs_text(sample_reports["executed"] / "90-explorer.ipynb")
    assert f"Comparing needs two or more runs; this report has 1 ({sample_reports['run']})" in text
