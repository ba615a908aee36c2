"""`make screenshots`: a run's report pages shot offline with headless Chromium into small PNGs (the README's
pictures), the first figure of each page; one sentence when the run's pages or the browser are missing."""

from __future__ import annotations

import asyncio

import pytest

from helpers.errors import LabError
from helpers.report import screenshots

PNG = b"\x89PNG\r\n\x1a\n"


async def shoot_in_loop(tmp_path):
    return screenshots.shoot("r1", reports_dir=tmp_path / "reports", out_dir=tmp_path / "img0", settle_ms=0)


def write_pages(run_dir, with_figure=True):
    run_dir.mkdir(parents=True)
    for name in screenshots.PAGES:
        body = ("<div class='js-plotly-plot' style='width:600px;height:300px;background:#36c'></div>" if with_figure
                else "<p>This run has no data for this page.</p>")
        # a remote script must not be fetched: the shot is offline, as the reports are
        (run_dir / name).write_text(f"<html><body><nav>bar</nav><h1>{name}</h1>{body}"
                                    "<script src='https://cdn.example.org/x.js'></script></body></html>")


def test_missing_pages_are_one_sentence(tmp_path):
    (tmp_path / "reports" / "r1").mkdir(parents=True)
    with pytest.raises(LabError, match="has no device-card.html.*make reports RUN=r1"):
        screenshots.shoot("r1", reports_dir=tmp_path / "reports", out_dir=tmp_path / "img")
    with pytest.raises(LabError, match="holds no run's reports"):
        screenshots.newest_report_run(tmp_path / "empty")


def test_newest_run_is_the_one_written_last(tmp_path):
    import os
    write_pages(tmp_path / "a")
    write_pages(tmp_path / "b")
    os.utime(tmp_path / "a" / "device-card.html", (2e9, 2e9))
    assert screenshots.newest_report_run(tmp_path) == "a"


@pytest.mark.browser
def test_shoots_the_first_figure_of_each_page(tmp_path):
    if not screenshots.CHROMIUM.exists():
        pytest.skip(f"{screenshots.CHROMIUM} is not installed (make browser-deps)")
    pytest.importorskip("playwright.sync_api")
    write_pages(tmp_path / "reports" / "r1")
    write_pages(tmp_path / "reports" / "r2", with_figure=False)
    try:  # a test worker may already run an asyncio loop in this thread (the case shoot() must survive)
        asyncio.get_running_loop()
        out = screenshots.shoot("r1", reports_dir=tmp_path / "reports", out_dir=tmp_path / "img0", settle_ms=0)
    except RuntimeError:  # none running: run one, as a notebook's kernel does
        loop = asyncio.new_event_loop()
        out = loop.run_until_complete(shoot_in_loop(tmp_path))
        loop.close()
    assert [p.name for p in out] == list(screenshots.PAGES.values())
    fig = out[0].read_bytes()
    assert fig.startswith(PNG)
    width, height = int.from_bytes(fig[16:20], "big"), int.from_bytes(fig[20:24], "big")
    assert abs(width - 600) <= 1 and abs(height - 300) <= 1  # the figure alone (sub-pixel rounding), not the page
    page = screenshots.shoot("r2", reports_dir=tmp_path / "reports", out_dir=tmp_path / "img2", settle_ms=0)[0].read_bytes()
    assert int.from_bytes(page[16:20], "big") == screenshots.VIEWPORT["width"]  # no figure: the page's top
