"""Sweep orchestration: profile -> preflight -> prefill -> one fio process per point -> data/raw/<RUN>/.

Command line (used by ``make sweep`` for its one-sentence preflight)::

    python -m helpers.sweep --target data/scratch/fio-target.bin --profile quick --check-only
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from . import config
from .errors import LabError
from .fio_binary import find_fio, fio_version
from .manifest import check_run_id, default_run_id, now_iso, read_manifest, write_manifest
from .profiles import Profile, load_profile
from .runner import describe_point, prefill_argv, run_fio, run_point
from .system import describe_host, describe_target
from .target import Target, prepare_target, read_sidecar, write_sidecar


@dataclass
class SweepPlan:
    run_id: str
    profile: Profile
    target: Target
    fio: str
    run_dir: Path


def plan_sweep(target: str | Path = config.DEFAULT_TARGET, profile: str | Path = config.DEFAULT_PROFILE,
               run_id: str | None = None, runtime_s: float | None = None, size: str | int = config.DEFAULT_SIZE,
               raw_dir: Path = config.RAW_DIR) -> SweepPlan:
    """Every check that can fail before any I/O: fio present, profile valid, target safe, space free."""
    fio = find_fio()
    prof = load_profile(profile).with_runtime(runtime_s)
    direct = all(p.direct for p in prof.points)
    tgt = prepare_target(target, size, writes=True, direct=direct)  # prefill writes the scratch file
    run_id = check_run_id(run_id or default_run_id())
    return SweepPlan(run_id=run_id, profile=prof, target=tgt, fio=fio, run_dir=Path(raw_dir) / run_id)


def plan_sweep_from_parameters(target: str, profile: str, run_id: str, runtime_s: float, size: str,
                               raw_dir: str) -> SweepPlan:
    """Notebook parameters ("" / 0 meaning "the default") -> :func:`plan_sweep`."""
    return plan_sweep(target or config.DEFAULT_TARGET, profile or config.DEFAULT_PROFILE, run_id or None,
                      runtime_s or None, size or config.DEFAULT_SIZE, Path(raw_dir) if raw_dir else config.RAW_DIR)


def plan_table(plan: SweepPlan) -> pd.DataFrame:
    """The points of a plan, one row each, with the estimated time of the whole sweep in the index name."""
    df = pd.DataFrame([p.as_dict() for p in plan.profile.points]).set_index("point_id")
    df.index.name = (f"{plan.run_id}: {len(df)} points, about {plan.profile.estimated_seconds / 60:.1f} min, "
                     f"target {plan.target.path}")
    return df


def points_table(manifest: dict[str, Any]) -> pd.DataFrame:
    """Status, duration and raw file of every point of a finished (or interrupted) sweep."""
    rows = [{"point_id": k, "status": v.get("status"), "seconds": v.get("seconds"), "raw_file": v.get("raw_file"),
             "fio_messages": v.get("fio_messages")} for k, v in manifest.get("points", {}).items()]
    return pd.DataFrame(rows).set_index("point_id") if rows else pd.DataFrame()


def prefill(plan: SweepPlan) -> dict[str, Any]:
    """Write the whole scratch file once (skipped when the lab already filled it to this size)."""
    tgt = plan.target
    side = read_sidecar(tgt.path)
    if tgt.path.exists() and side.get("prefilled_bytes", 0) >= tgt.size_bytes:
        return {"skipped": True, "reason": "already filled by the lab", "bytes": side["prefilled_bytes"]}
    write_sidecar(tgt.path, prefilled_bytes=0)  # mark the file as the lab's before fio creates it
    out = plan.run_dir / ".prefill.json.tmp"
    final = plan.run_dir / ".prefill.json"
    rc, text, seconds = run_fio(prefill_argv(plan.fio, tgt.path, tgt.size_bytes, out), out, final, timeout=3600)
    final.unlink(missing_ok=True)
    if rc != 0:
        raise LabError(f"prefilling {tgt.path} failed (fio exit {rc}): {text.splitlines()[-1] if text else ''}")
    write_sidecar(tgt.path, prefilled_bytes=tgt.size_bytes)
    return {"skipped": False, "bytes": tgt.size_bytes, "seconds": round(seconds, 2)}


def run_sweep(plan: SweepPlan, progress: bool = True) -> dict[str, Any]:
    """Run every point of the plan; completed points (raw file present) are skipped on a re-run."""
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(plan.run_dir) or {"run_id": plan.run_id, "started": now_iso()}
    manifest.update({
        "run_id": plan.run_id,
        **describe_host(),
        "fio_version": fio_version(plan.fio),
        "target": describe_target(plan.target.path),
        "target_size_bytes": plan.target.size_bytes,
        "profile": plan.profile.name,
        "profile_description": plan.profile.description,
        "profile_yaml": plan.profile.source,
        "estimated_seconds": round(plan.profile.estimated_seconds),
        "status": "running",
    })
    manifest.setdefault("points", {})
    write_manifest(plan.run_dir, manifest)
    manifest["prefill"] = prefill(plan)
    write_manifest(plan.run_dir, manifest)

    bar = tqdm(plan.profile.points, desc=f"sweep {plan.run_id}", unit="point", disable=not progress)
    for point in bar:
        bar.set_postfix_str(describe_point(point))
        entry = {"parameters": point.as_dict()}
        if (plan.run_dir / f"{point.point_id}.json").exists():
            manifest["points"].setdefault(point.point_id, {**entry, "status": "ok"})
            continue
        res = run_point(point, plan.target.path, plan.target.size_bytes, plan.run_dir, fio=plan.fio)
        manifest["points"][point.point_id] = {
            **entry, "status": res.status, "raw_file": res.raw_file, "seconds": round(res.seconds, 2),
            "returncode": res.returncode, "argv": res.argv, "fio_messages": res.stderr or None,
        }
        write_manifest(plan.run_dir, manifest)
    failed = [k for k, v in manifest["points"].items() if v.get("status") != "ok"]
    manifest.update({"status": "failed-points" if failed else "complete", "finished": now_iso()})
    write_manifest(plan.run_dir, manifest)
    return manifest


def sweep(target: str | Path = config.DEFAULT_TARGET, profile: str | Path = config.DEFAULT_PROFILE,
          run_id: str | None = None, runtime_s: float | None = None, size: str | int = config.DEFAULT_SIZE,
          raw_dir: Path = config.RAW_DIR, progress: bool = True) -> dict[str, Any]:
    """Plan and run a sweep; returns the manifest."""
    return run_sweep(plan_sweep(target, profile, run_id, runtime_s, size, raw_dir), progress=progress)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.sweep", description=__doc__.splitlines()[0])
    ap.add_argument("--target", default=str(config.DEFAULT_TARGET))
    ap.add_argument("--profile", default=config.DEFAULT_PROFILE)
    ap.add_argument("--run", default=None, help="run id (default: time and host)")
    ap.add_argument("--runtime", type=float, default=None, help="seconds per point (overrides the profile)")
    ap.add_argument("--size", default=config.DEFAULT_SIZE)
    ap.add_argument("--check-only", action="store_true", help="run the checks, print the plan, do no I/O")
    args = ap.parse_args(argv)
    try:
        plan = plan_sweep(args.target, args.profile, args.run, args.runtime, args.size)
        if args.check_only:
            p = plan.profile
            print(f"ok: profile {p.name}, {len(p.points)} points, about {p.estimated_seconds / 60:.1f} min of fio, "
                  f"target {plan.target.path} ({plan.target.size_bytes / 1024**3:.2f} GiB)")
            return 0
        t0 = time.monotonic()
        m = sweep(args.target, args.profile, plan.run_id, args.runtime, args.size)
        print(f"run {m['run_id']}: {m['status']} in {time.monotonic() - t0:.0f} s -> {plan.run_dir}")
        return 0
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
