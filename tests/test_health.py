"""Device health through the pipeline (issue 12 point 5, issue 23): a point's verbatim SMART/health captures and the
run's threshold captures -> the health dataset (thresholds and their source on every row) -> the results'
flag_throttled (with its reason, in the flag table) -> the temperature trace of the time-series and sustained-write
figures and the device card's line; and a run without a source (this VM's virtio disk) says why in one sentence
while everything else works.

The captures are real tool outputs (tests/data/smart, sources in its README); the later ones of a point are those
with counters advanced (smart_data.advanced), printed by a stand-in for the tool (fault injection: this VM has no
device that reports health); fio is real."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers import analysis, config, figures
from helpers.analysis.health import health_summary
from helpers.ingest import health as ih
from helpers.processed import schema, store
from helpers.run import smart
from smart_data import DATA, NVME_ID_CTRL, NVME_SMART_LOG, SMARTCTL_75_NVME, advanced, load


def _line(phase: str, t_s: float, doc: dict | str, parser: str = "nvme") -> str:
    argv = ["nvme", "smart-log", "-o", "json", "/dev/nvme0"] if parser == "nvme" else ["smartctl", "-j", "-a", "/dev/nvme0"]
    out = (DATA / doc).read_text() if isinstance(doc, str) else json.dumps(doc, indent=2)
    return json.dumps({"phase": phase, "t_s": t_s, "at": "2026-11-23T10:00:00+0000", "argv": argv, "parser": parser,
                       "returncode": 0, "stdout": out, "stderr": ""}) + "\n"


def test_health_rows_and_verdicts_from_capture_files(tmp_path):
    """Three points: one whose device (smartctl 7.5, its own thresholds in the capture) reached its warning
    temperature while it ran; one (nvme-cli) whose thermal counters grew, judged against the run's id-ctrl
    thresholds (device-thresholds.jsonl); one cool whose last capture failed; junk lines are skipped."""
    doc = load(SMARTCTL_75_NVME)
    (tmp_path / "hot.health.jsonl").write_text(
        _line("before", -0.2, SMARTCTL_75_NVME, "smartctl")
        + _line("during", 10.0, advanced(doc, temperature__current=101), "smartctl")
        + "not json\n" + _line("after", 20.5, SMARTCTL_75_NVME, "smartctl"))
    nv = load(NVME_SMART_LOG)
    (tmp_path / "tmt.health.jsonl").write_text(
        _line("before", -0.1, NVME_SMART_LOG) + _line("after", 5.0, advanced(nv, thm_temp2_trans_count=1,
                                                                             thm_temp2_total_time=12)))
    failed = {"phase": "after", "t_s": 5.0, "argv": ["nvme", "smart-log"], "parser": "nvme", "returncode": 1,
              "stdout": "", "stderr": "/dev/nvme0: Operation not permitted\n"}
    (tmp_path / "cool.health.jsonl").write_text(_line("before", -0.1, NVME_SMART_LOG) + json.dumps(failed))
    (tmp_path / smart.THRESHOLDS_FILE).write_text(json.dumps({
        "argv": ["nvme", "id-ctrl", "-o", "json", "/dev/nvme0"], "parser": "id-ctrl", "returncode": 0,
        "stdout": (DATA / NVME_ID_CTRL).read_text(), "stderr": ""}) + "\n")
    h = ih.health_frame([tmp_path], "r1")
    assert list(h.columns) == schema.column_names(schema.HEALTH_COLUMNS)
    assert list(h["point_id"]) == ["cool", "cool", "hot", "hot", "hot", "tmt", "tmt"]
    hot = h[h["point_id"] == "hot"]
    assert list(hot["phase"]) == ["before", "during", "after"] and list(hot["temperature_c"]) == [54.0, 101.0, 54.0]
    assert set(hot["source"]) == {"smartctl"} and set(hot["warning_temp_c"]) == {100.0}
    assert set(hot["threshold_source"]) == {"smartctl WCTEMP"}  # the capture's own thresholds win
    tmt = h[h["point_id"] == "tmt"]
    assert list(tmt["thermal_transitions"]) == [3, 4] and list(tmt["thermal_time_s"]) == [1474, 1486]
    assert set(tmt["warning_temp_c"]) == {70.0} and set(tmt["threshold_source"]) == {"id-ctrl"}
    cool = h[h["point_id"] == "cool"]
    assert cool["temperature_c"].iloc[0] == 51.0 and cool["source"].iloc[0] == "nvme-cli"
    assert cool["error"].iloc[1] == ("nvme smart-log gave no health data (exit status 1: /dev/nvme0: Operation not "
                                     "permitted).")
    assert pd.isna(cool["threshold_source"].iloc[1])  # a failed capture stays a failure
    v = ih.throttle_verdicts(h).set_index("point_id")
    assert v.loc["hot", "throttled"] and v.loc["hot", "throttle_reason"] == (
        "thermal throttling: 101 °C at or over the warning temperature 100 °C (smartctl WCTEMP) (54 -> 101 °C)")
    assert v.loc["tmt", "throttled"] and v.loc["tmt", "throttle_reason"] == (
        "thermal throttling: thermal-management transitions +1, +12 s in thermal management (51 -> 51 °C, warning "
        "at 70 °C (id-ctrl))")  # counters alone: the reason still names the device's threshold and its source
    assert pd.isna(v.loc["cool", "throttled"])  # the after capture failed: cannot tell, not "not throttled"
    assert ih.throttled_points(h) == {p: v.loc[p, "throttle_reason"] for p in ("hot", "tmt")}
    assert ih.health_frame([tmp_path / "nothing-here.json"], "r1").empty
    assert ih.is_health_file(smart.THRESHOLDS_FILE)  # not fio output: ingest does not quarantine it


@pytest.fixture(scope="module")
def hot_run(tmp_path_factory, scratch_dir, fio_path):
    """A real sweep (two 1.5 s points, the first one 'long' and sampled every 0.3 s) whose health tool is a
    stand-in (smart_data.fake_nvme): the real id-ctrl (warning 70 °C), the real nvme-cli 2.11 capture first and
    from then on that capture with its counters grown (thermal transitions +2, +60 s, +3 min above the warning
    temperature; 68 °C); ingested by helpers.ingest.ingest."""
    from helpers.ingest import ingest
    from helpers.run import sweep
    from smart_data import fake_nvme
    from sweep_helpers import write_profile

    tmp = tmp_path_factory.mktemp("hot")
    script = fake_nvme(tmp)
    mp = pytest.MonkeyPatch()
    mp.setattr(sweep, "health_source", lambda target: ([str(script)], "nvme"))
    mp.setattr(smart, "LONG_POINT_S", 2.0)  # "long" = planned 2 s or more here ...
    mp.setattr(smart, "SAMPLE_EVERY_S", 0.3)  # ... sampled every 0.3 s
    try:
        prof = write_profile(tmp, "hot", [
            {"group": "sustained", "rw": "write", "bs": "128k", "iodepth": 4, "runtime_s": 1.5, "ramp_s": 0.5,
             "log_avg_msec": 250},
            {"group": "qd", "rw": "randread", "bs": "4k", "iodepth": 1, "runtime_s": 1.0, "ramp_s": 0}])
        m = sweep.sweep(target=scratch_dir / "health-target.bin", profile=prof, run_id="hot", size="64m",
                        raw_dir=tmp / "raw", progress=False)
    finally:
        mp.undo()
    processed = tmp / "processed"
    ingest("hot", raw_dir=tmp / "raw", processed_dir=processed)
    return {"manifest": m, "raw": tmp / "raw" / "hot", "processed": processed}


def test_throttling_reaches_the_results_flags_and_the_flag_table(hot_run):
    from helpers.notebook import runs

    long_id, short_id = list(hot_run["manifest"]["points"])
    entry = hot_run["manifest"]["points"][long_id]["health"]
    assert entry["file"] == f"{long_id}.health.jsonl" and entry["captures"]["during"] >= 2
    assert entry["throttled"] is True
    data = runs.load_results("hot", hot_run["processed"], hot_run["raw"].parent)
    r = data.results.set_index("point_id")
    assert r.loc[long_id, "flag_throttled"]
    # the second point starts and ends hot with the counters unchanged: no throttling DURING it
    assert not r.loc[short_id, "flag_throttled"] and "thermal" not in r.loc[short_id, "flag_reasons"]
    assert hot_run["manifest"]["points"][short_id]["health"]["reason"] == (
        "no thermal throttling reported (68 -> 68 °C, below the warning temperature 70 °C (id-ctrl)).")
    reason = ("thermal throttling: thermal-management transitions +2, +60 s in thermal management, minutes above the "
              "warning temperature 70 °C (id-ctrl) +3 (51 -> 68 °C)")
    assert reason in r.loc[long_id, "flag_reasons"] and r.loc[long_id, "flag_reasons"].count("thermal throttling") == 1
    assert entry["reason"] == reason  # the manifest and the results say the same
    t = analysis.flag_table(data.results)
    assert long_id in set(t["point_id"]) and t.set_index("point_id").loc[long_id, "flag_throttled"]
    assert reason in t.set_index("point_id").loc[long_id, "flag_reasons"]
    marked = analysis.with_units(data.results).set_index("point_id")  # what the QD/bs views mark
    assert marked.loc[long_id, "flagged"] and reason in marked.loc[long_id, "flag_reasons"]
    card = analysis.device_card(data.results, manifest=data.manifest, health=data.health)
    assert card.identity["device health"].startswith(f"{hot_run['manifest']['health']['source']}: ")
    assert card.identity["device health"].endswith("51–68 °C, warning at 70 °C (id-ctrl)")
    # the raw captures are not fio results: nothing quarantined because of them
    assert not data.quarantine["source_file"].str.endswith(".health.jsonl").any()


def test_health_dataset_and_the_temperature_traces(hot_run):
    from helpers.notebook import runs

    data = runs.load_results("hot", hot_run["processed"], hot_run["raw"].parent)
    h = store.load(hot_run["processed"], config.HEALTH_DATASET, "hot")
    assert len(h) == len(data.health) and set(h["phase"]) == {"before", "during", "after"}
    assert data.health_note == ""
    series = analysis.point_series(data.timeseries)
    fig = figures.timeseries_figure(series, analysis.consistency(data.timeseries), health=data.health,
                                    health_note=data.health_note)
    temp = [t for t in fig.data if t.name == "device temperature (°C)"]
    assert len(temp) >= 1 and temp[0].yaxis == "y2" and fig.layout.yaxis2.title.text == "device temperature (°C)"
    long_id = list(hot_run["manifest"]["points"])[0]
    t = analysis.temperature_series(data.health, series)
    mine = t[t["point_id"] == long_id]
    # the times sit on the time-series axis (0 = end of the 0.5 s ramp): before fio started, then while it ran
    assert mine["time_s"].iloc[0] <= -0.5 and (mine["time_s"].iloc[1:] > -0.5).all() and mine["time_s"].max() < 3
    assert len(temp) == 2  # one per point, each shown with its point (dropdown)
    fig = figures.timeseries_figure(series[series["point_id"] == long_id], health=data.health)
    (temp,) = [t for t in fig.data if t.name == "device temperature (°C)"]
    assert list(temp.y) == list(mine["temperature_c"]) == [51.0] + [68.0] * (len(mine) - 1)
    assert set(data.health["warning_temp_c"]) == {70.0} and set(data.health["threshold_source"]) == {"id-ctrl"}
    assert list(temp.x) == list(mine["time_s"]) and fig.layout.yaxis2.visible
    (warn,) = [t for t in fig.data if t.name.startswith("warning temperature")]
    assert warn.name == "warning temperature 70 °C (id-ctrl)" and set(warn.y) == {70.0}
    cliff = figures.write_cliff_figure(series, health=data.health, health_note=data.health_note)
    ct = [t for t in cliff.data if t.name == "device temperature (°C)"]
    assert len(ct) == 1 and ct[0].yaxis == "y2" and min(ct[0].x) >= 0 and cliff.layout.yaxis2.visible


def test_a_run_without_a_source_says_why_in_one_sentence(tmp_path, scratch_dir, fio_path):
    """This VM (virtio disk, no nvme-cli/smartctl): the sweep, ingest and figures work, and the pages say why
    there is no temperature in the sweep's own sentence -- once."""
    from helpers.ingest import ingest
    from helpers.notebook import runs
    from helpers.run import sweep
    from sweep_helpers import write_profile

    prof = write_profile(tmp_path, "plain", [{"rw": "randread", "bs": "4k", "iodepth": 2, "runtime_s": 1,
                                              "ramp_s": 0}])
    m = sweep.sweep(target=scratch_dir / "health-plain.bin", profile=prof, run_id="plain", size="64m",
                    raw_dir=tmp_path / "raw", progress=False)
    note = m["health"].get("note")
    if note is None:
        pytest.skip(f"this machine's disk reports health ({m['health']['source']}): nothing to degrade")
    assert note.startswith("no SMART/health data") and "\n" not in note
    assert not list((tmp_path / "raw" / "plain").glob("*.health.jsonl")) and "thresholds" not in m["health"]
    assert not (tmp_path / "raw" / "plain" / smart.THRESHOLDS_FILE).exists()
    ingest("plain", raw_dir=tmp_path / "raw", processed_dir=tmp_path / "processed")
    data = runs.load_results("plain", tmp_path / "processed", tmp_path / "raw")
    assert data.health.empty and data.health_note == note and not data.results["flag_throttled"].any()
    fig = figures.timeseries_figure(analysis.point_series(data.timeseries), analysis.consistency(data.timeseries),
                                    health=data.health, health_note=data.health_note)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert texts.count(note) == 1 and not fig.layout.yaxis2.visible
    assert not any(t.name == "device temperature (°C)" for t in fig.data)
    card = analysis.device_card(data.results, manifest=data.manifest, health=data.health)
    assert card.identity["device health"] == note


def test_the_cards_health_line_gives_the_range_against_the_devices_threshold():
    """'<tool>: N captures over P points, 34–61 °C, warning at 80 °C (source)': the captures' own threshold,
    else the run's reading in the manifest, else why there is none."""
    rows = pd.DataFrame({"run_id": "r", "point_id": ["a", "a", "b"], "temperature_c": [34.0, 61.0, 40.0],
                         "warning_temp_c": [float("nan")] * 3, "threshold_source": pd.array([pd.NA] * 3, "string"),
                         "error": pd.array([pd.NA] * 3, "string")})
    m = {"health": {"source": "nvme smart-log -o json /dev/nvme0", "thresholds": {
        "file": smart.THRESHOLDS_FILE, "warning_temp_c": 80.0, "critical_temp_c": 85.0, "source": "id-ctrl"}}}
    assert health_summary(m, rows) == ("nvme smart-log -o json /dev/nvme0: 3 captures over 2 points, "
                                                "34–61 °C, warning at 80 °C (id-ctrl)")
    own = rows.assign(warning_temp_c=75.0, threshold_source=pd.array(["smartctl WCTEMP"] * 3, "string"))
    assert health_summary(m, own).endswith("34–61 °C, warning at 75 °C (smartctl WCTEMP)")
    none = {"health": {"source": "smartctl -j -a /dev/sda", "thresholds": {
        "file": smart.THRESHOLDS_FILE, "note": "the device reports no warning temperature: smartctl -c /dev/sda "
        "reported none."}}}
    assert health_summary(none, rows).endswith("34–61 °C, the device reports no warning temperature")
    old = {"health": {"source": "nvme smart-log -o json /dev/nvme0"}}  # a run made before thresholds were read
    assert health_summary(old, rows).endswith("34–61 °C, no warning temperature read")
