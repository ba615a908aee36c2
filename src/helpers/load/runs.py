"""Which runs a notebook, the regression gate or the workbook export analyses: explicit ids, ``latest``,
or the bundled sample run.

The sample runs (real fio output shipped in ``helpers/sample/raw/``) let every analysis
notebook run on a fresh checkout without fio; each is ingested on first use.  ``sample`` (and
``latest`` with no own run) means the first sample id in sorted order, ``sample-grid-vm`` (operation
x block size x queue depth grid and a mix sweep); ``sample-quick-vm`` is the quick profile's output.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.analysis.flags import few_ios_rows, flagged_rows
from helpers.analysis.health import health_note
from helpers.analysis.points import left_out_sentence, split_configured
from helpers.analysis.timeseries import with_unstable
from helpers.errors import LabError
from helpers.ingest.core import IngestResult, ingest
from helpers.processed import store
from helpers.run.manifest import (
    latest_raw_run,  # noqa: F401  (re-exported for notebooks)
    read_manifest,
)


def raw_dirs_for(processed_dir: Path, raw_dir: Path | None = None) -> list[Path]:
    """Where the raw runs behind ``processed_dir`` live: ``raw_dir`` when given, the sibling ``raw/``
    (``data/raw`` next to ``data/processed``), the project's raw folder and the bundled samples."""
    first = [Path(raw_dir)] if raw_dir else []
    return list(dict.fromkeys([*first, Path(processed_dir).parent / "raw", config.RAW_DIR, config.SAMPLE_RAW_DIR]))


def load_manifest(run_id: str, processed_dir: Path, raw_dir: Path | None = None) -> dict:
    """The sweep manifest of a processed run (host, kernel, fio version, target, profile, dates); {} when
    the run's raw folder is not found (e.g. foreign files ingested from elsewhere)."""
    for d in raw_dirs_for(processed_dir, raw_dir):
        m = read_manifest(d / run_id)
        if m:
            return m
    return {}


def sample_run_ids() -> list[str]:
    return sorted(p.name for p in config.SAMPLE_RAW_DIR.iterdir() if p.is_dir()) if config.SAMPLE_RAW_DIR.exists() else []


def ensure_sample(processed_dir: Path, run: str = "") -> str:
    """Ingest a bundled sample run (default: the first) into ``processed_dir`` if it is not there;
    return its id."""
    ids = sample_run_ids()
    if not ids:
        raise LabError("the bundled sample run is missing from the package (helpers/sample/raw/).")
    if run and run not in ids:
        raise LabError(f"{run!r} is not a bundled sample run (samples: {', '.join(ids)}).")
    run = run or ids[0]
    if run not in store.list_runs(processed_dir):
        ingest(run, raw_dir=config.SAMPLE_RAW_DIR, processed_dir=processed_dir)
    return run


def resolve_runs(run_id: str | list[str] = "latest", processed_dir: str | Path = "") -> tuple[Path, list[str]]:
    """(processed_dir, run ids).  ``run_id`` may be one id, a comma-separated list, a list,
    ``latest`` (the newest processed run that is not the sample) or ``sample``."""
    pdir = Path(processed_dir) if processed_dir else config.PROCESSED_DIR
    wanted = run_id if isinstance(run_id, list) else [r.strip() for r in str(run_id).split(",") if r.strip()]
    available = store.list_runs(pdir)
    samples = set(sample_run_ids())
    out: list[str] = []
    for r in wanted or ["latest"]:
        if r == "latest":
            own = [x for x in available if x not in samples]
            out.append(own[-1] if own else ensure_sample(pdir))
        elif r == "sample":
            out.append(ensure_sample(pdir))
        elif r in available:
            out.append(r)
        elif r in samples:
            out.append(ensure_sample(pdir, r))
        else:
            raise LabError(f"run {r!r} has no processed data in {pdir}: run 'make ingest RUN={r}' first "
                           f"(processed runs: {', '.join(available) or 'none'}).")
    return pdir, list(dict.fromkeys(out))


@dataclass
class RunData:
    """What an analysis notebook works on: results and quarantine of the chosen runs."""

    processed_dir: Path
    run_ids: list[str]
    results: pd.DataFrame
    quarantine: pd.DataFrame
    raw_dir: Path | None = None  # where the runs' manifests are looked for first (see raw_dirs_for)
    left_out: pd.DataFrame | None = None  # result rows whose files do not state the workload (not in results)

    @property
    def left_out_note(self) -> str:
        """One sentence: how many rows the views leave out and why ('' when none)."""
        total = len(self.results) + (0 if self.left_out is None else len(self.left_out))
        return left_out_sentence(self.left_out, total)

    @cached_property
    def histograms(self) -> pd.DataFrame:
        """json+ latency bins of the chosen runs (empty DataFrame when none were ingested)."""
        return store.load(self.processed_dir, config.HISTOGRAM_DATASET, self.run_ids)

    @cached_property
    def manifests(self) -> dict[str, dict]:
        """run id -> its sweep manifest ({} when not found), loaded once."""
        return {r: load_manifest(r, self.processed_dir, self.raw_dir) for r in self.run_ids}

    @property
    def manifest(self) -> dict:
        """The manifest of the first chosen run (what a single-run page such as the device card describes)."""
        return self.manifests[self.run_ids[0]] if self.run_ids else {}

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """fio's per-window logs of the chosen runs (empty DataFrame when the runs have none)."""
        return store.load(self.processed_dir, config.TIMESERIES_DATASET, self.run_ids)

    @cached_property
    def health(self) -> pd.DataFrame:
        """SMART/health captures of the chosen runs (empty DataFrame when the runs have none)."""
        return store.load(self.processed_dir, config.HEALTH_DATASET, self.run_ids)

    @property
    def health_note(self) -> str:
        """Why the chosen runs have no device temperature, one sentence per run without ('' when all have):
        :func:`helpers.analysis.health_note` on each run's manifest and captures."""
        notes = {r: health_note(self.manifests[r], self.health[self.health["run_id"] == r]) for r in self.run_ids}
        missing = {r: n for r, n in notes.items() if n}
        if len(self.run_ids) == 1:
            return next(iter(missing.values()), "")
        return " ".join(f"Run {r}: {n}" for r, n in missing.items())

    @property
    def summary(self) -> pd.DataFrame:
        """One row per run: host, fio version, rows, flagged rows (a point-level validity flag raised: the rows of
        the flag table), rows whose deepest percentiles rest on too few I/Os (their percentiles' mark, counted
        apart), quarantined entries."""
        rows = []
        for run in self.run_ids:
            r = self.results[self.results["run_id"] == run]
            q = self.quarantine[self.quarantine["run_id"] == run]
            flagged = int(flagged_rows(r).sum())  # the same count as the flag table's rows
            rows.append({"run_id": run, "sample": run in sample_run_ids(),
                         "hosts": ", ".join(sorted(r["host"].dropna().unique())),
                         "fio_version": ", ".join(sorted(r["fio_version"].dropna().unique())),
                         "rows": len(r), "flagged_rows": flagged,
                         "few_ios_percentile_rows": int(few_ios_rows(r).sum()), "quarantined": len(q)})
        return pd.DataFrame(rows).set_index("run_id")


def load_results(run_id: str | list[str] = "latest", processed_dir: str | Path = "", raw_dir: str | Path = "") -> RunData:
    """Resolve ``run_id`` (see :func:`resolve_runs`) and load its results and quarantine tables; manifests
    are looked for in ``raw_dir`` first (see :func:`raw_dirs_for`) when asked for."""
    pdir, ids = resolve_runs(run_id, processed_dir)
    results, left_out = split_configured(store.load(pdir, config.RESULTS_DATASET, ids))
    data = RunData(pdir, ids, results, store.load(pdir, config.QUARANTINE_DATASET, ids),
                   Path(raw_dir) if raw_dir else None, left_out)
    if len(data.timeseries):  # points whose IOPS never settled are flagged in every view (flag_unstable)
        data.results = with_unstable(data.results, data.timeseries)
    return data


# At most this many other runs measure the run-to-run drift (the most recent ones): 20 runs give its variance
# with 19 degrees of freedom (t quantile 2.09 instead of 1.96: little left to gain), and a longer history
# reaches back across changes of the machine that make the drift look larger than it is now.
HISTORY_MAX_RUNS = 20


def _target(manifest: dict) -> tuple | None:
    t = manifest.get("target") or {}
    return (t.get("path"), t.get("device")) if t.get("path") else None


def history_run_ids(processed_dir: str | Path, run_ids: list[str], history: str = "auto",
                    raw_dir: str | Path | None = None) -> list[str]:
    """Other processed runs from which the comparison measures how much a run's mean moves from run to
    run (docs/statistics.md).  ``history``: ``"none"`` (or "") -> none; comma-separated run ids -> those;
    ``"auto"`` -> the most recent :data:`HISTORY_MAX_RUNS` processed runs measured on the same host as
    ``run_ids`` (results' host column; rows with an unknown host match nothing) and, when the runs'
    manifests are found, on the same target (path and device); never the bundled sample runs.
    The comparison then uses, per point, those runs that measured the same configuration."""
    spec = str(history or "").strip()
    if spec.lower() in ("", "none", "no", "off"):
        return []
    pdir = Path(processed_dir) if processed_dir else config.PROCESSED_DIR
    if spec.lower() != "auto":
        _, ids = resolve_runs([r.strip() for r in spec.split(",") if r.strip()], pdir)
        return [r for r in ids if r not in run_ids]
    rows = store.load_where(pdir, config.RESULTS_DATASET, columns=["host", "timestamp_s"])
    hosts = set(rows.loc[rows["run_id"].isin(run_ids), "host"].dropna())
    if not hosts:
        return []
    cand = rows[rows["host"].isin(hosts) & ~rows["run_id"].isin([*run_ids, *sample_run_ids()])]
    rdir = Path(raw_dir) if raw_dir else None
    targets = {_target(load_manifest(r, pdir, rdir)) for r in run_ids} - {None}
    newest = pd.to_numeric(cand["timestamp_s"], errors="coerce").groupby(cand["run_id"].astype(str)).max()
    out: list[str] = []
    for r in newest.sort_values(ascending=False, na_position="last").index:
        if targets and _target(load_manifest(r, pdir, rdir)) not in targets:
            continue
        out.append(r)
        if len(out) >= HISTORY_MAX_RUNS:
            break
    return out


@dataclass
class History:
    """Other runs of the compared runs' host (and target) for the run-to-run drift: ``results`` and
    ``histograms`` (empty without any), ``note``: one sentence saying which, or that there are none."""

    run_ids: list[str]
    results: pd.DataFrame
    histograms: pd.DataFrame
    note: str


def load_history(processed_dir: str | Path, run_ids: list[str], history: str = "auto",
                 raw_dir: str | Path | None = None) -> History:
    """:func:`history_run_ids` and their results and json+ histograms."""
    pdir = Path(processed_dir) if processed_dir else config.PROCESSED_DIR
    ids = history_run_ids(pdir, run_ids, history, raw_dir)
    if not ids:
        note = ("History: none asked for (history 'none')." if str(history or "").strip().lower() in
                ("", "none", "no", "off") else
                "History: no other processed run of the same host and target (keep earlier runs of the same profile "
                "on this host, or repeat the runs, to measure the drift).")
        return History([], pd.DataFrame(), pd.DataFrame(), note)
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    note = (f"History: {len(ids)} other run(s) of the same host and target ({shown}), each point measured by those "
            "that ran its configuration.")
    return History(ids, store.load(pdir, config.RESULTS_DATASET, ids), store.load(pdir, config.HISTOGRAM_DATASET, ids),
                   note)


def ingest_from_parameters(run_id: str = "", raw_dir: str = "", processed_dir: str = "") -> IngestResult:
    """The ingest notebook's parameters ("" meaning "the default"; run "" = the newest raw run) ->
    :func:`helpers.ingest.ingest`."""
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    return ingest(run_id or latest_raw_run(rdir), rdir, Path(processed_dir) if processed_dir else config.PROCESSED_DIR)
