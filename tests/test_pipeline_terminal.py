"""What the user sees in the terminal from ``python -m helpers.report.pipeline`` (what make runs), with real
fio and the smoke profile on 64 MiB: live progress while fio runs, the executed sweep notebook's final
count, no kernel TCP warnings, one clean message on Ctrl-C with the exact resume command, and refusals
that leave nothing behind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from helpers.run.lock import Lock, target_lock_path
from sweep_helpers import manifest, run_pipeline

pytestmark = pytest.mark.notebooks
PROGRESS_RE = re.compile(r"sweep (\S+): (\d+)/(\d+) points \|.*?\| (\d\d:\d\d) elapsed(.*)")


def _renders(stderr: str) -> list[tuple[int, int, str, str]]:
    """Every progress-bar render (tqdm separates them with carriage returns): (done, total, elapsed, rest)."""
    out = []
    for line in re.split(r"[\r\n]", stderr):
        m = PROGRESS_RE.search(line)
        if m:
            out.append((int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)))
    return out


@pytest.fixture(scope="module")
def interrupted(interrupted_smoke_sweep):
    """The session's interrupted-and-resumed ``pipeline sweep`` (tests/conftest.py): one sweep of 7 points
    serves the progress, notebook and Ctrl-C checks here and the run-id binding checks of
    tests/test_sweep_binding.py."""
    return interrupted_smoke_sweep


def test_progress_reaches_the_terminal_and_updates_while_fio_runs(interrupted):
    assert interrupted["again"] is not None and interrupted["again"].returncode == 0, interrupted["first"].stderr
    renders = _renders(interrupted["first"].stderr) + _renders(interrupted["again"].stderr)
    assert renders and renders[-1][:2] == (7, 7) and "complete" in renders[-1][3]
    assert {d for d, *_ in renders} >= {0, 2, 3, 6, 7}  # points done / total, point after point, both runs
    assert all(t == 7 for _, t, _, _ in renders)
    # within one point (same count) the elapsed time moves on: the bar is redrawn while fio runs
    within = {}
    for done, _, elapsed, _ in renders:
        if done < 7:
            within.setdefault(done, set()).add(elapsed)
    assert any(len(v) > 1 for v in within.values()), renders
    rest = " ".join(r for *_, r in renders)
    assert "ETA 00:" in rest and "now: randread 4k QD1 x1" in rest and "now: randrw 4k QD8 x1 70% read" in rest


def test_executed_sweep_notebook_ends_with_the_final_count(interrupted):
    nb = nbformat.read(interrupted["base"] / "reports" / "intr" / "notebooks" / "00-sweep.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    assert "run intr: 7 of 7 points measured (7 ok, 0 failed)" in text
    assert "0/7" not in text and "2/7" not in text  # no progress widget frozen at its first state


def test_no_kernel_tcp_warning_reaches_the_terminal(interrupted):
    for proc in (interrupted["first"], interrupted["again"]):
        assert "without encryption" not in proc.stderr + proc.stdout
    assert "Traceback" not in interrupted["again"].stderr


def test_ctrl_c_is_one_clean_message_with_the_exact_resume_command(interrupted):
    first, at_stop, stopped, target = (interrupted[k] for k in ("first", "at_stop", "stopped", "target"))
    err = first.stderr
    assert first.returncode == 130, err
    for noise in ("Traceback", "ZMQ", "zmq", "Kernel", "asyncio", "KeyboardInterrupt"):
        assert noise not in err, err
    message = err[err.index("interrupted:"):]
    assert f"interrupted: sweep intr stopped during point {stopped}; 2 of 7 points are done" in message
    assert interrupted["resume"] == f"make sweep TARGET={target} PROFILE=smoke RUN=intr RUNTIME=1 SIZE=64m"
    assert message.rstrip().endswith("then build the reports with: make reports RUN=intr")
    assert at_stop["manifest"]["status"] == "interrupted"
    assert at_stop["manifest"]["points"][stopped]["status"] == "interrupted"
    assert not at_stop["fio_alive"]  # the kernel (and its fio) ended
    # the printed command resumes: the rest is measured, the finished points are not measured again
    again, run_dir, done = interrupted["again"], interrupted["run_dir"], at_stop["done"]
    assert again.returncode == 0, again.stderr
    m = manifest(run_dir)
    assert m["status"] == "complete" and len(m["points"]) == 7 and m["resumes"]
    assert {n: (run_dir / n).stat().st_mtime_ns for n in done} == done


def _one_sentence(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and "usage:" not in proc.stderr and not proc.stdout.strip()
    return lines[0]


def _nothing_created(base: Path, run: str):
    assert not (base / "data" / "raw" / run).exists() and not (base / "reports" / run).exists()


def test_reports_of_a_run_that_does_not_exist_names_the_runs(tmp_path):
    for name in ("20260101-120000-a", "20260102-120000-b"):
        (tmp_path / "data" / "raw" / name).mkdir(parents=True)
        (tmp_path / "data" / "raw" / name / "manifest.json").write_text("{}")
    line = _one_sentence(run_pipeline(tmp_path, "reports", "--run=nope"), "there is no run 'nope'")
    assert line.endswith("the runs there are 20260101-120000-a, 20260102-120000-b.")
    _nothing_created(tmp_path, "nope")


@pytest.mark.parametrize("args", [["--run=-x"], ["--run", "-x"], ["--run=.."], ["--run=."]])
def test_bad_run_ids_are_one_sentence_and_create_nothing(tmp_path, args):
    line = _one_sentence(run_pipeline(tmp_path, "reports", *args), "")
    assert "run id" in line or "argument --run" in line
    if "run id" in line:  # the rule it states is the rule it applies
        assert "must start with a letter or digit" in line
    assert not (tmp_path / "reports").exists() and not (tmp_path / "data").exists()


def test_a_locked_target_is_refused_before_anything_is_created(tmp_path, scratch_dir, fio_path, monkeypatch):
    target = scratch_dir / "held.bin"
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))  # the lock folder the pipeline will use
    held = Lock(target_lock_path(target), f"target {target}", {"run_id": "holder"}).acquire()
    try:
        proc = run_pipeline(tmp_path, "run-all", "--profile=smoke", "--size=64m", "--run=second", f"--target={target}")
    finally:
        held.release()
    _one_sentence(proc, "is in use by another sweep")
    _nothing_created(tmp_path, "second")
