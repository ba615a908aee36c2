"""The run manifest: ``data/raw/<RUN>/manifest.json``, written atomically."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

from helpers import config
from helpers.errors import LabError

MANIFEST_NAME = "manifest.json"
_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def default_run_id() -> str:
    host = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{host}"


def check_run_id(run_id: str) -> str:
    run_id = str(run_id)
    if not _RUN_ID_RE.match(run_id):
        raise LabError(f"run id {run_id!r} must be letters, digits, '.', '_' or '-' (no slashes or spaces).")
    return run_id


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str))
    os.replace(tmp, path)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / MANIFEST_NAME
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    write_json_atomic(Path(run_dir) / MANIFEST_NAME, manifest)


def latest_raw_run(raw_dir: str | Path = "") -> str:
    """The newest run folder (by its manifest's start time) in ``raw_dir``."""
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    runs = [p for p in rdir.iterdir() if (p / MANIFEST_NAME).exists()] if rdir.exists() else []
    if not runs:
        raise LabError(f"there is no run in {rdir}: run 'make sweep' first.")
    return max(runs, key=lambda p: (p / MANIFEST_NAME).stat().st_mtime).name
