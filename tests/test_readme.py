"""The README's Python examples run as written (on the bundled sample run, in a temporary processed folder)."""

from __future__ import annotations

import re

from helpers import config


def python_blocks() -> list[str]:
    text = (config.ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_analysis_example_runs(tmp_path, monkeypatch):
    blocks = python_blocks()
    assert blocks, "README has no python example"
    monkeypatch.setattr(config, "PROCESSED_DIR", tmp_path)  # "latest" falls back to the bundled sample here
    for code in blocks:
        ns: dict = {}
        exec(compile(code, "README.md", "exec"), ns)
        assert ns["knee"].knee_qd == 8  # the example's curve bends at QD 8 (62k of a 72k peak)
        assert 0.0 <= ns["usl"].sigma <= 1.0 and ns["usl"].r2 > 0.99
        assert len(ns["df"]) > 0
