"""Locating fio, reading its version and the clock it times with (helpers.fio.binary): the real binary, and fakes
for faults."""

from __future__ import annotations

import re
import subprocess

import pytest

from helpers.errors import LabError
from helpers.fio.binary import CLOCK_SOURCES, find_fio, fio_clocksource, fio_version


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


def _clock_fio_chose(out: str) -> str:
    (n,) = set(re.findall(r"gettime: clocksource=(\d+)", out))
    return CLOCK_SOURCES[int(n)]


def test_real_fio_names_its_clock_and_a_job_told_that_clock_times_with_it(fio_path, tmp_path, monkeypatch):
    """The probe (null engine, no I/O: nothing written where it ran) reads the line a real job prints too; a job
    given a clock (as every sweep point is) times with it.  A job left to choose may pick either: this VM's vCPUs'
    TSCs are 35-345 ns apart (``fio --cpuclock-test`` fails), which fio's quick test at each start catches in about
    half the starts on the idle VM (41 of 80) and 9 of 119 beside make test, then it times with clock_gettime."""
    monkeypatch.chdir(tmp_path)
    fio_clocksource.cache_clear()
    clock = fio_clocksource(fio_path)
    assert clock in CLOCK_SOURCES.values() and list(tmp_path.iterdir()) == []
    data = tmp_path / "data.bin"
    data.write_bytes(b"\x5a" * (1 << 20))
    job = [fio_path, "--debug=time", "--name=real", f"--filename={data}", "--size=1m", "--rw=read", "--bs=64k",
           "--output-format=terse"]
    assert _clock_fio_chose(subprocess.run(job, capture_output=True, text=True, check=True).stdout) in {
        "cpu", "clock_gettime"}
    for told in {clock, "clock_gettime"}:
        out = subprocess.run(job + [f"--clocksource={told}"], capture_output=True, text=True, check=True).stdout
        assert _clock_fio_chose(out) == told


@pytest.mark.parametrize(("script", "clock"), [
    ('echo "time     15162 gettime: clocksource=2"', "clock_gettime"),
    ('echo "time 1 gettime: clocksource=1"; echo "time 1 gettime: clocksource=3"', "cpu"),  # the last decision
    ('echo "fio: unrecognized option --debug=time"', None),  # fio built without debug output
    ('echo "time 1 gettime: clocksource=3"; exit 1', None),  # a fio that failed
    ('echo "time 1 gettime: clocksource=9"', None),  # a clock this lab does not know
])
def test_a_fio_that_does_not_say_leaves_the_clock_to_fio(fake_fio, script, clock):
    fio_clocksource.cache_clear()
    assert fio_clocksource(str(fake_fio(script))) == clock


def test_a_missing_fio_has_no_clock(tmp_path):
    assert fio_clocksource(str(tmp_path / "no-fio")) is None
