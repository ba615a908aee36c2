import os
import shutil
from pathlib import Path

import pytest

from helpers.errors import LabError
from helpers.run.system import mount_of
from helpers.run.target import (
    FREE_SPACE_MARGIN,
    check_free_space,
    is_lab_file,
    prepare_target,
    remove_scratch,
    write_sidecar,
)

SHM = Path("/dev/shm")


@pytest.mark.skipif(not (SHM.is_dir() and (mount_of(SHM) or {}).get("fstype") == "tmpfs"),
                    reason="no tmpfs at /dev/shm on this machine")
def test_tmpfs_target_is_refused_before_any_io(tmp_path):
    target = SHM / f"ssdlab-test-{os.getpid()}" / "t.bin"
    try:
        with pytest.raises(LabError) as exc:
            prepare_target(target, "64m", writes=True)
        assert "tmpfs" in str(exc.value) and "disk-backed" in str(exc.value)
        assert not target.exists()
    finally:
        shutil.rmtree(target.parent, ignore_errors=True)


def test_existing_foreign_file_is_refused_for_writes_and_left_unchanged(scratch_dir):
    decoy = scratch_dir / "decoy.bin"
    decoy.write_bytes(b"precious" * 1000)
    before = decoy.read_bytes()
    with pytest.raises(LabError, match="was not created by the lab"):
        prepare_target(decoy, "64m", writes=True)
    assert decoy.read_bytes() == before
    # reading a foreign file is allowed
    assert prepare_target(decoy, "4k", writes=False).path == decoy


def test_lab_file_is_accepted_and_removed_only_when_marked(scratch_dir):
    f = scratch_dir / "lab.bin"
    f.write_bytes(b"x")
    assert not remove_scratch(f) and f.exists()
    write_sidecar(f, prefilled_bytes=0)
    assert is_lab_file(f)
    assert prepare_target(f, "1m", writes=True).size_bytes == 1048576
    assert remove_scratch(f) and not f.exists() and not is_lab_file(f)


def test_not_enough_free_space_is_one_sentence(scratch_dir):
    free = shutil.disk_usage(scratch_dir).free
    with pytest.raises(LabError) as exc:
        check_free_space(scratch_dir, free)  # free space minus margin is not enough
    msg = str(exc.value)
    assert msg.startswith("not enough free space") and "lower SIZE" in msg
    check_free_space(scratch_dir, max(1, free - FREE_SPACE_MARGIN - 1024**2))


def test_huge_size_is_refused_by_prepare(scratch_dir):
    with pytest.raises(LabError, match="not enough free space"):
        prepare_target(scratch_dir / "new.bin", "1000t", writes=True)
    assert not (scratch_dir / "new.bin").exists()


def test_bad_size_spelling(scratch_dir):
    with pytest.raises(LabError, match="SIZE '1gb' is not a size"):
        prepare_target(scratch_dir / "new.bin", "1gb", writes=True)
