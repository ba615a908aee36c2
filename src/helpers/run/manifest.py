"""The run manifest: ``data/raw/<RUN>/manifest.json``, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

from helpers import config
from helpers.errors import LabError
from helpers.fio.units import format_bytes

MANIFEST_NAME = "manifest.json"
_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def default_run_id() -> str:
    host = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{host}"


def check_run_id(run_id: str) -> str:
    run_id = str(run_id)
    if not _RUN_ID_RE.match(run_id):
        raise LabError(f"run id {run_id!r} is not valid: it must start with a letter or digit, followed by up to "
                       "127 letters, digits, '.', '_' or '-' (no slashes or spaces).")
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


def raw_runs(raw_dir: str | Path = "") -> list[str]:
    """Names of the run folders in ``raw_dir`` (a manifest or raw fio JSON inside), oldest first."""
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    if not rdir.is_dir():
        return []
    runs = [p for p in rdir.iterdir() if p.is_dir() and not p.name.startswith(".")
            and ((p / MANIFEST_NAME).exists() or any(p.glob("*.json")))]
    return [p.name for p in sorted(runs, key=lambda p: (p.stat().st_mtime, p.name))]


def check_run_exists(run_id: str, raw_dir: str | Path = "") -> str:
    """``run_id`` when ``raw_dir/<run_id>`` holds a run, else one sentence naming the runs there."""
    run_id = check_run_id(run_id)
    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    if run_id in raw_runs(rdir):
        return run_id
    runs = raw_runs(rdir)
    if not runs:
        raise LabError(f"there is no run {run_id!r} in {rdir}, and no run at all yet: 'make run-all' measures one.")
    shown = ", ".join(runs[-10:]) + (f" (and {len(runs) - 10} older)" if len(runs) > 10 else "")
    raise LabError(f"there is no run {run_id!r} in {rdir}: the runs there are {shown}.")


# ------------------------------------------------------------------------- a run id bound to its plan

PLAN_KEYS = {  # what a run id is bound to: key in manifest["plan"] -> how a refusal names it
    "target": "target",
    "size_bytes": "size",
    "profile": "profile",
    "profile_sha256": "profile content (sha256)",
    "runtime_s": "runtime override",
    "hosts": "hosts",
    "fio_version": "fio version",
}


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def pinned_plan(manifest: dict[str, Any]) -> dict[str, Any]:
    """The settings a run was started with: ``manifest["plan"]``, or for a manifest written before runs
    were pinned, what its other fields say (the runtime override was not recorded then)."""
    if not manifest:
        return {}
    if isinstance(manifest.get("plan"), dict):
        return manifest["plan"]
    old: dict[str, Any] = {}
    if isinstance(manifest.get("target"), dict) and manifest["target"].get("path"):
        old["target"] = manifest["target"]["path"]
    for key, src in (("size_bytes", "target_size_bytes"), ("profile", "profile"), ("fio_version", "fio_version")):
        if manifest.get(src) is not None:
            old[key] = manifest[src]
    if manifest.get("profile_yaml") is not None:
        old["profile_sha256"] = text_sha256(manifest["profile_yaml"])
    if manifest.get("points"):
        old["hosts"] = list(manifest.get("hosts") or [])
    return old


def _show(key: str, value: Any) -> str:
    if value in (None, [], ""):
        return "none"
    if key == "size_bytes":
        short = format_bytes(int(value))
        return short if short != str(int(value)) else f"{value} bytes"
    if key == "profile_sha256":
        return str(value)[:12]
    if key == "runtime_s":
        return f"{value:g} s"
    if key == "hosts":
        return ",".join(value)
    return str(value)


def plan_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """'size 1 GiB then, 64 MiB now' for every pinned setting that differs (keys missing in ``old`` are
    not compared)."""
    out = []
    for key, label in PLAN_KEYS.items():
        if key in old and key in new and old[key] != new[key]:
            out.append(f"{label} {_show(key, old[key])} then, {_show(key, new[key])} now")
    return out


def check_same_plan(run_dir: Path, run_id: str, new: dict[str, Any]) -> None:
    """Refuse (one sentence listing the differences) to reuse a run id with different settings."""
    diffs = plan_differences(pinned_plan(read_manifest(run_dir)), new)
    if diffs:
        raise LabError(f"run {run_id} was started with other settings ({'; '.join(diffs)}), so its points cannot "
                       f"be mixed with this sweep's: choose a new RUN, or resume {run_id} with the settings it was "
                       "started with.")
