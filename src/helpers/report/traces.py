"""``make import-trace FILE=... [RUN=...]``: block I/O traces -> the ``traces`` dataset -> the run's Workload page.

    python -m helpers.report.traces FILE [FILE ...] [--run RUN] [--no-page]
    python -m helpers.report.traces --run RUN            (the Workload page only, e.g. of a replay run)

Files are recognised by content (:mod:`helpers.ingest.traces`); the summary sentence says what was imported and
what was left out.  The page is ``reports/<RUN>/workload.html``; with ``RUN`` a sweep run, ``make reports RUN=...``
rebuilds it with the run's other pages.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from helpers import config
from helpers.errors import LabError
from helpers.ingest.traces import import_traces
from helpers.report import pipeline
from helpers.report.export import export_html, report_name
from helpers.run.manifest import check_run_id

WORKLOAD_NB = "25-workload.ipynb"


def default_run_id(paths: list[Path]) -> str:
    """``trace-<the first file's stem>`` (characters a run id cannot hold replaced by '-')."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(paths[0]).stem).strip("-.") or "import"
    return f"trace-{stem}"[:128]


def _paths(args: list[str]) -> list[Path]:
    """The files named (``a,b`` splits into two when no file of that whole name exists)."""
    out: list[Path] = []
    for a in args:
        out += [Path(a)] if Path(a).exists() or "," not in a else [Path(p) for p in a.split(",") if p]
    return out


def workload_page(run_id: str) -> Path:
    """Execute the Workload notebook for ``run_id`` and export it to reports/<run>/workload.html (linking only
    itself: a trace-only run has no other page)."""
    nb = config.NOTEBOOKS_DIR / WORKLOAD_NB
    out = pipeline.execute(nb, pipeline.executed_path(run_id, nb, config.REPORTS_DIR),
                           {"run_id": run_id, "processed_dir": str(config.PROCESSED_DIR)})
    name = f"{report_name(nb)}.html"
    return export_html(out, config.REPORTS_DIR / run_id / name, run=run_id, pages=[(name, "Workload")])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.report.traces", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="trace files or folders (formats recognised by content)")
    ap.add_argument("--run", default="", help="run id (default: trace-<first file's stem>); an existing sweep run "
                    "gets the traces beside its results")
    ap.add_argument("--no-page", action="store_true", help="import only, build no Workload page")
    args = ap.parse_args(argv)
    paths = _paths([f for f in args.files if f])
    missing = [str(p) for p in paths if not p.exists()]
    if missing or not (paths or args.run):
        print(f"error: {', '.join(missing) or 'no file'} does not exist (FILE=path[,path ...]).", file=sys.stderr)
        return 2
    try:
        run = check_run_id(args.run or default_run_id(paths))
        if paths:
            done, sentence = import_traces(paths, run, config.PROCESSED_DIR)
            print(sentence)
            if not any(len(t.ios) for t in done):
                print(f"error: no I/O was imported from {', '.join(map(str, paths))}.", file=sys.stderr)
                return 1
        if not args.no_page:
            print(f"Workload page: {workload_page(run)}")
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
