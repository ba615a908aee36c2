"""SMART / health of the target's device before, during and after points: temperature, thermal throttling, wear.

Sources, in order: ``nvme smart-log -o json /dev/nvmeX`` (nvme-cli) for NVMe disks, else
``smartctl -j -a /dev/X`` (smartmontools 7+).  When neither exists for the target (a virtio disk, a
file on tmpfs, no tools installed, no permission) :func:`health_source` returns one sentence and the
sweep goes on without health data.

Every capture of a point is kept verbatim (the tool's argv, exit status, stdout and stderr) as one JSON
line of ``data/raw/<RUN>/<point_id>.health.jsonl`` (:class:`PointHealth`): ``phase`` ``before`` (just
before fio starts), ``during`` (long points -- planned :data:`LONG_POINT_S` or more, or size-based such as
the sustained write -- every :data:`SAMPLE_EVERY_S` seconds while fio runs) and ``after``, with ``t_s``,
seconds since fio was launched (the ramp included; negative before).  Ingest parses them again
(:mod:`helpers.ingest.health`), so a parser fix reaches old runs.

Parsed fields (``Health``): temperature (°C; nvme-cli prints the NVMe composite temperature in
Kelvin), the drive's warning/critical temperature thresholds when the output has them, minutes spent
above them (``warning_temp_time``/``critical_comp_time``), thermal-management transition counts
(``thm_temp1_trans_count`` ... in nvme-cli), percentage used, bytes written (NVMe data units are
1000 x 512 bytes) and media errors.  :func:`throttle_check` reads a point's captures: the point throttled
when the transition counts or the minutes above the warning temperature grew, or the temperature
reached the warning threshold, before, during or after it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from helpers.run.system import block_device_of

NVME_DATA_UNIT_BYTES = 512_000  # NVMe "data units": thousands of 512-byte units
KELVIN_ABOVE = 200  # an NVMe composite temperature above 200 is Kelvin (nvme-cli 1.x/2.x print K)
TIMEOUT_S = 15
LONG_POINT_S = 60.0  # points planned this long (or size-based ones) are sampled while they run ...
SAMPLE_EVERY_S = 10.0  # ... every 10 s
HEALTH_SUFFIX = ".health.jsonl"  # <point_id>.health.jsonl next to the point's JSON: its captures, verbatim
PHASES = ("before", "during", "after")


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
    """``smartctl -j -a`` output (smartmontools 7 JSON): NVMe health log or ATA attributes.  ValueError with
    smartctl's own message when it could not read the device (exit status bit 1 or 2, no health in the output:
    this VM's virtio disk gives "/dev/vda: Unable to detect device type")."""
    if not isinstance(doc, dict) or "smartctl" not in doc:
        raise ValueError("not a smartctl JSON document.")
    meta = doc.get("smartctl") if isinstance(doc.get("smartctl"), dict) else {}
    status = _int(meta.get("exit_status")) or 0
    if status & 0b11 and not ({"temperature", "nvme_smart_health_information_log", "ata_smart_attributes"} & set(doc)):
        errors = [m.get("string") for m in meta.get("messages") or [] if isinstance(m, dict) and m.get("string")]
        raise ValueError(f"the device could not be read (exit status {status}"
                         f"{': ' + '; '.join(map(str, errors)) if errors else ''}).")
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


def capture_raw(source: tuple[list[str], str]) -> dict[str, Any]:
    """Run the source once and keep what it printed, verbatim: argv, parser, returncode, stdout, stderr
    (returncode None and ``stderr`` the reason when it could not run at all)."""
    argv, kind = source
    out: dict[str, Any] = {"argv": list(argv), "parser": kind}
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        return {**out, "returncode": None, "stdout": "", "stderr": str(exc)}
    return {**out, "returncode": res.returncode, "stdout": res.stdout, "stderr": res.stderr}


def _first_line(text: Any) -> str:
    return next((line.strip() for line in str(text or "").splitlines() if line.strip()), "")


def parse_capture(raw: dict[str, Any]) -> dict[str, Any]:
    """A :func:`capture_raw` record -> the parsed health (``Health.to_dict()``) or {'error': sentence}: the
    parser's reason when the tool printed JSON, else the tool's own first line (stderr first)."""
    argv = " ".join(map(str, raw.get("argv") or [])) or "the health tool"
    code = raw.get("returncode")
    try:
        doc = json.loads(raw.get("stdout") or "")
    except ValueError:
        said = _first_line(raw.get("stderr")) or _first_line(raw.get("stdout")) or "no output"
        status = "" if code in (0, None) else f"exit status {code}: "
        return {"error": f"{argv} gave no health data ({status}{said.rstrip('.')[:160]})."}
    try:
        return (parse_nvme_smart_log(doc) if raw.get("parser") == "nvme" else parse_smartctl(doc)).to_dict()
    except (ValueError, TypeError, AttributeError) as exc:
        return {"error": f"{argv} gave no health data: {_first_line(exc)[:200]}"}


def capture(source: tuple[list[str], str]) -> dict[str, Any]:
    """Run the source once: the parsed health (dict) or {'error': sentence}."""
    return parse_capture(capture_raw(source))


def _changes(captures: list[dict]) -> tuple[list[str], float | None, float | None]:
    """(reasons, first temperature, highest temperature) of a point's parsed captures in time order."""
    ok = [c for c in captures if c and "error" not in c]
    reasons: list[str] = []
    trans = [c.get("thermal_transitions") for c in ok if c.get("thermal_transitions") is not None]
    if len(trans) >= 2 and max(trans) > trans[0]:
        reasons.append(f"thermal-management transitions +{max(trans) - trans[0]}")
    mins = [c.get("warning_temp_min") for c in ok if c.get("warning_temp_min") is not None]
    more = max(mins) - mins[0] if len(mins) >= 2 else 0  # the drive's minutes-above-warning counter grew
    temps = [c.get("temperature_c") for c in ok if c.get("temperature_c") is not None]
    warn = next((c.get("warning_temp_c") for c in ok if c.get("warning_temp_c") is not None), None)
    hottest = max(temps) if temps else None
    if more > 0 or (hottest is not None and warn is not None and hottest >= warn):
        reasons.append("above warning temperature" + (f" {warn:g} °C" if warn is not None else "")
                       + (f" for {more} more min" if more > 0 else ""))
    return reasons, (temps[0] if temps else None), hottest


def throttle_check(before: dict | None, after: dict | None,
                   during: Iterable[dict] = ()) -> tuple[bool | None, str]:
    """(throttled, sentence) from a point's parsed captures (before, the samples taken while it ran, after);
    (None, sentence) when they cannot tell.  The sentence holds no '; ' (it joins a row's flag_reasons)."""
    if not before or not after or "error" in before or "error" in after:
        return None, "no health data before and after the point."
    reasons, first, hottest = _changes([before, *during, after])
    change = f" ({first:g} -> {hottest:g} °C)" if first is not None and hottest is not None else ""
    if reasons:
        return True, "thermal throttling: " + ", ".join(reasons) + change
    return False, f"no thermal throttling reported{change}."


class PointHealth:
    """The health captures of one point, written to ``path`` (``<point_id>.health.jsonl``) verbatim::

        h = PointHealth(source, path, sample_every_s=10.0)   # None: before and after only
        h.before(); h.start()      # then launch fio
        ...                        # samples every 10 s in a background thread while fio runs
        entry = h.finish()         # the after capture, the file, the manifest entry

    ``t_s`` of each line counts from :meth:`start` (fio's launch).  :meth:`abandon` stops the sampler and
    writes nothing (an interrupted point is measured again)."""

    def __init__(self, source: tuple[list[str], str], path: Path, sample_every_s: float | None = None):
        self.source, self.path, self.every_s = source, Path(path), sample_every_s
        self.records: list[tuple[str, float, str, dict]] = []  # (phase, monotonic time, wall time, raw)
        self.t0: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _capture(self, phase: str) -> None:
        at, wall = time.monotonic(), time.strftime("%Y-%m-%dT%H:%M:%S%z")
        raw = capture_raw(self.source)
        with self._lock:
            self.records.append((phase, at, wall, raw))

    def before(self) -> None:
        self._capture("before")

    def start(self) -> None:
        self.t0 = time.monotonic()
        if self.every_s:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(self.every_s):
            self._capture("during")

    def _join(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=TIMEOUT_S + 5)

    def abandon(self) -> None:
        self._join()

    def lines(self) -> list[dict[str, Any]]:
        t0 = self.t0 if self.t0 is not None else (self.records[0][1] if self.records else 0.0)
        with self._lock:
            recs = sorted(self.records, key=lambda r: r[1])
        return [{"phase": phase, "t_s": round(at - t0, 2), "at": wall, **raw} for phase, at, wall, raw in recs]

    def finish(self) -> dict[str, Any]:
        """Stop sampling, capture ``after``, write the file (atomically); the point's manifest entry:
        file, captures per phase, the parsed before/after and the throttling verdict."""
        self._join()
        self._capture("after")
        lines = self.lines()
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text("".join(json.dumps(line) + "\n" for line in lines))
        os.replace(tmp, self.path)
        parsed = [(line["phase"], parse_capture(line)) for line in lines]
        before = next((p for ph, p in parsed if ph == "before"), None)
        after = next((p for ph, p in reversed(parsed) if ph == "after"), None)
        throttled, why = throttle_check(before, after, [p for ph, p in parsed if ph == "during"])
        return {"file": self.path.name, "captures": {ph: sum(1 for q, _ in parsed if q == ph) for ph in PHASES},
                "before": before, "after": after, "throttled": throttled, "reason": why}
