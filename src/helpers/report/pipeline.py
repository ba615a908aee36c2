"""Headless pipeline used by the Makefile: notebooks executed with papermill, reports exported.

Notebook naming: ``00-09`` are stages (sweep, ingest), ``10-89`` analysis notebooks exported as
reports, ``90-99`` interactive-only notebooks (ipywidgets explorer) that are executed in tests
but not exported.

    python -m helpers.report.pipeline run-all [--target T] [--profile P] [--run R] [--runtime S] [--size N]
    python -m helpers.report.pipeline sweep|ingest|reports [--run R] ...
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import papermill as pm

from helpers import config
from helpers.errors import LabError
from helpers.report.export import build_index, export_html
from helpers.run.manifest import check_run_id, default_run_id, latest_raw_run, read_manifest
from helpers.run.sweep import add_sweep_arguments, plan_sweep, sweep_options
from helpers.run.sweep import dry_run as sweep_dry_run

SWEEP_NB = "00-sweep.ipynb"
INGEST_NB = "01-ingest.ipynb"
REPORT_WORKERS = 2  # notebooks executed at once by the reports stage (one kernel process each)


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


def executed_path(run_id: str, notebook: Path, reports_dir: Path = config.REPORTS_DIR) -> Path:
    return Path(reports_dir) / run_id / "notebooks" / notebook.name


def run_sweep_stage(run_id: str, target: str, profile: str, runtime_s: float, size: str,
                    options: dict[str, Any] | None = None) -> bool:
    """Preflight (no I/O), announce, then execute the sweep notebook.  ``options``: hosts, dry_run and
    the safety overrides of :func:`helpers.run.sweep.plan_sweep`.  Returns False for a dry run (nothing ran)."""
    options = dict(options or {})
    plan = plan_sweep(target or config.DEFAULT_TARGET, profile, run_id, runtime_s or None, size,
                      **options)  # preflight: no I/O (hosts checked here, before the sweep starts)
    if plan.dry_run:
        sweep_dry_run(plan)
        return False
    print(f"sweep: {plan.announcement()} "
          f"(progress: {executed_path(run_id, config.NOTEBOOKS_DIR / SWEEP_NB)})", flush=True)
    nb = config.NOTEBOOKS_DIR / SWEEP_NB
    params = {"target": target, "profile": profile, "run_id": run_id, "runtime_s": float(runtime_s), "size": size}
    for key in ("hosts", "allow_existing", "destroy_device", "ignore_signature", "read_only_ack"):
        value = options.get(key)
        params[key] = ",".join(value) if isinstance(value, list) else (value or "")
    try:
        execute(nb, executed_path(run_id, nb), params)
    except KeyboardInterrupt:
        raise LabError(f"sweep {run_id} was interrupted (fio stopped; completed points are kept): resume with "
                       f"'make sweep RUN={run_id} PROFILE={profile}' (same run id).") from None
    return True


def check_sweep_outcome(run_dir: Path) -> str | None:
    """Raise LabError when no point of the run succeeded; return a warning sentence when some failed."""
    points = read_manifest(run_dir).get("points", {})
    failed = {k: v for k, v in points.items() if v.get("status") != "ok"}
    if not failed:
        return None
    first_id, first = next(iter(failed.items()))
    msg = (first.get("fio_messages") or "no message").strip().splitlines()
    detail = f"{first_id}: fio exit {first.get('returncode')}, {msg[-1] if msg else 'no message'}"
    if len(failed) == len(points):
        raise LabError(f"every point of run {run_dir.name} failed, so there is nothing to analyse ({detail}).")
    return (f"warning: {len(failed)} of {len(points)} points failed and are not data points "
            f"(first: {detail}); see {run_dir / 'failed'}.")


def run_ingest_stage(run_id: str) -> None:
    nb = config.NOTEBOOKS_DIR / INGEST_NB
    execute(nb, executed_path(run_id, nb), {"run_id": run_id})


def report_name(notebook: Path) -> str:
    """``12-block-size.ipynb`` -> ``block-size``."""
    return notebook.stem.split("-", 1)[1]


def execute_all(notebooks: list[Path], out_dir: Path, parameters: dict[str, Any], workers: int = 1) -> list[Path]:
    """Execute ``notebooks`` (same parameters) into ``out_dir``, ``workers`` at a time (each kernel is its
    own process, so two workers use two cores); the executed copies, in input order."""
    def one(nb: Path) -> Path:
        return execute(nb, Path(out_dir) / nb.name, parameters)

    if workers <= 1 or len(notebooks) < 2:
        return [one(nb) for nb in notebooks]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, notebooks))


def run_reports_stage(run_id: str, processed_dir: Path = config.PROCESSED_DIR,
                      reports_dir: Path = config.REPORTS_DIR, raw_dirs: list[Path] | None = None,
                      workers: int = REPORT_WORKERS) -> list[Path]:
    """Execute every analysis notebook on ``run_id`` and export it to ``reports_dir/<run>/<name>.html``."""
    notebooks = analysis_notebooks()
    executed = execute_all(notebooks, executed_path(run_id, notebooks[0], reports_dir).parent,
                           {"run_id": run_id, "processed_dir": str(processed_dir)}, workers)
    outs = [export_html(ex, Path(reports_dir) / run_id / f"{report_name(nb)}.html")
            for nb, ex in zip(notebooks, executed)]
    build_index(reports_dir, raw_dirs)
    return outs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.report.pipeline", description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=["sweep", "ingest", "reports", "run-all"])
    ap.add_argument("--target", default="")
    ap.add_argument("--profile", default=config.DEFAULT_PROFILE)
    ap.add_argument("--run", default="")
    ap.add_argument("--runtime", type=float, default=0.0)
    ap.add_argument("--size", default=config.DEFAULT_SIZE)
    add_sweep_arguments(ap)  # sweep stage: --hosts, --dry-run, safety overrides
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        if args.stage in ("sweep", "run-all"):
            run_id = check_run_id(args.run or default_run_id())
            if not run_sweep_stage(run_id, args.target, args.profile, args.runtime, args.size, sweep_options(args)):
                return 0  # dry run: the commands were printed, nothing was written
            print(f"sweep: data/raw/{run_id} ({time.monotonic() - t0:.0f} s)")
            warning = check_sweep_outcome(config.RAW_DIR / run_id)
            if warning:
                print(warning, file=sys.stderr)
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
