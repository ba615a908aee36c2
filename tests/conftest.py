"""Shared fixtures: real fio on small files, isolated data folders, fault-injection fakes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest
from nbval.plugin import IPyNbCell

from helpers import config
from helpers.report import pipeline
from nbval_lab import SAMPLE, SMOKE, SMOKE_RUN, session  # the notebooks' nbval pass (root conftest.py)

lab_session = session  # the hooks whose argument is pytest's own session reach it by this name

FIO = shutil.which("fio")
requires_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (apt-get install fio)")


@pytest.fixture(scope="session")
def fio_path() -> str:
    """The real fio binary; tests that need it are skipped (with the reason) when it is missing."""
    if FIO is None:
        pytest.skip("fio is not installed (apt-get install fio)")
    return FIO


@pytest.fixture(scope="session")
def scratch_dir(request) -> Path:
    """A disk-backed folder for fio targets (pytest's tmp is under /tmp; refuse tmpfs there); the smoke
    sweep's target is in it too."""
    return session(request.config).scratch_dir


@pytest.fixture(scope="session")
def scratch_file(scratch_dir):
    """A 64 MiB fio target of a test's own in the scratch folder, written once per name (filled with one byte, so it
    is allocated, never sparse): ``scratch_file("burst-target.bin")``."""
    def make(name: str, fill: bytes = b"\x22", size: int = 64 << 20) -> Path:
        target = scratch_dir / name
        if not target.exists() or target.stat().st_size != size:
            target.write_bytes(fill * size)
        return target
    return make


# --- the expensive, shared fixtures: one smoke sweep, every notebook executed once per data set ------------
#
# nbval validates every notebook (tests/nbval_lab.py), and its executions are the session's: 00-sweep makes the
# smoke sweep (64 MiB scratch file, smoke profile), 01-ingest ingests it, and every analysis and interactive
# notebook runs once on the bundled sample run (its default run_id, "latest").  Their cells run first in the
# worker that builds the session's notebooks; when 01-ingest is done, every analysis notebook is executed
# once on the smoke run (the reports stage, papermill, two kernels at a time) in a background thread while
# nbval goes on with the sample.  The notebook, report and browser tests read those executed copies.  A
# notebook nbval does not run in this session (`pytest tests/...`) is executed by the fixture that needs it,
# once (the sample set in a background thread from collection on, overlapping the unit tests).

HEAVY_FIXTURES = {"smoke_reports", "sample_reports"}
FIO_FIXTURES = {"fio_path", "fio_servers", "smoke_run", "smoke_processed", "smoke_reports", "modes_reports"}
NOTEBOOK_FIXTURES = {"smoke_run", "smoke_processed", "smoke_reports", "sample_reports", "modes_reports",
                     "interrupted_smoke_sweep"}  # they execute notebooks (the last: 00-sweep, by the pipeline)
_background: dict = {}
# With pytest-xdist (make test runs four workers), nbval's notebook cells and the modules whose tests use one of
# these run in the same worker, so each notebook is still executed once per session; other tests are spread a
# module at a time.
SESSION_CHAIN = {"smoke_run", "smoke_processed", "smoke_reports", "sample_reports"}
SESSION_FILES = {"tests/test_notebooks.py", "tests/test_reports.py", "tests/test_runs.py", "tests/test_browser.py"}
NOTEBOOKS_PREFIX = "notebooks/"  # nbval's items: notebooks/NAME.ipynb::Cell N
SESSION_GROUP = "session-notebooks"
# Other session fixtures shared by several modules: those modules are one xdist unit (one worker), so the
# fixture is made once.  fixture -> (unit, the modules that use it)
SHARED_UNITS = {"interrupted_smoke_sweep": ("interrupted-smoke-sweep", {"tests/test_pipeline_terminal.py",
                                                                         "tests/test_sweep_binding.py"})}
UNIT_OF_FILE = {f: unit for unit, files in SHARED_UNITS.values() for f in files}


def sample_notebooks() -> list[Path]:
    return pipeline.analysis_notebooks() + pipeline.interactive_notebooks()


def _is_nbval(item) -> bool:
    return isinstance(item, IPyNbCell)


def _heavy(item) -> int:
    """Sort key: nbval's notebook cells first (they make the data the session's fixtures read), then unit
    tests, notebook tests, browser tests."""
    if _is_nbval(item):
        return -1
    return 2 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("notebooks") else 0


def _in_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")


def _uses_chain(item) -> bool:
    return _is_nbval(item) or bool(set(getattr(item, "fixturenames", ())) & SESSION_CHAIN)


# The longest units outside the session chain (25-55 s each in make test): started early, so that no worker
# begins one of them when the others are nearly done (a scheduling hint only; measured Nov 2026).  The fio-bound
# ones first; JupyterLab (a kernel and a browser, CPU-bound) last, after the session's nbval pass, the suite's
# busiest minute and a half: beside it, under a busy loop and another suite's load, it failed once (the explorer's
# figure drawn without data); started after it, it passed in two loaded runs.
LONGEST_UNITS = ("interrupted-smoke-sweep", "tests/test_pts.py", "tests/test_compare_fio.py",
                 "tests/test_sweep_modes_page.py", "tests/test_ingest.py", "tests/test_sweep.py",
                 "tests/test_adaptive.py", "tests/test_browser_lab.py")


# The quick (CPU-only) units that take 3-10 s each in make test (measured Nov 2026): interleaved first, never in the
# tail, where one of them would keep its worker busy after the others finished (a scheduling hint only).
LONG_QUICK_UNITS = ("tests/test_analysis_knee.py", "tests/test_gate.py", "tests/test_pipeline.py",
                    "tests/test_analysis_card.py", "tests/test_analysis_runpair.py")
QUICK_TAIL_SHARE = 1 / 3  # of the quick units, kept for the end of the run


def _unit(item) -> str:
    """The xdist unit of a test outside the session chain: its module, or its SHARED_UNITS group."""
    module = item.nodeid.split("::")[0]
    return UNIT_OF_FILE.get(module, module)


def _waits(item) -> bool:
    """The test waits on fio, a notebook kernel or a browser (the disk, another process) for much of its time."""
    return any(item.get_closest_marker(m) for m in ("fio", "notebooks", "browser"))


def _xdist_sort(items) -> None:
    """With xdist workers, the units in this order: the session chain (its worker starts at once; nbval's cells
    first -- the smoke sweep, its ingest, the sample --, the browser tests last), LONGEST_UNITS, then the other
    units that wait on fio, a kernel or a browser interleaved with the quick CPU-only units (more of them towards
    the end), so that a worker waiting on the disk leaves its core to one computing (on three workers, with the
    quick units all last, the fio-bound stretch before them kept 0.8-1.3 of 2 cores busy), and the last third of
    the quick units ends the run, so that the workers finish within seconds of each other (a 10 s module that
    came last once kept one worker busy 10 s after the others).  Within a unit, file order."""
    waiting: dict[str, bool] = {}
    for it in items:
        if not _uses_chain(it):
            waiting[_unit(it)] = waiting.get(_unit(it), False) or _waits(it)
    slow = [u for u in waiting if waiting[u] and u not in LONGEST_UNITS]
    quick = [u for u in LONG_QUICK_UNITS if u in waiting and not waiting[u]] + [
        u for u in waiting if not waiting[u] and u not in LONGEST_UNITS + LONG_QUICK_UNITS]
    tail = quick[len(quick) - int(len(quick) * QUICK_TAIL_SHARE):] if quick else []
    head = quick[:len(quick) - len(tail)]
    order = [u for u in LONGEST_UNITS if u in waiting]
    # after the i-th waiting unit, the quick units up to ((i + 1) / n)^2 of the head: few beside the first waiting
    # units, which start while the session's notebooks and the longest units keep both cores busy, more later
    share = [len(head) * (i + 1) ** 2 // len(slow) ** 2 for i in range(len(slow))]
    for i, unit in enumerate(slow):
        order.append(unit)
        order += head[share[i - 1] if i else 0:share[i]]
    order += (head if not slow else []) + tail
    rank = {u: n for n, u in enumerate(order)}
    items.sort(key=lambda it: (0, _heavy(it)) if _uses_chain(it) else (1, rank[_unit(it)]))


def pytest_collection_modifyitems(config, items):
    for item in items:  # markers follow the fixtures a test uses, so `-m "not fio"` etc. are exact
        used = set(getattr(item, "fixturenames", ()))
        if used & FIO_FIXTURES:
            item.add_marker(pytest.mark.fio)
        if used & NOTEBOOK_FIXTURES:
            item.add_marker(pytest.mark.notebooks)
    if any("smoke_reports" in getattr(it, "fixturenames", ()) for it in items):
        session(config).listeners.append(_after_notebook)  # 01-ingest done: the smoke reports start
    if _in_xdist_worker(config):
        stray = sorted({it.nodeid.split("::")[0] for it in items if _uses_chain(it) and not _is_nbval(it)}
                       - SESSION_FILES)
        if stray:
            raise pytest.UsageError(f"{', '.join(stray)} use(s) the session notebooks: add to SESSION_FILES in "
                                    "tests/conftest.py so they run in the worker that builds them, once")
        for fixture, (_unit, files) in SHARED_UNITS.items():
            stray = sorted({it.nodeid.split("::")[0] for it in items if fixture in getattr(it, "fixturenames", ())}
                           - files)
            if stray:
                raise pytest.UsageError(f"{', '.join(stray)} use(s) {fixture}: add to SHARED_UNITS in "
                                        "tests/conftest.py so it is made once, in one worker")
        _xdist_sort(items)
        return  # the worker that gets the chain executes what nbval does not (smoke_run / sample_reports)
    items.sort(key=_heavy)  # stable: file order within each class


def pytest_collection_finish(session):
    """After ``-m``/``-k`` deselected (make test's quiet phase must not have the sample notebooks running beside
    it): a session without notebook validation whose selected tests need the sample reports starts them in the
    background, overlapping the unit tests."""
    config, items = session.config, session.items
    if _in_xdist_worker(config) or config.option.collectonly:
        return
    validated = {it.path.name for it in items if _is_nbval(it)}
    if (any(HEAVY_FIXTURES & set(getattr(it, "fixturenames", ())) for it in items)
            and not validated & {nb.name for nb in sample_notebooks()}):
        _start_sample_reports(lab_session(config))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``make test`` runs four xdist workers.  Work is handed out a module at a time (module fixtures run once),
    and nbval's notebooks and every module that reads the session's executed notebooks go to one worker as
    one unit, so each notebook is still executed once per session; the modules sharing another session
    fixture (SHARED_UNITS) are one unit too."""
    from xdist.scheduler import LoadScopeScheduling

    class SessionScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            if module in SESSION_FILES or module.startswith(NOTEBOOKS_PREFIX):
                return SESSION_GROUP
            return UNIT_OF_FILE.get(module, module)

    config.option.loadscopereorder = False  # keep the order the workers collected (see _xdist_sort)
    return SessionScheduling(config, log)


def _after_notebook(name: str, dataset: str, executed: Path) -> None:
    """nbval (or a fixture) kept an executed copy: 01-ingest on the smoke sweep starts the smoke reports in
    the background."""
    if name == pipeline.INGEST_NB and dataset == SMOKE:
        _start_smoke_reports(lambda: _build_smoke_reports(_stage(executed)))


def _stage(executed: Path) -> dict:
    """The smoke run's folders, from an executed copy of 00-sweep or 01-ingest in the stage folder."""
    d = executed.parent.parent
    return {"raw_dir": d / "raw", "run_dir": d / "raw" / SMOKE_RUN, "run_id": SMOKE_RUN,
            "executed": executed.parent, "processed_dir": d / "processed"}


def _in_background(key: str, job) -> None:
    """Run ``job`` once in a background thread (kernels are processes: this overlaps other tests)."""
    import threading

    if key in _background:
        return

    def run() -> None:
        try:
            _background[key]["result"] = job()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the fixture that waits for it
            _background[key]["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    _background[key] = {"thread": thread}
    thread.start()


def _wait(key: str):
    _background[key]["thread"].join()
    if "error" in _background[key]:
        raise _background[key]["error"]
    return _background[key]["result"]


def _execute(state, notebooks: list[Path], dataset: str, out_dir: Path, parameters: dict) -> None:
    """Execute notebooks nbval did not run (papermill, two kernels at a time), once each per data set."""
    for nb in notebooks:
        state.record(nb.name, dataset)
    pipeline.execute_all(notebooks, out_dir, parameters, workers=pipeline.REPORT_WORKERS)
    for nb in notebooks:
        state.kept(nb.name, dataset, out_dir / nb.name)


def _start_sample_reports(state) -> None:
    """Execute the sample notebooks nbval did not run in this session, in the background."""
    missing = [nb for nb in sample_notebooks() if not state.copy(nb.name, SAMPLE)]
    if missing:
        _in_background("sample", lambda: _execute(state, missing, SAMPLE, state.sample_executed_dir(),
                                                  {"processed_dir": str(state.sample_dir / "processed")}))


@pytest.fixture(scope="session")
def sample_reports(request) -> dict:
    """The bundled sample run (operation x bs x QD grid): every analysis notebook executed with its default
    run_id (by nbval, else here) and exported, plus the interactive notebooks executed."""
    from helpers.report import export

    state = session(request.config)
    _start_sample_reports(state)  # what nbval did not run (no-op when collection already started it)
    if "sample" in _background:
        _wait("sample")
    run, reports_dir = state.sample_run(), state.sample_dir / "reports"
    pages = [export.export_html(state.copy(nb.name, SAMPLE), reports_dir / run / f"{pipeline.report_name(nb)}.html")
             for nb in pipeline.analysis_notebooks()]
    export.build_index(reports_dir, [config.SAMPLE_RAW_DIR])
    return {"run": run, "processed_dir": state.sample_dir / "processed", "reports_dir": reports_dir,
            "pages": pages, "executed": state.sample_executed_dir(),
            "interactive": [state.copy(nb.name, SAMPLE) for nb in pipeline.interactive_notebooks()]}


@pytest.fixture(scope="session")
def smoke_run(request) -> dict:
    """One real smoke-profile sweep (64 MiB target, 1 s points) made by the 00-sweep notebook (nbval's
    execution, else here)."""
    if FIO is None:
        pytest.skip("fio is not installed")
    from helpers.run.manifest import read_manifest

    state = session(request.config)
    executed = state.copy(pipeline.SWEEP_NB, SMOKE)
    if executed is None:
        _start_sample_reports(state)  # overlaps the smoke sweep (no-op when already started)
        executed = state.stage_dir / "executed" / pipeline.SWEEP_NB
        _execute(state, [config.NOTEBOOKS_DIR / pipeline.SWEEP_NB], SMOKE, executed.parent, state.smoke_parameters())
    stage = _stage(executed)
    return {**{k: stage[k] for k in ("raw_dir", "run_dir", "run_id", "executed")},
            "manifest": read_manifest(stage["run_dir"])}


@pytest.fixture(scope="session")
def smoke_processed(request, smoke_run) -> dict:
    """The smoke run ingested by the 01-ingest notebook into its own processed folder (nbval's execution, with
    its defaults, else here)."""
    state = session(request.config)
    if state.copy(pipeline.INGEST_NB, SMOKE) is None:
        processed = state.stage_dir / "processed"
        _execute(state, [config.NOTEBOOKS_DIR / pipeline.INGEST_NB], SMOKE, smoke_run["executed"],
                 {"run_id": smoke_run["run_id"], "raw_dir": str(smoke_run["raw_dir"]), "processed_dir": str(processed)})
    return {**smoke_run, "processed_dir": state.stage_dir / "processed"}


def _start_smoke_reports(job) -> None:
    _in_background("smoke", job)


def _build_smoke_reports(stage: dict) -> dict:
    """Every analysis notebook executed once on the smoke run and exported (the reports stage), plus the
    interactive notebooks executed."""
    reports_dir = stage["executed"].parent / "reports"
    run, processed = stage["run_id"], stage["processed_dir"]
    pages = pipeline.run_reports_stage(run, processed_dir=processed, reports_dir=reports_dir,
                                       raw_dirs=[stage["raw_dir"]])
    interactive = pipeline.execute_all(pipeline.interactive_notebooks(), reports_dir / run / "notebooks",
                                       {"run_id": run, "processed_dir": str(processed)},
                                       workers=pipeline.REPORT_WORKERS)
    return {"reports_dir": reports_dir, "pages": pages, "executed": reports_dir / run / "notebooks",
            "interactive": interactive}


@pytest.fixture(scope="session")
def smoke_reports(smoke_processed) -> dict:
    """Every analysis notebook executed once on the smoke run and exported (reports stage), plus the
    interactive notebooks executed (started in the background when 01-ingest was done)."""
    _start_smoke_reports(lambda: _build_smoke_reports(smoke_processed))  # no-op when already started
    return {**smoke_processed, **_wait("smoke")}


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def fio_servers(tmp_path_factory):
    """Two fio servers on loopback (different ports) for the session; stopped and waited for at the end."""
    from sweep_helpers import free_port, wait_for

    fio = os.environ.get("FIO_REAL") or FIO
    if fio is None:
        pytest.skip("fio is not installed")
    d = tmp_path_factory.mktemp("servers")
    ports, pidfiles = [], []
    try:
        for i in range(2):
            port = free_port()
            pidfile = d / f"server{i}.pid"
            subprocess.run([fio, f"--server=ip:127.0.0.1,{port}", f"--daemonize={pidfile}"], check=True,
                           capture_output=True, timeout=30)
            ports.append(port)
            pidfiles.append(pidfile)
        for p in ports:
            wait_for(lambda p=p: _listening(p), timeout=15)
        yield [f"127.0.0.1:{p}" for p in ports]
    finally:
        for pf in pidfiles:  # the pid file stays after the server exits: kill the pid, wait for it
            try:
                pid = int(pf.read_text().strip())
                os.kill(pid, signal.SIGTERM)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
                    time.sleep(0.1)
                if os.path.exists(f"/proc/{pid}"):
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass


@pytest.fixture(scope="session")
def interrupted_smoke_sweep(tmp_path_factory, scratch_dir, fio_path) -> dict:
    """``pipeline sweep`` of the smoke profile on 64 MiB, as ``make sweep PROFILE=smoke SIZE=64m RUNTIME=1`` runs
    it (empty make variables passed as empty flags), stopped by Ctrl-C during its third point, then resumed with
    the command its message prints.  One sweep of 7 points serves the terminal checks of
    tests/test_pipeline_terminal.py and the run-id binding checks of tests/test_sweep_binding.py (one xdist unit,
    SHARED_FIXTURE_FILES, so it is made once)."""
    from helpers.run.lock import pid_alive
    from sweep_helpers import manifest, pipeline_cli, resume_args, run_pipeline, running_point, wait_for

    base = tmp_path_factory.mktemp("intr")
    target = scratch_dir / "intr.bin"
    proc = pipeline_cli(base, "sweep", "--profile=smoke", "--size=64m", "--run=intr", f"--target={target}",
                        "--runtime=1", "--hosts=", "--dry-run=", start_new_session=True)
    run_dir = base / "data" / "raw" / "intr"
    stopped = wait_for(lambda: running_point(run_dir, min_done=2), timeout=120)
    fio = int(wait_for(lambda: json.loads(Path(run_dir / ".sweep.progress").read_text()).get("pid"), timeout=10))
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends to the foreground process group
    out, err = proc.communicate(timeout=60)
    first = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    at_stop = {"manifest": manifest(run_dir), "fio_alive": pid_alive(fio),
               "done": {p.name: p.stat().st_mtime_ns for p in run_dir.glob("*.json") if p.name != "manifest.json"}}
    resume = next((ln for ln in err.splitlines() if ln.startswith("resume with: ")), "")[len("resume with: "):]
    again = run_pipeline(base, "sweep", *resume_args(resume)) if resume else None
    return {"base": base, "target": target, "run_dir": run_dir, "raw_dir": base / "data" / "raw", "run_id": "intr",
            "stopped": stopped, "first": first, "at_stop": at_stop, "resume": resume, "again": again}


MODES_RUNS = {"openloop": "modes-openloop", "hosts": "modes-hosts", "steady": "modes-steady", "slo": "modes-slo"}


@pytest.fixture(scope="session")
def modes_reports(request, tmp_path_factory, scratch_dir, fio_servers) -> dict:
    """Four small real runs that have the data of the sweep-modes page -- open loop (two offered loads, one
    far past saturation), two fio servers on loopback, a preconditioned steady-state run, a two-step SLO search
    with its fio latency_target cross-check -- ingested into one processed folder; the 17-sweep-modes notebook
    executed once on all four and exported."""
    from helpers.ingest import core as ingest
    from helpers.report import export
    from helpers.run import sweep
    from sweep_helpers import write_profile

    tmp = tmp_path_factory.mktemp("modes")
    raw, processed, reports_dir = tmp / "raw", tmp / "processed", tmp / "reports"
    fast = {"ioengine": "libaio", "runtime_s": 1, "ramp_s": 0}
    profiles = {
        "openloop": write_profile(tmp, "ol", [{"group": "openloop", "rw": "randread", "bs": "4k", "iodepth": 32,
                                               "rate_process": "poisson", "rate_iops": [2000, 2000000]}],
                                  settings=fast),
        "hosts": write_profile(tmp, "mh", [{"group": "g", "rw": "randread", "bs": "4k", "iodepth": [1, 4]}],
                               settings=fast),
        "steady": write_profile(tmp, "ss", [{"group": "ss", "rw": "randwrite", "bs": "4k", "iodepth": 8}],
                                mode="steady-state", precondition={"passes": 1, "bs": "1m", "iodepth": 8},
                                steady_state={"window": 2, "max_rounds": 3, "range_pct": 1000, "slope_pct": 1000},
                                settings={**fast, "runtime_s": 0.5}),
        "slo": write_profile(tmp, "slo", [{"group": "slo", "rw": "randread", "bs": "4k", "iodepth": 16}], mode="slo",
                             slo={"slo_us": 5000, "start_rate": 500, "max_steps": 2, "latency_window_s": 0.1,
                                  "cross_check_windows": 10}, settings={**fast, "runtime_s": 0.5}),
    }
    old = os.environ.get("SSDLAB_LOCK_DIR")
    os.environ["SSDLAB_LOCK_DIR"] = str(tmp / "locks")
    try:
        manifests = {key: sweep.sweep(scratch_dir / f"modes-{key}.bin", profiles[key], run, None, "16m", raw,
                                      progress=False, **({"hosts": ",".join(fio_servers)} if key == "hosts" else {}))
                     for key, run in MODES_RUNS.items()}
    finally:
        if old is None:
            os.environ.pop("SSDLAB_LOCK_DIR", None)
        else:
            os.environ["SSDLAB_LOCK_DIR"] = old
    for run in MODES_RUNS.values():
        ingest.ingest(run, raw_dir=raw, processed_dir=processed)
    nb = config.NOTEBOOKS_DIR / "17-sweep-modes.ipynb"
    runs = ",".join(MODES_RUNS.values())
    session(request.config).record(nb.name, "sweep-modes runs")
    executed = pipeline.execute(nb, reports_dir / "modes" / "notebooks" / nb.name,
                                {"run_id": runs, "processed_dir": str(processed), "raw_dir": str(raw)})
    page = export.export_html(executed, reports_dir / "modes" / f"{pipeline.report_name(nb)}.html")
    return {"raw_dir": raw, "processed_dir": processed, "manifests": manifests, "executed": executed,
            "page": page, "runs": MODES_RUNS}


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium per worker for the browser tests (tests/browser_helpers.py); skips the test
    when chromium or python playwright is missing."""
    from browser_helpers import launch_browser

    yield from launch_browser()


def make_fake_fio(directory: Path, script: str) -> Path:
    """Write an executable fake fio (fault injection only) and return its path."""
    path = directory / "fio"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def fake_fio(tmp_path, monkeypatch):
    """Factory: fake_fio('echo boom >&2; exit 1') points helpers at a failing fio."""

    def factory(script: str) -> Path:
        path = make_fake_fio(tmp_path, script)
        monkeypatch.setenv("FIO", str(path))
        return path

    return factory
