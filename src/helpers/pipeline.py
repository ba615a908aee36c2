"""Headless pipeline used by the Makefile: notebooks executed with papermill, reports exported.

Notebook naming: ``00-09`` are stages (sweep, ingest), ``10-89`` analysis notebooks exported as
reports, ``90-99`` interactive-only notebooks (ipywidgets explorer) that are executed in tests
but not exported.

    python -m helpers.pipeline run-all [--target T] [--profile P] [--run R] [--runtime S] [--size N]
    python -m helpers.pipeline sweep|ingest|reports [--run R] ...
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import papermill as pm

from . import config
from .errors import LabError
from .manifest import check_run_id, default_run_id
from .reports import build_index, export_html
from .runs import latest_raw_run
from .sweep import plan_sweep

SWEEP_NB = "00-sweep.ipynb"
INGEST_NB = "01-ingest.ipynb"


def analysis_notebooks(notebooks_dir: Path = config.NOTEBOOKS_DIR) -> list[Path]:
    return sorted(p for p in notebooks_dir.glob("[1-8][0-9]-*.ipynb"))


def interactive_notebooks(notebooks_dir: Path = config.NOTEBOOKS_DIR) -> list[Path]:
    return sorted(p for p in notebooks_dir.glob("9[0-9]-*.ipynb"))


def execute(notebook: Path, out: Path, parameters: dict[str, Any]) -> Path:
    """Run ``notebook`` with papermill into ``out``; a failing cell becomes one LabError sentence."""
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        pm.execute_notebook(str(notebook), str(out), parameters=parameters, cwd=str(notebook.parent),
                            progress_bar=False, kernel_name="python3")
    except pm.PapermillExecutionError as exc:
        raise LabError(f"notebook {notebook.name} failed in cell {exc.exec_count}: {exc.ename}: "
                       f"{str(exc.evalue).strip()} (executed copy: {out}).") from None
    return out


def executed_path(run_id: str, notebook: Path) -> Path:
    return config.REPORTS_DIR / run_id / "notebooks" / notebook.name


def run_sweep_stage(run_id: str, target: str, profile: str, runtime_s: float, size: str) -> None:
    plan_sweep(target or config.DEFAULT_TARGET, profile, run_id, runtime_s or None, size)  # preflight: no I/O
    nb = config.NOTEBOOKS_DIR / SWEEP_NB
    execute(nb, executed_path(run_id, nb), {"target": target, "profile": profile, "run_id": run_id,
                                            "runtime_s": float(runtime_s), "size": size})


def run_ingest_stage(run_id: str) -> None:
    nb = config.NOTEBOOKS_DIR / INGEST_NB
    execute(nb, executed_path(run_id, nb), {"run_id": run_id})


def run_reports_stage(run_id: str) -> list[Path]:
    outs = []
    for nb in analysis_notebooks():
        executed = execute(nb, executed_path(run_id, nb), {"run_id": run_id})
        outs.append(export_html(executed, config.REPORTS_DIR / run_id / f"{nb.stem.split('-', 1)[1]}.html"))
    build_index()
    return outs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.pipeline", description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=["sweep", "ingest", "reports", "run-all"])
    ap.add_argument("--target", default="")
    ap.add_argument("--profile", default=config.DEFAULT_PROFILE)
    ap.add_argument("--run", default="")
    ap.add_argument("--runtime", type=float, default=0.0)
    ap.add_argument("--size", default=config.DEFAULT_SIZE)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        if args.stage in ("sweep", "run-all"):
            run_id = check_run_id(args.run or default_run_id())
            run_sweep_stage(run_id, args.target, args.profile, args.runtime, args.size)
            print(f"sweep: data/raw/{run_id} ({time.monotonic() - t0:.0f} s)")
        else:
            run_id = check_run_id(args.run or latest_raw_run())
        if args.stage in ("ingest", "run-all", "reports"):
            run_ingest_stage(run_id)
            print(f"ingest: data/processed/*/run_id={run_id} ({time.monotonic() - t0:.0f} s)")
        if args.stage in ("reports", "run-all"):
            outs = run_reports_stage(run_id)
            print(f"reports: {len(outs)} pages in reports/{run_id}/, index reports/index.html "
                  f"({time.monotonic() - t0:.0f} s)")
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
