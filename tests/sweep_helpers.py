"""Helpers shared by the sweep-engine tests (not fixtures: conftest.py is owned elsewhere)."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def write_profile(directory: Path, name: str, points: list[dict], **top) -> Path:
    settings = top.pop("settings", {"ioengine": "libaio", "runtime_s": 1, "ramp_s": 0})
    path = Path(directory) / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"description": name, "settings": settings, "points": points, **top}))
    return path


def sha256(path: Path, limit: int | None = None) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        left = limit
        while True:
            chunk = f.read(1 << 20 if left is None else min(1 << 20, left))
            if not chunk:
                break
            h.update(chunk)
            if left is not None:
                left -= len(chunk)
                if left <= 0:
                    break
    return h.hexdigest()


def fio_recorder(directory: Path, real_fio: str) -> tuple[Path, Path]:
    """A fio wrapper that logs every invocation to a file, then runs the real fio."""
    log = Path(directory) / "fio-invocations.log"
    wrapper = Path(directory) / "fio"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real_fio}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def sweep_cli(args: list[str], **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, "-m", "helpers.run.sweep", "--quiet", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def pipeline_env(base: Path) -> dict[str, str]:
    """The environment of ``python -m helpers.report.pipeline`` with its data, reports and locks under ``base``."""
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SSDLAB_DATA_DIR": str(base / "data"),
            "SSDLAB_REPORTS_DIR": str(base / "reports"), "SSDLAB_LOCK_DIR": str(base / "locks")}


def pipeline_cli(base: Path, *args: str, **kw) -> subprocess.Popen:
    """``python -m helpers.report.pipeline ARGS`` (what make runs), started."""
    return subprocess.Popen([sys.executable, "-m", "helpers.report.pipeline", *args], env=pipeline_env(base), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run_pipeline(base: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    p = pipeline_cli(base, *args)
    out, err = p.communicate(timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def resume_args(line: str) -> list[str]:
    """'make sweep RUN=x TARGET=y ...' -> the pipeline flags the Makefile would pass for those variables."""
    from helpers.run import options

    words = shlex.split(line)
    assert words[:2] == ["make", "sweep"]
    by_var = {o.make_var: o for o in options.MAKE_OPTIONS}
    return [f"{by_var[w.split('=', 1)[0]].cli_flag}={w.split('=', 1)[1]}" for w in words[2:]]


def wait_for(pred, timeout: float = 60.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("condition not reached in time")


def manifest(run_dir: Path) -> dict:
    try:
        return json.loads((Path(run_dir) / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def running_point(run_dir: Path, min_done: int = 1) -> str | None:
    """The id of the point being measured once at least ``min_done`` points are complete."""
    pts = manifest(run_dir).get("points", {})
    done = sum(1 for v in pts.values() if v.get("status") == "ok")
    running = [k for k, v in pts.items() if v.get("status") == "running"]
    return running[0] if running and done >= min_done else None


def fio_children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            comm = stat.split("(", 1)[1].rsplit(")", 1)[0]
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and comm == "fio":
            out.append(int(p.name))
    return out


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
