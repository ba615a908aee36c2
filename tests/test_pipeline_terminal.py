"""What the user sees in the terminal from ``python -m helpers.report.pipeline`` (what make runs), with real
fio and the smoke profile on 64 MiB: live progress while fio runs, the executed sweep notebook's final
count, no kernel TCP warnings, one clean message on Ctrl-C with the exact resume command, and refusals
that leave nothing behind."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.run import options
from helpers.run.lock import Lock, pid_alive, target_lock_path
from sweep_helpers import manifest, running_point, wait_for

pytestmark = pytest.mark.notebooks
ROOT = Path(__file__).resolve().parents[1]
PROGRESS_RE = re.compile(r"sweep (\S+): (\d+)/(\d+) points \|.*?\| (\d\d:\d\d) elapsed(.*)")


def _env(base: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SSDLAB_DATA_DIR": str(base / "data"),
            "SSDLAB_REPORTS_DIR": str(base / "reports"), "SSDLAB_LOCK_DIR": str(base / "locks")}


def _pipeline(base: Path, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "helpers.report.pipeline", *args], env=_env(base), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _run(base: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    p = _pipeline(base, *args)
    out, err = p.communicate(timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def _renders(stderr: str) -> list[tuple[int, int, str, str]]:
    """Every progress-bar render (tqdm separates them with carriage returns): (done, total, elapsed, rest)."""
    out = []
    for line in re.split(r"[\r\n]", stderr):
        m = PROGRESS_RE.search(line)
        if m:
            out.append((int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)))
    return out


def _resume_args(line: str) -> list[str]:
    """'make sweep RUN=x TARGET=y ...' -> the pipeline flags the Makefile would pass for those variables."""
    words = shlex.split(line)
    assert words[:2] == ["make", "sweep"]
    by_var = {o.make_var: o for o in options.MAKE_OPTIONS}
    return [f"{by_var[w.split('=', 1)[0]].cli_flag}={w.split('=', 1)[1]}" for w in words[2:]]


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory, scratch_dir, fio_path):
    """``pipeline sweep`` of the smoke profile on 64 MiB, as ``make sweep PROFILE=smoke SIZE=64m`` runs it (empty
    make variables passed as empty flags), stopped by Ctrl-C during its third point, then resumed with the
    command its message prints.  One sweep of 7 points serves the progress, notebook and Ctrl-C checks."""
    base = tmp_path_factory.mktemp("intr")
    target = scratch_dir / "intr.bin"
    proc = _pipeline(base, "sweep", "--profile=smoke", "--size=64m", "--run=intr", f"--target={target}",
                     "--runtime=1", "--hosts=", "--dry-run=", start_new_session=True)
    run_dir = base / "data" / "raw" / "intr"
    stopped = wait_for(lambda: running_point(run_dir, min_done=2), timeout=120)
    fio = int(wait_for(lambda: json.loads(Path(run_dir / ".sweep.progress").read_text()).get("pid"), timeout=10))
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends to the foreground process group
    out, err = proc.communicate(timeout=60)
    first = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    at_stop = {"manifest": manifest(run_dir), "fio_alive": pid_alive(fio),
               "done": {p.name: p.stat().st_mtime_ns for p in run_dir.glob("*.json") if p.name != "manifest.json"}}
    resume = next((ln for ln in err.splitlines() if ln.startswith("resume with: ")), "")[len("resume with: "):]
    again = _run(base, "sweep", *_resume_args(resume)) if resume else None
    return {"base": base, "target": target, "run_dir": run_dir, "stopped": stopped, "first": first,
            "at_stop": at_stop, "resume": resume, "again": again}


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
    line = _one_sentence(_run(tmp_path, "reports", "--run=nope"), "there is no run 'nope'")
    assert line.endswith("the runs there are 20260101-120000-a, 20260102-120000-b.")
    _nothing_created(tmp_path, "nope")


@pytest.mark.parametrize("args", [["--run=-x"], ["--run", "-x"], ["--run=.."], ["--run=."]])
def test_bad_run_ids_are_one_sentence_and_create_nothing(tmp_path, args):
    line = _one_sentence(_run(tmp_path, "reports", *args), "")
    assert "run id" in line or "argument --run" in line
    if "run id" in line:  # the rule it states is the rule it applies
        assert "must start with a letter or digit" in line
    assert not (tmp_path / "reports").exists() and not (tmp_path / "data").exists()


def test_a_locked_target_is_refused_before_anything_is_created(tmp_path, scratch_dir, fio_path, monkeypatch):
    target = scratch_dir / "held.bin"
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))  # the lock folder the pipeline will use
    held = Lock(target_lock_path(target), f"target {target}", {"run_id": "holder"}).acquire()
    try:
        proc = _run(tmp_path, "run-all", "--profile=smoke", "--size=64m", "--run=second", f"--target={target}")
    finally:
        held.release()
    _one_sentence(proc, "is in use by another sweep")
    _nothing_created(tmp_path, "second")
