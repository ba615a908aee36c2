"""Sweep engine on real fio: resume after Ctrl-C and kill -9, integrity, dry run, estimates."""

from __future__ import annotations

import io
import json
import os
import signal

import pytest

from helpers.fio.binary import fio_clocksource
from helpers.run import sweep
from helpers.run.lock import pid_alive
from helpers.run.manifest import write_manifest
from sweep_helpers import (
    fio_children,
    fio_recorder,
    manifest,
    running_point,
    sweep_cli,
    wait_for,
    write_profile,
)

# three points: one done before the interrupt, the interrupted one, and one not started (2 s each)
POINTS = [{"group": "g", "rw": "randread", "bs": "4k", "iodepth": [1, 2, 4]}]


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def _raw_files(run_dir):
    return sorted(p.name for p in run_dir.iterdir() if p.suffix == ".json" and p.name != "manifest.json")


def _assert_complete(run_dir, n):
    m = manifest(run_dir)
    assert m["status"] == "complete"
    assert len(m["points"]) == n and all(v["status"] == "ok" for v in m["points"].values())
    assert _raw_files(run_dir) == sorted(f"{k}.json" for k in m["points"])
    assert not [p.name for p in run_dir.iterdir() if p.name.endswith((".tmp", ".fio"))]
    for f in _raw_files(run_dir):
        json.loads((run_dir / f).read_text())  # every raw file is complete JSON


@pytest.mark.parametrize("how", ["ctrl-c", "kill-9"])
def test_interrupted_sweep_resumes_without_partial_or_duplicate_points(how, tmp_path, scratch_dir, fio_path):
    prof = write_profile(tmp_path, "three", POINTS, settings={"ioengine": "libaio", "runtime_s": 2, "ramp_s": 0})
    target, raw = scratch_dir / f"resume-{how}.bin", tmp_path / "raw"
    run_dir = raw / "r"
    args = ["--target", str(target), "--profile", str(prof), "--run", "r", "--size", "16m", "--raw-dir", str(raw)]
    proc = sweep_cli(args, start_new_session=True)
    interrupted = wait_for(lambda: running_point(run_dir, min_done=1), timeout=60)
    fio = wait_for(lambda: fio_children(proc.pid), timeout=10)[0]
    done_before = {f: (run_dir / f).stat().st_mtime_ns for f in _raw_files(run_dir)}
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to the whole foreground group
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted during point" in err and "resume with the same run id" in err and "RUN=r" in err
        assert manifest(run_dir)["status"] == "interrupted"
        assert manifest(run_dir)["points"][interrupted]["status"] == "interrupted"
        assert not pid_alive(fio)
    else:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: not pid_alive(fio), timeout=15)  # fio dies with its parent (PDEATHSIG)
        assert manifest(run_dir)["points"][interrupted]["status"] == "running"
    assert f"{interrupted}.json" not in _raw_files(run_dir)  # never a half-written raw file
    # the points after a resume time with the clock the run's manifest recorded, whatever fio would pick now (its
    # quick test at each start fails now and then here): the other clock stands in for the first points' one
    before = manifest(run_dir)
    assert before["fio_clocksource"] in ("cpu", "clock_gettime")
    kept = "clock_gettime" if before["fio_clocksource"] == "cpu" else "cpu"
    write_manifest(run_dir, {**before, "fio_clocksource": kept})
    # restart with the same run id: completed points are skipped, the interrupted one reruns
    m = sweep.sweep(target=target, profile=prof, run_id="r", size="16m", raw_dir=raw, progress=False)
    _assert_complete(run_dir, 3)
    for f, mtime in done_before.items():
        assert (run_dir / f).stat().st_mtime_ns == mtime, f"{f} was measured again"
    assert m["resumes"] and m["points"][interrupted]["status"] == "ok"
    assert m["fio_clocksource"] == kept and f"--clocksource={kept}" in m["points"][interrupted]["argv"]


def test_failed_point_rerun_leaves_no_stale_copy(tmp_path, scratch_dir, fio_path, monkeypatch):
    prof = write_profile(tmp_path, "one", [{"group": "g", "rw": "randread", "bs": "4k"}])
    target, raw = scratch_dir / "rerun.bin", tmp_path / "raw"
    run_dir = raw / "r"
    fake = tmp_path / "bin"
    fake.mkdir()
    # a fio that fails points but handles --version and the prefill
    (fake / "fio").write_text(f'#!/bin/sh\ncase "$*" in *--name=prefill*|*--version*) exec {fio_path} "$@";; esac\n'
                              'for a in "$@"; do case "$a" in --output=*) echo "{{}}" > "${a#--output=}";; esac; done\n'
                              "echo boom >&2; exit 1\n")
    (fake / "fio").chmod(0o755)
    monkeypatch.setenv("FIO", str(fake / "fio"))
    m = sweep.sweep(target=target, profile=prof, run_id="r", size="8m", raw_dir=raw, progress=False)
    assert m["status"] == "failed-points" and (run_dir / "failed").is_dir()
    monkeypatch.setenv("FIO", fio_path)
    sweep.sweep(target=target, profile=prof, run_id="r", size="8m", raw_dir=raw, progress=False)
    _assert_complete(run_dir, 1)
    assert not list((run_dir / "failed").iterdir())  # the old failure is not ingested as a second copy


def test_dry_run_prints_every_command_and_writes_nothing(tmp_path, scratch_dir, fio_path, monkeypatch):
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    target = scratch_dir / "dry" / "new" / "t.bin"
    raw = tmp_path / "raw"
    before = set(os.listdir(tmp_path))
    plan = sweep.plan_sweep(target, "quick", "dry", None, "64m", raw, dry_run=True)
    out = io.StringIO()
    cmds = sweep.dry_run(plan, file=out)
    text = out.getvalue()
    assert text.startswith("dry run, nothing is written: profile quick: 24 points, about")
    fio_cmds = [c for c in cmds if not c.startswith("#")]
    # the prefill of the new scratch file + every point + the demand search's example after the QD sweep's deepest
    # point (numjobs/ioengine auto: docs/demand.md)
    assert len(fio_cmds) == 1 + 24 + 1 and sum("while the peak's probe is CPU-bound" in c for c in cmds) == 1
    assert all(f"--filename={target}" in c for c in fio_cmds)
    assert sum("--rw=randread" in c and "--iodepth=128" in c for c in fio_cmds) == 1
    # run_sweep with a dry-run plan only prints too
    m = sweep.run_sweep(plan, progress=False)
    assert m["status"] == "dry-run"
    assert not target.parent.parent.exists() and not raw.exists()
    # fio ran only to list its engines (io_uring for ioengine: auto, helpers.run.demand.io_uring_problem) and to name
    # its clock (helpers.fio.binary.fio_clocksource: the null engine): no I/O
    probes = {"--enghelp", "--debug=time --name=clock --ioengine=null --size=4k --output-format=terse"}
    assert not log.exists() or all(line.strip() in probes for line in log.read_text().splitlines())
    clock = fio_clocksource(str(wrapper))
    assert clock and all(f"--clocksource={clock}" in c for c in fio_cmds)  # the commands as they would run
    assert set(os.listdir(tmp_path)) - before <= {log.name}


def test_cli_dry_run_for_every_shipped_profile(tmp_path, scratch_dir, fio_path, capsys):
    """The command line's dry run of every shipped profile: its main() in this process (an interpreter and its
    imports per profile cost ~1 s each; the CLI as its own process is run by the interrupt tests above)."""
    from helpers.run.profiles import available_profiles

    for name in available_profiles():
        target = scratch_dir / "dry-cli" / f"{name}.bin"
        code = sweep.main(["--quiet", "--target", str(target), "--profile", name, "--size", "64m",
                           "--raw-dir", str(tmp_path / "r"), "--dry-run"])
        out, err = capsys.readouterr()
        assert code == 0, err
        first = out.splitlines()[0]
        assert first.startswith(f"dry run, nothing is written: profile {name}:") and "about" in first
        assert "--name=" in out
        assert not target.exists() and not (tmp_path / "r").exists()


def test_sweep_announces_estimate_before_starting(tmp_path, scratch_dir, fio_path, capsys):
    prof = write_profile(tmp_path, "ann", [{"group": "g", "rw": "randread", "bs": "4k"}])
    sweep.sweep(target=scratch_dir / "ann.bin", profile=prof, run_id="a", size="8m", raw_dir=tmp_path / "raw",
                progress=False)
    out = capsys.readouterr().out
    assert out.startswith("starting run a: profile ann: 1 points, about 2 s of fio, target")


def test_sigterm_is_an_interrupt_too(tmp_path, scratch_dir, fio_path):
    prof = write_profile(tmp_path, "two", POINTS, settings={"ioengine": "libaio", "runtime_s": 3, "ramp_s": 0})
    raw = tmp_path / "raw"
    proc = sweep_cli(["--target", str(scratch_dir / "term.bin"), "--profile", str(prof), "--run", "t", "--size", "8m",
                      "--raw-dir", str(raw)])
    wait_for(lambda: running_point(raw / "t", min_done=0), timeout=60)
    fio = wait_for(lambda: fio_children(proc.pid), timeout=10)[0]
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "resume with the same run id" in err
    assert not pid_alive(fio)
