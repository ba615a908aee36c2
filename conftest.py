"""pytest's settings shared by tests/ and notebooks/: ``pytest --nbval-lax notebooks/NAME.ipynb`` validates a
notebook with the kernel, Jupyter folders and data the test suite uses (tests/nbval_lab.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
pytest_plugins = ["nbval_lab"]
