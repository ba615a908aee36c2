import os

import pytest

from helpers.analysis.flags import flag_table
from helpers.errors import LabError
from helpers.notebook import runs
from helpers.processed import store
from helpers.run import manifest


def test_latest_falls_back_to_the_bundled_sample_on_an_empty_dataset(tmp_path):
    pdir, ids = runs.resolve_runs("latest", tmp_path)
    assert pdir == tmp_path and ids == [runs.sample_run_ids()[0]]
    df = store.load(tmp_path, run_ids=ids)
    assert len(df) > 0 and set(df["run_id"]) == set(ids)


def test_latest_prefers_the_newest_own_run_over_the_sample(smoke_processed):
    pdir = smoke_processed["processed_dir"]
    runs.ensure_sample(pdir)
    _, ids = runs.resolve_runs("latest", pdir)
    assert ids == [smoke_processed["run_id"]]
    _, both = runs.resolve_runs(f"{smoke_processed['run_id']}, sample", pdir)
    assert both == [smoke_processed["run_id"], runs.sample_run_ids()[0]]


def test_unknown_run_is_one_sentence_naming_the_available_runs(tmp_path):
    runs.ensure_sample(tmp_path)
    with pytest.raises(LabError, match=r"run 'nope' has no processed data .*make ingest RUN=nope"):
        runs.resolve_runs("nope", tmp_path)


def test_load_results_summary_counts_rows_and_flags(smoke_processed):
    data = runs.load_results(smoke_processed["run_id"], smoke_processed["processed_dir"])
    row = data.summary.loc[smoke_processed["run_id"]]
    assert row["rows"] == len(data.results) and row["quarantined"] == len(data.quarantine)
    assert row["flagged_rows"] == len(flag_table(data.results))  # the same rows the flag table lists
    assert not row["sample"]


def test_latest_raw_run_is_the_newest_manifest(tmp_path):
    with pytest.raises(LabError, match="there is no run in"):
        manifest.latest_raw_run(tmp_path)
    for i, name in enumerate(["b-old", "a-new"]):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text("{}")
        os.utime(tmp_path / name / "manifest.json", (1000 + i, 1000 + i))
    assert manifest.latest_raw_run(tmp_path) == "a-new"
