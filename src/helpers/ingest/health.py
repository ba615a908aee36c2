"""SMART / health captures -> the ``health`` dataset (one row per capture) and each point's throttling verdict.

A lab sweep keeps every health capture of a point verbatim in ``<point_id>.health.jsonl`` next to its JSON
(:class:`helpers.run.smart.PointHealth`: before fio starts, every 10 s while a long point runs, after it).
Ingest parses them again with the parsers of :mod:`helpers.run.smart` into rows: the point, the phase, the
time since fio was launched, the device temperature and the counters the throttling verdict reads.  A
capture that gave no health data is a row too, with the reason in ``error``.  The device's own thresholds,
read once per run (``device-thresholds.jsonl`` beside the point files, :func:`helpers.run.smart.read_thresholds`),
fill the rows whose capture carries none (``threshold_source`` says where each came from).

:func:`throttle_verdicts` applies :func:`helpers.run.smart.throttle_check` to each point's rows; ingest
turns the verdicts into the results' ``flag_throttled`` (:func:`helpers.processed.validity.add_flags`).
Runs without health files (no SMART source, foreign files, runs made before the lab read device health)
give an empty dataset; why a run has none is the manifest's ``health.note``.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.processed import schema, store
from helpers.run.smart import (
    HEALTH_SUFFIX,
    THRESHOLDS_FILE,
    parse_capture,
    read_thresholds_file,
    throttle_check,
    with_thresholds,
)

COLUMNS = schema.column_names(schema.HEALTH_COLUMNS)
_DTYPES = schema.dtypes(schema.HEALTH_COLUMNS)
VERDICT_COLUMNS = ["point_id", "throttled", "throttle_reason"]


@functools.lru_cache(maxsize=1)
def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.HEALTH_COLUMNS})


def empty_frame() -> pd.DataFrame:
    """The typed empty health frame (a fresh copy: building it costs more than the walk that finds no file)."""
    return _empty().copy()


def is_health_file(name: str) -> bool:
    """A point's health captures or the run's threshold captures (both read here, neither fio output)."""
    return (name.endswith(HEALTH_SUFFIX) or name == THRESHOLDS_FILE) and not name.startswith(".")


def _is_point_file(name: str) -> bool:
    return name.endswith(HEALTH_SUFFIX) and not name.startswith(".")


def health_files(paths: list[Path]) -> list[tuple[Path, str]]:
    """(file, path relative to the common folder of ``paths``) of every health file below ``paths``."""
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = os.path.commonpath([str(b.resolve()) for b in bases]) if bases else "."
    found = []
    for p in paths:
        if p.is_file():
            if _is_point_file(p.name):
                found.append(p)
            continue
        for folder, dirs, files in os.walk(p):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d))]
            found += [Path(folder) / f for f in files if _is_point_file(f)]
    return sorted((f, os.path.relpath(os.path.realpath(f), base)) for f in set(found))


def file_rows(path: Path, source_file: str, thresholds: dict | None = None) -> list[dict]:
    """The rows of one health file (lines that are not JSON objects are skipped), with the run's
    ``thresholds`` (:func:`helpers.run.smart.read_thresholds_file`) where a capture carries none."""
    point = Path(path).name[: -len(HEALTH_SUFFIX)]
    rows = []
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return rows
    for line in text.splitlines():
        try:
            raw = json.loads(line)
        except ValueError:
            continue
        if not isinstance(raw, dict):
            continue
        h = with_thresholds(parse_capture(raw), thresholds)
        rows.append({
            "point_id": point, "source_file": source_file, "phase": raw.get("phase"), "t_s": raw.get("t_s"),
            "source": h.get("source") or {"nvme": "nvme-cli"}.get(str(raw.get("parser")), raw.get("parser")),
            **{c: h.get(c) for c in ("temperature_c", "warning_temp_c", "critical_temp_c", "threshold_source",
                                     "thermal_transitions", "thermal_time_s", "warning_temp_min",
                                     "critical_temp_min")},
            "error": h.get("error"),
        })
    return rows


def health_frame(paths: list[Path] | Path, run_id: str) -> pd.DataFrame:
    """Every health capture below ``paths`` as rows of the ``health`` dataset (empty when there are none)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    thresholds = functools.cache(lambda folder: read_thresholds_file(folder / THRESHOLDS_FILE))
    rows = [r for f, rel in health_files(paths) for r in file_rows(f, rel, thresholds(f.parent))]
    if not rows:
        return empty_frame()
    df = pd.DataFrame(rows)
    df.insert(0, "run_id", run_id)
    df = df.astype(_DTYPES)[COLUMNS]
    return df.sort_values(["source_file", "t_s"], kind="stable").reset_index(drop=True)


def throttle_verdicts(health: pd.DataFrame) -> pd.DataFrame:
    """One row per point with health captures: ``throttled`` (boolean, <NA> when the captures cannot tell)
    and ``throttle_reason`` (the sentence of :func:`helpers.run.smart.throttle_check`)."""
    rows = []
    if health is not None and len(health):
        for point, g in health.sort_values("t_s", kind="stable").groupby("point_id", sort=True):
            caps: dict[str, list[dict]] = {"before": [], "during": [], "after": []}
            for r in g.to_dict("records"):  # back to the parsed captures throttle_check reads
                err = r.pop("error")
                cap = {"error": err} if pd.notna(err) else {k: None if pd.isna(v) else v for k, v in r.items()}
                caps.setdefault(r["phase"], []).append(cap)
            throttled, why = throttle_check(caps["before"][0] if caps["before"] else None,
                                            caps["after"][-1] if caps["after"] else None, caps["during"])
            rows.append({"point_id": point, "throttled": throttled, "throttle_reason": why})
    out = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    return out.astype({"point_id": "string", "throttled": "boolean", "throttle_reason": "string"})


def throttled_points(health: pd.DataFrame) -> dict[str, str]:
    """{point id: reason} of the points whose captures say the device throttled (what the flag needs)."""
    if health is None or health.empty:
        return {}
    v = throttle_verdicts(health)
    v = v[v["throttled"].fillna(False).astype(bool)]
    return dict(zip(v["point_id"].astype(str), v["throttle_reason"].astype(str)))


def ingest_health(health: pd.DataFrame, run_id: str, processed_dir: Path = config.PROCESSED_DIR) -> int:
    """Replace the run's ``health`` partition (written even when empty: 'no captures' is an answer)."""
    store.write_run(Path(processed_dir), config.HEALTH_DATASET, run_id, health)
    return len(health)
