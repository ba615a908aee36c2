"""Multi-host sweeps through fio's client/server mode.

Every host runs ``fio --server`` (default port 8765); the lab runs one local fio process per point
with one ``--client=host,port jobfile`` pair per host, so all hosts run the point at the same time.
fio's JSON then holds one ``client_stats`` entry per host (plus an "All clients" aggregate).

fio reports a client's ``hostname`` as the address the lab connected to, so two servers on one
machine (e.g. two ports on 127.0.0.1) carry the same hostname and differ only by ``port``.  The
lab therefore records, per point, which ``client_stats`` entry belongs to which ``host:port`` in
the manifest (``points.<id>.clients``); :func:`helpers.analysis.hosts.label_hosts` uses it.
"""

from __future__ import annotations

import socket
from pathlib import Path

from helpers.errors import LabError
from helpers.fio import reader
from helpers.fio.json_output import parse_fio_bytes

DEFAULT_PORT = 8765


def parse_hosts(hosts: str | list[str] | None) -> list[str]:
    """'h1,h2:8766' or ['h1', 'h2:8766'] -> ['h1:8765', 'h2:8766'] (empty -> [])."""
    if not hosts:
        return []
    items = hosts.split(",") if isinstance(hosts, str) else list(hosts)
    out = []
    for h in (str(x).strip() for x in items):
        if not h:
            continue
        name, _, port = h.partition(":")
        if not name or (port and not port.isdigit()) or h.count(":") > 1:
            raise LabError(f"host {h!r} is not 'name' or 'name:port' (IPv4 or a host name).")
        out.append(f"{name}:{port or DEFAULT_PORT}")
    if len(set(out)) != len(out):
        raise LabError(f"HOSTS lists a host twice ({', '.join(out)}).")
    return out


def unreachable(hosts: list[str], timeout_s: float = 3.0) -> list[str]:
    """Hosts where nothing accepts a TCP connection on the fio server port."""
    bad = []
    for h in hosts:
        name, _, port = h.partition(":")
        try:
            with socket.create_connection((name, int(port)), timeout=timeout_s):
                pass
        except OSError:
            bad.append(h)
    return bad


def check_hosts(hosts: list[str], timeout_s: float = 3.0) -> None:
    """One sentence naming every unreachable host, before the sweep starts."""
    bad = unreachable(hosts, timeout_s)
    if bad:
        names = ", ".join(bad)
        raise LabError(
            f"{'host' if len(bad) == 1 else 'hosts'} {names} {'is' if len(bad) == 1 else 'are'} unreachable "
            f"(no fio server answered): start 'fio --server' there or remove {'it' if len(bad) == 1 else 'them'} "
            "from HOSTS."
        )


def client_entries(raw: Path) -> dict[str, str]:
    """{job_index: 'hostname:port'} for every per-host entry of a client/server raw file."""
    return reader.client_entries(reader.read_result(parse_fio_bytes(Path(raw).read_bytes())), DEFAULT_PORT)
