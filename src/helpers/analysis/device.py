"""What a run measured: the device behind the target (model, capacity, a virtual disk or memory), the kind of target, named in one table."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.health import health_summary
from helpers.fio.units import format_bytes

VIRTUAL_DISKS = ("vd", "xvd")  # virtio and Xen block devices: a virtual disk


VIRTUAL_MODELS = ("qemu", "virtual", "vmware", "vbox", "elastic block", "persistent disk")


def is_virtual_disk(manifest: dict) -> bool:
    """True when the target's disk is a virtual one (virtio/Xen name or a hypervisor's model string)."""
    t = manifest.get("target") or {}
    disk, model = str(t.get("disk") or ""), str(t.get("model") or "").lower()
    return disk.startswith(VIRTUAL_DISKS) or any(v in model for v in VIRTUAL_MODELS)


def target_kind(manifest: dict) -> str | None:
    t = manifest.get("target") or {}
    if t.get("kind"):
        return str(t["kind"])
    path = str(t.get("path") or "")
    return None if not path else "block device" if path.startswith("/dev/") else "file"


def device_identity(manifest: dict | None, health: pd.DataFrame | None = None) -> dict[str, str]:
    """What a run measured, from its manifest: device model, capacity, kernel device, its health during the
    run (with the run's ``health`` captures: the temperature range; :func:`helpers.analysis.health_summary`),
    target (file or device, filesystem), host, kernel, fio version, profile and date.  Unknown facts say so."""
    if not manifest:
        return {"run": "no manifest found for this run: device, target and host are unknown"}
    t = manifest.get("target") or {}
    mount = t.get("mount") or {}
    virtual = is_virtual_disk(manifest)
    model = t.get("model") or ("not reported by the kernel" + (" (a virtual disk)" if virtual else ""))
    cap = t.get("capacity_bytes")
    disk, dev = t.get("disk"), t.get("device")
    kdev = "unknown" if not disk else f"/dev/{disk}" + (f" (partition /dev/{dev})" if dev and dev != disk else "")
    if virtual and disk:
        kdev += ", a virtual disk"
    kind = target_kind(manifest) or "unknown"
    where = (f" on {mount.get('fstype')} ({mount.get('source')} mounted at {mount.get('mountpoint')})"
             if kind == "file" and mount else "")
    size = manifest.get("target_size_bytes")
    size_text = f", {format_bytes(int(size))} used" if size else ""
    started, finished = manifest.get("started"), manifest.get("finished")
    return {
        "device model": str(model),
        "capacity": f"{cap / 1e9:,.1f} GB ({cap / 2**30:,.1f} GiB)" if cap else "unknown",
        "kernel device": kdev,
        "device health": health_summary(manifest, health),
        "target": f"{kind} {t.get('path', '?')}{where}{size_text}",
        "host": str(manifest.get("host") or "unknown"),
        "kernel": str(manifest.get("kernel") or "unknown"),
        "fio version": str(manifest.get("fio_version") or "unknown"),
        "fio clock": _clock_text(manifest),
        "profile": str(manifest.get("profile") or "unknown"),
        "date": f"{started or '?'} to {finished or 'not finished'}",
    }


def _clock_text(manifest: dict) -> str:
    """The clock fio timed every point with (the sweep asks fio once and gives each point ``--clocksource``)."""
    if "fio_clocksource" not in manifest:
        return "not recorded (a run from before the lab pinned it, or another tool's: fio chose at each start)"
    if manifest["fio_clocksource"] is None:
        return "fio's own choice at each start (fio did not say which clock it picks, or several hosts)"
    return f"{manifest['fio_clocksource']} for every point (fio's own pick on this host, asked once)"
