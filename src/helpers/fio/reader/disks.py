"""disk_util: each I/O counted once, at the top of a device stack."""

from __future__ import annotations

from typing import Any

from helpers.fio.reader.values import EntryError, _count

DISK_FIELDS = ("read_ios", "write_ios", "read_merges", "write_merges")
# --- disk_util -----------------------------------------------------------------------------------

def disk_ios(obj: dict, client: bool) -> dict:
    """{(hostname, port) or None: (read_ios, write_ios, read_merges, write_merges)} from disk_util;
    {} when the file has no usable disk_util.

    Each I/O is counted once, at the top of a device stack: when the list holds stacked devices
    (entries with fio's ``aggr_*`` fields, e.g. dm-0 or md0, whose member disks fio lists beside
    them with the same I/Os again), only those entries count; otherwise every entry is summed.
    Client/server files: per host:port, a disk repeated once per client connection counts once (its
    largest numbers).
    """
    du = obj.get("disk_util")
    if not isinstance(du, list) or not du:
        return {}
    try:
        per: dict[Any, dict[Any, list[int]]] = {}
        stacked: dict[Any, bool] = {}
        for e in du:
            if "aggr_read_ios" in e or "aggr_util" in e:
                stacked[(str(e.get("hostname")), str(e.get("port"))) if client else None] = True
        for i, e in enumerate(du):
            host = (str(e.get("hostname")), str(e.get("port"))) if client else None
            if stacked and stacked.get(host) and not ("aggr_read_ios" in e or "aggr_util" in e):
                continue  # a member of a stacked device: its I/Os are the stacked device's again
            vals = [_count(e.get(k, 0) if k.endswith("merges") else e[k], k) for k in DISK_FIELDS]
            disk = str(e.get("name")) if client else i
            cur = per.setdefault(host, {}).setdefault(disk, [0, 0, 0, 0])
            cur[:] = [max(a, b) for a, b in zip(cur, vals)]
        return {h: tuple(sum(v[k] for v in d.values()) for k in range(4)) for h, d in per.items()}
    except (EntryError, KeyError, TypeError, AttributeError):
        return {}  # ancillary numbers: unusable disk stats leave the columns None, not the result


