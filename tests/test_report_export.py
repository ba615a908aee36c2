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


@pytest.mark.notebooks
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


@pytest.mark.notebooks
def test_executed_notebooks_do_not_carry_plotly_js(exported):
    reports, run, _ = exported
    for nb in (reports / run / "notebooks").glob("*.ipynb"):
        text = nb.read_text()
        assert PLOTLY_MARK not in text and "application/vnd.plotly.v1+json" in text
        assert nb.stat().st_size <= 1 * MB, (nb.name, nb.stat().st_size)


@pytest.mark.notebooks
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


def _one_figure_notebook(path: Path, fig, heading: str = "Queue depth") -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("fig")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.plotly.v1+json": fig.to_plotly_json(), "text/plain": "Figure"})]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {heading}\n\nText about the figure and its slider."), cell]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_a_page_names_its_run_and_itself_and_links_the_runs_pages(tmp_path):
    """Issue 22.9: '<run> · Queue depth · SSD Performance Lab' (not 'Notebook'), and a navigation bar."""
    import plotly.graph_objects as go

    src = _one_figure_notebook(tmp_path / "nb.ipynb", go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    page = export.export_html(src, tmp_path / "r" / "20261126-091303-vm" / "queue-depth.html").read_text()
    assert "<title>20261126-091303-vm · Queue depth · SSD Performance Lab</title>" in page
    nav = re.search(r"<nav class='lab-nav'.*?</nav>", page).group(0)
    assert '<a href="../index.html">All runs</a>' in nav and "<b>Queue depth</b>" in nav
    assert '<a href="block-size.html">Block size</a>' in nav and '<a href="tail-latency.html">Tail latency</a>' in nav
    assert export.page_meta(tmp_path / "r" / "20261126-091303-vm" / "queue-depth.html") == {
        "lab-page": "Queue depth", "lab-has-data": "yes"}


def test_a_page_without_data_is_one_sentence_and_the_index_marks_it(tmp_path):
    """Issue 22.8: every figure of the page says the run has no data -> the page is its heading and one
    sentence (no text about a figure or slider that is not there); the index greys it and says so."""
    import plotly.graph_objects as go

    from helpers.figures.common import message_figure

    run = tmp_path / "r" / "run1"
    src = _one_figure_notebook(tmp_path / "a.ipynb", message_figure("This run has no sustained-write point."),
                               "Sustained write")
    export.export_html(src, run / "sustained-write.html")
    full = _one_figure_notebook(tmp_path / "b.ipynb", go.Figure(go.Scatter(x=[1], y=[2])))
    export.export_html(full, run / "queue-depth.html")
    page = (run / "sustained-write.html").read_text()
    assert "This run has no sustained-write point." in page and "slider" not in page
    assert "Plotly.newPlot" not in page and export.page_meta(run / "sustained-write.html")["lab-has-data"] == "no"
    index = export.build_index(tmp_path / "r", raw_dirs=[tmp_path]).read_text()
    assert '<a class=nodata href="run1/sustained-write.html"' in index
    assert '<a href="run1/queue-depth.html">Queue depth</a>' in index and "1 page(s) with no data" in index


def test_comparisons_are_listed_as_comparisons_not_as_runs(tmp_path):
    """Issue 22.9: reports/compare/ (the gate's pages) is not a run of the index."""
    (tmp_path / "compare").mkdir()
    (tmp_path / "compare" / "b-vs-a.html").write_text("<html></html>")
    index = export.build_index(tmp_path, raw_dirs=[tmp_path]).read_text()
    assert "<h2>compare</h2>" not in index and '<a href="compare/b-vs-a.html">b-vs-a</a>' in index
    assert "Run comparisons" in index
