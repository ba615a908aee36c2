"""The Workload page's replay section: a replay run's trace, fio's per-I/O logs of its replay and clone, and what
they say against the trace (lag, latency per I/O, the fidelity table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from helpers import config
from helpers.analysis import replay as rp
from helpers.fio import logs as fio_logs
from helpers.ingest.traces import trace_ios
from helpers.run import replay as run_replay
from helpers.run.manifest import read_manifest

NOT_REPLAYED = ("Run {run} replayed no trace: a profile with mode: replay (docs/traces.md) replays one on a target "
                "and runs its clone.")


@dataclass
class ReplayData:
    note: str  # one sentence: what was replayed where, or why there is nothing
    lag: pd.DataFrame = field(default_factory=pd.DataFrame)  # per trace I/O: trace_s, issue_s, lag_ms, latencies
    lag_text: str = ""
    latencies: dict[str, pd.Series] = field(default_factory=dict)  # µs per I/O: trace, replay, clone
    fidelity: pd.DataFrame = field(default_factory=pd.DataFrame)
    fidelity_text: str = ""
    clone_job: str = ""

    @property
    def empty(self) -> str:
        return self.note if self.lag.empty else ""


def _io_log(run_dir: Path, point_id: str) -> pd.DataFrame:
    files = sorted(run_dir.glob(f"{point_id}_lat.*.log*"))
    if not files:
        return pd.DataFrame()
    return rp.achieved(pd.concat([fio_logs.read_io_log(f) for f in files], ignore_index=True))


def trace_of_run(run_id: str, raw_dir: str | Path = "") -> pd.DataFrame:
    """The trace a replay run replayed (its verbatim copy in ``<RUN>/.replay/``), as the traces dataset's rows;
    empty for other runs."""
    run_dir = Path(raw_dir or config.RAW_DIR) / run_id
    info = read_manifest(run_dir).get("replay") if run_dir.is_dir() else None
    if not info or not (run_dir / info["trace_copy"]).is_file():
        return pd.DataFrame()
    return trace_ios(run_dir / info["trace_copy"]).assign(run_id=run_id)


def load(run_id: str, raw_dir: str | Path = "") -> ReplayData:
    """The replay and clone of ``run_id`` against its trace (:mod:`helpers.analysis.replay`)."""
    run_dir = Path(raw_dir or config.RAW_DIR) / run_id
    m = read_manifest(run_dir) if run_dir.is_dir() else {}
    info = m.get("replay")
    if not info:
        return ReplayData(NOT_REPLAYED.format(run=run_id))
    trace = trace_of_run(run_id, raw_dir)
    trace = trace[trace["op"].isin(["read", "write"])].sort_values("seq", ignore_index=True)
    offsets, _ = run_replay.fit_offsets(trace, int(m["target_size_bytes"]), info["fit"])
    pid = info["points"]
    replayed = _io_log(run_dir, pid["replay"])
    cloned = _io_log(run_dir, pid["clone"]) if "clone" in pid else pd.DataFrame()
    target = (m.get("plan") or {}).get("target", "the target")
    note = (f"Run {run_id} replayed {info['ios']:,} I/Os of {Path(info['trace']).name} on {target} with fio ({info['ioengine']}, time scale {info['time_scale_pct']} %"
            f"{', no stall' if info['no_stall'] else ''}). {info['fit_note']}")
    if replayed.empty:
        return ReplayData(f"Run {run_id}'s replay left no per-I/O log: nothing to compare with the trace.")
    matched = rp.lag(trace, replayed, offsets, info["time_scale_pct"])
    lags = rp.lag_summary(matched, len(trace))
    lat = {"trace's own": trace["latency_us"].dropna(), "replay": replayed["latency_us"]}
    out = ReplayData(note, matched, rp.lag_text(lags), lat)
    if not cloned.empty:
        out.latencies["clone"] = cloned["latency_us"]
        r, c, t = rp.measures(replayed), rp.measures(cloned), rp.measures(trace)
        out.fidelity = rp.fidelity(r, c, t)
        out.fidelity_text = rp.fidelity_sentence(r, c, trace=t, stretch_pct=lags["stretch_pct"])
        job = run_dir / (info.get("clone_job") or "")
        out.clone_job = job.read_text() if info.get("clone_job") and job.is_file() else ""
    else:
        out.fidelity_text = f"Run {run_id} ran no clone (clone: false): no fidelity table."
    return out
