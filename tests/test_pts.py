"""The SNIA PTS procedure (helpers.run.pts, mode: pts profiles): profile parsing and classes, the purge choice,
the joint steady state of several tracked variables (known answers), the dry run, a real run on a file (recreated,
no purge), resume after kill -9 mid-round, and the procedure on a loop block device (root)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from dataclasses import replace

import pytest

from helpers.errors import LabError
from helpers.run import pts, pts_hir, sweep
from helpers.run.profiles import load_profile, parse_profile
from pts_helpers import write_pts_profile
from sweep_helpers import fio_children, manifest, sweep_cli, wait_for


def test_shipped_profiles_full_matrix_and_lite():
    full = load_profile("pts")
    s = full.pts
    assert full.mode == "pts" and s.test_names == ["iops", "tp-128k", "tp-1024k", "lat", "wsat", "dirth", "xsr", "hir", "cbw"]
    assert (s.jobs, s.qd, s.active_range, s.round_s, s.max_rounds, s.window) == (4, 32, 100.0, 60.0, 25, 5)
    assert len(s.test_points("iops", 1)) == 8 * 7 and len(s.test_points("lat", 1)) == 9
    assert all(p.iodepth == 1 and p.numjobs == 1 for p in s.test_points("lat", 1))
    # the PTS test loop: for each R/W mix (100/0 first), every block size (largest first)
    order = [(p.rwmixread, p.bs_bytes) for p in s.test_points("iops", 1)]
    assert order[:8] == [(100, b) for b in (1024**2, 128 * 1024, 65536, 32768, 16384, 8192, 4096, 512)]
    assert order[8] == (95, 1024**2) and order[-1] == (0, 512)
    assert [(p.rwmixread, p.bs_bytes) for p in s.test_points("lat", 1)][:4] == [(100, 8192), (100, 4096),
                                                                                 (100, 512), (65, 8192)]
    assert [name for name, _, _ in pts.tracked(s, "iops")] == ["IOPS 4k 0/100", "IOPS 64k 65/35", "IOPS 1m 100/0"]
    (w,) = s.test_points("wsat")
    assert (w.rw, w.bs_bytes, w.volume * w.numjobs, w.log_avg_msec) == ("randwrite", 4096, 4.0, 60000)
    lite = load_profile("pts-lite")
    assert lite.pts.pts_class == "client" and (lite.pts.jobs, lite.pts.qd, lite.pts.active_range) == (2, 16, 75.0)
    assert lite.max_seconds < 11 * 60  # pts-lite within 15 minutes in all on this VM (fio time, 1 GiB fills aside)


def test_class_overrides_and_active_range():
    doc = {"mode": "pts", "pts": {"class": "client", "iodepth": 4, "tests": ["iops"], "iops_bs": ["4k"],
                                  "iops_mixes": [0]}}
    s = parse_profile(doc, "p").pts
    assert (s.jobs, s.qd, s.active_range) == (2, 4, 75.0)
    assert s.active_bytes(1024**3) == 768 * 1024**2 and s.active_bytes(1024**2) == 1024**2
    assert [p.point_id for p in s.test_points("iops", 3)] == ["pts-iops-randrw-bs4k-qd4-nj2-mix0-round3"]
    for bad, says in (({"class": "laptop"}, "class 'laptop'"), ({"tests": ["ecw"]}, "tests 'ecw'"),
                      ({"window": 5, "max_rounds": 3}, "max_rounds >= window"), ({"round_s": 0}, "round_s")):
        with pytest.raises(LabError, match=says):
            parse_profile({"mode": "pts", "pts": bad}, "p")
    with pytest.raises(LabError, match="unknown key 'points'"):
        parse_profile({"mode": "pts", "pts": {}, "points": []}, "p")
    assert parse_profile(doc, "p").with_runtime(7).pts.round_s == 7.0


@pytest.mark.parametrize("name, tools, discard, ata, method", [
    ("nvme0n1", {"nvme": True, "blkdiscard": True}, 512, False, "nvme-format"),
    ("nvme0n1p2", {"nvme": True, "blkdiscard": True}, 512, False, "blkdiscard"),  # a partition: never a format
    ("sda", {"hdparm": True, "blkdiscard": True}, 512, True, "ata-secure-erase"),
    ("sda", {"hdparm": True, "blkdiscard": True}, 512, False, "blkdiscard"),  # frozen / unsupported
    ("sda1", {"hdparm": True}, 0, True, None),
    ("loop3", {"blkdiscard": True}, 4096, False, "blkdiscard"),
    ("loop3", {"blkdiscard": True}, 0, False, None),  # no discard support
])
def test_purge_method_is_what_the_device_supports(name, tools, discard, ata, method):
    assert pts.purge_method(name, tools, discard, ata) == method


def test_purge_commands():
    assert pts.purge_commands("blkdiscard", "/dev/loop3") == [["blkdiscard", "/dev/loop3"]]
    assert pts.purge_commands("nvme-format", "/dev/nvme0n1")[0][:3] == ["nvme", "format", "/dev/nvme0n1"]
    assert [c[-2] for c in pts.purge_commands("ata-secure-erase", "/dev/sdb")] == ["ssdlab", "ssdlab"]
    with pytest.raises(LabError):
        pts.purge_commands("shred", "/dev/sdb")


def test_joint_steady_state_needs_every_variable_in_the_same_rounds():
    flat = [100.0] * 6
    late = [50.0, 300.0, 98.0, 100.0, 100.0, 100.0]  # steady from round 3 on (window 3)
    r = pts.joint_steady_state({"a": flat, "b": late}, window=3)
    assert r["steady"] and (r["first_round"], r["last_round"]) == (3, 5)  # a alone: rounds 1-3
    assert r["variables"]["a"]["first_round"] == 3 and r["variables"]["b"]["average"] == pytest.approx(298 / 3)
    r = pts.joint_steady_state({"a": flat, "b": [100, 130, 100, 130, 100, 130]}, window=3)
    assert not r["steady"] and (r["first_round"], r["last_round"]) == (4, 6)
    assert r["reason"].startswith("not steady after 6 rounds") and "b failing" in r["reason"] and "a," not in r["reason"]
    r = pts.joint_steady_state({"a": [1.0]}, window=3)
    assert not r["steady"] and r["first_round"] is None and r["reason"] == "1 of the 3 rounds of a window measured"


def test_dry_run_lists_purge_preconditioning_and_rounds(tmp_path, scratch_dir, fio_path):
    plan = sweep.plan_sweep(scratch_dir / "pts-dry.bin", write_pts_profile(tmp_path), "dry", None, "64m",
                            tmp_path / "raw", dry_run=True)
    cmds = sweep.dry_run_commands(plan)
    assert cmds[0] == "# PTS iops: file recreated and trimmed (no purge), then preconditioning:"
    assert "--name=pts-iops-precondition-1" in cmds[1] and "--bs=131072" in cmds[1]
    assert any("--name=pts-tp-128k-precondition-1" in c and "--bs=131072" in c for c in cmds)
    wsat = [c for c in cmds if "pts-wsat" in c]
    # 4 x the capacity (64 MiB), written within the 75 % ActiveRange (issue 34.5: it wrote 4 x the ActiveRange)
    assert len(wsat) == 1 and f"--io_size={4 * 64 * 1024**2}" in wsat[0] and "--size=50331648" in wsat[0]
    assert not (tmp_path / "raw").exists()


@pytest.fixture(scope="module")
def pts_page(tmp_path_factory, scratch_dir, fio_path):
    """One real run of the tiny PTS profile on a file (every test, ~15 s of fio), ingested, and the 22-pts page
    executed on it and exported: shared by the run's and the page's tests."""
    from helpers import config
    from helpers.ingest import core as ingest
    from helpers.report import export, pipeline

    tmp = tmp_path_factory.mktemp("pts")
    raw, processed = tmp / "raw", tmp / "processed"
    m = sweep.sweep(scratch_dir / "pts-file.bin", write_pts_profile(tmp), "pts", None, "64m", raw, progress=False)
    ingest.ingest("pts", raw_dir=raw, processed_dir=processed)
    nb = config.NOTEBOOKS_DIR / "22-pts.ipynb"
    executed = pipeline.execute(nb, tmp / "reports" / "pts" / "notebooks" / nb.name,
                                {"run_id": "pts", "processed_dir": str(processed)})
    page = export.export_html(executed, tmp / "reports" / "pts" / f"{pipeline.report_name(nb)}.html")
    return {"manifest": m, "executed": executed, "page": page, "processed": processed, "raw_dir": raw / "pts"}


def test_real_run_on_a_file(pts_page):
    m = pts_page["manifest"]
    assert m["status"] == "complete" and m["profile_mode"] == "pts"
    tests = m["pts"]["tests"]
    assert list(tests) == ["iops", "tp-128k", "lat", "wsat", "dirth", "xsr", "hir", "cbw"] and all(t["status"] == "done" for t in tests.values())
    assert all(t["purge"]["method"] == "none" and "recreated and trimmed" in t["purge"]["note"] for t in tests.values())
    assert tests["iops"]["precondition"]["bytes"] == 64 * 1024**2 and tests["tp-128k"]["precondition"]["bs_bytes"] == 131072
    assert "without preconditioning" in tests["wsat"]["precondition"]["note"]
    for name in ("iops", "tp-128k", "lat", "dirth"):
        t = tests[name]
        assert [r["round"] for r in t["rounds"]] == list(range(1, len(t["rounds"]) + 1)) and len(t["rounds"]) <= 2
        assert t["result"]["reason"] and set(t["result"]["variables"]) == {v["name"] for v in t["tracked"]}
        if not t["result"]["steady"]:
            assert t["result"]["reason"].startswith("not steady after 2 rounds")
    assert m["pts"]["active_range_bytes"] == 48 * 1024**2
    wsat = m["points"][tests["wsat"]["point"]]
    assert wsat["status"] == "ok" and any(f.endswith("_iops.1.log") for f in wsat["logs"])


def test_pts_page_has_every_section_and_says_it_is_not_conformant(pts_page):
    import json

    import nbformat

    nb = nbformat.read(pts_page["executed"], as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    assert '"ename"' not in text and "This run has no" not in text
    assert "PTS-inspired, not conformant to SNIA PTS 2.0.2" in text and "SNIA PTS 2.0.2 conformant for" not in text
    for deviation in ("file target (not a block device)", "no purge: file target recreated and trimmed",
                      "0.3 s per point per round", "reduced matrix: IOPS block sizes without 1024k",
                      "preconditioning 1 x the capacity"):
        assert deviation in text
    assert "too few I/Os for a 99.999 % latency" in text  # 0.3 s rounds at QD1: far fewer than 100,000 I/Os
    figs, ys = [], []
    for c in nb.cells:
        for o in c.get("outputs", []):
            fig = o.get("data", {}).get("application/vnd.plotly.v1+json")
            if fig:
                figs.append([t.get("name") for t in fig.get("data", [])])
                ys.append([[y for y in t.get("y") or [] if y is not None] for t in fig.get("data", [])])
    convergence, windows, iops, tp, lat, wsat = figs[:6]
    assert "IOPS: IOPS 4k 0/100" in convergence and "TP 128k: read 128k MB/s" in convergence  # not '1B ... 5B'
    assert tp == ["write", "read"] and lat == ["average", "99.999 %", "maximum"]  # TP and LAT get plots too
    assert "IOPS 4k 0/100: least-squares fit" in windows and "mean latency 4k 0/100 us: window average" in windows
    assert iops == ["R/W 65/35", "R/W 0/100"] and wsat == ["IOPS vs time", "IOPS vs GB written"]
    assert all(len(y) >= 2 for y in ys[5]), "the WSAT curves have at least two windows with IOPS"
    # issue 34.5: the statement names WSAT's deviations, the start state is the one it had, the rule's numbers shown
    assert "WSAT samples IOPS every" in text and "WSAT writes" not in text  # 4 x the capacity: no deviation
    assert "from the purged state" not in text and "WSAT: random 4k writes from an unpurged target" in text
    assert "range limit (%)" in text and "excursion (%)" in text
    assert "not steady (its last" in text or "(steady)" in text
    assert pts_page["page"].exists()


def test_a_pts_card_is_the_pts_tables_window_results(pts_page):
    """Issue 34.3: on a PTS run the card's numbers are the PTS tests' own results over their measurement windows
    (LAT's mean latency, the IOPS test's 4k 100/0 and 0/100, TP's bandwidth), equal to the PTS page's tables,
    labelled with the test and the window, and marked when the test never reached steady state; never a single
    round's best, never "not measured" beside a LAT that measured it."""
    from helpers.analysis import device_card, pts
    from helpers.notebook import runs

    data = runs.load_results("pts", pts_page["processed"])
    run = pts.pts_run(data.manifests)
    card = device_card(data.results, manifest=data.manifest, histograms=data.histograms)
    iops = pts.iops_long(data.results, run).set_index(["bs_bytes", "mix"])["iops"]
    lat = pts.lat_table(data.results, data.histograms, run).set_index(["block size", "R/W"])
    tp = pts.tp_table(data.results, run)
    read_iops = card.metric("Peak 4k random read IOPS")  # the tiny profile's IOPS mixes: 65/35 and 0/100 only
    assert not read_iops.available if (4096, 100.0) not in iops.index else read_iops.value == pytest.approx(
        iops[(4096, 100.0)])
    write_iops = card.metric("Peak 4k random write IOPS")
    assert write_iops.value == pytest.approx(iops[(4096, 0.0)]) and write_iops.label == "4k random write IOPS (PTS IOPS)"
    assert write_iops.detail.startswith("PTS IOPS test, 4k R/W 0/100 at T")
    steady = {t: bool((v.get("result") or {}).get("steady")) for t, v in run.tests.items()}
    assert bool(write_iops.flag_reasons) == (not steady["iops"])
    lat_w = card.metric("QD1 4k random write latency")
    assert lat_w.value == pytest.approx(lat.loc[("4k", "0/100"), "avg latency (µs)"])
    assert lat_w.label == "QD1 4k random write mean total latency (PTS LAT)" and "T1/Q1" in lat_w.detail
    for word in ("read", "write"):
        bw = card.metric(f"Peak sequential {word} bandwidth")
        want = tp[tp["direction"] == word]["bw_bytes_per_s"].max() / 1e6
        assert bw.value == pytest.approx(want) and bw.label.startswith(f"Sequential {word} bandwidth (PTS TP")
        assert bw.spread[0] <= bw.value <= bw.spread[1]
    assert not any(m.detail == "not measured in this run" for m in card.metrics)
    measured = [m for m in card.metrics if m.available]
    assert all(f.startswith(m.label) for f, m in zip(card.findings, measured)) and len(measured) >= 5


def test_resume_after_kill_9_mid_round(tmp_path, scratch_dir, fio_path):
    prof = write_pts_profile(tmp_path, "resume", tests=["iops"], round_s=1, max_rounds=2, window=2,
                             max_range_pct=0, iops_bs=["4k"], iops_mixes=[65, 0])  # never steady: both rounds run
    target, raw = scratch_dir / "pts-resume.bin", tmp_path / "raw"
    run_dir = raw / "r"
    proc = sweep_cli(["--target", str(target), "--profile", str(prof), "--run", "r", "--size", "32m",
                      "--raw-dir", str(raw)], start_new_session=True)

    def mid_round_2():  # round 1 complete, the first point of round 2 done, the second running
        pts_ = manifest(run_dir).get("points", {})
        done = [k for k, v in pts_.items() if v.get("status") == "ok"]
        running = [k for k, v in pts_.items() if v.get("status") == "running" and k.endswith("round2")]
        return running[0] if len(done) == 3 and running else None

    interrupted = wait_for(mid_round_2, timeout=90)
    fio = wait_for(lambda: fio_children(proc.pid), timeout=10)[0]
    progress = json.loads((run_dir / sweep.PROGRESS_NAME).read_text())  # what the live progress line shows
    assert progress["current"].startswith("PTS iops round 2 of at most 2 (filling the first window): randrw 4k")
    assert progress["remaining_seconds"] is not None
    done_before = {p.name: p.stat().st_mtime_ns for p in run_dir.glob("pts-*.json")}
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    wait_for(lambda: not _alive(fio), timeout=15)
    assert manifest(run_dir)["pts"]["tests"]["iops"]["prepared"]
    m = sweep.sweep(target, prof, "r", None, "32m", raw, progress=False)
    t = m["pts"]["tests"]["iops"]
    assert m["status"] == "complete" and m["resumes"] and m["points"][interrupted]["status"] == "ok"
    assert [r["round"] for r in t["rounds"]] == [1, 2]  # round 1 read back from its raw files
    for name, mtime in done_before.items():
        assert (run_dir / name).stat().st_mtime_ns == mtime, f"{name} was measured again"
    assert len(list(run_dir.glob("pts-*.json"))) == 4 and t["result"]["reason"].startswith("not steady after 2")
    assert not [p for p in m["points"] if "precondition" in p]  # no second purge or preconditioning


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def loop_device(tmp_path):
    import os
    if os.geteuid() != 0:
        pytest.skip("a loop block device needs root")
    if not shutil.which("losetup") or not shutil.which("blkdiscard"):
        pytest.skip("losetup/blkdiscard not installed")
    image = tmp_path / "pts-disk.img"
    with open(image, "wb") as f:
        f.truncate(40 * 1024**2)
    try:
        dev = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True, text=True,
                             check=True).stdout.strip()
    except (subprocess.CalledProcessError, OSError) as exc:
        pytest.skip(f"losetup cannot attach a loop device here: {exc}")
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], capture_output=True)


def test_procedure_on_a_loop_block_device(tmp_path, fio_path, loop_device):
    """The pts profile's procedure (purge, 2 x capacity preconditioning, rounds, WSAT 4 x the capacity) on a
    40 MiB loop device: the volumes are scaled by the device's size; the matrix and round length reduced."""
    full = load_profile("pts").pts
    prof = write_pts_profile(tmp_path, "loop", **{"class": "enterprise", "numjobs": 1, "iodepth": 4,
                                                  "precondition_volume": full.precondition_volume,
                                                  "wsat_volume": full.wsat_volume, "tests": ["iops", "wsat"],
                                                  "iops_bs": ["4k"], "iops_mixes": [0], "wsat_max_s": 5})
    with pytest.raises(LabError, match="DESTROY_DEVICE|destroy_device"):
        sweep.plan_sweep(loop_device, prof, "loop", None, "1g", tmp_path / "raw")
    name = loop_device.removeprefix("/dev/")
    m = sweep.sweep(loop_device, prof, "loop", None, "1g", tmp_path / "raw", progress=False, destroy_device=name)
    tests = m["pts"]["tests"]
    assert m["target_kind"] == "block" and m["pts"]["capacity_bytes"] == 40 * 1024**2  # SIZE limited to the device
    for t in tests.values():
        assert t["purge"]["method"] == "blkdiscard" and t["purge"]["purged"]
        assert t["purge"]["commands"][0]["argv"] == ["blkdiscard", loop_device]
    assert tests["iops"]["precondition"]["bytes"] == 2 * 40 * 1024**2  # 2 x the device's capacity
    (wsat,) = [p for p in load_profile(prof).pts.test_points("wsat")]
    assert m["points"][wsat.point_id]["parameters"]["volume"] * 1 == 4.0  # 4 x the active range, one job
    assert replace(wsat, round=0).point_id == tests["wsat"]["point"]


class _FakeCtx:
    """The sweep context run_pts drives, without fio: records the points it is asked to run."""

    def __init__(self, plan, manifest, done=()):
        self.plan, self.manifest, self.progress, self.current = plan, manifest, False, None
        self.ran, self._done = [], set(done)
        self.tracker = type("T", (), {"write": lambda *a, **k: None})()

    def done(self, point):
        return point.point_id in self._done

    def run_point(self, point, extra=None, size_bytes=None):
        self.ran.append((point.point_id, size_bytes))
        return {"status": "ok"}


def test_interrupted_wsat_is_purged_again_and_finished_tests_are_skipped(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from helpers.run.target import Target

    s = parse_profile({"mode": "pts", "pts": {"tests": ["iops", "wsat"], "iops_bs": ["4k"], "iops_mixes": [0]}},
                      "p").pts
    target = tmp_path / "t.bin"
    plan = SimpleNamespace(profile=SimpleNamespace(pts=s), target=Target(target, 8 * 1024**2, "file"),
                           run_dir=tmp_path)
    monkeypatch.setattr(pts, "write_manifest", lambda *a: None)
    old_purge = {"method": "none", "purged": False, "at": "before"}
    manifest = {"pts": {"tests": {"iops": {"status": "done"},
                                  "wsat": {"status": "pending", "prepared": True, "purge": old_purge}}}}
    ctx = _FakeCtx(plan, manifest)
    pts.run_pts(ctx, fill=lambda *a: pytest.fail("WSAT is never preconditioned"))
    wsat = manifest["pts"]["tests"]["wsat"]
    assert wsat["purge"]["at"] != "before" and target.stat().st_size == 8 * 1024**2  # the file recreated again
    assert [r["purge"]["at"] for r in wsat["repeated_preparations"]] == ["before"]  # and the repeat recorded
    (point,) = s.test_points("wsat")
    assert ctx.ran == [(point.point_id, s.active_bytes(8 * 1024**2))] and wsat["status"] == "done"
    # a WSAT whose point was measured is not purged again
    manifest["pts"]["tests"]["wsat"] = {"status": "pending", "prepared": True, "purge": old_purge}
    pts.run_pts(_FakeCtx(plan, manifest, done=[point.point_id]), fill=None)
    assert manifest["pts"]["tests"]["wsat"]["purge"]["at"] == "before"


HDPARM_SECURITY = """Commands/features:
	Enabled	Supported:
	   *	SMART feature set
Security: 
	Master password revision code = 65534
		supported
	not	enabled
	not	locked
	{frozen}
	not	expired: security count
		supported: enhanced erase
	2min for SECURITY ERASE UNIT. 2min for ENHANCED SECURITY ERASE UNIT.
Logical Unit WWN Device Identifier: 5002538e40a1b2c3
"""


def test_ata_erase_only_when_supported_and_not_frozen():
    assert pts.ata_erase_ready(HDPARM_SECURITY.format(frozen="not\tfrozen"))
    # frozen by the BIOS: hdparm's security commands fail, so the purge falls back (blkdiscard) instead
    assert not pts.ata_erase_ready(HDPARM_SECURITY.format(frozen="\tfrozen"))
    assert not pts.ata_erase_ready(HDPARM_SECURITY.format(frozen="not\tfrozen").replace("not\tenabled", "\tenabled"))
    assert not pts.ata_erase_ready(HDPARM_SECURITY.format(frozen="not\tfrozen").replace("\t\tsupported\n", ""))
    assert not pts.ata_erase_ready("Commands/features:\n\tEnabled\tSupported:\n")  # no Security section (NVMe, USB)


def test_real_dirth_run_and_its_page(pts_page):
    m = pts_page["manifest"]
    t = m["pts"]["tests"]["dirth"]
    assert t["status"] == "done" and t["tracked"][0]["name"] == "IOPS T2/Q1 65/35"
    ops = t["operating_points"]
    assert ops["min"]["numjobs"] == 1 and ops["min"]["iodepth"] == 1
    assert ops["max"] is not None and ops["max"]["lat_mean_us"] < 5000  # a file on this VM: well under 5 ms
    for name in ("max", "mid", "min"):
        entry = m["points"][ops[name]["point"]]
        assert entry["status"] == "ok" and name in entry["pts"]["operating_point"]
        assert entry["parameters"]["numjobs"] == ops[name]["numjobs"]
        assert entry["parameters"]["iodepth"] == ops[name]["iodepth"]
    from helpers.analysis import pts as analysis_pts
    from helpers.analysis import pts_dirth
    from helpers.notebook import runs
    from helpers.run.pts_dirth import dirth_operating_points
    data = runs.load_results("pts", str(pts_page["processed"]))
    run = analysis_pts.pts_run(data.manifests)
    table = pts_dirth.dirth_table(data.results, run)
    assert sorted(zip(table["numjobs"], table["iodepth"])) == [(1, 1), (2, 1)] and (table["iops"] > 0).all()
    # the window's numbers are what the run chose its points from
    again = dirth_operating_points(table, 5000.0)
    assert (int(again["max"]["numjobs"]), int(again["max"]["iodepth"])) == (ops["max"]["numjobs"], ops["max"]["iodepth"])
    bins, nines = pts_dirth.response_histograms(data.results, data.histograms, run)
    assert set(bins["operating point"]) == {"max", "mid", "min"} and (nines["I/Os"] > 0).all()
    assert bins.groupby("operating point")["share"].sum().round(9).eq(1.0).all()
    assert set(bins["latency"]) == set(nines["latency"]) == {"total"}  # lat_percentiles=1: json+ bins of total latency
    from helpers.figures import pts_dirth as dirth_figures

    assert dirth_figures.histograms_figure(bins).layout.xaxis.title.text.startswith("total latency (µs")
    import nbformat

    nb = nbformat.read(pts_page["executed"], as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    assert "DIRTH demand variation" in text and "DIRTH demand intensity" in text
    assert "response-time histograms at the max, mid and min" in text and "reduced matrix: DIRTH thread counts" in text
    # CBW: the same flow at 40/60 with the block-size mix and the zones, as fio ran it
    cbw = m["pts"]["tests"]["cbw"]
    assert cbw["status"] == "done" and cbw["operating_points"]["min"]["numjobs"] == 1
    raw = json.loads((pts_page["raw_dir"] / m["points"][cbw["operating_points"]["max"]["point"]]["raw_file"]).read_text())
    opts = raw["jobs"][0]["job options"]
    assert opts["bssplit"].startswith("512/4:1k/1") and opts["random_distribution"] == "zoned:50/5:30/15:20/80"
    assert opts["rwmixread"] == "40"
    cbw_table = pts_dirth.dirth_table(data.results, run, test="cbw")
    assert len(cbw_table) == 2 and (cbw_table["iops"] > 0).all() and "CBW demand intensity" in text


def test_real_xsr_run_and_its_page(pts_page):
    from helpers.analysis import pts as analysis_pts
    from helpers.analysis import pts_xsr
    from helpers.notebook import runs

    m = pts_page["manifest"]
    t = m["pts"]["tests"]["xsr"]
    assert t["status"] == "done" and t["samples"] == 6 and "without preconditioning" in t["precondition"]["note"]
    data = runs.load_results("pts", str(pts_page["processed"]))
    series = pts_xsr.xsr_series(data.results, analysis_pts.pts_run(data.manifests))
    assert series["segment"].tolist() == [1, 1, 2, 2, 3, 3] and series["t_s"].tolist() == pytest.approx(
        [0.3, 0.6, 0.9, 1.2, 1.5, 1.8])
    assert (series["bytes_per_s"] > 0).all() and (series["lat_max_us"] >= series["lat_mean_us"]).all()
    params = {e["pts"]["segment"]: e["parameters"] for e in m["points"].values() if e.get("pts", {}).get("test") == "xsr"}
    assert (params[1]["rw"], params[1]["bs_bytes"], params[2]["rw"], params[2]["bs_bytes"]) == (
        "write", 1024**2, "randwrite", 8192) and params[3]["numjobs"] == 1
    summary = pts_xsr.xsr_summary(series)
    assert summary["segment"].iloc[-1] == "recovery of segment 3" and summary["note"].iloc[-1]
    import nbformat

    nb = nbformat.read(pts_page["executed"], as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    assert "XSR: sequential 1024k, random 8k, sequential 1024k writes" in text and "XSR 2 + 2 + 2 samples" in text


def test_real_hir_run_and_its_page(pts_page):
    from helpers.analysis import pts as analysis_pts
    from helpers.analysis import pts_hir
    from helpers.notebook import runs

    m = pts_page["manifest"]
    t = m["pts"]["tests"]["hir"]
    assert t["status"] == "done" and t["waits_s"] == [0.2, 0.4] and t["rounds"]
    data = runs.load_results("pts", str(pts_page["processed"]))
    run = analysis_pts.pts_run(data.manifests)
    samples = pts_hir.hir_samples(data.results, run)
    assert list(zip(samples["wait_s"], samples["phase"])) == [(0.2, "wait"), (0.2, "baseline"), (0.4, "wait"),
                                                              (0.4, "baseline")]
    # the cycle after a wait starts at least the wait later than the cycle before it
    assert samples["t_s"].iloc[1] - samples["t_s"].iloc[0] >= 0.3 + 0.2
    summary = pts_hir.hir_summary(samples, pts_hir.baseline_iops(run))
    assert (summary["x baseline"] > 0).all() and pts_hir.baseline_iops(run) > 0
    import nbformat

    nb = nbformat.read(pts_page["executed"], as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])
    assert "HIR: 4k random-write IOPS per cycle" in text and "HIR wait states 0.2, 0.4 s" in text


def test_wsat_response_times(pts_page):
    from helpers.analysis import pts as analysis_pts
    from helpers.analysis import pts_wsat
    from helpers.figures import pts_wsat as wsat_figures
    from helpers.notebook import runs

    data = runs.load_results("pts", str(pts_page["processed"]))
    run = analysis_pts.pts_run(data.manifests)
    series = pts_wsat.wsat_latency_series(data.timeseries, run)
    assert len(series) >= 2 and (series["lat_mean_us"] > 0).all() and series["t_s"].is_monotonic_increasing
    pd_summary = pts_wsat.wsat_response_summary(data.results, data.histograms, run)
    summary = pd_summary.iloc[0]
    # at most 4 x the 64 MiB capacity of 4k writes (65,536 I/Os): too few for a 99.999 % value, which is then left empty
    assert 0 < summary["I/Os"] <= 4 * 64 * 256 and summary["99.999 % (µs)"] != summary["99.999 % (µs)"]
    assert "too few I/Os" in summary["note"]
    assert summary["max response time (µs)"] >= summary["mean response time (µs)"] > 0
    # per window (the histogram log): every I/O counted once, 99.999 % <= max, each window's maximum at most the
    # whole test's total-latency maximum (a completion latency within its histogram bin, ~1.6 %), too few I/Os said
    tail = pts_wsat.wsat_window_tail(data.timeseries, run)
    assert len(tail) >= 2 and tail["t_s"].is_monotonic_increasing
    assert 0.9 * summary["I/Os"] <= tail["ios"].sum() <= summary["I/Os"]
    assert (tail["p99_999_us"] <= tail["max_us"]).all() and (tail["max_us"] > 0).all()
    assert tail["max_us"].max() <= 1.02 * summary["max response time (µs)"]
    assert not tail["reliable"].any() and "too few" not in pts_wsat.wsat_tail_note(tail[0:0])
    assert f"{len(tail)} of {len(tail)} windows have fewer than 100,000 I/Os" in pts_wsat.wsat_tail_note(tail)
    fig = wsat_figures.wsat_latency_figure(series, pd_summary, tail=tail)
    names = [t.name for t in fig.data]
    assert "99.999 % per window (too few I/Os)" in names and "max completion latency per window" in names
    whole = next(t for t in fig.data if t.name == "max (whole WSAT, total latency)")
    assert list(whole.y) == [summary["max response time (µs)"] / 1000] * 2 and not fig.layout.annotations


def test_test_limit_stops_rounds_samples_and_cycles_and_resumes_at_the_same_place(tmp_path, monkeypatch):
    """``test_limit_s``: each test's rounds, XSR samples and HIR cycles stop once their planned seconds reach the
    limit (at least one round), the stop is recorded, a rerun over the measured points stops at the same place,
    the estimate is the limited one and the statement lists the limit; RUNTIME caps every PTS point."""
    from types import SimpleNamespace

    from helpers.analysis.pts import PtsRun, conformance
    from helpers.run.target import Target

    s = parse_profile({"mode": "pts", "pts": {"tests": ["tp", "xsr", "hir"], "tp_bs": ["128k"], "round_s": 2,
                                              "xsr_sample_s": 1, "xsr_seq_samples": 20, "xsr_rnd_samples": 20,
                                              "hir_waits": [1, 2], "hir_cycles": 10, "hir_write_s": 1,
                                              "test_limit_s": 7}}, "p").pts
    plan = SimpleNamespace(profile=SimpleNamespace(pts=s), target=Target(tmp_path / "t.bin", 8 * 1024**2, "file"),
                           run_dir=tmp_path)
    monkeypatch.setattr(pts, "write_manifest", lambda *a: None)
    rising = iter(range(1, 1000))  # never steady
    monkeypatch.setattr(pts, "round_metrics", lambda raw: dict.fromkeys(("bw_bytes_per_s", "iops"), 2.0 ** next(rising)))
    monkeypatch.setattr(pts_hir.time, "sleep", lambda x: None)
    manifest: dict = {"pts": {}}
    ctx = _FakeCtx(plan, manifest)
    ctx.raw = lambda p: tmp_path / "none"
    pts.run_pts(ctx, fill=lambda *a: {"pass": a[0]})
    tests = manifest["pts"]["tests"]
    tp = tests["tp-128k"]["result"]
    assert len(tests["tp-128k"]["rounds"]) == 2 and tp["stopped_at_limit"]  # 2 rounds of 2 x 2 s >= 7 s
    assert "time limit of 7 s" in tp["reason"]
    assert tests["xsr"]["stopped_at_limit"] == {"samples": 7, "limit_s": 7.0}
    assert sum(1 for pid, _ in ctx.ran if "xsr" in pid) == 7
    # HIR: 4 rounds of 2 s (>= 7 s), then cycles (1 s writes + 1 s wait) while their seconds stay below 7 s
    assert tests["hir"]["stopped_at_limit"] == {"cycles": 4, "limit_s": 7.0}
    assert all(t["status"] == "done" for t in tests.values())
    # a rerun over the measured points measures nothing new and stops at the same places
    again: dict = {"pts": {}}
    rising = iter(range(1, 1000))
    ctx2 = _FakeCtx(plan, again, done=[pid for pid, _ in ctx.ran])
    ctx2.raw = ctx.raw
    pts.run_pts(ctx2, fill=lambda *a: {"pass": a[0]})
    assert again["pts"]["tests"]["xsr"]["stopped_at_limit"] == tests["xsr"]["stopped_at_limit"]
    assert len(again["pts"]["tests"]["tp-128k"]["rounds"]) == 2
    prof = parse_profile({"mode": "pts", "pts": {"test_limit_s": 30}}, "p")
    assert prof.with_runtime(1).estimated_seconds < 1200 < 24 * 3600 < load_profile("pts").estimated_seconds
    run = PtsRun(run_id="r", manifest={"status": "complete", **manifest})
    assert any("time limit of 7 s per test" in d for d in conformance(run).deviations)
    short = load_profile("pts").with_runtime(1).pts
    assert (short.round_s, short.dirth_prewrite_s, short.dirth_hist_s, short.xsr_sample_s, short.hir_write_s) == (1,) * 5
    with pytest.raises(LabError, match="test_limit_s"):
        parse_profile({"mode": "pts", "pts": {"test_limit_s": -1}}, "p")
