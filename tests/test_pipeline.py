"""The headless pipeline: one-sentence errors before any I/O, failure reporting, report export."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import config
from helpers.errors import LabError
from helpers.report import pipeline

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, env=None):
    e = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "helpers.report.pipeline", *args], capture_output=True, text=True,
                          env=e, cwd=ROOT, timeout=120)


def assert_one_sentence(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and fragment in lines[0]


def test_missing_fio_is_one_sentence_with_install_hint(tmp_path):
    proc = run_cli("sweep", "--target", str(tmp_path / "t.bin"), "--run", "x", env={"FIO": "no-such-fio"})
    assert_one_sentence(proc, "fio was not found")
    assert "apt-get install fio" in proc.stderr and "dnf" in proc.stderr and "brew" in proc.stderr
    assert not (config.RAW_DIR / "x").exists()


def test_profile_typo_is_one_sentence(tmp_path):
    prof = tmp_path / "typo.yaml"
    prof.write_text("points:\n  - {rw: randread, bs: 4kb}\n")
    proc = run_cli("sweep", "--target", str(tmp_path / "t.bin"), "--profile", str(prof), "--run", "typo")
    assert_one_sentence(proc, "bs '4kb' is not a size")
    assert not (tmp_path / "t.bin").exists()


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm")
def test_tmpfs_target_is_one_sentence():
    proc = run_cli("sweep", "--target", f"/dev/shm/ssdlab-{os.getpid()}.bin", "--run", "shm")
    assert_one_sentence(proc, "tmpfs")
    assert not Path(f"/dev/shm/ssdlab-{os.getpid()}.bin").exists()


def test_not_enough_space_is_one_sentence(tmp_path):
    proc = run_cli("sweep", "--target", str(tmp_path / "t.bin"), "--size", "500t", "--run", "big")
    assert_one_sentence(proc, "not enough free space")


def test_bad_run_id_is_one_sentence(tmp_path):
    proc = run_cli("sweep", "--target", str(tmp_path / "t.bin"), "--run", "../escape")
    assert_one_sentence(proc, "run id '../escape'")


def _manifest(run: Path, statuses: list[str]) -> Path:
    run.mkdir(parents=True)
    points = {f"p{i}": {"status": s, "returncode": 0 if s == "ok" else 1,
                        "fio_messages": None if s == "ok" else "fio: pid=1, err=22/file:filesetup.c"}
              for i, s in enumerate(statuses)}
    (run / "manifest.json").write_text(json.dumps({"run_id": run.name, "points": points}))
    return run


def test_sweep_outcome_all_ok_is_silent(tmp_path):
    assert pipeline.check_sweep_outcome(_manifest(tmp_path / "r1", ["ok", "ok"])) is None


def test_sweep_outcome_partial_failure_warns_with_fio_message(tmp_path):
    warning = pipeline.check_sweep_outcome(_manifest(tmp_path / "r1", ["ok", "failed", "ok"]))
    assert warning.startswith("warning: 1 of 3 points failed") and "err=22" in warning


def test_sweep_outcome_total_failure_is_an_error(tmp_path):
    with pytest.raises(LabError, match="every point of run r1 failed"):
        pipeline.check_sweep_outcome(_manifest(tmp_path / "r1", ["failed", "failed"]))


def test_notebook_layout_conventions():
    stages = sorted(p.name for p in config.NOTEBOOKS_DIR.glob("0[0-9]-*.ipynb"))
    assert stages[:2] == [pipeline.SWEEP_NB, pipeline.INGEST_NB]
    assert any(p.name == "10-queue-depth.ipynb" for p in pipeline.analysis_notebooks())
    assert pipeline.report_name(Path("12-block-size.ipynb")) == "block-size"


def test_ingest_summary_is_the_line_the_ingest_notebook_printed(tmp_path):
    """`make ingest` prints what the ingest read (the notebook's summary line), not a folder pattern."""
    line = "3 files: 7 results (9 rows; all.log held 5 separate fio runs), 12 fio logs (2,400 windows), 0 quarantined"
    nb = {"cells": [{"cell_type": "code", "outputs": []},
                    {"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stderr", "text": ["warn\n"]},
                                                      {"output_type": "stream", "name": "stdout",
                                                       "text": [line + "\n", "more\n"]}]}]}
    (tmp_path / "01-ingest.ipynb").write_text(json.dumps(nb))
    assert pipeline.ingest_summary(tmp_path / "01-ingest.ipynb") == line
    (tmp_path / "empty.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": []}]}))
    assert pipeline.ingest_summary(tmp_path / "empty.ipynb") is None
    assert pipeline.ingest_summary(tmp_path / "missing.ipynb") is None


def test_reports_of_two_runs_build_their_compare_page(tmp_path, monkeypatch, capsys):
    """Issue 22.9: `make reports RUN=a,b` ingests both runs and builds the compare page of the two together
    (base first) under reports/compare/, listed with the comparisons; kernels are stubbed here (the page's
    notebook is executed for real by the session's notebook tests)."""
    import nbformat

    raw, reports = tmp_path / "raw", tmp_path / "reports"
    for r in ("base-run", "new-run"):
        (raw / r).mkdir(parents=True)
        (raw / r / "manifest.json").write_text(json.dumps({"run_id": r, "points": {}}))
    monkeypatch.setattr(config, "RAW_DIR", raw)
    ingested, executed = [], []
    monkeypatch.setattr(pipeline, "run_ingest_stage", ingested.append)

    def fake_execute(nb, out, params):
        executed.append((nb.name, params["run_id"]))
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Compare")]), out)
        return out

    monkeypatch.setattr(pipeline, "execute", fake_execute)
    real = pipeline.run_compare_stage
    monkeypatch.setattr(pipeline, "run_compare_stage", lambda ids: real(ids, reports_dir=reports, raw_dirs=[raw]))
    assert pipeline.main(["reports", "--run=base-run,new-run"]) == 0
    assert ingested == ["base-run", "new-run"] and executed == [("16-compare.ipynb", "base-run,new-run")]
    page = reports / "compare" / "new-run-vs-base-run-page.html"
    assert "<title>new-run vs base-run · Compare · SSD Performance Lab</title>" in page.read_text()
    index = (reports / "index.html").read_text()
    assert 'href="compare/new-run-vs-base-run-page.html"' in index and "<h2>compare</h2>" not in index
