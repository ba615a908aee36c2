"""Shared fixtures: real fio on small files, isolated data folders, fault-injection fakes."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

from helpers import config

FIO = shutil.which("fio")
requires_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (apt-get install fio)")

config.skip_slow_optional_imports()  # as the pipeline and the kernels do (nbformat's jsonschema extras)

# Make sure kernels started by tests keep Jupyter state inside the project.
_ROOT = Path(__file__).resolve().parents[1]
for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                 ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
    os.environ.setdefault(var, str(_ROOT / ".jupyter" / sub))
    Path(os.environ[var]).mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def fio_path() -> str:
    """The real fio binary; tests that need it are skipped (with the reason) when it is missing."""
    if FIO is None:
        pytest.skip("fio is not installed (apt-get install fio)")
    return FIO


@pytest.fixture(scope="session")
def scratch_dir(tmp_path_factory) -> Path:
    """A disk-backed folder for fio targets (pytest's tmp is under /tmp; refuse tmpfs there)."""
    from helpers.run.system import mount_of
    from helpers.run.target import MEMORY_FILESYSTEMS

    d = tmp_path_factory.mktemp("scratch")
    m = mount_of(d)
    if m and m["fstype"] in MEMORY_FILESYSTEMS:  # one folder per xdist worker: file names repeat across them
        d = _ROOT / "build" / "test-scratch" / os.environ.get("PYTEST_XDIST_WORKER", "main")
        d.mkdir(parents=True, exist_ok=True)
    return d


# --- the expensive, shared fixtures: one smoke sweep, every notebook executed once per dataset -------------
#
# The smoke run is made the way a user makes one: the 00-sweep and 01-ingest notebooks (papermill), on a
# 64 MiB scratch file.  Every analysis and interactive notebook is then executed ONCE on it and once on the
# bundled sample run (with the default run_id "latest"), two kernels at a time; the notebook, report and
# browser tests all read those executed copies.  The sample set needs no fio, so it starts in a background
# thread as soon as collection is done and overlaps the unit tests, which run first (see the ordering hook).

SMOKE_RUN = "smoke-test"
HEAVY_FIXTURES = {"smoke_reports", "sample_reports"}
FIO_FIXTURES = {"fio_path", "fio_servers", "smoke_run", "smoke_processed", "smoke_reports", "modes_reports"}
NOTEBOOK_FIXTURES = {"smoke_run", "smoke_processed", "smoke_reports", "sample_reports", "modes_reports"}  # they execute notebooks
_background: dict = {}
# With pytest-xdist (make test runs two workers), the modules whose tests use one of these run in the same
# worker, so each notebook is still executed once per session; other tests are spread a module at a time.
SESSION_CHAIN = {"smoke_run", "smoke_processed", "smoke_reports", "sample_reports", "modes_reports"}
SESSION_FILES = {"tests/test_notebooks.py", "tests/test_reports.py", "tests/test_runs.py", "tests/test_browser.py"}
SESSION_GROUP = "session-notebooks"


def _heavy(item) -> int:
    """Sort key: unit tests first, then notebook tests, then browser tests."""
    return 2 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("notebooks") else 0


def _in_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")


def _uses_chain(item) -> bool:
    return bool(set(getattr(item, "fixturenames", ())) & SESSION_CHAIN)


def _xdist_order(item) -> tuple[int, int]:
    """With two workers: the session chain first (its worker starts at once), then modules that run fio or
    notebooks (long), then the quick unit modules, which fill the gaps at the end.  Within the chain the
    browser tests come last: the smoke sweep and its notebooks run while the sample reports build in the
    background, and the browser tests, which need both, find them done."""
    if _uses_chain(item):
        return 0, _heavy(item)
    return (1 if item.get_closest_marker("fio") or item.get_closest_marker("notebooks") else 2), 0


def pytest_collection_modifyitems(config, items):
    for item in items:  # markers follow the fixtures a test uses, so `-m "not fio"` etc. are exact
        used = set(getattr(item, "fixturenames", ()))
        if used & FIO_FIXTURES:
            item.add_marker(pytest.mark.fio)
        if used & NOTEBOOK_FIXTURES:
            item.add_marker(pytest.mark.notebooks)
    if _in_xdist_worker(config):
        stray = sorted({it.nodeid.split("::")[0] for it in items if _uses_chain(it)} - SESSION_FILES)
        if stray:
            raise pytest.UsageError(f"{', '.join(stray)} use(s) the session notebooks: add to SESSION_FILES in "
                                    "tests/conftest.py so they run in the worker that builds them, once")
        items.sort(key=_xdist_order)  # stable: file order within each class
        return  # the worker that gets the chain starts the sample reports (smoke_run / sample_reports)
    items.sort(key=_heavy)  # stable: file order within each class
    if not config.option.collectonly and any(HEAVY_FIXTURES & set(getattr(it, "fixturenames", ())) for it in items):
        _start_sample_reports(config._tmp_path_factory)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``make test`` runs two xdist workers.  Work is handed out a module at a time (module fixtures run once),
    and every module that reads the session's executed notebooks goes to one worker as one unit, so each
    notebook is still executed once per session."""
    from xdist.scheduler import LoadScopeScheduling

    class SessionScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return SESSION_GROUP if module in SESSION_FILES else module

    config.option.loadscopereorder = False  # keep the order the workers collected (see _xdist_order)
    return SessionScheduling(config, log)


def _start_sample_reports(tmp_path_factory) -> None:
    """Build the sample reports in a background thread (kernels are processes: this overlaps other tests)."""
    import tempfile
    import threading

    if "thread" in _background:
        return
    base = Path(tempfile.mkdtemp(prefix="lab-sample-", dir=tmp_path_factory.getbasetemp()))
    thread = threading.Thread(target=_build_sample_reports, args=(base,), daemon=True)
    _background.update(base=base, thread=thread)
    thread.start()


def _build_sample_reports(base: Path) -> None:
    from helpers import config
    from helpers.notebook import runs
    from helpers.report import export, pipeline

    try:
        processed, reports_dir = base / "processed", base / "reports"
        run = runs.ensure_sample(processed)  # ingested once, before notebooks run concurrently
        notebooks = pipeline.analysis_notebooks()
        executed = pipeline.execute_all(notebooks, reports_dir / run / "notebooks", {"processed_dir": str(processed)},
                                        workers=pipeline.REPORT_WORKERS)  # run_id left at its default, "latest"
        pages = [export.export_html(ex, reports_dir / run / f"{pipeline.report_name(nb)}.html")
                 for nb, ex in zip(notebooks, executed)]
        export.build_index(reports_dir, [config.SAMPLE_RAW_DIR])
        interactive = pipeline.execute_all(pipeline.interactive_notebooks(), reports_dir / run / "notebooks",
                                           {"processed_dir": str(processed)}, workers=pipeline.REPORT_WORKERS)
        _background["result"] = {"run": run, "processed_dir": processed, "reports_dir": reports_dir,
                                  "pages": pages, "executed": reports_dir / run / "notebooks",
                                  "interactive": interactive}
    except BaseException as exc:  # noqa: BLE001 - re-raised in the fixture that waits for it
        _background["error"] = exc


@pytest.fixture(scope="session")
def sample_reports(tmp_path_factory) -> dict:
    """The bundled sample run (operation x bs x QD grid): every analysis notebook executed with its default
    run_id and exported, plus the interactive notebooks executed (built in the background)."""
    _start_sample_reports(tmp_path_factory)  # no-op when collection already started it
    _background["thread"].join()
    if "error" in _background:
        raise _background["error"]
    return _background["result"]


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, scratch_dir) -> dict:
    """One real smoke-profile sweep (64 MiB target, 1 s points) made by the 00-sweep notebook."""
    if FIO is None:
        pytest.skip("fio is not installed")
    from helpers import config
    from helpers.report import pipeline
    from helpers.run.manifest import read_manifest

    _start_sample_reports(tmp_path_factory)  # overlaps the smoke sweep (no-op when already started)

    tmp = tmp_path_factory.mktemp("smoke")
    raw, executed = tmp / "raw", tmp / "executed"
    pipeline.execute(config.NOTEBOOKS_DIR / pipeline.SWEEP_NB, executed / pipeline.SWEEP_NB, {
        "target": str(scratch_dir / "smoke-target.bin"), "profile": "smoke", "run_id": SMOKE_RUN,
        "runtime_s": 1.0, "size": "64m", "raw_dir": str(raw)})
    return {"raw_dir": raw, "run_dir": raw / SMOKE_RUN, "manifest": read_manifest(raw / SMOKE_RUN),
            "run_id": SMOKE_RUN, "executed": executed}


@pytest.fixture(scope="session")
def smoke_processed(tmp_path_factory, smoke_run) -> dict:
    """The smoke run ingested by the 01-ingest notebook into its own processed folder."""
    from helpers import config
    from helpers.report import pipeline

    processed = tmp_path_factory.mktemp("processed")
    pipeline.execute(config.NOTEBOOKS_DIR / pipeline.INGEST_NB, smoke_run["executed"] / pipeline.INGEST_NB, {
        "run_id": smoke_run["run_id"], "raw_dir": str(smoke_run["raw_dir"]), "processed_dir": str(processed)})
    return {**smoke_run, "processed_dir": processed}


@pytest.fixture(scope="session")
def smoke_reports(tmp_path_factory, smoke_processed) -> dict:
    """Every analysis notebook executed once on the smoke run and exported (reports stage), plus the
    interactive notebooks executed."""
    from helpers.report import pipeline

    reports_dir = tmp_path_factory.mktemp("reports")
    run, processed = smoke_processed["run_id"], smoke_processed["processed_dir"]
    pages = pipeline.run_reports_stage(run, processed_dir=processed, reports_dir=reports_dir,
                                       raw_dirs=[smoke_processed["raw_dir"]])
    interactive = pipeline.execute_all(pipeline.interactive_notebooks(), reports_dir / run / "notebooks",
                                       {"run_id": run, "processed_dir": str(processed)},
                                       workers=pipeline.REPORT_WORKERS)
    return {**smoke_processed, "reports_dir": reports_dir, "pages": pages,
            "executed": reports_dir / run / "notebooks", "interactive": interactive}


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


MODES_RUNS = {"openloop": "modes-openloop", "hosts": "modes-hosts", "steady": "modes-steady", "slo": "modes-slo"}


@pytest.fixture(scope="session")
def modes_reports(tmp_path_factory, scratch_dir, fio_servers) -> dict:
    """Four small real runs that have the data of the sweep-modes page -- open loop (two offered loads, one
    far past saturation), two fio servers on loopback, a preconditioned steady-state run, a two-step SLO search
    with its fio latency_target cross-check -- ingested into one processed folder; the 17-sweep-modes notebook
    executed once on all four and exported."""
    from helpers import config
    from helpers.ingest import core as ingest
    from helpers.report import export, pipeline
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
    executed = pipeline.execute(nb, reports_dir / "modes" / "notebooks" / nb.name,
                                {"run_id": runs, "processed_dir": str(processed), "raw_dir": str(raw)})
    page = export.export_html(executed, reports_dir / "modes" / f"{pipeline.report_name(nb)}.html")
    return {"raw_dir": raw, "processed_dir": processed, "manifests": manifests, "executed": executed,
            "page": page, "runs": MODES_RUNS}


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
