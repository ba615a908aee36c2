"""SMART / health of the target's device before, during and after points: temperature, thermal throttling, wear;
and the device's own temperature thresholds, read once per run.

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

Thresholds (:func:`read_thresholds`, once per run, kept verbatim in ``data/raw/<RUN>/``
:data:`THRESHOLDS_FILE`): the health log rarely carries the warning temperature (``nvme smart-log`` never,
smartctl's JSON only from 7.5 on), so the sweep asks where the device keeps it -- NVMe: Identify
Controller, ``nvme id-ctrl -o json`` ``wctemp``/``cctemp`` in Kelvin (source ``id-ctrl``), or smartctl
(``nvme_composite_temperature_threshold`` of ``smartctl -j -x``, 7.5+; before, the text of ``smartctl -c``,
the NVMe capabilities section: "Warning  Comp. Temp. Threshold: 84 Celsius", source ``smartctl WCTEMP``); SATA: SCT status
(``ata_sct_status.temperature.op_limit_max``, source ``SCT status``), else the SCT temperature history or the
device statistics' ``temperature.op_limit_max`` (the drive's specified maximum operating temperature).

Parsed fields (``Health``): temperature (°C; nvme-cli prints the NVMe composite temperature in
Kelvin), the drive's warning/critical temperature thresholds when the output has them, minutes spent
above them (``warning_temp_time``/``critical_comp_time``), thermal-management transition counts and
seconds (nvme-cli ``thm_temp{1,2}_trans_count``/``thm_temp{1,2}_total_time``; smartctl after 7.5
``thermal_mgmt_temperature_{1,2}_transition_count``/``_total_time``: :data:`TRANSITION_KEY`,
:data:`THERMAL_TIME_KEY`), percentage used, bytes written (NVMe data units are 1000 x 512 bytes) and media
errors.  :func:`throttle_check` reads a point's captures: the point throttled when the thermal-management
counters or the minutes above the warning/critical temperature grew, or the temperature reached the
threshold the device reports, before, during or after it; the reason says which and names the threshold's
source.
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
THRESHOLDS_FILE = "device-thresholds.jsonl"  # the run's threshold captures, verbatim (read_thresholds)
PHASES = ("before", "during", "after")
# thermal-management counters by the names the tools write (NVMe SMART / Health log bytes 216-231):
# nvme-cli 1.x-2.x json_smart_log; smartctl after 7.5 (smartmontools commit 8d6517314, nvme_smart_health_...)
TRANSITION_KEY = re.compile(r"thm_temp[12]_trans_count|thermal_mgmt_temperature_[12]_transition_count")
THERMAL_TIME_KEY = re.compile(r"thm_temp[12]_total_time|thermal_mgmt_temperature_[12]_total_time")  # seconds
WCTEMP_TEXT = re.compile(r"^Warning\s+Comp\.\s+Temp\.\s+Threshold:\s+(-?\d+)\s+Celsius", re.M)  # smartctl -c
CCTEMP_TEXT = re.compile(r"^Critical\s+Comp\.\s+Temp\.\s+Threshold:\s+(-?\d+)\s+Celsius", re.M)


@dataclass
class Health:
    source: str  # "nvme-cli" or "smartctl"
    temperature_c: float | None = None
    warning_temp_c: float | None = None  # the drive's own thresholds, when the output carries them
    critical_temp_c: float | None = None
    threshold_source: str | None = None  # where they came from ("smartctl WCTEMP", "id-ctrl", ...)
    warning_temp_min: int | None = None  # minutes spent above the warning temperature (lifetime counter)
    critical_temp_min: int | None = None
    thermal_transitions: int | None = None  # thermal-management transitions (sum over TMT1/TMT2)
    thermal_time_s: int | None = None  # seconds spent in thermal management (sum over TMT1/TMT2)
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


def _counter(d: dict, key: re.Pattern) -> int | None:
    """The sum of the keys of ``d`` that ``key`` matches (TMT1 + TMT2), None when it has none."""
    counts = [_int(v) for k, v in d.items() if key.fullmatch(str(k))]
    counts = [c for c in counts if c is not None]
    return sum(counts) if counts else None


def parse_nvme_smart_log(doc: dict) -> Health:
    """``nvme smart-log -o json`` output (nvme-cli 1.x and 2.x key names)."""
    if not isinstance(doc, dict) or not ({"temperature", "critical_warning"} & set(doc)):
        raise ValueError("not an nvme smart-log JSON document.")
    du = _int(doc.get("data_units_written"))
    return Health("nvme-cli", temperature_c=_celsius(doc.get("temperature")),
                  warning_temp_min=_int(doc.get("warning_temp_time")),
                  critical_temp_min=_int(doc.get("critical_comp_time")),
                  thermal_transitions=_counter(doc, TRANSITION_KEY), thermal_time_s=_counter(doc, THERMAL_TIME_KEY),
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
    thr = smartctl_thresholds(doc)
    h.warning_temp_c, h.critical_temp_c = thr["warning_temp_c"], thr["critical_temp_c"]
    h.threshold_source = thr["source"] if h.warning_temp_c is not None or h.critical_temp_c is not None else None
    nv = doc.get("nvme_smart_health_information_log")
    if isinstance(nv, dict):
        if h.temperature_c is None:
            h.temperature_c = _celsius(nv.get("temperature"))
        h.warning_temp_min = _int(nv.get("warning_temp_time"))
        h.critical_temp_min = _int(nv.get("critical_comp_time"))
        h.thermal_transitions = _counter(nv, TRANSITION_KEY)
        h.thermal_time_s = _counter(nv, THERMAL_TIME_KEY)
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


def _thresholds(warning: float | None, critical: float | None, source: str | None) -> dict[str, Any]:
    return {"warning_temp_c": warning, "critical_temp_c": critical, "source": source}


def parse_id_ctrl(doc: dict) -> dict[str, Any]:
    """``nvme id-ctrl -o json``: WCTEMP/CCTEMP (Kelvin; 0 = not reported) -> {warning_temp_c, critical_temp_c,
    source 'id-ctrl'}."""
    if not isinstance(doc, dict) or not ({"wctemp", "cctemp", "mn", "vid"} & set(doc)):
        raise ValueError("not an nvme id-ctrl JSON document.")
    w, c = _int(doc.get("wctemp")), _int(doc.get("cctemp"))
    return _thresholds(float(w - 273) if w else None, float(c - 273) if c else None, "id-ctrl")


def smartctl_thresholds(doc: dict) -> dict[str, Any]:
    """The device's own thresholds in a ``smartctl -j`` document, the most specific first: NVMe WCTEMP/CCTEMP
    (``nvme_composite_temperature_threshold``, smartctl 7.5+), SCT status, SCT temperature history, then the
    top-level ``temperature.op_limit_max`` (ATA device statistics) -- all °C."""
    def sub(*keys: str) -> dict:
        d: Any = doc
        for k in keys:
            d = d.get(k) if isinstance(d, dict) else None
        return d if isinstance(d, dict) else {}

    nv = sub("nvme_composite_temperature_threshold")
    if nv.get("warning") is not None or nv.get("critical") is not None:
        return _thresholds(_celsius(nv.get("warning")), _celsius(nv.get("critical")), "smartctl WCTEMP")
    hist, top = sub("ata_sct_temperature_history", "temperature"), sub("temperature")
    limit = _celsius(hist.get("limit_max"))  # SCT "Limit Temperature": the drive's absolute maximum
    for t, source in ((sub("ata_sct_status", "temperature"), "SCT status"), (hist, "SCT temperature history"),
                      (top, "smartctl op_limit_max")):
        if _int(t.get("op_limit_max")):
            critical = _celsius(top.get("critical_limit_max")) if source == "smartctl op_limit_max" else limit
            return _thresholds(_celsius(t.get("op_limit_max")), critical, source)
    return _thresholds(None, None, None)


def smartctl_text_thresholds(text: str) -> dict[str, Any]:
    """``smartctl -c`` (or ``-a``/``-x``) of an NVMe device, as text: before 7.5 smartctl prints WCTEMP/CCTEMP only
    there, in the capabilities section (``print_drive_capabilities``; ``-i`` does not print them)."""
    w, c = WCTEMP_TEXT.search(text or ""), CCTEMP_TEXT.search(text or "")
    return _thresholds(float(w.group(1)) if w else None, float(c.group(1)) if c else None,
                       "smartctl WCTEMP" if w or c else None)


def threshold_commands(source: tuple[list[str], str]) -> list[tuple[list[str], str]]:
    """Where the device of a health source keeps its thresholds, in the order they are asked (the same tool,
    the same device): nvme-cli -> ``id-ctrl``; smartctl -> ``-j -x`` (SCT status, device statistics, NVMe
    thresholds in 7.5+), then the text of ``-c`` (NVMe WCTEMP before 7.5: the capabilities section; ``-i``, the
    information section, never prints it)."""
    argv, kind = source
    tool, dev = argv[0], argv[-1]
    if kind == "nvme":
        return [([tool, "id-ctrl", "-o", "json", dev], "id-ctrl")]
    return [([tool, "-j", "-x", dev], "smartctl"), ([tool, "-c", dev], "smartctl-text")]


def capture_thresholds(raw: dict[str, Any]) -> dict[str, Any]:
    """A threshold capture (verbatim record) -> {warning_temp_c, critical_temp_c, source} or {'error': ...}."""
    argv = " ".join(map(str, raw.get("argv") or [])) or "the threshold command"
    kind, out = raw.get("parser"), raw.get("stdout") or ""
    try:
        if kind == "smartctl-text":
            return smartctl_text_thresholds(out)
        doc = json.loads(out)
        return parse_id_ctrl(doc) if kind == "id-ctrl" else smartctl_thresholds(doc)
    except (ValueError, TypeError, AttributeError) as exc:
        said = _first_line(raw.get("stderr")) or _first_line(exc) or "no output"
        return {"error": f"{argv} gave no thresholds ({said.rstrip('.')[:160]})."}


def thresholds_entry(lines: list[dict[str, Any]], file: str = THRESHOLDS_FILE) -> dict[str, Any]:
    """The manifest's ``health.thresholds``: the first capture that gave a warning (or critical) temperature,
    {file, warning_temp_c, critical_temp_c, source}; else {file, note: one sentence}."""
    reasons = []
    for raw in lines:
        t = capture_thresholds(raw)
        if t.get("warning_temp_c") is not None or t.get("critical_temp_c") is not None:
            return {"file": file, **t}
        reasons.append(t.get("error") or f"{' '.join(map(str, raw.get('argv') or []))} reported none")
    return {"file": file, "note": "the device reports no warning temperature: " + (
        ", ".join(r.rstrip(".") for r in reasons) or "nothing was asked") + "."}


def read_thresholds_file(path: Path) -> dict[str, Any] | None:
    """:func:`thresholds_entry` of a run's :data:`THRESHOLDS_FILE` (None when the run has none)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    lines = []
    for line in text.splitlines():
        try:
            raw = json.loads(line)
        except ValueError:
            continue
        if isinstance(raw, dict):
            lines.append(raw)
    return thresholds_entry(lines, Path(path).name)


def read_thresholds(source: tuple[list[str], str], run_dir: Path) -> dict[str, Any]:
    """Read the device's thresholds once per run (a resumed run keeps the first reading): each command of
    :func:`threshold_commands` until one gives a threshold, every capture kept verbatim in
    ``run_dir/THRESHOLDS_FILE``; returns :func:`thresholds_entry`."""
    path = Path(run_dir) / THRESHOLDS_FILE
    if path.exists():
        return read_thresholds_file(path) or {"file": THRESHOLDS_FILE, "note": "unreadable threshold captures."}
    lines = []
    for command in threshold_commands(source):
        lines.append({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **capture_raw(command)})
        t = capture_thresholds(lines[-1])
        if t.get("warning_temp_c") is not None or t.get("critical_temp_c") is not None:
            break
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.replace(tmp, path)
    return thresholds_entry(lines)


def with_thresholds(capture: dict[str, Any], thresholds: dict[str, Any] | None) -> dict[str, Any]:
    """A parsed capture with the run's thresholds where it carries none of its own (an error stays one)."""
    if not capture or "error" in capture or not thresholds or capture.get("warning_temp_c") is not None \
            or (thresholds.get("warning_temp_c") is None and thresholds.get("critical_temp_c") is None):
        return capture
    return {**capture, "warning_temp_c": thresholds.get("warning_temp_c"),
            "critical_temp_c": capture.get("critical_temp_c") if capture.get("critical_temp_c") is not None
            else thresholds.get("critical_temp_c"), "threshold_source": thresholds.get("source")}


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


def _grew(ok: list[dict], key: str) -> int:
    """How much a lifetime counter grew over a point's captures (0 when fewer than two carry it)."""
    vals = [c.get(key) for c in ok if c.get(key) is not None]
    return int(max(vals) - vals[0]) if len(vals) >= 2 else 0


def _threshold(ok: list[dict], key: str) -> tuple[float | None, str]:
    """(the device's threshold, 'X °C (source)') from the first capture carrying it."""
    c = next((c for c in ok if c.get(key) is not None), None)
    if c is None:
        return None, ""
    return float(c[key]), f"{c[key]:g} °C" + (f" ({c['threshold_source']})" if c.get("threshold_source") else "")


def _changes(captures: list[dict]) -> tuple[list[str], float | None, float | None, str, str]:
    """(reasons, first temperature, highest temperature, the warning and the critical threshold as text) of a
    point's parsed captures in time order."""
    ok = [c for c in captures if c and "error" not in c]
    reasons: list[str] = []
    warn, warn_text = _threshold(ok, "warning_temp_c")
    crit, crit_text = _threshold(ok, "critical_temp_c")
    if (n := _grew(ok, "thermal_transitions")) > 0:
        reasons.append(f"thermal-management transitions +{n}")
    if (n := _grew(ok, "thermal_time_s")) > 0:
        reasons.append(f"+{n} s in thermal management")
    if (n := _grew(ok, "warning_temp_min")) > 0:
        reasons.append(f"minutes above the warning temperature{' ' + warn_text if warn_text else ''} +{n}")
    if (n := _grew(ok, "critical_temp_min")) > 0:
        reasons.append(f"minutes above the critical temperature{' ' + crit_text if crit_text else ''} +{n}")
    temps = [c.get("temperature_c") for c in ok if c.get("temperature_c") is not None]
    hottest = max(temps) if temps else None
    if hottest is not None and crit is not None and hottest >= crit:
        reasons.append(f"{hottest:g} °C at or over the critical temperature {crit_text}")
    elif hottest is not None and warn is not None and hottest >= warn:
        reasons.append(f"{hottest:g} °C at or over the warning temperature {warn_text}")
    return reasons, (temps[0] if temps else None), hottest, warn_text, crit_text


def throttle_check(before: dict | None, after: dict | None,
                   during: Iterable[dict] = ()) -> tuple[bool | None, str]:
    """(throttled, sentence) from a point's parsed captures (before, the samples taken while it ran, after);
    (None, sentence) when they cannot tell.  Throttled when the thermal-management counters (transitions,
    seconds) or the minutes above the warning/critical temperature grew, or a capture's temperature is at or
    over the threshold the device reports; the sentence says which, with the threshold's source
    ("thermal throttling: 84 °C at or over the warning temperature 82 °C (id-ctrl) (41 -> 84 °C)"); when the
    reasons name no threshold (counters alone) the parenthesis adds the one the device reports, or says it
    reports none ("thermal throttling: thermal-management transitions +1 (51 -> 51 °C, warning at 70 °C
    (id-ctrl))").  It holds no '; ' (it joins a row's flag_reasons)."""
    if not before or not after or "error" in before or "error" in after:
        return None, "no health data before and after the point."
    reasons, first, hottest, warn_text, crit_text = _changes([before, *during, after])
    change = f"{first:g} -> {hottest:g} °C" if first is not None and hottest is not None else ""
    if reasons:
        named = any(t and t in r for r in reasons for t in (warn_text, crit_text))
        threshold = (f"warning at {warn_text}" if warn_text else f"critical at {crit_text}" if crit_text
                     else "the device reports no warning temperature")
        context = ", ".join(x for x in (change, "" if named else threshold) if x)
        return True, "thermal throttling: " + ", ".join(reasons) + (f" ({context})" if context else "")
    against = (f"below the warning temperature {warn_text}" if warn_text
               else "the device reports no warning temperature")
    return False, f"no thermal throttling reported ({', '.join(x for x in (change, against) if x)})."


class PointHealth:
    """The health captures of one point, written to ``path`` (``<point_id>.health.jsonl``) verbatim::

        h = PointHealth(source, path, sample_every_s=10.0, thresholds=read_thresholds(source, run_dir))
        h.before(); h.start()      # then launch fio
        ...                        # samples every 10 s in a background thread while fio runs
        entry = h.finish()         # the after capture, the file, the manifest entry

    ``t_s`` of each line counts from :meth:`start` (fio's launch).  :meth:`abandon` stops the sampler and
    writes nothing (an interrupted point is measured again)."""

    def __init__(self, source: tuple[list[str], str], path: Path, sample_every_s: float | None = None,
                 thresholds: dict[str, Any] | None = None):
        self.source, self.path, self.every_s = source, Path(path), sample_every_s
        self.thresholds = thresholds  # the run's (read_thresholds): the verdict compares against them
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
        parsed = [(line["phase"], with_thresholds(parse_capture(line), self.thresholds)) for line in lines]
        before = next((p for ph, p in parsed if ph == "before"), None)
        after = next((p for ph, p in reversed(parsed) if ph == "after"), None)
        throttled, why = throttle_check(before, after, [p for ph, p in parsed if ph == "during"])
        return {"file": self.path.name, "captures": {ph: sum(1 for q, _ in parsed if q == ph) for ph in PHASES},
                "before": before, "after": after, "throttled": throttled, "reason": why}
