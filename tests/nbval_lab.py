"""How pytest runs the notebooks: nbval (``--nbval-lax``, default parameters) with the kernel and Jupyter
settings of the lab's pipeline, each notebook's executed copy kept for the tests that read it.

Loaded by the project's root conftest.py, so ``make test``, ``make test-notebooks`` and
``pytest --nbval-lax notebooks/NAME.ipynb`` validate a notebook the same way:

- the kernel is the one the pipeline starts (``python3`` of this environment, cwd notebooks/, local IPC
  sockets, the pipeline's kernel arguments) with Jupyter's state in the project's .jupyter/ folders;
- every notebook runs on a temporary data folder (``SSDLAB_DATA_DIR`` in the kernel's environment), never on
  the user's data/: the analysis and interactive notebooks (10-99) with their defaults, i.e. ``run_id``
  "latest", which is the bundled sample run there (ingested once before the first of them);
- 00-sweep's defaults are the quick profile on a 1 GiB file (minutes of fio): it runs with the smoke
  profile's parameters injected after its parameters cell (as papermill injects them: 64 MiB, 1 s points, on
  a disk-backed scratch file), and that execution IS the test session's one smoke sweep;
- 01-ingest runs with its defaults (the newest raw run of the data folder): the smoke sweep 00-sweep just made,
  or, when no sweep ran in this session, a copy of the bundled sample's raw run.

Each notebook's outputs (nbval keeps them per cell) are written to an executed copy when its last cell is
done; tests/conftest.py's session fixtures read those copies instead of executing the notebook again, and
execute a notebook themselves (papermill) only when nbval did not run it in this session.  ``record`` refuses a
second execution of one notebook on one data set.
"""

from __future__ import annotations

import copy
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbval import plugin as nbval_plugin
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager, RunningKernel

ROOT = Path(__file__).resolve().parents[1]

# Jupyter/IPython state stays inside the project (the Makefile exports the same folders).
for _var, _sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                   ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
    os.environ.setdefault(_var, str(ROOT / ".jupyter" / _sub))
    Path(os.environ[_var]).mkdir(parents=True, exist_ok=True)

from helpers import config  # noqa: E402 - after the Jupyter folders are set
from helpers.report import pipeline  # noqa: E402

config.skip_slow_optional_imports()  # as the pipeline and the kernels do (nbformat's jsonschema extras)

SMOKE_RUN = "smoke-test"
SAMPLE, SMOKE, SAMPLE_RAW = "bundled sample", "smoke sweep", "bundled sample (raw)"  # data sets
PLUGIN_NAME = "lab-notebooks"
OUTPUT_TIMEOUT_S = 60


def smoke_sweep_parameters(scratch: Path, raw_dir: Path) -> dict:
    """00-sweep's parameters for the session's smoke sweep: one point of each kind, 1 s each, 64 MiB."""
    return {"target": str(scratch / "smoke-target.bin"), "profile": "smoke", "run_id": SMOKE_RUN,
            "runtime_s": 1.0, "size": "64m", "raw_dir": str(raw_dir)}


def disk_scratch_dir(tmp_path_factory) -> Path:
    """A disk-backed folder for fio targets (pytest's tmp is under /tmp; refuse tmpfs there)."""
    from helpers.run.system import mount_of
    from helpers.run.target import MEMORY_FILESYSTEMS

    d = tmp_path_factory.mktemp("scratch")
    m = mount_of(d)
    if m and m["fstype"] in MEMORY_FILESYSTEMS:  # one folder per xdist worker: file names repeat across them
        d = ROOT / "build" / "test-scratch" / os.environ.get("PYTEST_XDIST_WORKER", "main")
        d.mkdir(parents=True, exist_ok=True)
    return d


def is_stage(name: str) -> bool:
    """00-09 are the pipeline's stages (sweep, ingest); the rest analyse processed data."""
    return name[:1] == "0"


class NotebookPass:
    """The session's notebook executions: the data folders nbval's kernels use, the executed copies nbval
    leaves, and every execution of a notebook on a data set (one each)."""

    def __init__(self, config_) -> None:
        self.config = config_
        self.executed: dict[tuple[str, str], Path] = {}  # (notebook name, data set) -> executed copy
        self.listeners: list[Callable[[str, str, Path], None]] = []
        self._lock = threading.RLock()
        self._dirs: dict[str, Path] = {}
        self._sample_run = ""

    # -- data folders ------------------------------------------------------------------------------------
    def _dir(self, key: str) -> Path:
        with self._lock:
            if key not in self._dirs:
                self._dirs[key] = self.config._tmp_path_factory.mktemp(f"nb-{key}")
            return self._dirs[key]

    @property
    def sample_dir(self) -> Path:
        """SSDLAB_DATA_DIR of the analysis notebooks: processed/ holds the bundled sample run (only)."""
        return self._dir("sample")

    def sample_run(self) -> str:
        """Ingest the bundled sample into sample_dir/processed once, before notebooks read it; its id."""
        from helpers.notebook import runs

        with self._lock:
            if not self._sample_run:
                self._sample_run = runs.ensure_sample(self.sample_dir / "processed")
            return self._sample_run

    def sample_executed_dir(self) -> Path:
        """Where the analysis notebooks' executed copies go: reports/<run>/notebooks, as the pipeline's."""
        return self.sample_dir / "reports" / self.sample_run() / "notebooks"

    @property
    def stage_dir(self) -> Path:
        """SSDLAB_DATA_DIR of 00-sweep and 01-ingest (raw/, processed/, executed/): the smoke sweep's."""
        return self._dir("smoke")

    @property
    def scratch_dir(self) -> Path:
        with self._lock:
            if "scratch" not in self._dirs:
                self._dirs["scratch"] = disk_scratch_dir(self.config._tmp_path_factory)
            return self._dirs["scratch"]

    def smoke_parameters(self) -> dict:
        return smoke_sweep_parameters(self.scratch_dir, self.stage_dir / "raw")

    # -- executions --------------------------------------------------------------------------------------
    def record(self, name: str, dataset: str) -> None:
        """Called before a notebook executes on ``dataset``; a second execution is a test-suite bug."""
        with self._lock:
            if (name, dataset) in self.executed:
                raise RuntimeError(f"{name} would execute a second time on the {dataset} in this session "
                                   f"(first copy: {self.executed[name, dataset]}); tests/conftest.py must read "
                                   "that copy (the notebook items run before the tests that read them)")
            self.executed[name, dataset] = Path()  # running: no copy yet

    def copy(self, name: str, dataset: str) -> Path | None:
        """The executed copy of ``name`` on ``dataset`` made earlier in this session, if any."""
        path = self.executed.get((name, dataset))
        return path if path and path.name else None

    def kept(self, name: str, dataset: str, path: Path) -> None:
        self.executed[name, dataset] = path
        for listener in list(self.listeners):
            listener(name, dataset, path)

    # -- what a notebook runs on ---------------------------------------------------------------------------
    def injected(self, name: str) -> dict:
        """Parameters injected after ``name``'s parameters cell: 00-sweep's defaults sweep for minutes."""
        return self.smoke_parameters() if name == pipeline.SWEEP_NB else {}

    def plan(self, name: str) -> tuple[str, Path, Path]:
        """(data set, SSDLAB_DATA_DIR, executed copy) of notebook ``name``, decided when it starts."""
        if name == pipeline.SWEEP_NB or (is_stage(name) and self.copy(pipeline.SWEEP_NB, SMOKE)):
            d = self.stage_dir  # the smoke sweep, and what 01-ingest's defaults ingest after it
            return SMOKE, d, d / "executed" / name
        if is_stage(name):  # no sweep in this session: the sample's raw run is the newest raw run
            d = self._dir("sample-raw")
            if not (d / "raw").exists():
                shutil.copytree(config.SAMPLE_RAW_DIR, d / "raw")
            return SAMPLE_RAW, d, d / "executed" / name
        self.sample_run()
        return SAMPLE, self.sample_dir, self.sample_executed_dir() / name


def session(config_) -> NotebookPass:
    return config_.pluginmanager.get_plugin(PLUGIN_NAME)


class LabKernel(RunningKernel):
    """nbval's kernel started the way the pipeline starts one (helpers.report.pipeline.execute): the
    notebook's kernel (python3), local IPC sockets, the pipeline's kernel arguments, plus ``env``."""

    def __init__(self, kernel_name: str, cwd: str, startup_timeout: float, env: dict) -> None:
        from jupyter_client.manager import KernelManager

        self.km = KernelManager(kernel_name=kernel_name, kernel_spec_manager=NbvalKernelspecManager(),
                                config=pipeline.kernel_config())
        with open(os.devnull, "w") as devnull:
            self.km.start_kernel(cwd=cwd, env=env, extra_arguments=pipeline.KERNEL_ARGUMENTS, stderr=devnull)
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            self.kc.stop_channels()
            self.km.shutdown_kernel()
            raise
        self._ensure_iopub_up()


class LabNotebook(nbval_plugin.IPyNbFile):
    """nbval's notebook collector with the lab's data folder, injected parameters and kept outputs."""

    executed_copy: Path | None = None

    def collect(self):
        self.cells = list(super().collect())
        for cell in self.cells:  # nbval waits 5 s for a cell's output messages after its reply: too tight when
            cell.output_timeout = OUTPUT_TIMEOUT_S  # other kernels and fio share two cores (it is not a time limit)
        injected = session(self.config).injected(self.path.name)
        if injected:  # after the parameters cell's defaults, as papermill injects them
            params = next(c for c in self.cells if "parameters" in c.cell.metadata.get("tags", []))
            params.cell.source = (params.cell.source.rstrip("\n") + "\n# injected by the test session "
                                  "(tests/nbval_lab.py):\n" + "".join(f"{k} = {v!r}\n" for k, v in injected.items()))
        return self.cells

    def setup(self):
        state = session(self.config)
        self.dataset, data_dir, executed_copy = state.plan(self.path.name)
        state.record(self.path.name, self.dataset)
        self.executed_copy = executed_copy
        env = {**os.environ, "SSDLAB_DATA_DIR": str(data_dir), "SSDLAB_REPORTS_DIR": str(data_dir / "reports")}
        option = self.config.option
        kernel_name = (CURRENT_ENV_KERNEL_NAME if option.nbval_current_env else option.nbval_kernel_name
                       or self.nb.metadata.get("kernelspec", {}).get("name", pipeline.KERNEL_NAME))
        self.kernel = LabKernel(kernel_name, str(self.path.parent), self.config.option.nbval_kernel_startup_timeout,
                                env)
        self.setup_sanitize_files()

    def teardown(self):
        super().teardown()
        if self.executed_copy is None:
            return
        nb = copy.deepcopy(self.nb)
        for n, (cell, item) in enumerate(zip((c for c in nb.cells if c.cell_type == "code"), self.cells), 1):
            cell.source = item.cell.source
            cell.outputs = [nbformat.from_dict(dict(o)) for o in (item.test_outputs or [])]
            cell.execution_count = n if item.test_outputs is not None else None
        self.executed_copy.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, self.executed_copy)
        session(self.config).kept(self.path.name, self.dataset, self.executed_copy)

def pytest_configure(config):
    config.pluginmanager.register(NotebookPass(config), PLUGIN_NAME)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """nbval collects a notebook (--nbval-lax); it is collected as a LabNotebook, nbval's collector with the
    lab's kernel, data folder and kept outputs (nbval has no hook for how it starts kernels)."""
    collectors = yield
    return [LabNotebook.from_parent(parent, path=file_path) if type(c) is nbval_plugin.IPyNbFile else c
            for c in collectors or []]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Notebook cells carry the markers of what they run (``-m "not notebooks"`` leaves them out); 00-sweep's
    are skipped, as every fio test is, when fio is missing."""
    fio = shutil.which("fio")
    for item in items:
        if isinstance(item, nbval_plugin.IPyNbCell):
            item.add_marker(pytest.mark.notebooks)
            if item.path.name == pipeline.SWEEP_NB:
                item.add_marker(pytest.mark.fio)
                if fio is None:
                    item.add_marker(pytest.mark.skip(reason="fio is not installed (apt-get install fio)"))


@pytest.hookimpl(trylast=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With pytest-xdist and no other scheduler (tests/conftest.py has one): a notebook's cells share one
    kernel, so each notebook goes to one worker whole."""
    from xdist.scheduler import LoadScopeScheduling

    return LoadScopeScheduling(config, log)
