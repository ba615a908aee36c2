"""The SNIA PTS 2.0.2 procedure (``mode: pts`` profiles): per test, purge, workload-independent preconditioning,
then rounds until every tracked variable is steady over the same window of rounds (or ``max_rounds``).

* **Purge** (block devices only; the sweep already required the explicit destructive confirmation,
  ``DESTROY_DEVICE``): NVMe format (user-data erase) on a whole NVMe namespace, ATA secure erase when hdparm
  reports it supported and not frozen, else ``blkdiscard`` when the device takes discards: whichever the device
  supports first, recorded in the manifest with its commands.  A file target is recreated (sparse: every block
  trimmed) and "no purge" is recorded.
* **Preconditioning**: ``precondition_volume`` x the capacity in sequential ``precondition_bs`` writes
  (TP: at the test's block size); WSAT starts from the purged state without it.
* **Rounds**: every point of the test's matrix per round (the raw file of each point of each round is kept, so a
  sweep killed mid-round resumes at that round, measuring only the points it lacks); after each round the
  tracked variables are checked with :func:`helpers.run.steady_state.pts_steady_state` on the window ending at
  that round (:func:`joint_steady_state`).  WSAT is one size-based point logged per window.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from helpers.errors import LabError
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import read_result
from helpers.fio.units import format_bytes, parse_size
from helpers.run.manifest import now_iso, write_manifest
from helpers.run.profiles import PTS_IOPS_TRACKED, Point, PtsSettings
from helpers.run.pts_dirth import run_operating_points
from helpers.run.pts_hir import run_wait_states
from helpers.run.pts_xsr import run_xsr
from helpers.run.safety import SYS_BLOCK, sys_name
from helpers.run.steady_state import pts_steady_state
from helpers.run.target import write_sidecar

PURGE_METHODS = ("nvme-format", "ata-secure-erase", "blkdiscard")
ATA_PASSWORD = "ssdlab"  # set and consumed by the erase itself (hdparm's documented sequence)
PURGE_TIMEOUT_S = 6 * 3600


# ------------------------------------------------------------------------------------------- purge

def purge_method(name: str, tools: dict[str, bool], discard_max_bytes: int = 0, ata_erase: bool = False) -> str | None:
    """The purge a device supports, first of :data:`PURGE_METHODS`; None when none is available.  ``name``: the
    kernel name (nvme0n1, sda, loop3); ``tools``: which of nvme, hdparm, blkdiscard are installed;
    ``ata_erase``: hdparm -I says security erase is supported and the drive is not frozen."""
    whole_nvme = name.startswith("nvme") and "p" not in name.split("n", 2)[-1]
    if whole_nvme and tools.get("nvme"):
        return "nvme-format"
    if ata_erase and tools.get("hdparm") and name.startswith("sd") and not name[-1].isdigit():
        return "ata-secure-erase"
    if discard_max_bytes > 0 and tools.get("blkdiscard"):
        return "blkdiscard"
    return None


def purge_commands(method: str, device: str) -> list[list[str]]:
    """The commands of a purge method (argv lists, run in order)."""
    if method == "nvme-format":
        return [["nvme", "format", device, "--ses=1", "--force"]]
    if method == "ata-secure-erase":
        return [["hdparm", "--user-master", "u", "--security-set-pass", ATA_PASSWORD, device],
                ["hdparm", "--user-master", "u", "--security-erase", ATA_PASSWORD, device]]
    if method == "blkdiscard":
        return [["blkdiscard", device]]
    raise LabError(f"purge method {method!r} is not known (one of {', '.join(PURGE_METHODS)}).")


def ata_erase_ready(hdparm_identify: str) -> bool:
    """Whether ``hdparm -I``'s Security section says an ATA secure erase can run: supported, and security not
    frozen (the BIOS froze it at boot: every security command is refused), not locked and not enabled (a
    password the lab does not know is set)."""
    lines = hdparm_identify.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Security:")), None)
    if start is None:
        return False
    states = set()
    for line in lines[start + 1:]:
        if line and not line[0].isspace():  # the next section
            break
        states.add(" ".join(line.split()))
    return "supported" in states and not states & {"frozen", "locked", "enabled"}


def _ata_erase_ready(device: str) -> bool:
    if not shutil.which("hdparm"):
        return False
    try:
        out = subprocess.run(["hdparm", "-I", device], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return ata_erase_ready(out)


def device_purge_method(path: Path) -> tuple[str | None, str]:
    """(method, the facts it was chosen from) for a block device."""
    name = sys_name(path)
    try:
        discard = int((SYS_BLOCK / name / "queue" / "discard_max_bytes").read_text().strip() or 0)
    except (OSError, ValueError):
        discard = 0
    tools = {t: bool(shutil.which(t)) for t in ("nvme", "hdparm", "blkdiscard")}
    ata = name.startswith("sd") and _ata_erase_ready(str(path))
    method = purge_method(name, tools, discard, ata)
    facts = (f"{name}: discard_max_bytes {discard}, tools {', '.join(t for t, ok in tools.items() if ok) or 'none'}"
             f"{', ATA security erase ready' if ata else ''}")
    return method, facts


def purge_device(path: Path) -> dict[str, Any]:
    """Purge a block device (the caller has the destructive confirmation); raises LabError when it cannot."""
    method, facts = device_purge_method(path)
    if method is None:
        raise LabError(f"{path} offers no purge the lab can run ({facts}): install nvme-cli/hdparm, or set "
                       "'purge: false' in the profile's pts section (the report then lists 'no purge' as a deviation).")
    t0, outputs = time.monotonic(), []
    for argv in purge_commands(method, str(path)):
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=PURGE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LabError(f"purge of {path} with {method} failed: {exc}") from None
        shown = [a if a != ATA_PASSWORD else "***" for a in argv]
        outputs.append({"argv": shown, "returncode": res.returncode, "stderr": res.stderr.strip()[-300:]})
        if res.returncode != 0:
            raise LabError(f"purge of {path} with {' '.join(shown)} failed (exit {res.returncode}): "
                           f"{res.stderr.strip()[-200:]}")
    return {"method": method, "purged": True, "facts": facts, "commands": outputs,
            "seconds": round(time.monotonic() - t0, 2), "at": now_iso()}


def recreate_file(path: Path, size_bytes: int) -> dict[str, Any]:
    """A file target's stand-in for a purge: the file is recreated empty and extended sparse to its size (every
    block released: trimmed where the filesystem passes discards on), still marked as the lab's."""
    path = Path(path)
    write_sidecar(path, prefilled_bytes=0)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, size_bytes)
        os.fsync(fd)
    finally:
        os.close(fd)
    return {"method": "none", "purged": False, "note": "no purge: file target recreated and trimmed (sparse)",
            "at": now_iso()}


def device_identity(disk: str | None) -> dict[str, str | None]:
    """Model, firmware and interface of a whole disk as sysfs reports them (None where it does not)."""
    out: dict[str, str | None] = {"model": None, "firmware": None, "interface": None}
    if not disk:
        return out
    dev = SYS_BLOCK / disk / "device"

    def read(p: Path) -> str | None:
        try:
            return p.read_text().strip() or None
        except OSError:
            return None

    out["model"] = read(dev / "model")
    out["firmware"] = read(dev / "firmware_rev") or read(dev / "rev")
    for prefix, interface in (("nvme", "NVMe"), ("sd", "SCSI/SATA/SAS (sd)"), ("vd", "virtio (virtual disk)"),
                              ("xvd", "Xen virtual disk"), ("mmcblk", "MMC/SD"), ("loop", "loop device (file image)")):
        if disk.startswith(prefix):
            out["interface"] = interface
            break
    return out


# ------------------------------------------------------------------------------- steady state

def tracked(settings: PtsSettings, test: str) -> list[tuple[str, Point, str]]:
    """(variable name, the point of round 1 it is read from, metric) for a test: IOPS 4k 0/100, 64k 65/35 and
    1024k 100/0 (those in the matrix; else its first point), TP write and read bandwidth, LAT mean latency of
    4k 0/100 (else its first point), DIRTH IOPS at the largest threads x QD.  WSAT has no rounds."""
    points = settings.test_points(test, 1)
    if test == "iops":
        want = [(parse_size(bs), m) for bs, m in PTS_IOPS_TRACKED]
        picked = [p for key in want for p in points if (p.bs_bytes, p.rwmixread) == key] or points[:1]
        return [(f"IOPS {format_bytes(p.bs_bytes)} {p.rwmixread}/{100 - p.rwmixread}", p, "iops") for p in picked]
    if test.startswith("tp-"):
        return [(f"{p.rw} {format_bytes(p.bs_bytes)} bytes/s", p, "bw_bytes_per_s") for p in points]
    if test == "lat":
        picked = [p for p in points if (p.bs_bytes, p.rwmixread) == (4096, 0)] or points[:1]
        return [(f"mean latency {format_bytes(p.bs_bytes)} {p.rwmixread}/{100 - p.rwmixread} us", p, "lat_mean_us")
                for p in picked]
    if test == "hir":
        return [(f"IOPS 4k random writes {p.numjobs} x QD{p.iodepth}", p, "iops") for p in points]
    if test in ("dirth", "cbw"):  # IOPS at the largest threads x QD (the first demand point, after the pre-write)
        p = points[1]
        return [(f"IOPS T{p.numjobs}/Q{p.iodepth} {p.rwmixread}/{100 - p.rwmixread}", p, "iops")]
    return []


def round_metrics(raw: Path) -> dict[str, float]:
    """A point's totals from its raw file (the one fio reader): IOPS and bytes/s of all directions, mean total
    latency (IOPS-weighted over directions), maximum total latency."""
    result = read_result(parse_fio_bytes(Path(raw).read_bytes()))
    agg = [e for e in result.entries if e.aggregate and not e.error]
    use = agg or [e for e in result.entries if not e.aggregate and not e.error]
    iops = bw = lat = w = 0.0
    lat_max = float("nan")
    for e in use:
        for x in e.directions:
            iops += x.iops
            bw += x.bw_bytes_per_s
            if x.iops > 0 and x.lat_mean_us == x.lat_mean_us:
                lat += x.iops * x.lat_mean_us
                w += x.iops
                lat_max = x.lat_max_us if lat_max != lat_max else max(lat_max, x.lat_max_us)
    return {"iops": iops, "bw_bytes_per_s": bw, "lat_mean_us": lat / w if w else float("nan"), "lat_max_us": lat_max}


def joint_steady_state(series: dict[str, list[float]], window: int = 5, max_range_pct: float = 20.0,
                       max_excursion_pct: float = 10.0) -> dict[str, Any]:
    """PTS steady state of several tracked variables at once: the first window of ``window`` rounds in which
    every variable holds the rule (PTS 2.0.2: all of them must pass, in the same rounds).  Without one: each
    variable's verdict on the last window.  Returns steady, first_round, last_round, reason and ``variables``
    ({name: :class:`PtsSteadyState` as a dict, over the measurement window})."""
    n = min((len(v) for v in series.values()), default=0)
    limits = (window, max_range_pct, max_excursion_pct)
    if n >= window:
        for end in range(window, n + 1):
            verdicts = {k: pts_steady_state(v[end - window:end], *limits, round_offset=end - window)
                        for k, v in series.items()}
            if all(r.steady for r in verdicts.values()):
                return {"steady": True, "first_round": end - window + 1, "last_round": end, "rounds": n,
                        "reason": f"steady state in rounds {end - window + 1}-{end} for every tracked variable "
                                  f"({len(verdicts)})",
                        "variables": {k: r.to_dict() for k, r in verdicts.items()}}
        verdicts = {k: pts_steady_state(v[n - window:n], *limits, round_offset=n - window) for k, v in series.items()}
        failing = [k for k, r in verdicts.items() if not r.steady]
        reason = (f"not steady after {n} rounds: no window of {window} rounds in which every tracked variable held "
                  f"the rule (last window, rounds {n - window + 1}-{n}: {', '.join(failing) or 'none'} failing)")
        return {"steady": False, "first_round": n - window + 1, "last_round": n, "rounds": n, "reason": reason,
                "variables": {k: r.to_dict() for k, r in verdicts.items()}}
    verdicts = {k: pts_steady_state(v, *limits) for k, v in series.items()}
    return {"steady": False, "first_round": None, "last_round": None, "rounds": n,
            "reason": f"{n} of the {window} rounds of a window measured", "variables":
                {k: r.to_dict() for k, r in verdicts.items()}}


# ------------------------------------------------------------------------------------ the procedure

def _estimate_left(s: PtsSettings, test: str, rnd: int) -> float:
    """Seconds left if the current test is steady at its first possible window and every later one too."""
    names = s.test_names
    later = names[names.index(test) + 1:]
    left = s.round_seconds(test) * max(0, s.window - rnd + 1) if test != "wsat" else 0.0
    return left + sum(s.round_seconds(t) * (1 if t in ("wsat", "xsr") else s.window) for t in later)


def run_pts(ctx, fill) -> None:
    """Run a ``mode: pts`` profile with the sweep's context ``ctx`` (:class:`helpers.run.sweep._SweepContext`:
    run_point, raw, manifest, plan, progress, tracker, current) and ``fill(name, bs_bytes, iodepth)`` (one
    sequential pass over the target).  Progress and every decision are in ``manifest["pts"]``."""
    plan, s = ctx.plan, ctx.plan.profile.pts
    tgt = plan.target
    active = s.active_bytes(tgt.size_bytes)
    state = ctx.manifest.setdefault("pts", {})
    state.update({"settings": {**asdict(s), "numjobs": s.jobs, "iodepth": s.qd, "active_range_pct": s.active_range},
                  "target_kind": tgt.kind, "capacity_bytes": tgt.size_bytes, "active_range_bytes": active,
                  "order": s.test_names, "device": device_identity((ctx.manifest.get("target") or {}).get("disk"))})
    tests = state.setdefault("tests", {})
    for test in s.test_names:
        t = tests.setdefault(test, {"status": "pending"})
        if t.get("status") == "done":
            continue
        if test == "wsat" and t.get("prepared") and not ctx.done(s.test_points("wsat")[0]):
            t["prepared"] = False  # WSAT measures from the purged state: an interrupted WSAT is purged again
        if not t.get("prepared"):  # purge + preconditioning, again from the start after an interruption in them
            _prepare(ctx, fill, s, test, t)
        if test == "wsat":
            _run_wsat(ctx, s, t, active)
        elif test == "xsr":
            run_xsr(ctx, s, t, active)
        else:
            _run_rounds(ctx, s, test, t, active)
        if test in ("dirth", "cbw"):
            run_operating_points(ctx, s, t, active, lambda p: round_metrics(ctx.raw(p)), test)
        if test == "hir":
            run_wait_states(ctx, s, t, active)
        t["status"] = "done"
        write_manifest(plan.run_dir, ctx.manifest)


def _prepare(ctx, fill, s: PtsSettings, test: str, t: dict) -> None:
    plan = ctx.plan
    tgt = plan.target
    if t.get("purge"):  # an earlier purge/preconditioning was interrupted before the rounds began: kept, redone
        t.setdefault("repeated_preparations", []).append(
            {"purge": t["purge"], "precondition": t.get("precondition"), "redone_at": now_iso(),
             "reason": "interrupted before its measurement began" if test != "wsat" else
                       "WSAT interrupted before its point was measured (WSAT measures from the purged state)"})
        if ctx.progress:
            print(f"PTS {test}: its purge and preconditioning were interrupted before the measurement began: "
                  "both run again (recorded)", flush=True)
    t.update({"status": "preparing", "started": now_iso()})
    ctx.current = f"pts-{test}-purge"
    ctx.tracker.write(label=f"PTS {test}: purge", seconds=5.0)
    if tgt.kind == "block" and s.purge:
        t["purge"] = purge_device(tgt.path)
    elif tgt.kind == "block":
        t["purge"] = {"method": "none", "purged": False, "note": "no purge: the profile sets purge: false"}
    else:
        t["purge"] = recreate_file(tgt.path, tgt.size_bytes)
    write_manifest(plan.run_dir, ctx.manifest)
    if test in ("wsat", "xsr"):
        start = "the purged state" if t["purge"].get("purged") else "the unpurged target (no purge ran)"
        t["precondition"] = {"bytes": 0, "note": f"{test.upper()} starts from {start}, without preconditioning"}
    else:
        bs = parse_size(test.removeprefix("tp-")) if test.startswith("tp-") else parse_size(s.precondition_bs)
        passes = max(1, round(s.precondition_volume))
        done = []
        for i in range(1, passes + 1):
            ctx.current = f"pts-{test}-precondition-{i}"
            ctx.tracker.write(label=f"PTS {test}: preconditioning pass {i} of {passes} "
                                    f"({format_bytes(bs)} sequential writes of {format_bytes(tgt.size_bytes)})",
                              seconds=tgt.size_bytes / (200 * 1024**2))
            if ctx.progress:
                print(f"PTS {test}: preconditioning pass {i} of {passes} ({format_bytes(bs)} sequential writes)",
                      flush=True)
            done.append(fill(f"pts-{test}-precondition-{i}", bs, s.precondition_iodepth))
        t["precondition"] = {"passes": done, "bytes": passes * tgt.size_bytes, "bs_bytes": bs,
                             "volume_x_capacity": passes}
    ctx.current = None
    t["prepared"] = True
    write_manifest(plan.run_dir, ctx.manifest)


def _health_of(entry: dict) -> dict | None:
    h = entry.get("health") or {}
    after = h.get("after") or {}
    return {k: after.get(k) for k in ("temperature_c", "percent_used", "media_errors") if k in after} or None


def _run_rounds(ctx, s: PtsSettings, test: str, t: dict, active: int) -> None:
    plan = ctx.plan
    variables = tracked(s, test)
    rounds: list[dict] = []
    series: dict[str, list[float]] = {name: [] for name, _, _ in variables}
    t["tracked"] = [{"name": name, "point": p.point_id, "metric": metric} for name, p, metric in variables]
    for r in range(1, s.max_rounds + 1):
        points = s.test_points(test, r)
        status = "filling the first window" if r <= s.window else "not steady yet"
        ctx.tracker.prefix = f"PTS {test} round {r} of at most {s.max_rounds} ({status})"
        ctx.tracker.remaining = _estimate_left(s, test, r)  # if every test is steady at its first window
        ctx.tracker.write(label=ctx.tracker.prefix, seconds=s.round_seconds(test))
        health = None
        for p in points:
            entry = ctx.run_point(p, {"pts": {"test": test, "round": r}}, size_bytes=active)
            if entry.get("status") != "ok":
                raise LabError(f"PTS {test} round {r} failed at {p.point_id}: "
                               f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")
            health = _health_of(entry) or health
        row: dict[str, Any] = {"round": r}
        for name, p, metric in variables:
            value = round_metrics(ctx.raw(replace(p, round=r)))[metric]
            series[name].append(value)
            row[name] = value
        if health:
            row["health"] = health
        verdict = joint_steady_state(series, s.window, s.max_range_pct, s.max_excursion_pct)
        row["steady"] = verdict["steady"]
        rounds.append(row)
        t.update({"rounds": rounds, "result": verdict, "status": "running"})
        write_manifest(plan.run_dir, ctx.manifest)
        if ctx.progress:
            values = "; ".join(f"{k} {v:,.4g}" for k, v in row.items() if k not in ("round", "steady", "health"))
            print(f"PTS {test} round {r}: {values}; {verdict['reason']}", flush=True)
        if verdict["steady"]:
            break
        if s.test_limit_s and r * s.round_seconds(test) >= s.test_limit_s:
            verdict = {**verdict, "stopped_at_limit": True,
                       "reason": f"{verdict['reason']}; stopped at the time limit of {s.test_limit_s:g} s per test "
                                 f"(test_limit_s) after {r} round{'s' if r > 1 else ''}"}
            t["result"] = verdict
            write_manifest(plan.run_dir, ctx.manifest)
            if ctx.progress:
                print(f"PTS {test}: stopped at the time limit of {s.test_limit_s:g} s after round {r}", flush=True)
            break
    ctx.tracker.prefix = ""


def _run_wsat(ctx, s: PtsSettings, t: dict, active: int) -> None:
    (point,) = s.test_points("wsat")
    ctx.tracker.remaining = s.wsat_max_s
    written = format_bytes(int(s.wsat_volume * active * 100.0 / s.active_range))
    ctx.tracker.write(label=f"PTS wsat: random 4k writes of {s.wsat_volume:g} x the capacity ({written}) within "
                            f"{format_bytes(active)} (at most {s.wsat_max_s:g} s)", seconds=s.wsat_max_s)
    if ctx.progress:
        print(f"PTS wsat: random 4k writes of {s.wsat_volume:g} x the capacity ({written}) within the ActiveRange "
              f"{format_bytes(active)}, at most {s.wsat_max_s:g} s, one sample per {s.wsat_window_s:g} s", flush=True)
    entry = ctx.run_point(point, {"pts": {"test": "wsat"}}, size_bytes=active)
    if entry.get("status") != "ok":
        raise LabError(f"PTS wsat failed at {point.point_id}: "
                       f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")
    t.update({"point": point.point_id, "volume_x_capacity": s.wsat_volume, "max_seconds": s.wsat_max_s,
              "window_s": s.wsat_window_s})
