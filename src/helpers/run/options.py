"""The sweep's options, declared once.

:data:`SWEEP_OPTIONS` is the single table from which the command-line arguments (``python -m
helpers.run.sweep`` and ``python -m helpers.report.pipeline``), the sweep notebook's papermill
parameters, :func:`helpers.run.sweep.plan_sweep`'s keyword arguments and the resume command printed
after Ctrl-C are derived.  The Makefile variables and the notebook's ``parameters`` cell are checked
against it by ``tests/test_options.py``.  Adding an option: one row here, one parameter of
``plan_sweep``, one line in the notebook's parameters cell (:func:`parameters_cell` prints it) and,
when it has a Makefile variable, ``VAR ?=`` plus ``--flag="$(VAR)"`` in the Makefile's SWEEP_ARGS.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass
from typing import Any

from helpers import config
from helpers.errors import LabError

TRUE_WORDS = ("1", "yes", "true", "on")
FALSE_WORDS = ("", "0", "no", "false", "off")


@dataclass(frozen=True)
class SweepOption:
    name: str  # plan_sweep keyword and notebook parameter
    type: type  # str, float or bool
    default: str | float | bool  # notebook / command-line default; "" and 0 mean "the lab's default"
    help: str
    make_var: str | None  # Makefile variable; None: not set through make (notebook and sweep CLI only)
    flag: str = ""  # command-line flag, default --name-with-dashes

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def type_name(self) -> str:
        return self.type.__name__

    def convert(self, value: Any) -> str | float | bool:
        """A command-line / Makefile / notebook value -> this option's type (one sentence when it cannot)."""
        what = self.make_var or self.name
        if self.type is bool:
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in TRUE_WORDS:
                return True
            if word in FALSE_WORDS:
                return False
            raise LabError(f"{what} {value!r} must be 1 or 0 (yes/no).")
        if self.type is float:
            if value in ("", None):
                return 0.0
            try:
                return float(value)
            except (TypeError, ValueError):
                raise LabError(f"{what} {value!r} must be a number of seconds.") from None
        return "" if value is None else str(value)


SWEEP_OPTIONS: tuple[SweepOption, ...] = (
    SweepOption("target", str, "", "file or block device to test, empty: data/scratch/fio-target.bin "
                "(created and marked by the lab)", "TARGET"),
    SweepOption("profile", str, config.DEFAULT_PROFILE, "profile name (src/helpers/resources/profiles/*.yaml) or "
                "path to a profile .yaml file", "PROFILE"),
    SweepOption("run_id", str, "", "run id, empty: derived from the time and host name (the same id resumes a "
                "sweep)", "RUN", "--run"),
    SweepOption("runtime_s", float, 0.0, "seconds per point, 0: as the profile says", "RUNTIME", "--runtime"),
    SweepOption("size", str, config.DEFAULT_SIZE, "size of the scratch file / tested region (binary suffix, 1g is "
                "1 GiB)", "SIZE"),
    SweepOption("raw_dir", str, "", "folder for raw results, empty: data/raw", None),
    SweepOption("hosts", str, "", "multi-host: comma-separated host or host:port running fio --server, empty: "
                "this machine only", "HOSTS"),
    SweepOption("dry_run", bool, False, "True: print every fio command and write nothing", "DRY_RUN"),
    SweepOption("allow_existing", str, "", "an existing non-lab file that write workloads may destroy (repeat the "
                "target path)", "ALLOW_EXISTING"),
    SweepOption("destroy_device", str, "", "block device targets with write workloads: repeat the device name, "
                "e.g. /dev/sdX", "DESTROY_DEVICE"),
    SweepOption("ignore_signature", str, "", "second override: repeat the device name to write over a filesystem "
                "or partition table", "IGNORE_SIGNATURE"),
    SweepOption("read_only_ack", str, "", "read-only profile on a device that is in use: repeat the device name",
                "READ_ONLY_ACK"),
)

OPTIONS_BY_NAME = {o.name: o for o in SWEEP_OPTIONS}
MAKE_OPTIONS = tuple(o for o in SWEEP_OPTIONS if o.make_var)


def add_arguments(ap: argparse.ArgumentParser, make_only: bool = False) -> None:
    """One ``--flag`` per option (``make_only``: only the options the Makefile passes, as the pipeline)."""
    for o in (MAKE_OPTIONS if make_only else SWEEP_OPTIONS):
        if o.type is bool:  # "--dry-run" alone, or --dry-run="$(DRY_RUN)" from make (1/yes/true or empty)
            ap.add_argument(o.cli_flag, dest=o.name, nargs="?", const="1", default=o.default, help=o.help)
        else:
            ap.add_argument(o.cli_flag, dest=o.name, default=o.default, help=o.help)


def values_from_args(args: argparse.Namespace, make_only: bool = False) -> dict[str, Any]:
    """The parsed arguments as {option name: typed value} (LabError for a value of the wrong type)."""
    return {o.name: o.convert(getattr(args, o.name)) for o in (MAKE_OPTIONS if make_only else SWEEP_OPTIONS)}


def notebook_parameters(values: dict[str, Any]) -> dict[str, Any]:
    """papermill parameters of the sweep notebook: every option, typed, defaults filled in."""
    return {o.name: o.convert(values.get(o.name, o.default)) for o in SWEEP_OPTIONS}


def _literal(value: str | float | bool) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def parameters_cell() -> str:
    """The sweep notebook's ``parameters`` cell as the table says it should read."""
    return "\n".join(f"{o.name}: {o.type_name} = {_literal(o.default)}  # {o.help}" for o in SWEEP_OPTIONS)


def make_command(target: str, values: dict[str, Any], always: tuple[str, ...] = ("run_id", "target", "profile",
                                                                                "size", "runtime_s")) -> str:
    """``make <target> VAR=value ...`` with the options of ``values`` (a resume command): the ones in
    ``always`` and every other one that is set; never DRY_RUN."""
    parts = ["make", target]
    for o in MAKE_OPTIONS:
        if o.type is bool:
            continue
        value = values.get(o.name, o.default)
        if o.type is float:
            value = f"{float(value or 0):g}"
        if o.name in always or (value not in ("", None) and value != o.default):
            parts.append(f"{o.make_var}={shlex.quote(str(value))}")
    return " ".join(parts)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the lab's one-sentence errors: no usage dump, exit code 2."""

    def error(self, message: str):  # noqa: D102 - argparse's hook
        self.exit(2, f"error: {message} (see '{self.prog} --help').\n")
