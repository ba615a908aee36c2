"""The configuration of a job entry: fio's 'global options' (one block, duplicated keys, or one
block per client) and 'job options' -> :class:`~helpers.fio.reader.records.Config`."""

from __future__ import annotations

from typing import Any

from helpers.fio import options as fo
from helpers.fio.json_output import DUPLICATES
from helpers.fio.options import ALL_CLIENTS, OptionError, Unknown, show
from helpers.fio.reader.records import Config
from helpers.fio.reader.values import EntryError, _version_before

NOT_RECORDED = "options not recorded by this fio version"
# --- options -------------------------------------------------------------------------------------

def _check_block(block: Any, what: str) -> dict:
    if block is None:
        return {}
    if type(block) is not dict and not isinstance(block, dict):
        raise EntryError(f"{what} is not an object (wrong schema).")
    return block


class _Globals:
    """Which 'global options' apply to which entry (see the module docstring)."""

    def __init__(self, obj: dict, n_clients: int) -> None:
        self.present = "global options" in obj
        self.error: str | None = None
        self.unknown = False  # some option's value is not known for some entry
        self.shared: dict = {}
        self.per_client: dict[tuple[str, str], dict] | None = None
        g = obj.get("global options")
        try:
            if isinstance(g, list):
                self._list(g)
            else:
                g = _check_block(g, "the file's 'global options'")
                self.shared = self._merge_duplicates(g, n_clients)
        except EntryError as exc:
            self.error = str(exc)
        blocks = [self.shared, *(self.per_client or {}).values()]
        self.unknown = any(type(v) is Unknown for b in blocks for v in b.values())

    @staticmethod
    def _merge_duplicates(g: dict, n_clients: int) -> dict:
        dups = getattr(g, DUPLICATES, None) or {}
        if n_clients <= 1 and not dups:
            return g
        out = {}
        for k, v in g.items():
            values = dups.get(k, [v])
            if n_clients > 1 and len(values) < n_clients:
                out[k] = Unknown(f"set in the 'global options' of only {len(values)} of the {n_clients} clients, "
                                 "so not attributable to this one")
            elif any(x != values[0] for x in values):
                shown = ", ".join(dict.fromkeys(show(x) for x in values))
                out[k] = Unknown(f"given different values by the clients' 'global options' ({shown})")
            else:
                out[k] = values[0]
        return out

    def _list(self, g: list) -> None:
        blocks = [_check_block(b, "an item of the file's 'global options' list") for b in g]
        if all("hostname" in b for b in blocks) and blocks:  # fio >= 3.39: one block per client
            self.per_client = {}
            for b in blocks:
                key = (str(b.get("hostname")), str(b.get("port")))
                opts = {k: v for k, v in b.items() if k not in ("hostname", "port")}
                prev = self.per_client.get(key)
                if prev is not None:  # two connections to one host:port: keep only what both blocks say alike
                    unsure = Unknown(f"not set alike by the 'global options' of the clients connected to "
                                     f"{key[0]}:{key[1]}, whose entries cannot be told apart")
                    opts = {k: prev[k] if k in prev and k in opts and prev[k] == opts[k] else unsure
                            for k in {**prev, **opts}}
                self.per_client[key] = opts
        elif len(blocks) == 1:  # some tools write the one object as a one-item list
            self.shared = blocks[0]
        else:
            keys = dict.fromkeys(k for b in blocks for k in b)
            self.shared = {k: Unknown(f"set in one of {len(blocks)} 'global options' blocks without hostname, "
                                      "so not attributable to a job") for k in keys}

    def for_entry(self, hostname: str | None, port: str | None) -> dict:
        if self.error:
            raise EntryError(self.error)
        if self.per_client is not None:
            return self.per_client.get((str(hostname), str(port)), {})  # no block: no global options
        return self.shared


def _config(job: dict, glob: _Globals, version: str | None, entries_alike: int, text_format: str | None) -> Config:
    """``entries_alike``: entries with this one's jobname, groupid and client (numjobs clones reported
    one by one when it equals numjobs; fewer means fio grouped them)."""
    j = job.get("job options")
    if not glob.present and j is None:
        if text_format:
            note = f"options not recorded in fio's {text_format} output"
        elif _version_before(version, 2, 3):
            note = f"{NOT_RECORDED} ({version} wrote no option blocks)"
        else:
            note = "options not recorded in the file (no 'global options' or 'job options' block)"
        return Config({}, None, None, None, None, None, None, False, note, recorded=False)
    g = glob.for_entry(job.get("hostname"), job.get("port"))
    if j is None:
        j = {}
    elif not isinstance(j, dict):
        raise EntryError("the job's 'job options' is not an object (wrong schema).")
    for k, v in (*g.items(), *j.items()):
        if not isinstance(v, (str, int, float, Unknown)) or isinstance(v, bool):
            raise EntryError(f"option {k}={show(v)} is not a string (wrong schema).")
    opts = {**g, **j}
    if text_format:  # text states only what it prints: an option it leaves out is unknown, not fio's default
        missing = Unknown(f"not printed in fio's {text_format} output")
        for keys in (("rw", "readwrite"), ("bs", "blocksize"), ("iodepth",), ("numjobs",), ("ioengine",), ("direct",),
                     ("rate_iops",), ("rwmixread", "rwmixwrite")):
            if not any(k in opts for k in keys):
                opts[keys[0]] = missing
    try:
        rw = fo.rw_mode(opts)
        iodepth = fo.option(opts, ("iodepth",), fo.DEFAULT_IODEPTH, fo.int_option, "a queue depth")
        numjobs = fo.option(opts, ("numjobs",), fo.DEFAULT_NUMJOBS, fo.int_option, "a job count")
        rwmix = fo.rwmixread(opts, rw)
        ioengine = fo.option(opts, ("ioengine",), fo.DEFAULT_IOENGINE, str, "an engine name")
        direct = fo.option(opts, ("direct",), fo.DEFAULT_DIRECT, fo.int_option, "0 or 1")
        grouped = bool(fo.option(opts, ("group_reporting",), 0, fo.int_option, "0 or 1")) or (
            (numjobs or 1) > 1 and entries_alike < numjobs)
    except OptionError as exc:
        raise EntryError(str(exc)) from None
    note = None
    if (glob.unknown or text_format) and any(type(v) is Unknown for v in opts.values()):
        by_reason: dict[str, list[str]] = {}
        for k in fo.CONFIG_OPTIONS:
            v = opts.get(k)
            if type(v) is Unknown and not (k.startswith("rwmix") and rw is not None and rw not in fo.MIXED_MODES):
                by_reason.setdefault(v.reason, []).append(k)
        note = "; ".join(f"{', '.join(ks)} {r}" for r, ks in by_reason.items()) or None
    target_file, target_size = fo.target(opts)
    return Config(opts, rw, iodepth, numjobs, rwmix, ioengine, direct, grouped, note,
                  target_file=target_file, target_size_bytes=target_size)


def _client_count(obj: dict, jobs: list) -> int:
    """Client connections of a client/server result (a lower bound): distinct host:port of the entries,
    the most times one host:port reports one disk (fio repeats disk_util per connection), and at least
    2 when fio wrote the "All clients" aggregate (it does so for more than one client)."""
    hosts = {(str(j.get("hostname")), str(j.get("port"))) for j in jobs
             if type(j) is dict and j.get("jobname") != ALL_CLIENTS}
    n = max(len(hosts), 2 if any(type(j) is dict and j.get("jobname") == ALL_CLIENTS for j in jobs) else 1)
    du = obj.get("disk_util")
    if isinstance(du, list):
        seen: dict[tuple, int] = {}
        for e in du:
            if isinstance(e, dict):
                k = (str(e.get("hostname")), str(e.get("port")), str(e.get("name")))
                seen[k] = seen.get(k, 0) + 1
        n = max(n, *seen.values()) if seen else n
    return n


