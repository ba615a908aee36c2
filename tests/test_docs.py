"""The README is a front page and docs/ the manual: every relative link and image resolves, every `make` target they
name exists, and the Python examples run as written (on the bundled sample run, in a temporary processed folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import config

ROOT = config.ROOT
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
MAKE = re.compile(r"(?m)(?:`|^\s*(?:- run: )?)make ([a-z][a-z0-9-]*)")  # `make X` in code, not "make it" in prose


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code blocks hold commands, not links
    return [t for t in LINK.findall(text) if not re.match(r"^[a-z]+:", t) and not t.startswith("#")]


def make_targets() -> set[str]:
    return set(re.findall(r"(?m)^([a-z][a-z0-9-]*):", (ROOT / "Makefile").read_text()))


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move the details to docs/"
    images = [t for t in relative_links(ROOT / "README.md") if t.endswith(".png")]
    assert len(images) >= 2, "the README shows report pages"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    links = relative_links(page)
    broken = [t for t in links if not (page.parent / t.split("#")[0]).exists()]
    assert not broken, f"{page.name}: links to missing files {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_named_make_targets_exist(page):
    named = set(MAKE.findall(page.read_text()))
    missing = sorted(named - make_targets())
    assert not missing, f"{page.name} names make targets the Makefile lacks: {missing}"


def test_the_link_check_fails_on_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md) [gone](missing.md) ![pic](img/none.png) [web](https://example.org)\n"
                    "```sh\n[not a link](nowhere.md)\n```\n")
    assert relative_links(page) == ["page.md", "missing.md", "img/none.png"]
    assert MAKE.findall("to make it run: `make test`, then\n  make run-all PROFILE=x\n") == ["test", "run-all"]


def python_blocks() -> list[str]:
    return [code for page in PAGES for code in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)]


def test_docs_analysis_example_runs(tmp_path, monkeypatch):
    blocks = python_blocks()
    assert blocks, "the docs have no python example"
    monkeypatch.setattr(config, "PROCESSED_DIR", tmp_path)  # "latest" falls back to the bundled sample here
    for code in blocks:
        ns: dict = {}
        exec(compile(code, "docs", "exec"), ns)
        assert ns["knee"].knee_qd == 8  # the example's curve bends at QD 8 (62k of a 72k peak)
        assert 0.0 <= ns["usl"].sigma <= 1.0 and ns["usl"].r2 > 0.99
        assert len(ns["df"]) > 0
