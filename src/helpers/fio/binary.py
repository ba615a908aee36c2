"""Locating fio and reading its version (fault-injectable via the FIO env var)."""

from __future__ import annotations

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
