"""Run manifests (helpers.run.manifest): run ids, atomic writes, tolerant reads."""

from __future__ import annotations

import json
import re

import pytest

from helpers.errors import LabError
from helpers.run.manifest import (
    check_run_id,
    default_run_id,
    read_manifest,
    write_json_atomic,
    write_manifest,
)


@pytest.mark.parametrize("bad", ["../etc", "a/b", "with space", "", ".hidden", "x" * 129])
def test_run_ids_that_could_escape_or_confuse_are_refused(bad):
    with pytest.raises(LabError, match="run id"):
        check_run_id(bad)


def test_default_run_id_is_time_and_host_and_valid():
    rid = default_run_id()
    assert re.match(r"^\d{8}-\d{6}-[A-Za-z0-9-]+$", rid) and check_run_id(rid) == rid


def test_manifest_round_trip_is_atomic(tmp_path):
    manifest = {"run_id": "r1", "points": {"p": {"status": "ok", "seconds": 1.5}}, "path": tmp_path}
    write_manifest(tmp_path, manifest)
    assert read_manifest(tmp_path) == {**manifest, "path": str(tmp_path)}  # non-JSON values as strings
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]  # no temp file left
    write_json_atomic(tmp_path / "manifest.json", {"run_id": "r2"})
    assert json.loads((tmp_path / "manifest.json").read_text()) == {"run_id": "r2"}


def test_missing_or_corrupt_manifest_reads_as_empty(tmp_path):
    assert read_manifest(tmp_path) == {}
    (tmp_path / "manifest.json").write_text('{"run_id": ')
    assert read_manifest(tmp_path) == {}
