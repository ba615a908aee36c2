"""Ingest: raw fio JSON files -> one row per job entry and direction with I/O.

Jobs with ``error != 0`` or with no I/O are never rows: they go to the quarantine list with
file, job and a one-sentence reason, as do files that hold no fio result.

Command line::

    python -m helpers.ingest PATH [PATH ...] --out DIR [--run RUN_ID]
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import config, schema, store
from .fio_json import FioParseError, parse_fio_bytes
from .manifest import MANIFEST_NAME, read_manifest
from .units import parse_size
from .validity import FLAG_COLUMNS, add_flags

DIRECTIONS = ("read", "write", "trim")
MIXED = ("rw", "readwrite", "randrw", "trimwrite")
NAN = float("nan")


@dataclass
class IngestResult:
    results: pd.DataFrame
    quarantine: pd.DataFrame
    files: int = 0
    messages: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{self.files} files, {len(self.results)} rows, {len(self.quarantine)} quarantined"


def _options(obj: dict, job: dict) -> dict[str, str]:
    g = obj.get("global options") or {}
    if isinstance(g, list):  # some fio versions/tools emit a one-item list
        g = g[0] if g and isinstance(g[0], dict) else {}
    return {**g, **(job.get("job options") or {})}


def _to_int(value: Any, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        return int(str(value).strip())
    except ValueError:
        return int(parse_size(str(value)))


def _bs_for(options: dict[str, str], direction: str) -> int:
    raw = options.get("bs", options.get("blocksize"))
    if raw is None:
        return 4096
    parts = [p.strip() for p in str(raw).split(",")]
    i = DIRECTIONS.index(direction)
    part = parts[i] if i < len(parts) else parts[-1]
    return parse_size(part) if part else 4096


def _rwmixread(options: dict[str, str], rw: str) -> float:
    if rw not in MIXED:
        return NAN
    if "rwmixread" in options:
        return float(options["rwmixread"])
    if "rwmixwrite" in options:
        return 100.0 - float(options["rwmixwrite"])
    return 50.0


def _latency(d: dict, name: str) -> tuple[dict | None, float]:
    """The latency stats block and its factor to microseconds (fio >= 3: *_ns; fio 2.x: µs)."""
    if isinstance(d.get(f"{name}_ns"), dict):
        return d[f"{name}_ns"], 1e-3
    if isinstance(d.get(name), dict):
        return d[name], 1.0
    return None, NAN


def _stat(block: dict | None, factor: float, key: str) -> float:
    if block is None or key not in block:
        return NAN
    return float(block[key]) * factor


def _job_rows(obj: dict, job: dict, index: int, base: dict[str, Any]) -> tuple[list[dict], str | None]:
    """Rows for one job entry, or ([], reason) when it is not a data point."""
    name = str(job.get("jobname", ""))
    err = job.get("error", 0)
    if err:
        return [], f"fio reported error {err} for this job (no valid I/O)."
    options = _options(obj, job)
    rw = str(options.get("rw", options.get("readwrite", "read"))).split(":")[0]
    rows = []
    for direction in DIRECTIONS:
        d = job.get(direction)
        if not isinstance(d, dict) or not d.get("total_ios"):
            continue
        lat, lf = _latency(d, "lat")
        clat, cf = _latency(d, "clat")
        slat, sf = _latency(d, "slat")
        pct = (clat or {}).get("percentile") or {}
        row = {
            **base,
            "point_id": name,
            "group": base["groups"].get(name),
            "job_name": name,
            "job_index": index,
            "rw": rw,
            "direction": direction,
            "bs_bytes": _bs_for(options, direction),
            "iodepth": _to_int(options.get("iodepth"), 1),
            "numjobs": _to_int(options.get("numjobs"), 1),
            "rwmixread_pct": _rwmixread(options, rw),
            "ioengine": str(options.get("ioengine", "psync")),
            "direct": _to_int(options.get("direct"), 0),
            "group_reporting": str(options.get("group_reporting", "0")) not in ("0", "false"),
            "runtime_s": float(d.get("runtime", 0)) / 1000.0,
            "io_bytes": int(d.get("io_bytes", 0)),
            "total_ios": int(d["total_ios"]),
            "iops": float(d.get("iops", 0.0)),
            "bw_bytes_per_s": float(d["bw_bytes"]) if "bw_bytes" in d else float(d.get("bw", 0)) * 1024.0,
            "lat_mean_us": _stat(lat, lf, "mean"),
            "lat_stddev_us": _stat(lat, lf, "stddev"),
            "lat_min_us": _stat(lat, lf, "min"),
            "lat_max_us": _stat(lat, lf, "max"),
            "clat_mean_us": _stat(clat, cf, "mean"),
            "slat_mean_us": _stat(slat, sf, "mean"),
            "usr_cpu_pct": float(job.get("usr_cpu", NAN)),
            "sys_cpu_pct": float(job.get("sys_cpu", NAN)),
        }
        for key, col in schema.PERCENTILES.items():
            row[col] = float(pct[key]) * cf if key in pct else NAN
        rows.append(row)
    if not rows:
        return [], "the job completed no I/O in any direction (not a data point)."
    return rows, None


def rows_from_bytes(data: bytes, run_id: str, source_file: str, host: str | None = None,
                    groups: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    """(result rows, quarantine rows) for one raw file's bytes."""
    try:
        objs = parse_fio_bytes(data)
    except FioParseError as exc:
        return [], [{"run_id": run_id, "source_file": source_file, "job_name": None, "reason": str(exc)}]
    rows: list[dict] = []
    bad: list[dict] = []
    obj = objs[-1]  # status-interval output: the final object holds the final numbers
    base = {
        "run_id": run_id, "host": host, "fio_version": obj.get("fio version"), "source_file": source_file,
        "timestamp_s": obj.get("timestamp"), "groups": groups or {},
    }
    jobs = obj.get("jobs") if "jobs" in obj else obj.get("client_stats")
    if not isinstance(jobs, list):
        return [], [{"run_id": run_id, "source_file": source_file, "job_name": None,
                     "reason": "the 'jobs' entry is not a list (wrong schema)."}]
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            bad.append({"run_id": run_id, "source_file": source_file, "job_name": None,
                        "reason": f"job entry {i} is not an object (wrong schema)."})
            continue
        if job.get("jobname") == "All clients":
            continue
        job_base = {**base, "host": job.get("hostname", host)}
        try:
            jr, reason = _job_rows(obj, job, i, job_base)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            jr, reason = [], f"job fields have an unexpected form ({type(exc).__name__}: {str(exc)[:80]})."
        if reason:
            bad.append({"run_id": run_id, "source_file": source_file, "job_name": job.get("jobname"),
                        "reason": reason})
        rows.extend(jr)
    for r in rows:
        r.pop("groups", None)
    return rows, bad


def to_frames(rows: list[dict], bad: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    flag_names = schema.column_names(FLAG_COLUMNS)
    res = pd.DataFrame(rows, columns=[c for c in schema.column_names() if c not in flag_names])
    res = add_flags(res)
    for col, dtype in schema.dtypes().items():
        if dtype == "bool":
            res[col] = res[col].fillna(False).astype(bool)
        elif dtype == "int64" and res[col].isna().any():
            res[col] = res[col].astype("Int64")
        else:
            res[col] = res[col].astype(dtype)
    q = pd.DataFrame(bad, columns=schema.column_names(schema.QUARANTINE_COLUMNS)).astype(
        schema.dtypes(schema.QUARANTINE_COLUMNS))
    return res, q


def raw_files(path: Path) -> list[Path]:
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.json")
                  if p.name != MANIFEST_NAME and not p.name.startswith(".") and p.is_file())


def ingest_run(run_dir: Path, run_id: str | None = None) -> IngestResult:
    """Ingest every raw file of one run folder (DataFrames only; nothing is written)."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    run_id = run_id or manifest.get("run_id") or run_dir.name
    groups = {k: v.get("parameters", {}).get("group") for k, v in manifest.get("points", {}).items()}
    rows: list[dict] = []
    bad: list[dict] = []
    files = raw_files(run_dir)
    for f in files:
        rel = str(f.relative_to(run_dir)) if f != run_dir else f.name
        r, b = rows_from_bytes(f.read_bytes(), run_id, rel, host=manifest.get("host"), groups=groups)
        rows.extend(r)
        bad.extend(b)
    res, q = to_frames(rows, bad)
    return IngestResult(results=res, quarantine=q, files=len(files))


def write_ingest(result: IngestResult, run_id: str, processed_dir: Path = config.PROCESSED_DIR) -> None:
    store.write_run(processed_dir, config.RESULTS_DATASET, run_id, result.results)
    store.write_run(processed_dir, config.QUARANTINE_DATASET, run_id, result.quarantine)


def ingest(run_id: str, raw_dir: Path = config.RAW_DIR, processed_dir: Path = config.PROCESSED_DIR) -> IngestResult:
    """Ingest ``raw_dir/<run_id>`` and replace that run's partitions in ``processed_dir``."""
    result = ingest_run(Path(raw_dir) / run_id, run_id=run_id)
    write_ingest(result, run_id, processed_dir)
    return result


def ingest_from_parameters(run_id: str = "", raw_dir: str = "", processed_dir: str = "") -> IngestResult:
    """Notebook parameters ("" meaning "the default"; run "" = newest raw run) -> :func:`ingest`."""
    from .runs import latest_raw_run

    rdir = Path(raw_dir) if raw_dir else config.RAW_DIR
    return ingest(run_id or latest_raw_run(rdir), rdir, Path(processed_dir) if processed_dir else config.PROCESSED_DIR)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.ingest", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=config.PROCESSED_DIR)
    ap.add_argument("--run", default=None, help="run id (default: manifest run_id or folder name)")
    args = ap.parse_args(argv)
    for p in args.paths:
        if not p.exists():
            print(f"error: {p} does not exist.", file=sys.stderr)
            return 2
        res = ingest_run(p, run_id=args.run)
        run_id = args.run or read_manifest(p).get("run_id") or (p.name if p.is_dir() else p.stem)
        write_ingest(res, run_id, args.out)
        print(f"{run_id}: {res.summary()} -> {args.out}")
        for _, q in res.quarantine.iterrows():
            print(f"  quarantined {q.source_file} [{q.job_name}]: {q.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
