"""Report export: every analysis notebook -> offline HTML with plotly.js embedded once, plus the index."""

import re

import pytest

from helpers.report import export as reports
from helpers.report import pipeline


@pytest.fixture(scope="module")
def exported(smoke_reports):
    return smoke_reports["reports_dir"], smoke_reports["pages"]


def test_one_report_per_analysis_notebook(exported, smoke_reports):
    reports_dir, outs = exported
    names = {pipeline.report_name(nb) for nb in pipeline.analysis_notebooks()}
    assert {p.stem for p in outs} == names
    assert all(p.parent == reports_dir / smoke_reports["run_id"] for p in outs)


def test_reports_are_offline_small_and_hide_code(exported):
    """Every page loads the one shared plotly.js of the folder by a relative path (a copied or zipped
    reports/ still works offline); none inlines plotly.js, fetches a script from the network, or shows
    code; each stays under 1 MB beyond the shared script."""
    reports_dir, outs = exported
    shared = reports_dir / "assets" / "plotly.min.js"
    assert shared.exists() and shared.stat().st_size > 1_000_000
    for page in outs:
        html = page.read_text()
        srcs = re.findall(r'<script[^>]+src="([^"]+)"', html)
        assert srcs.count("../assets/plotly.min.js") == 1, (page.name, srcs)
        assert not [s for s in srcs if s.startswith(("http:", "https:", "//", "/"))], srcs
        assert "window.Plotly = Plotly;" not in html, page.name  # plotly.js is not inlined
        assert "from helpers import" not in html  # --no-input
        assert page.stat().st_size < 1_000_000, (page.name, page.stat().st_size)


def test_index_links_every_report_with_manifest_summary(exported, smoke_reports):
    reports_dir, outs = exported
    index = (reports_dir / "index.html").read_text()
    run = smoke_reports["run_id"]
    for page in outs:
        assert f'href="{run}/{page.name}"' in index
    manifest = smoke_reports["manifest"]
    assert manifest["fio_version"] in index and "profile smoke" in index and manifest["host"] in index


def test_index_without_reports_says_how_to_make_them(tmp_path):
    page = reports.build_index(tmp_path, raw_dirs=[tmp_path]).read_text()
    assert "make run-all" in page


def test_strip_external_scripts_keeps_inline_and_local_scripts():
    page = ('<script src="https://cdnjs.cloudflare.com/x.js"></script><script>var a=1;</script>'
            '<script type="text/javascript" src="//cdn.example/y.js"></script><script src="local.js"></script>')
    assert reports.strip_external_scripts(page) == '<script>var a=1;</script><script src="local.js"></script>'
