"""nbval validates the notebooks (tests/nbval_lab.py): every notebook under notebooks/ is collected cell by cell,
and a cell that raises fails with nbval's cell-level report while the executed copy keeps what ran."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers import config

TESTS = Path(__file__).resolve().parent


def pytest_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_every_notebook_is_validated_by_nbval_in_the_suite(request):
    """`make test` (pytest's testpaths and addopts) collects every notebook under notebooks/ -- a new one by
    its file alone -- as nbval items, one per code cell, with the kernel and data of tests/nbval_lab.py."""
    from nbval_lab import LabNotebook

    assert "notebooks" in request.config.getini("testpaths") and request.config.option.nbval_lax
    for path in sorted(config.NOTEBOOKS_DIR.glob("*.ipynb")):
        cells = LabNotebook.from_parent(request.session, path=path).collect()
        code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        assert [c.name for c in cells] == [f"Cell {i}" for i in range(len(code))], path.name


@pytest.mark.notebooks
def test_a_cell_that_raises_fails_the_run_with_nbvals_cell_report(tmp_path):
    """A deliberately broken notebook, run the way the suite runs notebooks: the raising cell fails with the
    cell, its input and the traceback named; the cells around it pass; the kept copy holds the error."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_markdown_cell("a broken step"),
                nbformat.v4.new_code_cell("raise ValueError('deliberately broken: %d' % x)"),
                nbformat.v4.new_code_cell("print('after', x + 1)")]
    nbformat.write(nb, tmp_path / "broken.ipynb")
    out = pytest_run(["-p", "nbval_lab", "--nbval-lax", "-q", "--color=no", "-o", "addopts=", f"--basetemp={tmp_path / 'bt'}",
                      "broken.ipynb"], tmp_path)
    report = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)  # the kernel's traceback is coloured
    assert out.returncode == 1, report
    assert "1 failed, 2 passed" in report
    assert "FAILED broken.ipynb::Cell 1" in report
    assert "Notebook cell execution failed" in report and "Cell 1: Cell execution caused an exception" in report
    assert "raise ValueError('deliberately broken: %d' % x)" in report  # the cell's input
    assert "ValueError: deliberately broken: 1" in report  # the kernel's traceback
    kept = nbformat.read(next((tmp_path / "bt").rglob("broken.ipynb")), as_version=4)
    code = [c for c in kept.cells if c.cell_type == "code"]
    assert [o.get("ename") for o in code[1].outputs] == ["ValueError"]
    assert code[2].outputs[0].text == "after 2\n" and code[2].execution_count == 3


def test_a_second_execution_of_a_notebook_on_one_data_set_is_refused(request):
    """The session's fixtures read nbval's executed copies; executing a notebook again on the same data (a
    fixture that runs before nbval's items, say) fails at once instead of costing the suite its budget."""
    from nbval_lab import SAMPLE, SMOKE, NotebookPass

    state = NotebookPass(request.config)
    state.record("10-queue-depth.ipynb", SAMPLE)
    state.record("10-queue-depth.ipynb", SMOKE)  # another data set: its own execution
    assert state.copy("10-queue-depth.ipynb", SAMPLE) is None  # running, no copy yet
    with pytest.raises(RuntimeError, match="10-queue-depth.ipynb would execute a second time on the bundled sample"):
        state.record("10-queue-depth.ipynb", SAMPLE)
