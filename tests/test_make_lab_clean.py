"""``make lab`` (root, LAB_ARGS) and ``make clean`` (lab scratch files elsewhere listed, removed only with
SCRATCH=1), checked through make itself and the ``python -m helpers.run.target`` command it runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.run.target import lab_scratch_files, write_sidecar

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make_n(*args: str) -> str:
    """The commands make would run (-n: nothing is executed), with a .venv that looks installed."""
    proc = subprocess.run(["make", "-n", "-o", ".venv/.installed", "-o", "fio", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_make_lab_passes_allow_root_as_root_and_lab_args():
    out = _make_n("lab", "LAB_ARGS=--port 9999 --no-browser")
    line = next(ln for ln in out.splitlines() if "jupyter lab" in ln)
    assert line.endswith("--port 9999 --no-browser")
    assert ("--allow-root" in line) == (os.geteuid() == 0)


def test_make_clean_lists_and_only_with_scratch_1_removes():
    assert "--list-elsewhere" in _make_n("clean") and "--remove-elsewhere" not in _make_n("clean")
    assert "--remove-elsewhere" in _make_n("clean", "SCRATCH=1")


def _run_with_target(raw: Path, name: str, target: Path) -> None:
    (raw / name).mkdir(parents=True)
    (raw / name / "manifest.json").write_text(json.dumps({"run_id": name, "target_kind": "file",
                                                          "plan": {"target": str(target)}}))


def _target_cli(data: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SSDLAB_DATA_DIR": str(data),
           "SSDLAB_LOCK_DIR": str(data / "locks")}
    proc = subprocess.run([sys.executable, "-m", "helpers.run.target", *args], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return proc.stdout


def test_scratch_files_elsewhere_are_listed_then_removed_when_asked(tmp_path):
    data, elsewhere = tmp_path / "data", tmp_path / "disk2"
    elsewhere.mkdir()
    lab_file, foreign = elsewhere / "fio-target.bin", elsewhere / "users-data.bin"
    lab_file.write_bytes(b"\0" * 4096)
    write_sidecar(lab_file, prefilled_bytes=4096)
    foreign.write_bytes(b"keep me")
    _run_with_target(data / "raw", "r1", lab_file)
    _run_with_target(data / "raw", "r2", foreign)  # used by a run, but not created by the lab
    _run_with_target(data / "raw", "r3", lab_file)  # listed once
    assert lab_scratch_files(data / "raw") == [lab_file]
    listed = _target_cli(data, "--list-elsewhere")
    assert listed.strip() == (f"kept 1 scratch file the lab created outside data/scratch (0.00 GiB): {lab_file}; "
                              "'make clean SCRATCH=1' removes them.")
    assert lab_file.exists()
    removed = _target_cli(data, "--remove-elsewhere")
    assert removed.strip() == f"removed lab scratch file {lab_file} (0.00 GiB)"
    assert not lab_file.exists() and foreign.read_bytes() == b"keep me"
    assert _target_cli(data, "--list-elsewhere") == ""


def test_make_help_has_no_escape_codes_unless_on_a_terminal():
    """Issue 22.12: `make help | less` or a CI log showed raw "\\033[36m" codes."""
    import pty

    piped = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert piped.returncode == 0 and "  help " in piped.stdout and "\x1b" not in piped.stdout
    leader, follower = pty.openpty()
    try:
        tty = subprocess.run(["make", "-s", "help"], cwd=ROOT, stdout=follower, stderr=subprocess.PIPE, timeout=60,
                             env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert tty.returncode == 0 and b"\x1b[36m" in b"".join(chunks)  # a terminal still gets the colours
