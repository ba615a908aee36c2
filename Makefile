# SSD Performance Lab. `make` alone lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin

TARGET ?=
PROFILE ?= quick
RUN ?=
RUNTIME ?= 0
SIZE ?= 1g
HOSTS ?=
DRY_RUN ?=
ALLOW_EXISTING ?=
DESTROY_DEVICE ?=
IGNORE_SIGNATURE ?=
READ_ONLY_ACK ?=
LAB_ARGS ?=
SCRATCH ?=
NOTEBOOK ?=
ARGS ?=
FORMAT ?= xlsx
FILE ?=
# make test's pytest-xdist workers: 4 on 2 cores -- a worker waits on fio, a kernel or a browser much of the time,
# so two left a core idle (~1.0 of 2 cores used, 304 s), three about a fifth of one (223-233 s), four 199-202 s
# (197-199 s since a sweep pins fio's clock), five no faster (199 s); the session's notebooks stay in one
# (tests/conftest.py)
TEST_WORKERS ?= 4
# the modules with tests marked quiet (collecting only these saves the whole suite's collection)
QUIET_TESTS = $(shell grep -l 'mark\.quiet' tests/test_*.py)

# Jupyter/IPython state stays inside the project (gitignored), not in ~.
export JUPYTER_CONFIG_DIR := $(CURDIR)/.jupyter/config
export JUPYTER_DATA_DIR := $(CURDIR)/.jupyter/data
export JUPYTER_RUNTIME_DIR := $(CURDIR)/.jupyter/runtime
export IPYTHONDIR := $(CURDIR)/.jupyter/ipython
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Python caches compiled modules (__pycache__, gitignored) even when the caller's environment says not to:
# every notebook kernel imports helpers, and pytest keeps its rewritten test modules there.
unexport PYTHONDONTWRITEBYTECODE

PIPELINE = $(BIN)/python -m helpers.report.pipeline
# one --flag="$(VAR)" per sweep option of src/helpers/run/options.py (tests/test_options.py checks they agree)
SWEEP_ARGS = --target="$(TARGET)" --profile="$(PROFILE)" --run="$(RUN)" --runtime="$(RUNTIME)" --size="$(SIZE)" \
  --hosts="$(HOSTS)" --dry-run="$(DRY_RUN)" --allow-existing="$(ALLOW_EXISTING)" --destroy-device="$(DESTROY_DEVICE)" \
  --ignore-signature="$(IGNORE_SIGNATURE)" --read-only-ack="$(READ_ONLY_ACK)"

.PHONY: help setup fio run-all sweep ingest reports export screenshots lab test test-fast test-notebooks browser-deps lint clean bench-adaptive bench-characterize bench-peak bench-ingest import-trace

help: ## list the targets and variables (coloured on a terminal only; NO_COLOR=1 never)
	@if [ -t 1 ] && [ -z "$$NO_COLOR" ]; then c='\033[36m'; r='\033[0m'; else c=; r=; fi; \
	  awk -v c="$$c" -v r="$$r" 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %s%-14s%s %s\n", c, $$1, r, $$2}' $(MAKEFILE_LIST)
	@echo "Variables: TARGET (default data/scratch/fio-target.bin) PROFILE (quick) RUN (time-host;"
	@echo "           make reports RUN=a,b: the compare page of runs a and b, in reports/compare/)"
	@echo "           PROFILE is one of: $$(ls src/helpers/resources/profiles | sed 's/\.yaml$$//' | tr '\n' ' ')"
	@echo "           or a path to your own profile YAML (docs/sweeps.md)"
	@echo "           FORMAT (make export: xlsx, or csv for a folder of CSVs)"
	@echo "           RUNTIME (s per point, 0 = profile) SIZE (1g) HOSTS (h1,h2:port: fio --server hosts)"
	@echo "           DRY_RUN=1 (print fio commands, write nothing) ALLOW_EXISTING DESTROY_DEVICE IGNORE_SIGNATURE"
	@echo "           READ_ONLY_ACK (safety overrides, see docs/sweeps.md)"
	@echo "           LAB_ARGS (extra jupyter lab options) SCRATCH=1 (make clean also removes lab scratch files elsewhere)"
	@echo "           NOTEBOOK (make test-notebooks: one notebook, e.g. NOTEBOOK=10-queue-depth; default all)"
	@echo "           TEST_WORKERS (make test, make test-fast: pytest-xdist workers, 4)"

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "Python 3.11 or newer is needed ($(PYTHON) is older or missing): run 'make PYTHON=python3.11 ...'."; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    rm -rf $(VENV); apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); \
	  else echo "$(PYTHON) cannot create a virtual environment: install python3-venv (sudo apt-get install python3-venv)."; exit 1; fi; }
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@mkdir -p "$$JUPYTER_CONFIG_DIR" "$$JUPYTER_DATA_DIR" "$$JUPYTER_RUNTIME_DIR" "$$IPYTHONDIR"
	@touch $@

fio: ## make sure fio is installed (apt-get when running as root)
	@command -v fio >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing fio with apt-get"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null; \
	  else echo "fio is not installed: install it with 'sudo apt-get install fio' (Debian/Ubuntu), 'sudo dnf install fio' (Fedora/RHEL) or 'brew install fio' (macOS)."; exit 1; fi; }

setup: $(VENV)/.installed fio ## create .venv, install the project, check fio

run-all: setup ## sweep -> ingest -> analysis notebooks -> HTML reports (quick profile on a scratch file)
	@$(PIPELINE) run-all $(SWEEP_ARGS)

sweep: setup ## run fio over PROFILE on TARGET into data/raw/RUN/
	@$(PIPELINE) sweep $(SWEEP_ARGS)

ingest: setup ## raw JSON of RUN (default: newest) -> Parquet in data/processed/
	@$(PIPELINE) ingest --run="$(RUN)"

reports: setup ## rebuild RUN's Parquet and reports/RUN/*.html + reports/index.html from raw data (no fio)
	@$(PIPELINE) reports --run="$(RUN)"

import-trace: setup ## block I/O traces (FILE=path[,path]: blkparse, tracepoints, fio iolog, MSR, Alibaba, CSV) -> RUN (default trace-<stem>) + reports/RUN/workload.html; no FILE: the page of RUN
	@$(BIN)/python -m helpers.report.traces "$(FILE)" $(if $(RUN),--run="$(RUN)")

export: setup ## RUN's tables to take elsewhere: reports/RUN/RUN-data.xlsx (FORMAT=csv: a folder of CSVs), linked from the index
	@$(BIN)/python -m helpers.report.workbook --run="$(RUN)" --format="$(FORMAT)"

screenshots: setup browser-deps ## the README's pictures (docs/img/*.png) from RUN's report pages (default: the newest reports), headless Chromium
	@$(BIN)/python -m helpers.report.screenshots --run="$(RUN)"

lab: setup ## JupyterLab on the project's venv (LAB_ARGS="--port 9999 --no-browser" ...; --allow-root as root)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

browser-deps: ## install Chromium for the browser tests when possible (root + apt-get)
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium with apt-get (browser tests)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || true; \
	  else echo "chromium is not installed: browser tests will be skipped."; fi; }

test: setup browser-deps ## every test on TEST_WORKERS (4) workers: unit, real fio, every notebook validated by nbval (its one execution), reports, browser (10 slowest printed); then the few that need the CPUs to themselves, one at a time
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not quiet"
	$(BIN)/python -m pytest -q -m quiet --durations=0 $(QUIET_TESTS)

test-notebooks: setup ## validate the notebooks you edited with nbval, as make test does (NOTEBOOK=10-queue-depth: one)
	$(BIN)/python -m pytest -q --nbval-lax $(if $(NOTEBOOK),notebooks/$(basename $(notdir $(NOTEBOOK))).ipynb,notebooks)

test-fast: setup ## the inner loop: leaves out notebooks, browser and slow tests
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not notebooks and not browser and not slow"

bench-adaptive: setup ## adaptive QD search (probes end once settled) vs the full 1..1024 grid, 3 rounds (grid, search, grid, ...), on a scratch file (about 4 min)
	$(BIN)/python benchmarks/bench_adaptive.py

bench-characterize: setup ## PROFILE=characterize vs the course grid, chain grid, characterize, grid, ... on a scratch file (ARGS=--quick: 3 series; all 24, 2 rounds: about 45 minutes)
	$(BIN)/python benchmarks/bench_characterize.py $(ARGS)

LINT_VENV := .venv-lint
LINT_DEPS = $$($(PYTHON) -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["lint"]))')

$(LINT_VENV)/.installed: pyproject.toml
	@$(PYTHON) -m venv $(LINT_VENV)
	$(LINT_VENV)/bin/python -m pip install -q $(LINT_DEPS)
	@touch $@

lint: $(LINT_VENV)/.installed ## ruff and the layer contract (import-linter); needs neither Jupyter nor fio
	$(LINT_VENV)/bin/ruff check src tests benchmarks conftest.py
	cd src && PYTHONPATH=. ../$(LINT_VENV)/bin/lint-imports --config ../pyproject.toml --no-logo --no-cache

clean: ## remove the lab's scratch file and caches (raw data is kept); lists lab scratch files elsewhere, SCRATCH=1 removes them
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m helpers.run.target --remove-scratch \
	  $(if $(filter 1 yes true,$(SCRATCH)),--remove-elsewhere,--list-elsewhere); fi
	rm -rf .pytest_cache build .jupyter/runtime
	find src tests -name __pycache__ -type d -prune -exec rm -rf {} +

bench-peak: setup ## the lab's 4k random-read peak (characterize, adaptive, quick) vs the best hand-tuned fio, on zram (or a tmpfs loop device) and on a scratch file (root; about 10 minutes)
	$(BIN)/python benchmarks/bench_peak.py $(ARGS)

bench-ingest: setup ## time ingest vs a naive json_normalize baseline: 3,000 small files and a 2,000-file archive-shaped corpus
	$(BIN)/python benchmarks/bench_ingest.py --files 3000 --archive-files 2000
