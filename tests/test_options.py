"""The sweep options table (helpers.run.options): the notebook's parameters cell, the Makefile, argparse,
plan_sweep and the resume command all agree with it, so an option is declared once."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import nbformat
import pytest

from helpers import config
from helpers.errors import LabError
from helpers.report import pipeline
from helpers.run import options, sweep

ROOT = Path(__file__).resolve().parents[1]
NAMES = [o.name for o in options.SWEEP_OPTIONS]


def _sweep_notebook():
    return nbformat.read(config.NOTEBOOKS_DIR / pipeline.SWEEP_NB, as_version=4)


def _makefile() -> str:
    return (ROOT / "Makefile").read_text()


def test_notebook_parameters_cell_is_the_table():
    cell = next(c for c in _sweep_notebook().cells if "parameters" in c.metadata.get("tags", []))
    assert cell.source.strip() == options.parameters_cell(), (
        "notebooks/00-sweep.ipynb's parameters cell differs from helpers.run.options.SWEEP_OPTIONS; it should read:\n"
        + options.parameters_cell())


def test_notebook_passes_every_option_to_plan_sweep():
    code = next(c.source for c in _sweep_notebook().cells if c.cell_type == "code" and "plan_sweep(" in c.source)
    call = next(n for n in ast.walk(ast.parse(code))
                if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "plan_sweep")
    params = list(inspect.signature(sweep.plan_sweep).parameters)
    passed = {params[i]: a.id for i, a in enumerate(call.args)} | {k.arg: k.value.id for k in call.keywords}
    assert passed.pop("trace_reader") == "trace_ios"  # not an option: the replay mode's trace reader (ingest layer)
    assert passed == {n: n for n in NAMES}  # every option, each given the notebook parameter of its name


def test_plan_sweep_keywords_are_the_table_in_order():
    params = [p for p in inspect.signature(sweep.plan_sweep).parameters if p not in ("check_hosts_now", "trace_reader")]
    assert params == NAMES


def test_makefile_passes_every_make_variable_with_its_flag_and_default():
    mk = _makefile()
    block = re.search(r"^SWEEP_ARGS = ((?:.*\\\n)*.*)$", mk, re.M).group(1)
    flags = dict(re.findall(r'(--[a-z-]+)="\$\(([A-Z_]+)\)"', block))
    assert flags == {o.cli_flag: o.make_var for o in options.MAKE_OPTIONS}
    defaults = dict(re.findall(r"^([A-Z_]+) \?=[ \t]*(.*?)[ \t]*$", mk, re.M))
    for o in options.MAKE_OPTIONS:
        assert o.make_var in defaults, f"Makefile has no '{o.make_var} ?=' line"
        assert o.convert(defaults[o.make_var]) == o.convert(o.default), o.make_var
    # the stages that take only a run pass it with '=' so that a value starting with '-' is a value
    assert 'ingest --run="$(RUN)"' in mk and 'reports --run="$(RUN)"' in mk


def test_pipeline_arguments_are_the_make_options_typed():
    ap = options.ArgumentParser(prog="p")
    sweep.add_sweep_arguments(ap, make_only=True)
    args = ap.parse_args(["--target=/x/t.bin", "--profile=smoke", "--run=-r", "--runtime=2", "--size=256m",
                          "--hosts=", "--dry-run=", "--allow-existing=", "--destroy-device=",
                          "--ignore-signature=", "--read-only-ack="])
    values = sweep.sweep_options(args, make_only=True)
    assert values == {"target": "/x/t.bin", "profile": "smoke", "run_id": "-r", "runtime_s": 2.0, "size": "256m",
                      "hosts": "", "dry_run": False, "allow_existing": "", "destroy_device": "",
                      "ignore_signature": "", "read_only_ack": ""}
    assert sweep.sweep_options(ap.parse_args(["--dry-run"]), make_only=True)["dry_run"] is True
    assert sweep.sweep_options(ap.parse_args(["--dry-run=yes"]), make_only=True)["dry_run"] is True
    assert set(options.notebook_parameters(values)) == set(NAMES)  # the papermill parameters: every option


@pytest.mark.parametrize("name, value, fragment", [("dry_run", "maybe", "DRY_RUN 'maybe' must be 1 or 0"),
                                                   ("runtime_s", "5s", "RUNTIME '5s' must be a number")])
def test_values_of_the_wrong_type_are_one_sentence(name, value, fragment):
    with pytest.raises(LabError, match=fragment):
        options.OPTIONS_BY_NAME[name].convert(value)


def test_argument_errors_are_one_sentence_without_usage(capsys):
    ap = options.ArgumentParser(prog="p")
    sweep.add_sweep_arguments(ap)
    with pytest.raises(SystemExit) as exc:
        ap.parse_args(["--run", "-x"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1
    assert err.startswith("error: argument --run") and "usage:" not in err


def test_resume_command_carries_every_variable_given():
    cmd = options.make_command("sweep", {"run_id": "r1", "target": "/data/my disk/t.bin", "profile": "smoke",
                                         "size": "256m", "runtime_s": 2.0, "hosts": "h1,h2:8765", "dry_run": True,
                                         "allow_existing": ""})
    assert cmd == "make sweep TARGET='/data/my disk/t.bin' PROFILE=smoke RUN=r1 RUNTIME=2 SIZE=256m HOSTS=h1,h2:8765"
