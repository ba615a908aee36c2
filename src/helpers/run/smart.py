"""SMART / health of the target's device before and after points: temperature, thermal throttling, wear.

Sources, in order: ``nvme smart-log -o json /dev/nvmeX`` (nvme-cli) for NVMe disks, else
``smartctl -j -a /dev/X`` (smartmontools 7+).  When neither exists for the target (a virtio disk, a
file on tmpfs, no tools installed, no permission) :func:`health_source` returns one sentence and the
sweep goes on without health data.

Parsed fields (``Health``): temperature (°C; nvme-cli prints the NVMe composite temperature in
Kelvin), the drive's warning/critical temperature thresholds when the output has them, minutes spent
above them (``warning_temp_time``/``critical_comp_time``), thermal-management transition counts
(``thm_temp1_trans_count`` ... in nvme-cli), percentage used, bytes written (NVMe data units are
1000 x 512 bytes) and media errors.  :func:`throttle_check` compares two captures: a point throttled
when the transition counts or the minutes above the warning temperature grew, or the temperature
reached the warning threshold.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from helpers.run.system import block_device_of

NVME_DATA_UNIT_BYTES = 512_000  # NVMe "data units": thousands of 512-byte units
KELVIN_ABOVE = 200  # an NVMe composite temperature above 200 is Kelvin (nvme-cli 1.x/2.x print K)
TIMEOUT_S = 15
LONG_POINT_S = 60.0  # points planned this long (or size-based ones) are sampled while they run ...
SAMPLE_EVERY_S = 10.0  # ... every 10 s


@dataclass
class Health:
    source: str  # "nvme-cli" or "smartctl"
    temperature_c: float | None = None
    warning_temp_c: float | None = None  # the drive's own thresholds, when the output carries them
    critical_temp_c: float | None = None
    warning_temp_min: int | None = None  # minutes spent above the warning temperature (lifetime counter)
    critical_temp_min: int | None = None
    thermal_transitions: int | None = None  # thermal-management transitions (sum over TMT1/TMT2)
    percent_used: int | None = None
    data_written_bytes: int | None = None
    media_errors: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*[\d,]+\s*", v):  # some nvme-cli versions print "1,234"
        return int(v.replace(",", ""))
    return None


def _celsius(v: Any) -> float | None:
    t = _int(v)
    if t is None:
        return None
    return float(t - 273) if t > KELVIN_ABOVE else float(t)


def _transitions(d: dict) -> int | None:
    counts = [_int(v) for k, v in d.items() if re.fullmatch(r"thm_temp\d_trans_count|thermal_temp\d_transition_count", k)]
    counts = [c for c in counts if c is not None]
    return sum(counts) if counts else None


def parse_nvme_smart_log(doc: dict) -> Health:
    """``nvme smart-log -o json`` output (nvme-cli 1.x and 2.x key names)."""
    if not isinstance(doc, dict) or not ({"temperature", "critical_warning"} & set(doc)):
        raise ValueError("not an nvme smart-log JSON document.")
    du = _int(doc.get("data_units_written"))
    return Health("nvme-cli", temperature_c=_celsius(doc.get("temperature")),
                  warning_temp_min=_int(doc.get("warning_temp_time")),
                  critical_temp_min=_int(doc.get("critical_comp_time")), thermal_transitions=_transitions(doc),
                  percent_used=_int(doc.get("percent_used", doc.get("percentage_used"))),
                  data_written_bytes=None if du is None else du * NVME_DATA_UNIT_BYTES,
                  media_errors=_int(doc.get("media_errors")))


def parse_smartctl(doc: dict) -> Health:
    """``smartctl -j -a`` output (smartmontools 7 JSON): NVMe health log or ATA attributes."""
    if not isinstance(doc, dict) or "smartctl" not in doc:
        raise ValueError("not a smartctl JSON document.")
    h = Health("smartctl")
    temp = doc.get("temperature") or {}
    h.temperature_c = _celsius(temp.get("current")) if isinstance(temp, dict) else None
    thr = doc.get("nvme_composite_temperature_threshold") or {}
    if isinstance(thr, dict):
        h.warning_temp_c, h.critical_temp_c = _celsius(thr.get("warning")), _celsius(thr.get("critical"))
    nv = doc.get("nvme_smart_health_information_log")
    if isinstance(nv, dict):
        if h.temperature_c is None:
            h.temperature_c = _celsius(nv.get("temperature"))
        h.warning_temp_min = _int(nv.get("warning_temp_time"))
        h.critical_temp_min = _int(nv.get("critical_comp_time"))
        h.thermal_transitions = _transitions(nv)
        h.percent_used = _int(nv.get("percentage_used"))
        du = _int(nv.get("data_units_written"))
        h.data_written_bytes = None if du is None else du * NVME_DATA_UNIT_BYTES
        h.media_errors = _int(nv.get("media_errors"))
    table = (doc.get("ata_smart_attributes") or {}).get("table") or []
    attrs = {a.get("name"): (a.get("raw") or {}).get("value") for a in table if isinstance(a, dict)}
    if "Total_LBAs_Written" in attrs and h.data_written_bytes is None:
        lbas = _int(attrs["Total_LBAs_Written"])
        block = _int(doc.get("logical_block_size")) or 512
        h.data_written_bytes = None if lbas is None else lbas * block
    return h


def health_source(target: Path) -> tuple[list[str], str] | str:
    """(argv, parser name) reading the health of the target's disk, or one sentence saying why there is none."""
    disk = block_device_of(Path(target)).get("disk")
    if not disk:
        return (f"no SMART/health data: {target} is not on a block device the lab can identify "
                "(tmpfs or another memory filesystem?).")
    if disk.startswith(("vd", "xvd", "loop", "zram", "ram", "md", "dm-")):
        return f"no SMART/health data: /dev/{disk} is a virtual or software device ({disk}) without SMART."
    controller = re.sub(r"n\d+$", "", disk)  # nvme0n1 -> nvme0 (the health log is the controller's)
    dev = f"/dev/{controller}" if disk.startswith("nvme") else f"/dev/{disk}"
    if disk.startswith("nvme") and shutil.which("nvme"):
        return ["nvme", "smart-log", "-o", "json", dev], "nvme"
    if shutil.which("smartctl"):
        return ["smartctl", "-j", "-a", dev], "smartctl"
    return (f"no SMART/health data for /dev/{disk}: neither nvme-cli ('nvme') nor smartmontools ('smartctl') "
            "is installed.")


def capture(source: tuple[list[str], str]) -> dict[str, Any]:
    """Run the source once: the parsed health (dict) or {'error': sentence}."""
    argv, kind = source
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
        doc = json.loads(out.stdout)
        health = parse_nvme_smart_log(doc) if kind == "nvme" else parse_smartctl(doc)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return {"error": f"{' '.join(argv)} gave no health data ({str(exc).splitlines()[0][:120]})."}
    return health.to_dict()


def throttle_check(before: dict | None, after: dict | None) -> tuple[bool | None, str]:
    """(throttled, sentence) from two captures; (None, sentence) when they cannot tell."""
    if not before or not after or "error" in before or "error" in after:
        return None, "no health data before and after the point."
    reasons = []
    tb, ta = before.get("thermal_transitions"), after.get("thermal_transitions")
    if tb is not None and ta is not None and ta > tb:
        reasons.append(f"the drive made {ta - tb} thermal-management transition(s)")
    wb, wa = before.get("warning_temp_min"), after.get("warning_temp_min")
    if wb is not None and wa is not None and wa > wb:
        reasons.append(f"it spent {wa - wb} more minute(s) above its warning temperature")
    temp, warn = after.get("temperature_c"), after.get("warning_temp_c") or before.get("warning_temp_c")
    if temp is not None and warn is not None and temp >= warn:
        reasons.append(f"it reached {temp:g} °C, at or above its warning temperature {warn:g} °C")
    t0 = before.get("temperature_c")
    change = f" ({t0:g} -> {temp:g} °C)" if t0 is not None and temp is not None else ""
    if reasons:
        return True, "thermal throttling likely: " + "; ".join(reasons) + change + "."
    return False, f"no thermal throttling reported{change}."


class HealthSampler:
    """Captures the health every ``every_s`` seconds in a background thread while a long point runs
    (``with HealthSampler(source) as s: ...``; ``s.samples``: [{t_s, temperature_c, thermal_transitions}])."""

    def __init__(self, source: tuple[list[str], str], every_s: float):
        self.source, self.every_s = source, every_s
        self.samples: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        t0 = time.monotonic()
        while not self._stop.wait(self.every_s):
            h = capture(self.source)
            if "error" not in h:
                self.samples.append({"t_s": round(time.monotonic() - t0, 1), "temperature_c": h.get("temperature_c"),
                                     "thermal_transitions": h.get("thermal_transitions")})

    def __enter__(self) -> HealthSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=TIMEOUT_S + 5)
