"""Headless pipeline used by the Makefile: notebooks executed with papermill, reports exported.

Notebook naming: ``00-09`` are stages (sweep, ingest), ``10-89`` analysis notebooks exported as
reports, ``90-99`` interactive-only notebooks (ipywidgets explorer) that are executed in tests
but not exported.

    python -m helpers.report.pipeline run-all [--target T] [--profile P] [--run R] [--runtime S] [--size N]
    python -m helpers.report.pipeline sweep|ingest|reports [--run R] ...
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tqdm import tqdm

from helpers import config
from helpers.errors import LabError
from helpers.ingest.traces import trace_ios
from helpers.report.export import COMPARE_DIR, analysis_notebooks, build_index, export_html, report_name
from helpers.run.manifest import check_run_exists, check_run_id, default_run_id, latest_raw_run, read_manifest
from helpers.run.options import ArgumentParser, notebook_parameters
from helpers.run.sweep import (
    PROGRESS_NAME,
    TERMINAL_PROGRESS_ENV,
    SweepPlan,
    add_sweep_arguments,
    plan_sweep,
    sweep_options,
)
from helpers.run.sweep import dry_run as sweep_dry_run

SWEEP_NB = "00-sweep.ipynb"
INGEST_NB = "01-ingest.ipynb"
KERNEL_NAME = "python3"  # the kernel every notebook runs on (the notebooks' kernelspec; nbval's tests use it too)
COMPARE_NB = "16-compare.ipynb"  # `make reports RUN=a,b` builds this page for the runs together
REPORT_WORKERS = 2  # notebooks executed at once by the reports stage (one kernel process each)
_IPC_COUNTER = itertools.count()
# The kernel's own log goes to the user's terminal: keep it to fatal errors.  A failing cell is reported
# by the pipeline from the executed notebook; an interrupted cell would otherwise add "KeyboardInterrupt
# caught in kernel" lines.
# The kernel's own log and asyncio's and tornado's shutdown chatter ("Task was destroyed but it is pending!"
# when Ctrl-C stops a kernel mid-message; "Uncaught exception in ZMQStream callback ... Socket operation on
# non-socket" with a ZMQ traceback when its control thread flushes output after the sockets closed, seen under
# load) stay out of the user's terminal; errors in cells still reach the pipeline.
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL",
                    "--IPKernelApp.exec_lines=import logging as _logging; _logging.getLogger('asyncio').setLevel(50); "
                    "_logging.getLogger('tornado').setLevel(50)"]


class Interrupted(Exception):
    """Ctrl-C stopped a notebook; the pipeline prints one message saying what is kept and what to run."""

    def __init__(self, notebook: str, plan: SweepPlan | None = None):
        super().__init__(notebook)
        self.notebook, self.plan = notebook, plan


def interactive_notebooks(notebooks_dir: Path = config.NOTEBOOKS_DIR) -> list[Path]:
    return sorted(p for p in notebooks_dir.glob("9[0-9]-*.ipynb"))


def kernel_config():
    """Kernels talk to the pipeline over local IPC sockets (files), not TCP: nothing listens on a port,
    and ipykernel has no reason for its 'Kernel is running over TCP without encryption' warning.  The
    socket path is short (AF_UNIX paths are limited to ~107 bytes) and unique per kernel."""
    # Jupyter's machinery loads only when a notebook runs (the CLI's refusals stay fast)
    from traitlets.config import Config

    ip = Path(tempfile.gettempdir()) / f"ssdlab-kernel-{os.getpid()}-{next(_IPC_COUNTER)}"
    return Config({"KernelManager": {"transport": "ipc", "ip": str(ip)}})


def _kernel_pids() -> list[int]:
    """This process's children that are Jupyter kernels (papermill starts them in a session of their own,
    so the terminal's Ctrl-C does not reach them)."""
    me, out = os.getpid(), []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == me and b"kernel" in (p / "cmdline").read_bytes():
                out.append(int(p.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


class _CtrlC:
    """While notebooks run, Ctrl-C is handed to their kernels, as JupyterLab's 'interrupt' does: the cell
    stops like a KeyboardInterrupt there (the sweep stops fio and records where it stopped) and the
    notebook ends with that error, instead of the pipeline dying mid-conversation with the kernel (ZMQ
    and asyncio tracebacks, a kernel killed without cleaning up).  With no kernel running, or at the third
    Ctrl-C, it is a KeyboardInterrupt here.  The handler is installed by the main thread (nested uses
    share it); ``count`` also works in worker threads that execute notebooks."""

    presses = 0  # Ctrl-C presses seen by the handler (process-wide)
    _depth = 0
    _old: Any = None

    def __enter__(self) -> _CtrlC:
        self.start = _CtrlC.presses
        self.installed = threading.current_thread() is threading.main_thread()
        if self.installed:
            if _CtrlC._depth == 0:
                _CtrlC.presses = 0
                _CtrlC._old = signal.signal(signal.SIGINT, _CtrlC._handler)
            _CtrlC._depth += 1
        return self

    @property
    def count(self) -> int:
        """Ctrl-C presses since this context was entered."""
        return _CtrlC.presses - self.start

    @staticmethod
    def _handler(signum, frame) -> None:
        _CtrlC.presses += 1
        kernels = _kernel_pids()
        if not kernels or _CtrlC.presses > 2:
            raise KeyboardInterrupt
        if _CtrlC.presses == 1:
            print("\nstopping (Ctrl-C): interrupting the running notebook; what is finished is kept...",
                  file=sys.stderr, flush=True)
        for pid in kernels:
            try:
                os.kill(pid, signal.SIGINT)
            except OSError:
                pass

    def __exit__(self, *exc) -> None:
        if self.installed:
            _CtrlC._depth -= 1
            if _CtrlC._depth == 0:
                signal.signal(signal.SIGINT, _CtrlC._old)


def execute(notebook: Path, out: Path, parameters: dict[str, Any]) -> Path:
    """Run ``notebook`` with papermill into ``out``; a failing cell becomes one LabError sentence, Ctrl-C
    becomes :class:`Interrupted`."""
    config.skip_slow_optional_imports()
    import papermill as pm  # ~1 s of imports (nbformat, jsonschema): paid when a notebook runs, not when
    # the command line refuses its arguments in one sentence

    with _CtrlC() as ctrl_c:
        if _CtrlC.presses:  # Ctrl-C was pressed while another notebook ran: start no new one
            raise Interrupted(notebook.name)
        out.parent.mkdir(parents=True, exist_ok=True)
        # the sweep and ingest stages (minutes) keep their executed copy current after every cell, so it shows
        # what ran if the process is killed; an analysis notebook (seconds) is written once, at its end or with
        # its failing cell: writing it after every cell serialized every figure again each time (10-queue-depth:
        # 1.9 s of the pipeline's CPU, 0.2 s written once)
        every_cell = notebook.name in (SWEEP_NB, INGEST_NB)
        try:
            pm.execute_notebook(str(notebook), str(out), parameters=parameters, cwd=str(notebook.parent),
                                progress_bar=False, kernel_name=KERNEL_NAME, config=kernel_config(),
                                extra_arguments=KERNEL_ARGUMENTS, request_save_on_cell_execute=every_cell,
                                autosave_cell_every=30 if every_cell else 0)
        except pm.PapermillExecutionError as exc:
            if ctrl_c.count or exc.ename in ("KeyboardInterrupt", "SweepInterrupted"):
                raise Interrupted(notebook.name) from None
            raise LabError(f"notebook {notebook.name} failed in cell {exc.exec_count}: {exc.ename}: "
                           f"{str(exc.evalue).strip()} (executed copy: {out}).") from None
        except KeyboardInterrupt:
            raise Interrupted(notebook.name) from None
    if ctrl_c.count:  # Ctrl-C between two cells: the kernel was not running code, stop here all the same
        raise Interrupted(notebook.name)
    return out


def executed_path(run_id: str, notebook: Path, reports_dir: Path = config.REPORTS_DIR) -> Path:
    return Path(reports_dir) / run_id / "notebooks" / notebook.name


class TerminalProgress:
    """Renders the sweep's ``<run>/.sweep.progress`` (written by the kernel) as a tqdm bar on this
    process's stderr, refreshed while fio runs: points done / total, elapsed, ETA and the current point."""

    def __init__(self, run_dir: Path, file=None, interval: float | None = None):
        self.path = Path(run_dir) / PROGRESS_NAME
        self.file = file or sys.stderr
        tty = hasattr(self.file, "isatty") and self.file.isatty()
        self.interval = interval or (0.5 if tty else 1.0)
        self.since = time.time()
        self.bar: tqdm | None = None
        self.closed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sweep-progress", daemon=True)

    def __enter__(self) -> TerminalProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.render()
        self.close()

    def close(self) -> None:
        if self.bar is not None and not self.closed:
            self.closed = True
            self.bar.close()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.render()

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if data.get("started", 0) >= self.since - 1 else {}  # not an older sweep's file

    def render(self) -> None:
        data = self.read()
        if not data or self.closed:
            return
        total, done = data.get("total"), int(data.get("done") or 0)
        if self.bar is None:
            fmt = ("{desc}: {n_fmt}/{total_fmt} points |{bar:24}| {elapsed} elapsed{postfix}" if total is not None
                   else "{desc}: {n_fmt} points, {elapsed} elapsed{postfix}")
            self.bar = tqdm(total=total, initial=done, desc=f"sweep {data.get('run_id', '')}", file=self.file,
                            bar_format=fmt, mininterval=0, dynamic_ncols=True)
        now = time.time()
        in_point = now - data["current_started"] if data.get("current_started") else 0.0
        parts = []
        if data.get("remaining_seconds") is not None and data.get("status") == "running":
            left = max(0.0, data["remaining_seconds"] - min(in_point, data.get("current_seconds") or 0.0))
            parts.append(f"ETA {tqdm.format_interval(left)}")
        if data.get("failed"):
            parts.append(f"{data['failed']} failed")
        if data.get("current") and data.get("status") == "running":
            parts.append(f"now: {data['current']} ({in_point:.0f} s)")
        elif data.get("status") != "running":
            parts.append(str(data.get("status")))
        self.bar.n = done
        self.bar.set_postfix_str(", ".join(parts), refresh=False)
        self.bar.refresh()
        if data.get("status") != "running":  # finished or interrupted: the last line stays as it is
            self.close()


def run_sweep_stage(run_id: str, target: str = "", profile: str = "", runtime_s: float = 0.0, size: str = "",
                    options: dict[str, Any] | None = None) -> SweepPlan | None:
    """Preflight (no I/O), announce, then execute the sweep notebook with a live progress bar in the
    terminal.  ``options``: the other :data:`helpers.run.options.SWEEP_OPTIONS` values (hosts, dry_run,
    safety overrides).  Returns the plan, or None for a dry run (nothing ran)."""
    values = {**(options or {}), "run_id": run_id, "target": target, "profile": profile, "runtime_s": runtime_s,
              "size": size}
    plan = plan_sweep(**values, trace_reader=trace_ios)  # preflight: no I/O (hosts and locks checked here)
    if plan.dry_run:
        sweep_dry_run(plan)
        return None
    nb = config.NOTEBOOKS_DIR / SWEEP_NB
    print(f"sweep: {plan.announcement()} (notebook: {executed_path(run_id, nb)})", flush=True)
    for warning in plan.warnings:
        print(warning, file=sys.stderr, flush=True)
    params = notebook_parameters(values)
    os.environ[TERMINAL_PROGRESS_ENV] = "1"  # the kernel inherits it: its own bar stays quiet
    try:
        with TerminalProgress(plan.run_dir):
            execute(nb, executed_path(run_id, nb), params)
    except Interrupted as exc:
        exc.plan = plan  # for the resume command
        raise
    finally:
        os.environ.pop(TERMINAL_PROGRESS_ENV, None)
    return plan


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


def run_ingest_stage(run_id: str) -> str | None:
    """Execute the ingest notebook on ``run_id``; its summary line (:func:`ingest_summary`)."""
    nb = config.NOTEBOOKS_DIR / INGEST_NB
    return ingest_summary(execute(nb, executed_path(run_id, nb), {"run_id": run_id}))


def ingest_summary(executed: Path) -> str | None:
    """What the ingest read, as its notebook printed it (``IngestResult.summary``: '12 files: 12 results
    (24 rows), 60 fio logs (1,200 windows), 0 quarantined'): the first line of the executed notebook's
    output; None when it printed nothing."""
    try:
        cells = json.loads(Path(executed).read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return None
    for cell in cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                text = "".join(out.get("text", ""))
                if text.strip():
                    return text.strip().splitlines()[0]
    return None


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


def comparison_name(run_ids: list[str]) -> str:
    """'new-vs-base' for two runs (the compare page's first run is the base), 'a+b+c-vs-base' for more."""
    return f"{'+'.join(run_ids[1:])}-vs-{run_ids[0]}"


def run_compare_stage(run_ids: list[str], processed_dir: Path = config.PROCESSED_DIR,
                      reports_dir: Path = config.REPORTS_DIR, raw_dirs: list[Path] | None = None) -> Path:
    """The compare page of ``run_ids`` together (first: the base): ``reports/compare/<new>-vs-<base>-page.html``,
    listed with the comparisons of the index (not as a run)."""
    nb = config.NOTEBOOKS_DIR / COMPARE_NB
    name = comparison_name(run_ids)
    cdir = Path(reports_dir) / COMPARE_DIR
    executed = execute(nb, cdir / "notebooks" / f"{name}.ipynb",
                       {"run_id": ",".join(run_ids), "processed_dir": str(processed_dir)})
    out = export_html(executed, cdir / f"{name}-page.html", reports_dir,
                      run=f"{' + '.join(run_ids[1:])} vs {run_ids[0]}", pages=[])
    build_index(reports_dir, raw_dirs)
    return out


def interrupted_message(stage: str, run_id: str, plan: SweepPlan | None, during: str) -> str:
    """What Ctrl-C leaves behind and the exact commands that carry on."""
    if during != SWEEP_NB or plan is None:
        return (f"interrupted: the {'ingest' if during == INGEST_NB else 'reports'} of run {run_id} stopped "
                f"({during}); the raw data is complete and kept.\n"
                f"carry on with: make reports RUN={run_id}")
    points = read_manifest(plan.run_dir).get("points", {})
    ok = sum(1 for v in points.values() if v.get("status") == "ok")
    stopped = next((k for k, v in points.items() if v.get("status") in ("interrupted", "running")), None)
    total = f" of {len(plan.profile.points)}" if plan.profile.mode == "grid" else ""
    where = f" during point {stopped}" if stopped else ""
    then = (f"then build the reports with: make reports RUN={run_id}" if stage == "sweep" else
            f"(it measures the remaining points, then builds the reports; 'make reports RUN={run_id}' builds them "
            "from the points done so far)")
    return (f"interrupted: sweep {run_id} stopped{where}; {ok}{total} points are done and kept (fio was stopped "
            "cleanly, the unfinished point is discarded and measured again on resume).\n"
            f"resume with: {plan.resume_command(stage)}\n{then}")


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m helpers.report.pipeline", description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=["sweep", "ingest", "reports", "run-all"])
    add_sweep_arguments(ap, make_only=True)  # the options the Makefile passes (--target, --profile, --run, ...)
    args = ap.parse_args(argv)
    state: dict[str, Any] = {"run_id": args.run_id, "plan": None}
    try:
        with _CtrlC():  # Ctrl-C goes to the running kernels (also those of worker threads)
            _stages(args.stage, sweep_options(args, make_only=True), state)
    except Interrupted as exc:
        print(interrupted_message(args.stage, state["run_id"], exc.plan or state["plan"], exc.notebook),
              file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # outside a notebook: in the preflight or between two stages
        if state["plan"] is None and args.stage in ("sweep", "run-all"):
            print("interrupted before the sweep started: nothing was measured.", file=sys.stderr)
        else:
            print(f"interrupted between two stages: run {state['run_id']}'s raw data is kept.\n"
                  f"carry on with: make reports RUN={state['run_id']}", file=sys.stderr)
        return 130
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _stages(stage: str, values: dict[str, Any], state: dict[str, Any]) -> None:
    """The stages ``stage`` asks for; ``state`` gets the run id and the sweep's plan as soon as known."""
    t0 = time.monotonic()
    if stage in ("sweep", "run-all"):
        run_id = state["run_id"] = check_run_id(values["run_id"] or default_run_id())
        plan = state["plan"] = run_sweep_stage(run_id, values["target"], values["profile"], values["runtime_s"],
                                               values["size"], {k: v for k, v in values.items() if k not in (
                                                   "run_id", "target", "profile", "runtime_s", "size")})
        if plan is None:
            return  # dry run: the commands were printed, nothing was written
        print(f"sweep: {plan.run_dir} ({time.monotonic() - t0:.0f} s)")
        warning = check_sweep_outcome(plan.run_dir)
        if warning:
            print(warning, file=sys.stderr)
    elif stage == "reports" and "," in (values["run_id"] or ""):  # RUN=a,b: the compare page of the runs
        ids = [check_run_exists(r.strip()) for r in values["run_id"].split(",") if r.strip()]
        state["run_id"] = ",".join(ids)
        if len(ids) < 2:
            raise LabError(f"RUN={values['run_id']} names one run: give two (base first) for the compare page.")
        for r in ids:
            run_ingest_stage(r)
        out = run_compare_stage(ids)
        print(f"reports: compare page {out.relative_to(config.ROOT) if out.is_relative_to(config.ROOT) else out}, "
              f"index reports/index.html ({time.monotonic() - t0:.0f} s)")
        return
    else:  # refused before anything is written when the run does not exist
        run_id = state["run_id"] = check_run_exists(values["run_id"] or latest_raw_run())
    if stage in ("ingest", "run-all", "reports"):
        read = run_ingest_stage(run_id)
        where = os.path.relpath(config.PROCESSED_DIR) if config.PROCESSED_DIR.is_relative_to(Path.cwd()) \
            else config.PROCESSED_DIR
        print(f"ingest: {read or 'nothing printed'} -> {where}, run {run_id} ({time.monotonic() - t0:.0f} s)")
    if stage in ("reports", "run-all"):
        outs = run_reports_stage(run_id)
        print(f"reports: {len(outs)} pages in reports/{run_id}/, index reports/index.html "
              f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    raise SystemExit(main())
