"""SNIA PTS XSR (cross stimulus recovery; PTS-E 1.1 / PTS 2.0.2, as Alan-ADATA/SSS-PTS-TEST's
``BlockStorageTestXsr.php`` runs it): from the purged state, without preconditioning, sequential 1024 KiB writes
(PTS: 8 hours), random 8 KiB writes (6 hours), sequential 1024 KiB writes again (8 hours), one thread at QD32,
one sample a minute.  Each sample is its own fio point (``round`` = its number in the test), so a killed XSR
resumes at the sample it lacks, and each sample's mean and maximum response time come from fio's own totals."""

from __future__ import annotations

from helpers.errors import LabError
from helpers.run.profiles import PtsSettings


def segment_of(s: PtsSettings, sample: int) -> int:
    """The segment (1, 2 or 3) of sample number ``sample`` (1-based)."""
    if sample <= s.xsr_seq_samples:
        return 1
    return 2 if sample <= s.xsr_seq_samples + s.xsr_rnd_samples else 3


def run_xsr(ctx, s: PtsSettings, t: dict, active: int) -> None:
    """Run every sample of the three segments in order (measured ones are skipped on a resume)."""
    points = s.test_points("xsr")
    t.update({"samples": len(points), "sample_s": s.xsr_sample_s, "qd": s.xsr_qd,
              "segments": {"1": "sequential 1024k writes", "2": "random 8k writes", "3": "sequential 1024k writes"}})
    for p in points:
        if s.test_limit_s and (p.round - 1) * s.xsr_sample_s >= s.test_limit_s:
            t["stopped_at_limit"] = {"samples": p.round - 1, "limit_s": s.test_limit_s}
            break
        seg = segment_of(s, p.round)
        ctx.tracker.prefix = f"PTS xsr segment {seg}: sample {p.round} of {len(points)}"
        ctx.tracker.remaining = (len(points) - p.round + 1) * p.seconds
        ctx.tracker.write(label=ctx.tracker.prefix, seconds=p.seconds)
        entry = ctx.run_point(p, {"pts": {"test": "xsr", "segment": seg, "round": p.round}}, size_bytes=active)
        if entry.get("status") != "ok":
            raise LabError(f"PTS xsr sample {p.round} failed at {p.point_id}: "
                           f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")
    ctx.tracker.prefix = ""
