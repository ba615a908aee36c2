"""Real-browser checks of the bundled sample's exported reports (headless Debian Chromium via playwright,
networking off): every report loads offline with at least one rendered plotly plot and no page errors,
operating a report's plotly slider changes the plot (screenshots in build/screens/), a copied reports folder
still works, the navigation bar and index work by clicking, and every table downloads as CSV.

JupyterLab's explorer is checked in tests/test_browser_lab.py and the sweep-modes page of real runs in
tests/test_sweep_modes_page.py: neither reads the session's executed notebooks, so they run beside them.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from browser_helpers import SCREENS, offline_page
from helpers.figures.table import format_number
from helpers.report import export, pipeline

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def reports(sample_reports):
    """The bundled grid sample's reports, built once per session (see conftest.sample_reports)."""
    return {"run": sample_reports["run"], "pages": sample_reports["pages"],
            "index": sample_reports["reports_dir"] / "index.html"}


def plot_state(page, i: int) -> dict:
    return page.evaluate("""(i) => { const gd = document.querySelectorAll('.js-plotly-plot')[i];
        return {active: gd.layout.sliders && gd.layout.sliders.length ? gd.layout.sliders[0].active : null,
                visible: gd._fullData.map(t => t.visible === true),
                svg: gd.querySelector('.main-svg').innerHTML.length}; }""", i)


def test_every_report_renders_offline_without_errors(browser, reports):
    """... and, on the same walk (one page load each), every page's <title> names the run and the page and its
    navigation bar links the index and every other page (issue 22.9); the columns that say why ('why',
    'flags', 'reason', ...) end within the 1,400 px window, unscrolled (issue 22.7)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    names, reasons = {p.name for p in reports["pages"]}, 0
    assert len(reports["pages"]) == len(pipeline.analysis_notebooks())
    # one tab goes from page to page, as a reader clicking through the folder would (each page is a new
    # document; the tab keeps plotly.js compiled, which halves the time); errors and requests are per page
    ctx, page, errors, blocked = offline_page(browser)
    for html in reports["pages"] + [reports["index"]]:
        errors.clear()
        blocked.clear()
        page.goto(html.as_uri())
        if html.name != "index.html":
            assert page.title() == f"{reports['run']} · {export.page_meta(html)['lab-page']} · SSD Performance Lab"
            hrefs = page.eval_on_selector_all("nav.lab-nav a", "as => as.map(a => a.getAttribute('href'))")
            assert hrefs[0] == "../index.html" and set(hrefs[1:]) == names - {html.name}, (html.name, hrefs)
            edges = page.evaluate("""(names) => [...document.querySelectorAll('main table th')]
                .filter(th => names.includes(th.textContent.trim())).map(th => [th.textContent.trim(),
                Math.round(th.getBoundingClientRect().right)])""", REASON_HEADERS)
            assert not [e for e in edges if e[1] > 1400], (html.name, edges)
            reasons += len(edges)
        if html.name != "index.html" and export.page_meta(html)["lab-has-data"] == "no":
            # a page without data for the run is its heading and one sentence (issue 22.8)
            assert page.locator(".js-plotly-plot").count() == 0 and page.locator("table").count() == 0
            assert len([p for p in page.locator("main p").all_text_contents() if p.strip()]) == 1, html.name
        elif html.name != "index.html":
            page.wait_for_selector(".plotly .main-svg", timeout=30_000)
            n = page.locator(".js-plotly-plot").count()
            assert n >= 1, f"{html.name}: no plot rendered"
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENS / f"{html.stem}.png"), full_page=True)
        assert not errors, f"{html.name}: page errors {errors}"
        assert not [u for u in blocked if u.endswith(".js")], f"{html.name} tried to load scripts: {blocked}"
    assert reasons >= 6
    ctx.close()


REASON_HEADERS = ["why", "flags", "reason", "why (not)", "likely reason", "why no ratio"]


def test_operating_a_report_slider_changes_the_plot(browser, reports):
    page_path = next(p for p in reports["pages"] if p.stem == "block-size")
    ctx, page, errors, _ = offline_page(browser)
    page.goto(page_path.as_uri())
    page.wait_for_selector(".plotly .slider-container", timeout=30_000)
    idx = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')]
        .findIndex(gd => gd.layout.sliders && gd.layout.sliders.length)""")
    assert idx >= 0
    before = plot_state(page, idx)
    rail = page.locator(".js-plotly-plot").nth(idx).locator(".slider-rail-touch-rect").first
    rail.scroll_into_view_if_needed()
    box = rail.bounding_box()
    page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)  # the first step: the smallest QD
    page.wait_for_timeout(500)
    after = plot_state(page, idx)
    assert after["active"] != before["active"] and after["active"] == 0
    assert after["visible"] != before["visible"]
    page.screenshot(path=str(SCREENS / "block-size-after-slider.png"), full_page=False)
    assert not errors
    ctx.close()


def test_a_copied_reports_folder_still_works_offline(browser, sample_reports, tmp_path):
    """Copy the whole reports folder elsewhere (as a user zipping and mailing it would): every page still
    finds the shared plotly.js by its relative path and draws its plots with nothing fetched."""
    copy = tmp_path / "mailed" / "reports"
    shutil.copytree(sample_reports["reports_dir"], copy)
    pages = sorted((copy / sample_reports["run"]).glob("*.html"))
    assert len(pages) == len(pipeline.analysis_notebooks())
    ctx, page, errors, blocked = offline_page(browser)  # one tab, page to page (errors and requests per page)
    for html in (p for p in pages if p.stem in ("device-card", "block-size")):  # the script path is shared by all
        errors.clear()
        blocked.clear()
        page.goto(html.as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        assert page.evaluate("() => typeof window.Plotly") == "object", html.name
        assert not errors and not blocked, (html.name, errors, blocked)
    ctx.close()


def test_navigation_bar_and_index_work_by_clicking(browser, reports):
    """Issue 22.8/22.9: the bar's links go to the page and to the index; the index greys the pages the run has no
    data for (no logs in the sample: time series, sustained write). Titles and links of every page are
    checked on test_every_report_renders_offline_without_errors's walk."""
    ctx, page, errors, _ = offline_page(browser)
    page.goto(next(p for p in reports["pages"] if p.stem == "queue-depth").as_uri())
    page.locator("nav.lab-nav").get_by_text("Block size", exact=True).click()
    page.wait_for_url("**/block-size.html")
    assert page.title() == f"{reports['run']} · Block size · SSD Performance Lab"
    page.locator("nav.lab-nav").get_by_text("All runs").click()
    page.wait_for_url("**/index.html")
    greyed = page.eval_on_selector_all("a.nodata", "as => as.map(a => a.getAttribute('href'))")
    assert f"{reports['run']}/sustained-write.html" in greyed and f"{reports['run']}/queue-depth.html" not in greyed
    assert not errors
    ctx.close()


def _table_cells(page, link) -> list[list[str]]:
    """The text cells (header row first) of the table a CSV link belongs to."""
    return link.evaluate("""a => { const t = a.closest('p').previousElementSibling.querySelector('table');
        return [...t.querySelectorAll('tr')].map(tr => [...tr.children].map(c => c.textContent)); }""")


def _same_number(v, cell: str) -> bool:
    if pd.isna(v):  # a missing number, or a text column with no text (CSV reads it as an empty number)
        return cell in ("–", "")
    return format_number(v) == cell or (float(v).is_integer() and f"{int(v):,}" == cell)


def test_every_table_downloads_as_csv_that_parses_back_to_its_numbers(browser, reports, tmp_path):
    """Issue 22.10: a link per table saves it as CSV from the page itself (offline, no server): the same rows,
    the numbers at full precision (they round to the table's cells), units in the headers."""
    ctx, page, errors, blocked = offline_page(browser)
    checked, headers = 0, []
    for stem in ("queue-depth", "device-card"):
        page.goto(next(p for p in reports["pages"] if p.stem == stem).as_uri())
        links = page.locator(".lab-csv a")
        assert links.count() == page.locator("main table").count() >= 3, stem
        for i in range(links.count()):
            link = links.nth(i)
            link.scroll_into_view_if_needed()
            with page.expect_download() as dl:
                link.click()
            path = tmp_path / f"{stem}-{i}.csv"
            dl.value.save_as(path)
            csv = pd.read_csv(path)
            cells = _table_cells(page, link)
            head, rows = cells[0], cells[1:]
            assert len(csv) == len(rows), (stem, i)
            numeric = [c for c in csv.columns if c in head and pd.api.types.is_numeric_dtype(csv[c])
                       and not pd.api.types.is_bool_dtype(csv[c])]
            for c in numeric:
                j = head.index(c)
                bad = [(v, r[j]) for v, r in zip(csv[c], rows) if not _same_number(v, r[j])]
                assert not bad, (stem, i, c, bad[:3])
            checked += len(numeric)
            headers += list(csv.columns)
    assert {"IOPS", "mean total latency (µs)", "outstanding I/O (QD × jobs)"} <= set(headers)  # units named
    assert checked >= 20 and not errors and not blocked
    ctx.close()
