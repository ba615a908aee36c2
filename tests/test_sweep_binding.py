"""A run id is bound to its plan (real fio, smoke profile, 64 MiB: the session's interrupted-and-resumed
``pipeline sweep``): the manifest pins target, size, profile content, runtime override, hosts and fio version;
other settings are refused with one sentence, the same ones resume.  Refusals (a locked target) leave no run
folder; a tiny target gets a warning."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from helpers import config
from helpers.errors import LabError
from helpers.run import sweep
from helpers.run.lock import Lock, target_lock_path
from helpers.run.manifest import pinned_plan, plan_differences
from sweep_helpers import manifest

SMOKE_YAML = config.PROFILES_DIR / "smoke.yaml"


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


@pytest.fixture(scope="module")
def bound(interrupted_smoke_sweep):
    """The session's real smoke sweep (64 MiB, 1 s points) made by ``pipeline sweep``, interrupted and resumed
    (tests/conftest.py; tests/test_pipeline_terminal.py checks its terminal): the run id the tests try to reuse.
    It was started with RUNTIME=1, so its plan pins a runtime override of 1 s."""
    s = interrupted_smoke_sweep
    assert manifest(s["run_dir"])["status"] == "complete", s["again"].stderr if s["again"] else s["first"].stderr
    return {"raw": s["raw_dir"], "target": s["target"], "run_dir": s["run_dir"], "run_id": s["run_id"],
            "runtime_s": 1.0}


def _state(run_dir):
    return sorted((p.name, p.stat().st_mtime_ns) for p in run_dir.iterdir())


def test_manifest_pins_the_plan(bound):
    plan = manifest(bound["run_dir"])["plan"]
    assert plan["target"] == str(bound["target"]) and plan["size_bytes"] == 64 * 1024**2
    assert plan["profile"] == "smoke"
    assert plan["profile_sha256"] == hashlib.sha256(SMOKE_YAML.read_text().encode()).hexdigest()
    assert plan["runtime_s"] == 1.0 and plan["hosts"] == [] and plan["fio_version"].startswith("fio-")


def _refusal(bound, **kw) -> str:
    before = _state(bound["run_dir"])
    args = {"target": bound["target"], "profile": "smoke", "run_id": bound["run_id"], "size": "64m",
            "runtime_s": bound["runtime_s"], "raw_dir": bound["raw"], **kw}
    with pytest.raises(LabError) as exc:
        sweep.plan_sweep(**args)
    with pytest.raises(LabError):  # run_sweep with a plan made elsewhere checks again under the lock
        sweep.sweep(**args, progress=False)
    assert _state(bound["run_dir"]) == before  # nothing measured, nothing rewritten
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"run {bound['run_id']} was started with other settings")
    return msg


def test_a_different_size_is_refused(bound):
    msg = _refusal(bound, size="128m")
    assert "size 64m then, 128m now" in msg and "profile" not in msg.split("(")[1].split(")")[0]


def test_different_profile_content_under_the_same_name_is_refused(bound, tmp_path):
    edited = tmp_path / "smoke.yaml"  # same name, 2 s points instead of 1 s
    edited.write_text(SMOKE_YAML.read_text().replace("runtime_s: 1", "runtime_s: 2"))
    msg = _refusal(bound, profile=edited)
    assert "profile content (sha256)" in msg and "profile smoke then" not in msg


def test_a_runtime_override_is_refused(bound):
    assert "runtime override 1 s then, 2 s now" in _refusal(bound, runtime_s=2)
    msg = _refusal(bound, runtime_s=None)  # the profile's own runtime is another plan too
    assert "runtime override 1 s then, none now" in msg
    assert plan_differences({"runtime_s": None}, {"runtime_s": 2.0}) == ["runtime override none then, 2 s now"]


def test_the_same_settings_resume_without_measuring_again(bound):
    before = {name: t for name, t in _state(bound["run_dir"]) if name.endswith(".json") and name != "manifest.json"}
    resumes = len(manifest(bound["run_dir"]).get("resumes", []))
    m = sweep.sweep(target=bound["target"], profile="smoke", run_id=bound["run_id"], size="64m",
                    runtime_s=bound["runtime_s"], raw_dir=bound["raw"], progress=False)
    assert m["status"] == "complete" and len(m["resumes"]) == resumes + 1
    after = {name: t for name, t in _state(bound["run_dir"]) if name in before}
    assert after == before and len(before) == 7


def test_a_manifest_from_before_pinning_is_still_compared():
    old = {"run_id": "r", "target": {"path": "/t.bin"}, "target_size_bytes": 1024**2, "profile": "smoke",
           "profile_yaml": "points: []", "fio_version": "fio-3.33", "points": {"p": {"status": "ok"}}}
    new = {"target": "/t.bin", "size_bytes": 1024**3, "profile": "battery", "profile_sha256": "x",
           "runtime_s": 5.0, "hosts": [], "fio_version": "fio-3.33"}
    diffs = plan_differences(pinned_plan(old), new)
    assert diffs[0] == "size 1m then, 1g now" and any(d.startswith("profile smoke then, battery now") for d in diffs)
    assert not any("runtime" in d for d in diffs)  # not recorded then, so not claimed


def test_a_locked_target_is_refused_before_a_run_folder_exists(tmp_path, scratch_dir, fio_path):
    target, raw = scratch_dir / "locked.bin", tmp_path / "raw"
    plan = sweep.plan_sweep(target, "smoke", "late", None, "64m", raw)
    other = Lock(target_lock_path(plan.target.path), f"target {plan.target.path}", {"run_id": "other"}).acquire()
    try:
        with pytest.raises(LabError, match="is in use by another sweep") as exc:
            sweep.plan_sweep(target, "smoke", "early", None, "64m", raw)
        assert "other" in str(exc.value)
        with pytest.raises(LabError, match="is in use by another sweep"):
            sweep.run_sweep(plan, progress=False)  # planned before the other sweep took the target
    finally:
        other.release()
    assert not (raw / "late").exists() and not (raw / "early").exists()


def test_a_tiny_target_gets_a_warning_in_the_plan_and_the_manifest(tmp_path, scratch_dir, fio_path, capsys):
    prof = tmp_path / "one.yaml"
    prof.write_text("settings: {runtime_s: 1, ramp_s: 0}\npoints:\n  - {rw: randread, bs: 4k}\n")
    plan = sweep.plan_sweep(scratch_dir / "tiny.bin", prof, "tiny", None, "1m", tmp_path / "raw")
    assert len(plan.warnings) == 1 and "only 1 MiB" in plan.warnings[0] and "far below 64 MiB" in plan.warnings[0]
    m = sweep.run_sweep(plan)
    assert m["warnings"] == plan.warnings and plan.warnings[0] in capsys.readouterr().out
    assert sweep.plan_sweep(scratch_dir / "big.bin", prof, "big", None, "64m", tmp_path / "raw",
                            dry_run=True).warnings == []
    json.dumps(m)  # the manifest stays plain JSON
    shutil.rmtree(tmp_path / "raw")
