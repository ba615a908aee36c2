"""Small offline reports (issue 10 point 7): one shared plotly.js per reports folder, loaded by a relative
path, pages and executed notebooks without their own copy of plotly.js."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers import config
from helpers.notebook import runs
from helpers.report import export, pipeline

MB = 1024**2
PLOTLY_MARK = "window.Plotly = Plotly"  # what an inlined plotly.js bundle defines


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The tail-latency and device-card notebooks (the largest figures: histograms) executed on the bundled
    quick-profile sample and exported into reports/<run>/."""
    tmp = tmp_path_factory.mktemp("export")
    run = runs.ensure_sample(tmp / "processed", "sample-quick-vm")
    reports = tmp / "reports"
    pages = []
    for name in ("14-tail-latency.ipynb", "11-device-card.ipynb"):
        nb = config.NOTEBOOKS_DIR / name
        executed = pipeline.execute(nb, pipeline.executed_path(run, nb, reports),
                                    {"run_id": run, "processed_dir": str(tmp / "processed")})
        pages.append(export.export_html(executed, reports / run / f"{pipeline.report_name(nb)}.html"))
    return reports, run, pages


def test_plotly_js_is_written_once_and_pages_reference_it_relatively(exported):
    reports, run, pages = exported
    js = reports / "assets" / "plotly.min.js"
    assert js.stat().st_size > 3 * MB and "plotly.js" in js.read_text()[:2000]
    for page in pages:
        html = page.read_text()
        srcs = re.findall(r'<script[^>]+src="([^"]+)"', html)
        assert srcs == ["../assets/plotly.min.js"], srcs  # relative: the folder can be copied or zipped
        assert PLOTLY_MARK not in html and "Plotly.newPlot" in html
        assert page.stat().st_size <= 1 * MB, (page.name, page.stat().st_size)


def test_executed_notebooks_do_not_carry_plotly_js(exported):
    reports, run, _ = exported
    for nb in (reports / run / "notebooks").glob("*.ipynb"):
        text = nb.read_text()
        assert PLOTLY_MARK not in text and "application/vnd.plotly.v1+json" in text
        assert nb.stat().st_size <= 1 * MB, (nb.name, nb.stat().st_size)


def test_a_copied_reports_folder_still_finds_its_script(exported, tmp_path):
    reports, run, pages = exported
    copy = tmp_path / "elsewhere" / "reports"
    shutil.copytree(reports, copy)
    for page in pages:
        moved = copy / run / page.name
        src = re.search(r'<script[^>]+src="([^"]+)"', moved.read_text()).group(1)
        assert (moved.parent / src).resolve() == (copy / "assets" / "plotly.min.js").resolve()
        assert (moved.parent / src).is_file()


def test_every_plotly_output_becomes_a_drawn_figure(tmp_path):
    import nbformat
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"height": 300})
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("fig")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.plotly.v1+json": fig.to_plotly_json(), "text/plain": "Figure"})]
    nb.cells = [cell]
    assert export.plotly_outputs_to_html(nb) == 1
    html = cell.outputs[0]["data"]["text/html"]
    assert "Plotly.newPlot" in html and "height:300px" in html and PLOTLY_MARK not in html
    src = Path(tmp_path / "r" / "run" / "nb.ipynb")
    src.parent.mkdir(parents=True)
    nbformat.write(nb, src)
    page = export.export_html(src, tmp_path / "r" / "run" / "page.html").read_text()
    assert page.count("Plotly.newPlot") == 1 and '<script src="../assets/plotly.min.js">' in page
