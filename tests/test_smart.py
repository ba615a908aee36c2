"""SMART / health capture (helpers.run.smart): parsers on real tool outputs (tests/data/smart/README.md names each
one's repository and path) and on what this VM's disk really answers, the device's own thresholds read once per
run, the throttling check, the verbatim per-point capture file, and this machine's answer (one sentence when it
has no source)."""

from __future__ import annotations

import json

import pytest

from helpers.run import smart
from smart_data import (
    DATA,
    NVME_ID_CTRL,
    NVME_SMART_LOG,
    SMARTCTL_73_NVME,
    SMARTCTL_73_NVME_TEXT,
    SMARTCTL_75_NVME,
    SMARTCTL_SATA,
    advanced,
    load,
)


def test_nvme_cli_2_smart_log_kelvin_thermal_counters_and_units():
    """nvme-cli 2.11 (a real drive that throttled 3 times, 1474 s in thermal management): Kelvin, the
    thm_temp{1,2}_trans_count / thm_temp{1,2}_total_time names, 512,000-byte data units."""
    h = smart.parse_nvme_smart_log(load(NVME_SMART_LOG))
    assert h.source == "nvme-cli" and h.temperature_c == 51.0  # 324 K
    assert (h.thermal_transitions, h.thermal_time_s) == (3, 1474)
    assert (h.warning_temp_min, h.critical_temp_min, h.percent_used, h.media_errors) == (0, 0, 30, 0)
    assert h.data_written_bytes == 1928683480 * 512_000
    assert h.warning_temp_c is None  # nvme smart-log never carries the warning temperature: id-ctrl does
    doc = load(NVME_SMART_LOG)  # each of the four names nvme-cli writes is matched (TMT2's are 0 on this drive)
    assert [k for k in doc if smart.TRANSITION_KEY.fullmatch(k)] == ["thm_temp1_trans_count", "thm_temp2_trans_count"]
    assert [k for k in doc if smart.THERMAL_TIME_KEY.fullmatch(k)] == ["thm_temp1_total_time", "thm_temp2_total_time"]
    assert smart.parse_nvme_smart_log(advanced(doc, thm_temp2_trans_count=2, thm_temp2_total_time=30)).thermal_time_s \
        == 1504
    with pytest.raises(ValueError):
        smart.parse_nvme_smart_log({"foo": 1})


def test_nvme_cli_2_id_ctrl_thresholds():
    """nvme-cli 2.x id-ctrl of a Solidigm drive: wctemp 343 K / cctemp 353 K -> 70 / 80 °C; 0 = not reported."""
    assert smart.parse_id_ctrl(load(NVME_ID_CTRL)) == {"warning_temp_c": 70.0, "critical_temp_c": 80.0,
                                                       "source": "id-ctrl"}
    none = advanced(load(NVME_ID_CTRL), wctemp=0, cctemp=0)
    assert smart.parse_id_ctrl(none) == {"warning_temp_c": None, "critical_temp_c": None, "source": "id-ctrl"}
    with pytest.raises(ValueError):
        smart.parse_id_ctrl(load(NVME_SMART_LOG))


def test_smartctl_73_nvme_json_has_no_threshold_its_text_does():
    """smartctl 7.3 (Debian 12's): the NVMe JSON carries neither the thresholds nor the thermal counters; its
    text (smartctl -c / -a: the capabilities section) prints WCTEMP/CCTEMP, which the once-per-run reading falls
    back on; the information section (-i) never has them."""
    h = smart.parse_smartctl(load(SMARTCTL_73_NVME))
    assert h.temperature_c == 36.0 and h.warning_temp_min == 0 and h.critical_temp_min == 0
    assert h.warning_temp_c is None and h.threshold_source is None and h.thermal_transitions is None
    text = (DATA / SMARTCTL_73_NVME_TEXT).read_text()
    assert text.startswith("smartctl 7.3 ")
    assert smart.smartctl_text_thresholds(text) == {"warning_temp_c": 84.0, "critical_temp_c": 88.0,
                                                    "source": "smartctl WCTEMP"}
    assert smart.smartctl_text_thresholds("smartctl 7.3\n=== START OF INFORMATION SECTION ===\n")["source"] is None
    info = text[: text.index("Firmware Updates")]  # what -i prints of it: the lines before the capabilities
    assert "Local Time is:" in info and smart.smartctl_text_thresholds(info)["source"] is None


def test_smartctl_75_nvme_thresholds():
    h = smart.parse_smartctl(load(SMARTCTL_75_NVME))
    assert (h.temperature_c, h.warning_temp_c, h.critical_temp_c) == (54.0, 100.0, 110.0)
    assert h.threshold_source == "smartctl WCTEMP" and h.warning_temp_min == 0
    assert h.data_written_bytes == 25882809 * 512_000 and h.thermal_transitions is None  # 7.5 writes no counters


def test_smartctl_after_75_thermal_counter_names():
    """smartmontools after 7.5 (commit 8d6517314, src/nvmeprint.cpp) writes the NVMe thermal-management counters
    as thermal_mgmt_temperature_{1,2}_transition_count / _total_time.  No released smartctl writes them yet, so
    no real output exists: this document is the real 7.5 output with the four keys added as that commit names
    them (derived, not a capture)."""
    doc = load(SMARTCTL_75_NVME)
    for k, v in {"thermal_mgmt_temperature_1_transition_count": 7, "thermal_mgmt_temperature_1_total_time": 90,
                 "thermal_mgmt_temperature_2_transition_count": 1, "thermal_mgmt_temperature_2_total_time": 4}.items():
        doc["nvme_smart_health_information_log"][k] = v
    h = smart.parse_smartctl(doc)
    assert (h.thermal_transitions, h.thermal_time_s) == (8, 94)
    # the name the lab used to look for besides nvme-cli's matches no key either tool writes
    assert not smart.TRANSITION_KEY.fullmatch("thermal_temp1_transition_count")


def test_smartctl_sata_op_limit_max_from_sct_status():
    """smartctl -x -j of a Samsung 860 EVO: SCT status 'Specified Max Operating Temperature' 70 °C (also
    temperature.op_limit_max), SCT limit temperature 70 °C; no thermal counters exist on SATA."""
    a = smart.parse_smartctl(load(SMARTCTL_SATA))
    assert a.temperature_c == 36.0 and (a.warning_temp_c, a.critical_temp_c) == (70.0, 70.0)
    assert a.threshold_source == "SCT status" and a.warning_temp_min is None and a.thermal_transitions is None
    assert a.data_written_bytes is not None and a.data_written_bytes > 0
    no_sct = {k: v for k, v in load(SMARTCTL_SATA).items() if not k.startswith("ata_sct")}
    assert smart.smartctl_thresholds(no_sct) == {"warning_temp_c": 70.0, "critical_temp_c": None,
                                                 "source": "smartctl op_limit_max"}
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
    t = smart.thresholds_entry([{"argv": ["nvme", "id-ctrl", "-o", "json", "/dev/vda"], "parser": "id-ctrl",
                                 "returncode": 1, "stdout": "",
                                 "stderr": (DATA / "nvme-cli-vda-this-vm.stderr").read_text()}])
    assert t == {"file": smart.THRESHOLDS_FILE, "note": "the device reports no warning temperature: nvme id-ctrl -o "
                 "json /dev/vda gave no thresholds (/dev/vda: Operation not permitted)."}


def _script(tmp_path, body: str):
    script = tmp_path / "tool.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def test_thresholds_are_read_once_per_run_where_the_device_keeps_them(tmp_path):
    """nvme-cli: id-ctrl, kept verbatim in the run folder; a resumed run keeps the first reading."""
    calls = tmp_path / "calls"
    script = _script(tmp_path, f'echo "$@" >> {calls}\n[ "$1" = id-ctrl ] && cat {DATA / NVME_ID_CTRL}\n')
    run = tmp_path / "run"
    run.mkdir()
    entry = smart.read_thresholds(([str(script), "smart-log", "-o", "json", "/dev/nvme0"], "nvme"), run)
    assert entry == {"file": "device-thresholds.jsonl", "warning_temp_c": 70.0, "critical_temp_c": 80.0,
                     "source": "id-ctrl"}
    (line,) = [json.loads(x) for x in (run / smart.THRESHOLDS_FILE).read_text().splitlines()]
    assert line["argv"] == [str(script), "id-ctrl", "-o", "json", "/dev/nvme0"] and line["returncode"] == 0
    assert line["stdout"] == (DATA / NVME_ID_CTRL).read_text() and line["parser"] == "id-ctrl"
    assert smart.read_thresholds(([str(script), "smart-log", "-o", "json", "/dev/nvme0"], "nvme"), run) == entry
    assert calls.read_text().count("id-ctrl") == 1 and not list(run.glob(".*"))


def test_smartctl_thresholds_fall_back_on_the_text_of_older_versions(tmp_path):
    """smartctl 7.3 on an NVMe drive: -j -x has no threshold, the text of -c (capabilities) has WCTEMP; both
    captures kept.  The stand-in answers like smartctl 7.3 (smartmontools RELEASE_7_3 nvmeprint.cpp: WCTEMP is
    printed by print_drive_capabilities, which -c, -a and -x select, never -i): -c prints the real -a text from
    its capabilities on, -i only the lines before them."""
    text = DATA / SMARTCTL_73_NVME_TEXT
    script = _script(tmp_path, f'case "$1" in -j) cat {DATA / SMARTCTL_73_NVME};; '
                               f"-c) sed '5,/^Local Time/d' {text};; "
                               f"-i) sed -n '1,/^Local Time/p' {text};; *) exit 2;; esac\n")
    entry = smart.read_thresholds(([str(script), "-j", "-a", "/dev/nvme0"], "smartctl"), tmp_path)
    assert entry["warning_temp_c"] == 84.0 and entry["source"] == "smartctl WCTEMP"
    lines = [json.loads(x) for x in (tmp_path / smart.THRESHOLDS_FILE).read_text().splitlines()]
    assert [x["argv"][1:] for x in lines] == [["-j", "-x", "/dev/nvme0"], ["-c", "/dev/nvme0"]]
    (tmp_path / "sata").mkdir()
    sata = _script(tmp_path / "sata", f"cat {DATA / SMARTCTL_SATA}\n")
    e = smart.read_thresholds(([str(sata), "-j", "-a", "/dev/sda"], "smartctl"), tmp_path / "sata")
    assert (e["warning_temp_c"], e["source"]) == (70.0, "SCT status")
    assert len((tmp_path / "sata" / smart.THRESHOLDS_FILE).read_text().splitlines()) == 1  # found: stop asking


def test_throttle_check_counters_that_grew():
    """Two captures of the real nvme-cli 2.11 drive, the second with its thermal-management counters advanced
    (+2 transitions, +60 s) and 3 more minutes above the warning temperature; the run's thresholds from id-ctrl."""
    thresholds = smart.parse_id_ctrl(load(NVME_ID_CTRL))
    doc = load(NVME_SMART_LOG)
    cold = smart.with_thresholds(smart.parse_nvme_smart_log(doc).to_dict(), thresholds)
    hot = smart.with_thresholds(smart.parse_nvme_smart_log(advanced(
        doc, temperature=341, thm_temp1_trans_count=5, thm_temp1_total_time=1534, warning_temp_time=3)).to_dict(),
        thresholds)
    throttled, why = smart.throttle_check(cold, hot)
    assert throttled is True
    assert why == ("thermal throttling: thermal-management transitions +2, +60 s in thermal management, minutes above "
                   "the warning temperature 70 °C (id-ctrl) +3 (51 -> 68 °C)")
    assert "; " not in why  # it becomes one of a row's flag_reasons, which '; ' separates
    assert smart.throttle_check(cold, cold) == (
        False, "no thermal throttling reported (51 -> 51 °C, below the warning temperature 70 °C (id-ctrl)).")
    bare = smart.parse_nvme_smart_log(doc).to_dict()  # no thresholds read: the sentence says so
    assert smart.throttle_check(bare, bare) == (
        False, "no thermal throttling reported (51 -> 51 °C, the device reports no warning temperature).")
    crit = smart.parse_nvme_smart_log(advanced(doc, critical_comp_time=2)).to_dict()
    assert smart.throttle_check(bare, crit)[1] == ("thermal throttling: minutes above the critical temperature +2 "
                                                   "(51 -> 51 °C, the device reports no warning temperature)")
    # counters alone name no threshold: the reason still gives the one the device reports, with its source
    tmt = smart.with_thresholds(smart.parse_nvme_smart_log(advanced(doc, thm_temp2_trans_count=1)).to_dict(),
                                thresholds)
    assert smart.throttle_check(cold, tmt) == (True, "thermal throttling: thermal-management transitions +1 "
                                                     "(51 -> 51 °C, warning at 70 °C (id-ctrl))")
    crit_only = {**tmt, "warning_temp_c": None}  # a device that reports only its critical temperature (80 °C)
    assert smart.throttle_check(bare, crit_only)[1].endswith("(51 -> 51 °C, critical at 80 °C (id-ctrl))")
    assert smart.throttle_check(None, hot)[0] is None


def test_a_temperature_at_the_devices_own_threshold_counts():
    """smartctl 7.5: cool before and after, but a sample taken while the point ran reached the warning temperature
    the drive reports (nvme_composite_temperature_threshold): throttled, the reason names the source; without the
    counters growing."""
    doc = load(SMARTCTL_75_NVME)
    cold = smart.parse_smartctl(doc).to_dict()
    peak = smart.parse_smartctl(advanced(doc, temperature__current=100)).to_dict()
    assert smart.throttle_check(cold, cold, [peak]) == (
        True, "thermal throttling: 100 °C at or over the warning temperature 100 °C (smartctl WCTEMP) (54 -> 100 °C)")
    hotter = smart.parse_smartctl(advanced(doc, temperature__current=111)).to_dict()
    assert "111 °C at or over the critical temperature 110 °C (smartctl WCTEMP)" in smart.throttle_check(cold, hotter)[1]
    failed = {"error": "nvme smart-log gave no health data (timeout)."}
    assert smart.throttle_check(cold, cold, [failed])[0] is False  # a failed sample is no evidence
    sata = smart.parse_smartctl(advanced(load(SMARTCTL_SATA), temperature__current=70)).to_dict()
    assert smart.throttle_check(sata, sata)[1].startswith(
        "thermal throttling: 70 °C at or over the critical temperature 70 °C (SCT status)")


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
    """before / during / after lines with the tool's stdout as printed, times from fio's launch; the verdict
    compares against the run's thresholds."""
    source = (["cat", str(DATA / NVME_SMART_LOG)], "nvme")
    h = smart.PointHealth(source, tmp_path / f"p1{smart.HEALTH_SUFFIX}", sample_every_s=0.2,
                          thresholds=smart.parse_id_ctrl(load(NVME_ID_CTRL)))
    h.before()
    h.start()
    import time
    time.sleep(0.7)
    entry = h.finish()
    lines = [json.loads(x) for x in (tmp_path / "p1.health.jsonl").read_text().splitlines()]
    phases = [x["phase"] for x in lines]
    assert phases[0] == "before" and phases[-1] == "after" and phases.count("during") >= 2
    assert lines[0]["t_s"] <= 0 < lines[1]["t_s"] and [x["t_s"] for x in lines] == sorted(x["t_s"] for x in lines)
    assert all(x["stdout"] == (DATA / NVME_SMART_LOG).read_text() and x["returncode"] == 0 for x in lines)
    assert entry["file"] == "p1.health.jsonl" and entry["captures"]["during"] == phases.count("during")
    assert entry["throttled"] is False and entry["before"]["temperature_c"] == 51.0
    assert entry["before"]["threshold_source"] == "id-ctrl" and entry["reason"].endswith("70 °C (id-ctrl)).")
    assert not list(tmp_path.glob(".*"))  # written atomically


def test_sweep_records_health_before_and_after_each_point(tmp_path, scratch_dir, fio_path, monkeypatch):
    """Wiring: a stand-in for nvme-cli (smart_data.fake_nvme: the real id-ctrl, the real smart-log, then that
    capture with its counters advanced) gives the manifest the run's thresholds (read once, kept verbatim) and each
    point's entry both captures and the throttling verdict against them."""
    from helpers.run import sweep
    from smart_data import fake_nvme
    from sweep_helpers import write_profile

    script = fake_nvme(tmp_path)
    monkeypatch.setattr(sweep, "health_source", lambda target: ([str(script)], "nvme"))
    prof = write_profile(tmp_path, "one", [{"rw": "randread", "bs": "4k", "runtime_s": 0.5, "ramp_s": 0,
                                            "log_avg_msec": 0, "log_hist_msec": 0}])
    m = sweep.sweep(target=scratch_dir / "smart-target.bin", profile=prof, run_id="smart", size="64m",
                    raw_dir=tmp_path / "raw", progress=False)
    assert m["health"] == {"source": str(script), "thresholds": {
        "file": "device-thresholds.jsonl", "warning_temp_c": 70.0, "critical_temp_c": 80.0, "source": "id-ctrl"}}
    assert (tmp_path / "raw" / "smart" / "device-thresholds.jsonl").is_file()
    (entry,) = m["points"].values()
    h = entry["health"]
    assert h["before"]["temperature_c"] == 51.0 and h["after"]["temperature_c"] == 68.0
    assert h["throttled"] is True and h["reason"] == (
        "thermal throttling: thermal-management transitions +2, +60 s in thermal management, minutes above the "
        "warning temperature 70 °C (id-ctrl) +3 (51 -> 68 °C)")
    assert h["captures"] == {"before": 1, "during": 0, "after": 1}  # a short point is not sampled while it runs
    assert (tmp_path / "raw" / "smart" / h["file"]).is_file()


def test_long_points_are_sampled_while_they_run(tmp_path, scratch_dir, fio_path, monkeypatch):
    from helpers.run import sweep
    from sweep_helpers import write_profile

    monkeypatch.setattr(sweep, "health_source", lambda target: (["cat", str(DATA / NVME_SMART_LOG)], "nvme"))
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
    assert all(smart.parse_capture(x)["temperature_c"] == 51.0 for x in lines)
