"""mode: replay through the sweep: the known fio job's tracefs trace replayed and cloned on the reference device
(a 64 MiB scratch file without root; one sweep for the module, about 5 s of fio), the page's data from it, and
traces refused before any I/O."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helpers.errors import LabError
from helpers.ingest.traces import trace_ios
from helpers.notebook import replay as replay_page
from helpers.run import replay as R
from helpers.run import sweep
from realfio import still_target

DATA = Path(__file__).parent / "data" / "traces"
TRACE = DATA / "known-fio-tracefs.trace"  # fio randrw 70 % reads, bssplit 4k/50:16k/30:64k/20 on a loop device


def profile(folder: Path, **replay) -> Path:
    p = folder / "replay.yaml"
    p.write_text(yaml.safe_dump({"description": "replay test", "mode": "replay",
                                 "replay": {"trace": str(TRACE), **replay}}))
    return p


@pytest.fixture(scope="module")
def replay_run(fio_path, scratch_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    # on a target that holds still (realfio.still_target; the sweep's own scratch file without root): beside make
    # test's workers a disk stall slowed the replay to 147 IOPS where its clone read 184 (2026-11-29)
    with still_target(scratch_dir / "replay-target.bin", 64 << 20, fill=None) as target:
        device = Path(target).is_block_device()
        names = {"destroy_device": str(target), "ignore_signature": str(target)} if device else {}
        # the clone runs 4 s: its poisson arrivals count within ~4 % (1 sigma) of the rate asked, 2 s gave ~6 %
        plan = sweep.plan_sweep(target, profile(folder, clone_runtime_s=4), "replay-test", None, "64m",
                                folder / "raw", trace_reader=trace_ios, **names)
        manifest = sweep.run_sweep(plan, progress=False)
    yield plan, manifest
    shutil.rmtree(folder / "raw", ignore_errors=True)
    if not device:
        Path(target).unlink(missing_ok=True)
        Path(str(target) + ".ssdlab.json").unlink(missing_ok=True)


def test_replay_and_clone_are_points_with_per_io_logs(replay_run):
    plan, m = replay_run
    assert m["status"] == "complete" and m["profile_mode"] == "replay"
    roles = {v["replay"]["role"]: k for k, v in m["points"].items()}
    assert set(roles) == {"replay", "clone"}
    for pid in roles.values():
        assert (plan.run_dir / f"{pid}.json").is_file() and list(plan.run_dir.glob(f"{pid}_lat.*.log*"))
    assert (plan.run_dir / ".replay" / TRACE.name).read_bytes() == TRACE.read_bytes()
    iolog = (plan.run_dir / ".replay" / "replay.iolog").read_text().splitlines()
    assert iolog[0] == "fio version 3 iolog" and len(iolog) == 334 + 4
    assert "rate_iops=" in (plan.run_dir / ".replay" / "clone.fio").read_text()


def test_the_page_compares_replay_clone_and_trace(replay_run):
    """Every I/O of the trace replayed in order (matched by operation, offset and size), lag percentiles ordered,
    the replay's read share the trace's exactly, the clone within 10 % of the replay's read share and IOPS
    (15 % allowed for IOPS: a 4 s poisson clone of ~167 IOPS counts within ~4 % at 1 sigma)."""
    plan, _ = replay_run
    d = replay_page.load(plan.run_id, plan.run_dir.parent)
    assert len(d.lag) == 334 and "fio issued 334 of the trace's 334 I/Os" in d.lag_text
    assert d.lag["lag_ms"].quantile(0.5) <= d.lag["lag_ms"].quantile(0.99)
    f = d.fidelity.set_index("quantity")
    assert f.loc["Read share (% of reads and writes)", "replay"] == f"{100 * 232 / 334:.1f} %"
    assert f.loc["Read share (% of reads and writes)", "trace"] == f"{100 * 232 / 334:.1f} %"
    iops = {k: float(f.loc["IOPS", k].replace(",", "")) for k in ("replay", "clone")}
    read = {k: float(f.loc["Read share (% of reads and writes)", k].split()[0]) for k in ("replay", "clone")}
    assert abs(iops["clone"] / iops["replay"] - 1) < 0.15, iops
    assert abs(read["clone"] / read["replay"] - 1) < 0.10, read
    assert d.fidelity_text.startswith("The clone came within") and "[clone]" in d.clone_job
    assert set(d.latencies) == {"trace's own", "replay", "clone"} and len(d.latencies["replay"]) == 334


def test_a_run_without_a_replay_says_so(tmp_path):
    assert replay_page.load("nothing", tmp_path).empty == ("Run nothing replayed no trace: a profile with mode: "
                                                            "replay (docs/traces.md) replays one on a target and "
                                                            "runs its clone.")


def test_refused_before_any_io(tmp_path, fio_path):
    """Offsets beyond the target with fit: refuse, and a writing trace on a file the lab did not create: one
    sentence each, before any run folder or target exists."""
    raw = tmp_path / "raw"
    with pytest.raises(R.ReplayRefused, match=r"^The trace reaches 66,760,704 bytes, beyond the target's "
                                              r"33,554,432, .* refused before any I/O\.$"):
        sweep.plan_sweep(tmp_path / "t.bin", profile(tmp_path), "r1", None, "32m", raw, trace_reader=trace_ios)
    assert not raw.exists() and not (tmp_path / "t.bin").exists()
    plan = sweep.plan_sweep(tmp_path / "t.bin", profile(tmp_path, fit="scale"), "r1", None, "32m", raw,
                            trace_reader=trace_ios, dry_run=True)
    assert plan.replay.note.startswith("Offsets scaled by 0.5026 into the target's 33,554,432 bytes")
    foreign = tmp_path / "foreign.bin"
    foreign.write_bytes(b"\0" * (64 << 20))
    with pytest.raises(LabError, match="was not created by the lab, so write workloads will not touch it"):
        sweep.plan_sweep(foreign, profile(tmp_path), "r2", None, "64m", raw, trace_reader=trace_ios)
    with pytest.raises(LabError, match=r"replay\.fit must be one of refuse, wrap, scale, not 'squeeze'\.$"):
        sweep.plan_sweep(foreign, profile(tmp_path, fit="squeeze"), "r3", None, "64m", raw, trace_reader=trace_ios)
    assert sweep.main([f"--target={tmp_path / 't.bin'}", f"--profile={profile(tmp_path)}", "--size=64m",
                       "--check-only"]) == 2  # python -m helpers.run.sweep: the run layer reads no trace
    assert not raw.exists()


def test_import_trace_command(tmp_path, monkeypatch, capsys):
    """make import-trace's entry point: the summary sentence and the traces dataset of the run (--no-page); a
    missing file is one sentence."""
    from helpers import config
    from helpers.processed import store
    from helpers.report import traces as report_traces

    monkeypatch.setattr(config, "PROCESSED_DIR", tmp_path)
    assert report_traces.main([str(TRACE), "--no-page"]) == 0
    assert capsys.readouterr().out.strip() == "334 I/Os imported from 1 trace."
    assert len(store.load(tmp_path, config.TRACES_DATASET, ["trace-known-fio-tracefs"])) == 334
    assert report_traces.main([str(tmp_path / "nope.trace")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope.trace'} does not exist (FILE=path[,path ...])."


def test_a_second_real_trace_characterizes_as_its_fio_job():
    """The open-loop job's tracefs trace (known2-rate, README): fio's own counts per direction, its two block sizes
    and the per-direction sequential share of percentage_random=50 (fio keeps one position per direction)."""
    import json

    from helpers.analysis import workload as W

    ios = trace_ios(DATA / "known2-rate-tracefs.trace")
    job = json.loads((DATA / "known2-rate.json").read_text())["jobs"][0]
    assert ios["op"].value_counts().to_dict() == {"read": job["read"]["total_ios"], "write": job["write"]["total_ios"]}
    # fio issued only 4k and 32k; the loop device's requests hold 42 of other sizes (8k-28k) as the block layer cut them
    assert ios["size_bytes"].isin([4096, 32768]).mean() > 0.97 and ios["size_bytes"].max() == 32768
    s = W.summary(ios)
    assert s["read_pct"] == pytest.approx(100 * 876 / 1790)
    assert 45 <= s["sequential_per_op_pct"] <= 55, s["sequential_per_op_pct"]  # 1,790 draws of a 50 % coin: +-1.2
