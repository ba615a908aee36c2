"""SMART / health capture (helpers.run.smart): parsers on tool-format fixtures and on what this VM's disk really
answers (tests/data/smart/README.md), the throttling check, the verbatim per-point capture file, and this
machine's answer (one sentence when it has no source)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.run import smart

DATA = Path(__file__).parent / "data" / "smart"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def test_nvme_cli_kelvin_counters_and_units():
    h = smart.parse_nvme_smart_log(load("nvme-smart-log.json"))
    assert h.source == "nvme-cli" and h.temperature_c == 41.0  # 314 K
    assert h.thermal_transitions == 2 and h.warning_temp_min == 0 and h.percent_used == 3
    assert h.data_written_bytes == 85848679 * 512_000 and h.media_errors == 0
    with pytest.raises(ValueError):
        smart.parse_nvme_smart_log({"foo": 1})


def test_smartctl_nvme_and_ata():
    h = smart.parse_smartctl(load("smartctl-nvme.json"))
    assert (h.temperature_c, h.warning_temp_c, h.critical_temp_c) == (41.0, 82.0, 85.0)
    assert h.warning_temp_min == 0 and h.data_written_bytes == 85848679 * 512_000
    a = smart.parse_smartctl(load("smartctl-ata.json"))
    assert a.temperature_c == 36.0 and a.data_written_bytes == 29012547306 * 512 and a.warning_temp_min is None
    with pytest.raises(ValueError):
        smart.parse_smartctl({"temperature": 3})


def test_this_vms_disk_answers_are_errors_not_empty_captures():
    """What smartctl and nvme-cli really print for this VM's virtio disk (captured verbatim, see the README):
    no temperature, and the capture says why in the tool's own words."""
    with pytest.raises(ValueError, match="Unable to detect device type"):
        smart.parse_smartctl(load("smartctl-vda-this-vm.json"))
    sc = smart.parse_capture({"argv": ["smartctl", "-j", "-a", "/dev/vda"], "parser": "smartctl", "returncode": 1,
                              "stdout": (DATA / "smartctl-vda-this-vm.json").read_text(), "stderr": ""})
    assert sc == {"error": "smartctl -j -a /dev/vda gave no health data: the device could not be read (exit status "
                           "1: /dev/vda: Unable to detect device type)."}
    nv = smart.parse_capture({"argv": ["nvme", "smart-log", "-o", "json", "/dev/vda"], "parser": "nvme",
                              "returncode": 1, "stdout": "",
                              "stderr": (DATA / "nvme-cli-vda-this-vm.stderr").read_text()})
    assert nv == {"error": "nvme smart-log -o json /dev/vda gave no health data (exit status 1: /dev/vda: Operation "
                           "not permitted)."}


def test_throttle_check():
    cold = smart.parse_nvme_smart_log(load("nvme-smart-log.json")).to_dict()
    hot = smart.parse_nvme_smart_log(load("nvme-smart-log-hot.json")).to_dict()
    throttled, why = smart.throttle_check(cold, hot)
    assert throttled is True
    assert why == ("thermal throttling: thermal-management transitions +5, above warning temperature for 3 more min "
                   "(41 -> 84 °C)")
    assert "; " not in why  # it becomes one of a row's flag_reasons, which '; ' separates
    assert smart.throttle_check(cold, cold) == (False, "no thermal throttling reported (41 -> 41 °C).")
    c2 = smart.parse_smartctl(load("smartctl-nvme.json")).to_dict()
    h2 = smart.parse_smartctl(load("smartctl-nvme-hot.json")).to_dict()
    throttled, why = smart.throttle_check(c2, h2)
    assert throttled and why.endswith("above warning temperature 82 °C for 1 more min (41 -> 83 °C)")
    assert smart.throttle_check(None, hot)[0] is None


def test_a_peak_between_the_captures_counts():
    """Cool before and after, but a sample taken while the point ran crossed the warning temperature: the
    point throttled (the issue: 'crosses its warning temperature during the point')."""
    cold = smart.parse_smartctl(load("smartctl-nvme.json")).to_dict()
    hot = smart.parse_smartctl(load("smartctl-nvme-hot.json")).to_dict()
    hot_no_counter = {**hot, "warning_temp_min": cold["warning_temp_min"]}
    assert smart.throttle_check(cold, cold, [hot_no_counter]) == (
        True, "thermal throttling: above warning temperature 82 °C (41 -> 83 °C)")
    failed = {"error": "nvme smart-log gave no health data (timeout)."}
    assert smart.throttle_check(cold, cold, [failed])[0] is False  # a failed sample is no evidence


def test_this_machine_says_one_sentence_or_captures(tmp_path):
    src = smart.health_source(tmp_path)
    if isinstance(src, str):  # this VM: virtio disk, no nvme-cli/smartctl
        assert src.startswith("no SMART/health data") and "\n" not in src
    else:
        out = smart.capture(src)
        assert "error" in out or "temperature_c" in out


def test_capture_failure_is_a_sentence(tmp_path):
    out = smart.capture(([str(tmp_path / "no-such-tool"), "x"], "nvme"))
    assert set(out) == {"error"} and out["error"].endswith(").")


def test_point_health_keeps_every_capture_verbatim(tmp_path):
    """before / during / after lines with the tool's stdout as printed, times from fio's launch."""
    source = (["cat", str(DATA / "nvme-smart-log.json")], "nvme")
    h = smart.PointHealth(source, tmp_path / f"p1{smart.HEALTH_SUFFIX}", sample_every_s=0.2)
    h.before()
    h.start()
    import time
    time.sleep(0.7)
    entry = h.finish()
    lines = [json.loads(x) for x in (tmp_path / "p1.health.jsonl").read_text().splitlines()]
    phases = [x["phase"] for x in lines]
    assert phases[0] == "before" and phases[-1] == "after" and phases.count("during") >= 2
    assert lines[0]["t_s"] <= 0 < lines[1]["t_s"] and [x["t_s"] for x in lines] == sorted(x["t_s"] for x in lines)
    assert all(x["stdout"] == (DATA / "nvme-smart-log.json").read_text() and x["returncode"] == 0 for x in lines)
    assert entry["file"] == "p1.health.jsonl" and entry["captures"]["during"] == phases.count("during")
    assert entry["throttled"] is False and entry["before"]["temperature_c"] == 41.0
    assert not list(tmp_path.glob(".*"))  # written atomically


def test_sweep_records_health_before_and_after_each_point(tmp_path, scratch_dir, fio_path, monkeypatch):
    """Wiring: a source that prints the cold capture first and the hot one after (stands in for nvme-cli on a
    machine with an NVMe drive) gives each point's manifest entry both captures and the throttling verdict."""
    from helpers.run import sweep
    from sweep_helpers import write_profile

    state = tmp_path / "calls"
    script = tmp_path / "fake-nvme.sh"
    script.write_text(f'#!/bin/sh\nif [ -f {state} ]; then cat {DATA / "nvme-smart-log-hot.json"}; '
                      f'else touch {state}; cat {DATA / "nvme-smart-log.json"}; fi\n')
    script.chmod(0o755)
    monkeypatch.setattr(sweep, "health_source", lambda target: ([str(script)], "nvme"))
    prof = write_profile(tmp_path, "one", [{"rw": "randread", "bs": "4k", "runtime_s": 0.5, "ramp_s": 0,
                                            "log_avg_msec": 0, "log_hist_msec": 0}])
    m = sweep.sweep(target=scratch_dir / "smart-target.bin", profile=prof, run_id="smart", size="64m",
                    raw_dir=tmp_path / "raw", progress=False)
    assert m["health"] == {"source": str(script)}
    (entry,) = m["points"].values()
    h = entry["health"]
    assert h["before"]["temperature_c"] == 41.0 and h["after"]["temperature_c"] == 84.0
    assert h["throttled"] is True and h["reason"].startswith("thermal throttling: ")
    assert h["captures"] == {"before": 1, "during": 0, "after": 1}  # a short point is not sampled while it runs
    assert (tmp_path / "raw" / "smart" / h["file"]).is_file()


def test_long_points_are_sampled_while_they_run(tmp_path, scratch_dir, fio_path, monkeypatch):
    from helpers.run import sweep
    from sweep_helpers import write_profile

    monkeypatch.setattr(sweep, "health_source", lambda target: (["cat", str(DATA / "nvme-smart-log.json")], "nvme"))
    monkeypatch.setattr(smart, "LONG_POINT_S", 1.0)  # "long" = 1 s here, sampled every 0.3 s
    monkeypatch.setattr(smart, "SAMPLE_EVERY_S", 0.3)
    prof = write_profile(tmp_path, "long", [{"rw": "randread", "bs": "4k", "runtime_s": 1.5, "ramp_s": 0,
                                             "log_avg_msec": 0, "log_hist_msec": 0}])
    m = sweep.sweep(target=scratch_dir / "smart-target.bin", profile=prof, run_id="long", size="64m",
                    raw_dir=tmp_path / "raw", progress=False)
    (pid, entry), = m["points"].items()
    lines = [json.loads(x) for x in (tmp_path / "raw" / "long" / f"{pid}.health.jsonl").read_text().splitlines()]
    during = [x for x in lines if x["phase"] == "during"]
    assert len(during) >= 3 and entry["health"]["captures"]["during"] == len(during)
    assert all(0 < x["t_s"] < 2.5 for x in during)
    assert all(smart.parse_capture(x)["temperature_c"] == 41.0 for x in lines)
