"""JupyterLab in a real browser (headless Debian Chromium via playwright, networking off, a local JupyterLab
server): the explorer notebook on both bundled sample runs renders its ipywidgets; moving a slider updates the
figure and picking another comparison metric redraws the forest plot (screenshots in build/screens/)."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from browser_helpers import SCREENS, offline_page
from helpers.notebook import runs
from helpers.report import pipeline
from sweep_helpers import free_port

pytestmark = pytest.mark.browser
SAMPLE_RUNS = ("sample-grid-vm", "sample-quick-vm")  # the base and the new run of the comparison's titles


COMPARE_NB = "90-explorer-two-runs.ipynb"


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """JupyterLab on a copy of the explorer notebook pointed at both bundled sample runs (no token), so one
    notebook shows the sliders and the comparison section.  The runs are ingested into a folder of this module's
    own: the session's executed notebooks are not read, so these tests need not wait for them."""
    tmp = tmp_path_factory.mktemp("lab")
    processed = tmp / "processed"
    for run in SAMPLE_RUNS:
        runs.ensure_sample(processed, run)
    nb_path = pipeline.interactive_notebooks()[0]
    nb = nbformat.read(nb_path, as_version=4)
    for c in nb.cells:
        if "parameters" in c.metadata.get("tags", []):
            c.source += f'\nrun_id = "{",".join(SAMPLE_RUNS)}"\nprocessed_dir = "{processed}"'
    nbformat.write(nb, tmp / COMPARE_NB)
    port = free_port()
    log = open(tmp / "lab.log", "w")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
                             f"--port={port}", "--ServerApp.token=", "--ServerApp.password=",
                             "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={tmp}",
                             "--LabApp.expose_app_in_browser=True",
                             "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                            stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=1)
            break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        proc.terminate()
        pytest.fail("JupyterLab did not start: " + (tmp / "lab.log").read_text()[-2000:])
    yield {"url": url, "notebook": COMPARE_NB}
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def run_all_in_jupyterlab(browser, jupyterlab, notebook: str):
    """(context, page) of ``notebook`` opened in the fixture's JupyterLab with every cell run."""
    ctx, page, _errors, _ = offline_page(browser, allow_localhost=True)
    page.goto(f"{jupyterlab['url']}/lab/tree/{notebook}?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.isEnabled('notebook:run-all-cells')",
                           timeout=60_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=60_000)  # kernel started
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    return ctx, page


@pytest.fixture(scope="module")
def lab_explorer(browser, jupyterlab):
    """The explorer notebook open in JupyterLab with every cell run (one kernel for the slider and the
    comparison checks)."""
    ctx, page = run_all_in_jupyterlab(browser, jupyterlab, jupyterlab["notebook"])
    yield page
    ctx.close()


def test_jupyterlab_explorer_sliders_update_the_figure(lab_explorer):
    page = lab_explorer
    slider = page.locator(".widget-slider .noUi-handle").first
    try:
        slider.wait_for(timeout=90_000)
    except Exception:
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "jupyterlab-explorer-failed.png"), full_page=False)
        raise
    title = page.locator(".jp-OutputArea .js-plotly-plot .gtitle").first
    try:
        page.wait_for_selector(".jp-OutputArea .js-plotly-plot .main-svg", timeout=60_000)
        title.wait_for(timeout=60_000)
    except Exception:  # keep what the page showed (once under heavy load: the figure's axes drawn, no data)
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "jupyterlab-explorer-failed.png"), full_page=False)
        raise
    before = title.text_content()
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(b) => { const t = document.querySelector('.jp-OutputArea .js-plotly-plot .gtitle');"
                           " return t && t.textContent !== b; }", arg=before, timeout=30_000)
    after = title.text_content()
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "jupyterlab-explorer.png"), full_page=False)
    assert before != after and "QD" in after


def _wait_or_shoot(page, title_js: str, title: str, timeout: int) -> None:
    """Wait until a plot title starts with ``title``; on failure keep a screenshot of what the page showed."""
    try:
        page.wait_for_function(title_js, arg=title, timeout=timeout)
    except Exception:
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "jupyterlab-compare-failed.png"), full_page=False)
        raise


def test_jupyterlab_compare_metric_dropdown_redraws_the_forest_plot(lab_explorer):
    """The explorer on two runs: the comparison's forest plot is drawn, and picking another metric redraws it."""
    page = lab_explorer
    title = ("(s) => [...document.querySelectorAll('.jp-OutputArea .js-plotly-plot .gtitle')]"
             ".some(t => t.textContent.startsWith(s))")
    _wait_or_shoot(page, title, "IOPS: sample-quick-vm (new) vs sample-grid-vm (base)", 120_000)
    metric = page.locator(".widget-dropdown select").last
    metric.select_option(label="bandwidth")
    metric.scroll_into_view_if_needed()  # JupyterLab draws only the cells in view
    _wait_or_shoot(page, title, "bandwidth: sample-quick-vm (new) vs sample-grid-vm (base)", 30_000)
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "jupyterlab-compare.png"), full_page=False)
