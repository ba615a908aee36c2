"""Finding fio's log files and the fio JSON each group belongs to (the rules: :mod:`helpers.ingest.timeseries`)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from helpers.fio import logs as fio_logs
from helpers.fio.json_output import FioParseError, parse_fio_bytes
from helpers.run.manifest import MANIFEST_NAME

_LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log")
# --- finding logs and their JSON --------------------------------------------------------------------

def find_log_groups(paths: list[Path], parsed_json: dict | None = None) -> list[tuple[Path, str, list[str]]]:
    """(JSON file, its source_file as ingest names it, its log files' paths) for every matched log group.
    ``parsed_json``, when given, collects the JSON files parsed on the way ({path: objects}) for reuse."""
    paths = [Path(p) for p in paths]
    bases = [p if p.is_dir() else p.parent for p in paths]
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases])) if bases else Path(".")
    logs_by_dir: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    jsons_by_dir: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        if p.is_file():
            folder = str(p.parent)
            jsons_by_dir[folder].append(str(p))
            for fname in sorted(os.listdir(folder)):
                m = fio_logs.LOG_NAME_RE.match(fname)
                if m and not fname.startswith(".") and fname.startswith(p.stem + "_"):
                    logs_by_dir[folder][m["prefix"]].append(os.path.join(folder, fname))
            continue
        for folder, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            for fname in sorted(files):
                if fname.startswith("."):
                    continue
                if fname.endswith(".json"):
                    if fname != MANIFEST_NAME:
                        jsons_by_dir[folder].append(os.path.join(folder, fname))
                    continue
                m = fio_logs.LOG_NAME_RE.match(fname)
                if m:
                    logs_by_dir[folder][m["prefix"]].append(os.path.join(folder, fname))
    out = []
    for folder, groups in logs_by_dir.items():
        jsons = jsons_by_dir.get(folder, [])
        stems = {os.path.splitext(os.path.basename(j))[0]: j for j in reversed(jsons)}
        by_option: dict[str, list[str]] | None = None
        for prefix, files in sorted(groups.items()):
            j = stems.get(prefix)
            if j is None:
                if by_option is None:  # every JSON of the folder read once, not once per log group
                    by_option = defaultdict(list)
                    for js in jsons:
                        for pre in _log_prefixes(Path(js), parsed_json):
                            by_option[pre].append(js)
                hits = by_option.get(prefix, [])
                j = hits[0] if len(hits) == 1 else (jsons[0] if len(jsons) == 1 else None)
            if j is not None:
                out.append((Path(j), os.path.relpath(os.path.realpath(j), base), files))
    return sorted(out, key=lambda t: t[1])


def _log_prefixes(j: Path, parsed_json: dict | None = None) -> set[str]:
    try:
        text = j.read_bytes()
        if b"_log" not in text:
            return set()
        objs = parse_fio_bytes(text)
    except (OSError, FioParseError):
        return set()
    if parsed_json is not None:
        parsed_json[j] = objs
    out = set()
    for obj in objs:
        opts = [obj.get("global options")] + [job.get("job options") for job in obj.get("jobs") or []
                                              if isinstance(job, dict)]
        for o in opts:
            if isinstance(o, dict):
                out.update(os.path.basename(str(o[k])) for k in _LOG_OPTIONS if o.get(k))
    return out


