"""The Workload page's data: the imported traces of a run and their characterization."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.analysis import workload
from helpers.load import runs as lab_runs
from helpers.notebook import replay as replay_page
from helpers.processed import store


@dataclass
class TraceData:
    traces: pd.DataFrame  # the run's rows of the traces dataset
    table: pd.DataFrame  # one row per trace: its characterization
    ios: pd.DataFrame  # the busiest trace's I/Os (the figures')
    note: str  # one sentence: which run and trace the page shows, or that there is none
    run_id: str = ""


def load(run_id: str = "latest", processed_dir: str | Path = "") -> TraceData:
    """The traces of ``run_id`` ('latest': the newest run with imported traces)."""
    pdir = Path(processed_dir) if processed_dir else config.PROCESSED_DIR
    runs = store.list_runs(pdir, config.TRACES_DATASET)
    if run_id in ("", "latest"):
        # the newest run with traces; without one, the run the other pages show (named in the sentence)
        run = runs[-1] if runs else lab_runs.resolve_runs("latest", pdir)[1][0]
    else:
        run = run_id
    traces = store.load(pdir, config.TRACES_DATASET, [run])
    replayed = replay_page.trace_of_run(run) if traces.empty else traces
    traces = replayed if len(replayed) else traces  # a replay run: the trace it replayed (kept in its raw folder)
    if traces.empty:
        return TraceData(traces, pd.DataFrame(), traces, f"Run {run} has no imported trace: import one "
                         "with python -m helpers.ingest.traces FILE --run RUN.", run)
    ios = workload.busiest_trace(traces)
    note = (f"Run {run}: {traces['trace_id'].nunique()} trace(s); the figures show {ios['trace_id'].iloc[0]} "
            f"({len(ios):,} I/Os, {ios['source_format'].iloc[0]}).")
    return TraceData(traces, workload.trace_table(traces), ios, note, run)
