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


def test_rows_whose_files_state_no_workload_are_left_out_of_the_views_with_one_sentence(tmp_path):
    """Issue 11 point 2: fio 2.1.3 wrote no option blocks, so its rows have no rw/bs/iodepth; the views get
    only rows they can place, and the page says in one sentence how many were left out and why."""
    from pathlib import Path

    from helpers import analysis
    from helpers.ingest import core as ingest

    data_dir = Path(__file__).parent / "data" / "fio"
    ingest.ingest_paths([data_dir / "legacy" / "fio-2.1.3.out", data_dir / "json" / "randread-qd4.json"], "mixed",
                        out=tmp_path)
    data = runs.load_results("mixed", tmp_path)
    assert len(data.results) == 1 and data.results["rw"].notna().all()
    assert len(data.left_out) == 2
    note = data.left_out_note
    assert note.startswith("2 of 3 result rows from 1 file are left out of these views")
    assert "options not recorded by this fio version" in note and "\n" not in note
    for view in (analysis.qd_series, analysis.blocksize_series, analysis.grid, analysis.distribution,
                 analysis.device_card, analysis.with_units):
        view(data.results)  # every view runs on what it is given
    assert analysis.left_out_sentence(data.left_out.iloc[0:0]) == ""


def test_history_runs_are_other_runs_of_the_same_host_and_target_newest_first(tmp_path):
    from figdata import rows

    pdir, raw = tmp_path / "processed", tmp_path / "raw"
    runs_made = {"base": ("h1", "/t/a", 100), "new": ("h1", "/t/a", 200), "old": ("h1", "/t/a", 50),
                 "older": ("h1", "/t/a", 10), "elsewhere": ("h2", "/t/a", 150), "otherdisk": ("h1", "/t/b", 160),
                 "nomanifest": ("h1", None, 170)}
    for run, (host, target, ts) in runs_made.items():
        store.write_run(pdir, "results", run, rows([{"run_id": run, "host": host, "timestamp_s": ts}]))
        if target:
            manifest.write_manifest((raw / run).mkdir(parents=True) or raw / run,
                                    {"run_id": run, "host": host, "target": {"path": target, "device": "vda"}})
    # same host, same target (the manifests say), newest first; never the compared runs or another host
    assert runs.history_run_ids(pdir, ["base", "new"], "auto", raw) == ["old", "older"]
    h = runs.load_history(pdir, ["base", "new"], "auto", raw)
    assert h.run_ids == ["old", "older"] and set(h.results["run_id"]) == {"old", "older"}
    assert h.note.startswith("History: 2 other run(s) of the same host and target (old, older)")
    assert runs.history_run_ids(pdir, ["base", "new"], "none", raw) == []
    assert runs.history_run_ids(pdir, ["base", "new"], "older, elsewhere", raw) == ["older", "elsewhere"]
    # a compared run without a manifest: the host alone decides
    assert runs.history_run_ids(pdir, ["nomanifest"], "auto", raw) == ["new", "otherdisk", "base", "old", "older"]
    assert "no other processed run" in runs.load_history(pdir, ["elsewhere"], "auto", raw).note
    with pytest.raises(LabError, match="run 'nope' has no processed data"):
        runs.history_run_ids(pdir, ["base"], "nope", raw)
