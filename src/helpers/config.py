"""Project paths, anchored on this file (never on the working directory)."""

from __future__ import annotations

import os
import sys
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
TRACES_DATASET = "traces"


def fio_binary() -> str:
    """Name or path of the fio binary (FIO env var overrides; tests use it for fault injection)."""
    return os.environ.get("FIO", "fio")


# jsonschema imports rfc3987_syntax when it is installed, for 'iri' formats nothing here validates, and that
# module builds a parser when imported: about 1 s per process (several on a busy machine).  nbformat pulls
# jsonschema in, and papermill and plotly's notebook renderers pull nbformat in: every report kernel and
# every pipeline run paid it.  Called before those imports (page.setup, the pipeline, the export).
SKIPPED_OPTIONAL_IMPORTS = ("rfc3987_syntax",)


def skip_slow_optional_imports() -> None:
    """Make the optional imports above fail fast in this process (their users fall back, as when absent)."""
    for name in SKIPPED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)
