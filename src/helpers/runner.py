"""Running fio: one process per point, argv lists (never shell strings), atomic raw files."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .fio_binary import find_fio
from .profiles import Point
from .units import format_bytes

# fio's default percentile list plus the deep tail; printed as keys like "99.990000".
PERCENTILES = "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"


def point_argv(fio: str, point: Point, target: Path, size_bytes: int, output: Path) -> list[str]:
    """The full fio command line for one sweep point."""
    argv = [
        fio,
        f"--name={point.point_id}",
        f"--filename={target}",
        f"--size={size_bytes}",
        f"--rw={point.rw}",
        f"--bs={point.bs_bytes}",
        f"--iodepth={point.iodepth}",
        f"--numjobs={point.numjobs}",
        f"--ioengine={point.ioengine}",
        f"--direct={point.direct}",
        "--time_based=1",
        f"--runtime={point.runtime_s:g}s",
        f"--ramp_time={point.ramp_s:g}s",
        "--group_reporting=1",
        "--randrepeat=0",
        f"--percentile_list={PERCENTILES}",
        "--output-format=json+",
        f"--output={output}",
    ]
    if point.rwmixread is not None:
        argv.insert(6, f"--rwmixread={point.rwmixread}")
    return argv


def prefill_argv(fio: str, target: Path, size_bytes: int, output: Path) -> list[str]:
    """Sequential write of the whole target so that later reads hit written data."""
    return [
        fio, "--name=prefill", f"--filename={target}", f"--size={size_bytes}", "--rw=write", "--bs=1m",
        "--iodepth=16", "--ioengine=libaio", "--direct=1", "--output-format=json", f"--output={output}",
    ]


@dataclass
class PointResult:
    point_id: str
    status: str  # "ok" or "failed"
    raw_file: str | None
    seconds: float
    returncode: int
    stderr: str
    argv: list[str]


def run_fio(argv: list[str], output: Path, final: Path, timeout: float | None = None) -> tuple[int, str, float]:
    """Run fio writing to ``output`` (a temp name), then rename to ``final`` atomically.

    Returns (returncode, stderr+stdout text, seconds).  On failure the partial output is kept
    under ``final`` only if fio wrote something; the caller decides where failures go.
    """
    t0 = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except BaseException:
        output.unlink(missing_ok=True)
        raise
    seconds = time.monotonic() - t0
    text = (proc.stderr + proc.stdout).strip()
    if output.exists():
        os.replace(output, final)
    return proc.returncode, text, seconds


def run_point(point: Point, target: Path, size_bytes: int, run_dir: Path, fio: str | None = None) -> PointResult:
    """Run one point; the raw JSON lands verbatim in ``run_dir/<point_id>.json`` (or failed/)."""
    fio = fio or find_fio()
    tmp = run_dir / f".{point.point_id}.json.tmp"
    argv = point_argv(fio, point, target, size_bytes, tmp)
    timeout = point.runtime_s + point.ramp_s + 120
    final = run_dir / f"{point.point_id}.json"
    rc, text, seconds = run_fio(argv, tmp, final, timeout=timeout)
    if rc != 0:
        failed_dir = run_dir / "failed"
        failed_dir.mkdir(exist_ok=True)
        if final.exists():
            os.replace(final, failed_dir / final.name)
        (failed_dir / f"{point.point_id}.stderr.txt").write_text(text + "\n")
        return PointResult(point.point_id, "failed", None, seconds, rc, text[-2000:], argv)
    return PointResult(point.point_id, "ok", final.name, seconds, rc, text[-2000:], argv)


def describe_point(point: Point) -> str:
    mix = f" {point.rwmixread}% read" if point.rwmixread is not None else ""
    return f"{point.rw} {format_bytes(point.bs_bytes)} QD{point.iodepth} x{point.numjobs}{mix}"
