"""Locating fio and reading its version (helpers.fio.binary): the real binary, and fakes for faults."""

from __future__ import annotations

import pytest

from helpers.errors import LabError
from helpers.fio.binary import find_fio, fio_version


def test_real_fio_found_and_versioned(fio_path, monkeypatch):
    monkeypatch.delenv("FIO", raising=False)
    assert find_fio() == fio_path
    assert fio_version().startswith("fio-3.")


def test_fio_env_override_points_at_another_binary(fake_fio):
    fio = fake_fio('echo "fio-9.99"')
    assert find_fio() == str(fio) and fio_version() == "fio-9.99"


def test_missing_fio_names_the_install_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("FIO", str(tmp_path / "fio"))
    with pytest.raises(LabError) as err:
        find_fio()
    msg = str(err.value)
    assert msg.startswith("fio was not found") and "\n" not in msg
    for hint in ("sudo apt-get install fio", "sudo dnf install fio", "brew install fio"):
        assert hint in msg


def test_broken_fio_is_one_sentence(fake_fio):
    fake_fio("echo 'fio: error while loading shared libraries: libaio.so.1' >&2; exit 127")
    with pytest.raises(LabError, match=r"--version' failed with exit code 127: fio: error while loading"):
        fio_version()
