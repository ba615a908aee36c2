"""Locating fio, reading its version and the clock it times with (fault-injectable via the FIO env var)."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

from helpers import config
from helpers.errors import LabError

INSTALL_HINT = (
    "install it with 'sudo apt-get install fio' (Debian/Ubuntu), 'sudo dnf install fio' (Fedora/RHEL) "
    "or 'brew install fio' (macOS)"
)


def find_fio() -> str:
    """Absolute path of the fio binary, or LabError with install instructions."""
    name = config.fio_binary()
    path = shutil.which(name)
    if path is None:
        raise LabError(f"fio was not found ({name!r} is not on PATH): {INSTALL_HINT}.")
    return path


def fio_version(fio: str | None = None) -> str:
    fio = fio or find_fio()
    try:
        out = subprocess.run([fio, "--version"], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise LabError(f"fio at {fio} could not be started ({exc.strerror}).") from None
    if out.returncode != 0:
        raise LabError(f"'{fio} --version' failed with exit code {out.returncode}: {out.stderr.strip()[:200]}")
    return out.stdout.strip()


# fio's clock sources, by the number its time debug output prints (enum fio_cs in fio's time.h) and by the name its
# clocksource option takes
CLOCK_SOURCES = {1: "gettimeofday", 2: "clock_gettime", 3: "cpu"}
_CLOCK_LINE = re.compile(r"gettime: clocksource=(\d+)")


@functools.lru_cache(maxsize=8)
def fio_clocksource(fio: str) -> str | None:
    """The clock fio times I/O with on this machine, by its own rule: the CPU's clock where the TSC is invariant and
    passes fio's cross-CPU test, else clock_gettime.  fio makes that test at every start (70 ms of CPU here, a
    thread on each CPU) unless ``clocksource`` is given; asked once here (a job on the null engine, no I/O, with
    fio's time debug output), so a sweep can give every point the same clock.  None when fio does not say (built
    without debug output, a fio that fails): fio then decides per run, as it does without the lab."""
    try:
        out = subprocess.run([fio, "--debug=time", "--name=clock", "--ioengine=null", "--size=4k",
                              "--output-format=terse"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _CLOCK_LINE.findall(out.stdout) if out.returncode == 0 else []
    return CLOCK_SOURCES.get(int(found[-1])) if found else None
