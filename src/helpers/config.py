"""Project paths, anchored on this file (never on the working directory)."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent.parent

# SSDLAB_DATA_DIR / SSDLAB_REPORTS_DIR move data/ and reports/ elsewhere (tests run the pipeline's
# command line on temporary folders this way; the kernels papermill starts inherit them).
DATA_DIR = Path(os.environ.get("SSDLAB_DATA_DIR") or ROOT / "data")
RAW_DIR = DATA_DIR / "raw"
PROCESSED_DIR = DATA_DIR / "processed"
SCRATCH_DIR = DATA_DIR / "scratch"
REPORTS_DIR = Path(os.environ.get("SSDLAB_REPORTS_DIR") or ROOT / "reports")
NOTEBOOKS_DIR = ROOT / "notebooks"

# Files shipped with the package (data, not code): profiles, sample runs, spec sheet, export template.
RESOURCES_DIR = PACKAGE_DIR / "resources"
PROFILES_DIR = RESOURCES_DIR / "profiles"
SAMPLE_DIR = RESOURCES_DIR / "sample"
SAMPLE_RAW_DIR = SAMPLE_DIR / "raw"
DRIVES_CSV = RESOURCES_DIR / "drives.csv"
TEMPLATES_DIR = RESOURCES_DIR / "templates"

DEFAULT_TARGET = SCRATCH_DIR / "fio-target.bin"
DEFAULT_SIZE = "1g"
DEFAULT_PROFILE = "quick"

# Processed dataset layout (partitioned by run so one run or all can be read).
RESULTS_DATASET = "results"
HISTOGRAM_DATASET = "histograms"
QUARANTINE_DATASET = "quarantine"
TIMESERIES_DATASET = "timeseries"
HEALTH_DATASET = "health"


def fio_binary() -> str:
    """Name or path of the fio binary (FIO env var overrides; tests use it for fault injection)."""
    return os.environ.get("FIO", "fio")
