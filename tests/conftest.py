"""Shared fixtures: real fio on small files, isolated data folders, fault-injection fakes."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

FIO = shutil.which("fio")
requires_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (apt-get install fio)")

# Make sure kernels started by tests keep Jupyter state inside the project.
_ROOT = Path(__file__).resolve().parents[1]
for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                 ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
    os.environ.setdefault(var, str(_ROOT / ".jupyter" / sub))
    Path(os.environ[var]).mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def fio_path() -> str:
    """The real fio binary; tests that need it are skipped (with the reason) when it is missing."""
    if FIO is None:
        pytest.skip("fio is not installed (apt-get install fio)")
    return FIO


@pytest.fixture(scope="session")
def scratch_dir(tmp_path_factory) -> Path:
    """A disk-backed folder for fio targets (pytest's tmp is under /tmp; refuse tmpfs there)."""
    from helpers.run.system import mount_of
    from helpers.run.target import MEMORY_FILESYSTEMS

    d = tmp_path_factory.mktemp("scratch")
    m = mount_of(d)
    if m and m["fstype"] in MEMORY_FILESYSTEMS:
        d = _ROOT / "build" / "test-scratch"
        d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, scratch_dir) -> dict:
    """One real smoke-profile sweep (64 MiB target, 1 s points), shared by the whole session."""
    if FIO is None:
        pytest.skip("fio is not installed")
    from helpers.run import sweep

    raw = tmp_path_factory.mktemp("raw")
    manifest = sweep.sweep(target=scratch_dir / "smoke-target.bin", profile="smoke", run_id="smoke-test",
                           size="64m", raw_dir=raw, progress=False)
    return {"raw_dir": raw, "run_dir": raw / "smoke-test", "manifest": manifest, "run_id": "smoke-test"}


@pytest.fixture(scope="session")
def smoke_processed(tmp_path_factory, smoke_run) -> dict:
    """The smoke run ingested into its own processed folder."""
    from helpers.ingest import core as ingest

    processed = tmp_path_factory.mktemp("processed")
    result = ingest.ingest(smoke_run["run_id"], raw_dir=smoke_run["raw_dir"], processed_dir=processed)
    return {**smoke_run, "processed_dir": processed, "result": result}


def make_fake_fio(directory: Path, script: str) -> Path:
    """Write an executable fake fio (fault injection only) and return its path."""
    path = directory / "fio"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def fake_fio(tmp_path, monkeypatch):
    """Factory: fake_fio('echo boom >&2; exit 1') points helpers at a failing fio."""

    def factory(script: str) -> Path:
        path = make_fake_fio(tmp_path, script)
        monkeypatch.setenv("FIO", str(path))
        return path

    return factory
