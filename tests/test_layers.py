"""The layer contract (pyproject [tool.importlinter]) holds, and it can fail: an upward import or an import
cycle added to a copy of the package breaks it.  Also the rules an import graph cannot see: figures and
analysis never read files, notebooks define no functions (see test_notebooks)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import config

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PYPROJECT = config.ROOT / "pyproject.toml"
pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed (make setup)")


def lint_imports(src: Path) -> subprocess.CompletedProcess:
    """Run import-linter on the ``helpers`` package found in ``src`` (nothing cached)."""
    return subprocess.run([str(LINT_IMPORTS), "--config", str(PYPROJECT), "--no-cache", "--no-logo"],
                          cwd=src, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(src)},
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def package_copy(tmp_path) -> Path:
    shutil.copytree(config.PACKAGE_DIR, tmp_path / "helpers", ignore=shutil.ignore_patterns("resources", "__pycache__"))
    return tmp_path


def test_the_layer_contract_holds():
    out = lint_imports(config.PACKAGE_DIR.parent)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "broken" in out.stdout and " 0 broken" in out.stdout


def test_an_upward_import_breaks_the_contract(package_copy):
    units = package_copy / "helpers" / "fio" / "units.py"
    units.write_text(units.read_text() + "\nimport helpers.figures.common  # noqa: E402,F401\n")
    out = lint_imports(package_copy)
    assert out.returncode != 0
    assert "Layers follow the pipeline" in out.stdout and "BROKEN" in out.stdout
    assert "helpers.fio.units -> helpers.figures.common" in out.stdout


def test_plotly_in_analysis_breaks_the_contract(package_copy):
    qd = package_copy / "helpers" / "analysis" / "qd.py"
    qd.write_text(qd.read_text() + "\nimport plotly.graph_objects  # noqa: E402,F401\n")
    out = lint_imports(package_copy)
    assert out.returncode != 0 and "never plot" in out.stdout


def lint_with_import(copy: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """import-linter on the package copy with the import ``line`` appended to ``module`` (path below helpers/)."""
    path = copy / "helpers" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa: E402,F401\n")
    return lint_imports(copy)


def test_the_gate_importing_the_notebook_layer_breaks_the_contract(package_copy):
    """The gate loads runs through helpers.load; reaching into helpers.notebook (even for one helper) breaks it."""
    out = lint_with_import(package_copy, "report/gate.py", "from helpers.notebook import runs as _runs")
    assert out.returncode != 0
    assert "without the notebook layer" in out.stdout and "helpers.report.gate -> helpers.notebook" in out.stdout


def test_a_cycle_inside_a_layer_breaks_the_contract(package_copy):
    """runner imports profiles; profiles importing runner back (even inside a function) is a cycle."""
    profiles = package_copy / "helpers" / "run" / "profiles.py"
    profiles.write_text(profiles.read_text() + "\n\ndef _hidden():\n    from helpers.run import runner  # noqa: F401\n")
    out = lint_imports(package_copy)
    assert out.returncode != 0 and "No import cycles" in out.stdout


FILE_READERS = {"open", "read_parquet", "read_csv", "read_json", "read_text", "read_bytes", "load_results",
                "scandir", "listdir", "glob", "rglob"}


@pytest.mark.parametrize("layer", ["analysis", "figures"])
def test_pure_layers_never_read_files(layer):
    """Figures and analysis get DataFrames; a call that reads a file has no place there."""
    calls = []
    for path in sorted((config.PACKAGE_DIR / layer).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name in FILE_READERS:
                    calls.append(f"{path.name}:{node.lineno} {name}()")
    assert not calls, calls


def test_every_module_holds_one_idea():
    """Rooms of one idea: a module over 600 lines holds more than one and is split along them (docs/architecture.md)."""
    big = {str(p.relative_to(config.PACKAGE_DIR)): n for p in sorted(config.PACKAGE_DIR.rglob("*.py"))
           if (n := len(p.read_text().splitlines())) > 600}
    assert not big, f"modules over 600 lines: {big}"
