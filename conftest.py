"""pytest's settings shared by tests/ and notebooks/: ``pytest --nbval-lax notebooks/NAME.ipynb`` validates a
notebook with the kernel, Jupyter folders and data the test suite uses (tests/nbval_lab.py)."""

import sys
from pathlib import Path

from helpers import config

# nbval is loaded here, not as an auto-loaded plugin (pyproject's addopts: -p no:nbval): first the lab's skip of
# slow optional imports, as the pipeline and the kernels do -- nbformat's jsonschema would otherwise import
# rfc3987_syntax, which builds a grammar for ~2 s of CPU in every pytest process (each xdist worker).
config.skip_slow_optional_imports()
sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
pytest_plugins = ["nbval.plugin", "nbval_lab"]
