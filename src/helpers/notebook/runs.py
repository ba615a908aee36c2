"""Which runs a notebook analyses: :mod:`helpers.load.runs`, kept importable here for notebooks
(``from helpers.notebook import page, runs``)."""

from helpers.load.runs import (  # noqa: F401 (re-exported for notebooks)
    HISTORY_MAX_RUNS,
    History,
    RunData,
    ensure_sample,
    history_run_ids,
    ingest_from_parameters,
    latest_raw_run,
    load_history,
    load_manifest,
    load_results,
    raw_dirs_for,
    resolve_runs,
    sample_run_ids,
)
