"""mode: burst (helpers.run.burst, profiles.BurstSettings, runner.DropMonitor): the profile, the drop check on
fio's status objects, the order of drains and rests (and what a resume does), and a short real-fio run on a plain
file, which has no bucket."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers.analysis.burst import REST_RE
from helpers.errors import LabError
from helpers.run import burst, runner
from helpers.run.profiles import load_profile, parse_profile


def _burst_doc(**section):
    return {"mode": "burst", "settings": {"ramp_s": 0, "runtime_s": 60, "log_avg_msec": 500},
            "burst": section, "points": [{"rw": "randwrite", "bs": "4k", "iodepth": 32}]}


def test_shipped_burst_profile():
    p = load_profile("burst")
    assert p.mode == "burst" and p.burst.rests_s == (10.0, 30.0, 120.0)
    (p0,) = p.points
    assert p0.group == "burst" and p0.ramp_s == 0 and p0.drop_windows == 30 and p0.drop_ratio == 0.7
    assert p0.settle_window_ms == p0.log_avg_msec == 1000  # the drop check reads one status object per log window
    ids = [d.point_id for d in burst.drains(p0, p.burst.rests_s)]
    assert ids == ["burst-randwrite-bs4k-qd32-nj1", *(f"burst-randwrite-bs4k-qd32-nj1-rest{r}s" for r in (10, 30, 120))]
    # the analysis reads the rest back from the id, and finds the first drain under it
    assert [float(REST_RE.search(i).group(1)) for i in ids[1:]] == [10.0, 30.0, 120.0]
    assert {REST_RE.sub("", i) for i in ids} == {ids[0]}
    assert p.estimated_seconds == pytest.approx(4 * (1800 + 0.7) + 160)


def test_burst_profile_group_and_defaults():
    p = parse_profile(_burst_doc(rests_s=[5, 2.5]), "t")
    assert p.burst.rests_s == (5.0, 2.5) and p.points[0].group == "burst" and p.points[0].settle_window_ms == 500


@pytest.mark.parametrize("doc,fragment", [
    ({**_burst_doc(), "mode": "grid"}, "a 'burst' section needs mode: burst"),
    (_burst_doc(rests_s=[10, -1]), "burst.rests_s [10, -1] must be a list of rest times"),
    (_burst_doc(rests_s=5), "burst.rests_s 5 must be a list"),
    (_burst_doc(drop_ratio=1.5), "burst.drop_ratio 1.5 must be between 0 and 1"),
    (_burst_doc(low=3), "unknown key 'low' in 'burst'"),
    ({**_burst_doc(), "settings": {"log_avg_msec": 0}}, "a burst drain needs per-window logs"),
])
def test_burst_section_is_validated(doc, fragment):
    with pytest.raises(LabError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        parse_profile(doc, "t")


def _status(ios: int, ms: int) -> str:
    return json.dumps({"jobs": [{"elapsed": 1 + ms // 1000, "write": {"total_ios": ios, "runtime": ms}}]})


def test_drop_check_known_answers(tmp_path):
    """Windows of 1 s: 3,000 IOPS, then 300.  The check fires once the last 3 windows are all below 0.7 x the
    highest median of three windows before them, not on one slow window inside the burst."""
    out = tmp_path / "status.json"

    def run(rates):
        ios, ms, objs = 0, 0, []
        for r in rates:
            ios, ms = ios + int(r), ms + 1000
            objs.append(_status(ios, ms))
        out.write_text("\n".join(objs))
        m = runner.DropMonitor(out, windows=3, ratio=0.7, ramp_s=0.0, window_ms=1000)
        return m() and m.settled_s

    assert run([3000] * 5 + [300] * 2) is False  # two low windows of three
    assert run([3000] * 5 + [300] * 3) == 8.0
    assert run([3000] * 4 + [300] + [3000] * 3) is False  # a stall inside the burst is not the drop
    assert run([3000, 3000, 3000, 300, 300, 300]) == 6.0  # the smallest series that can show it (3 burst windows)
    assert run([3000, 3000, 300, 300, 300]) is False
    assert run([300] * 10) is False  # no burst before: nothing dropped
    assert run([3000] * 5 + [2400] * 5) is False  # 80 % of the burst: not below 0.7


class _Ctx:
    """The sweep context run_burst drives, recording its calls (the drop is what each drain's entry says)."""

    def __init__(self, profile, done=(), drops=True):
        self.plan = SimpleNamespace(profile=profile)
        self.manifest = {"points": {}}
        self.stop = threading.Event()
        self.tracker = SimpleNamespace(write=lambda **kw: self.calls.append(f"rest {kw['seconds']:g}"))
        self.done_ids, self.drops, self.calls = set(done), drops, []

    def done(self, p):
        return p.point_id in self.done_ids

    def raw(self, p):  # no file: nothing to unlink, no rest as the device saw it
        return Path("/nonexistent-burst-test") / f"{p.point_id}.json"

    def run_point(self, p, extra=None):
        self.calls.append(p.point_id if p.point_id not in self.done_ids else f"kept {p.point_id}")
        return {"status": "ok", **({"settled_after_s": 3.0} if self.drops else {})}


def test_drains_and_rests_in_order_and_a_resume_empties_the_bucket_again():
    prof = parse_profile(_burst_doc(rests_s=[0.01, 0.02]), "t")
    pid = prof.points[0].point_id
    ctx = _Ctx(prof)
    burst.run_burst(ctx)
    assert ctx.calls == [pid, "rest 0.01", f"{pid}-rest0.01s", "rest 0.02", f"{pid}-rest0.02s"]
    assert ctx.manifest["burst"][pid]["rests_s"] == [0.01, 0.02]
    # resumed after the first drain: the time since refilled the bucket by an unknown amount, so it is emptied first
    ctx = _Ctx(prof, done={pid})
    burst.run_burst(ctx)
    assert ctx.calls == [f"kept {pid}", pid.replace("burst", "redrain", 1), "rest 0.01", f"{pid}-rest0.01s",
                         "rest 0.02", f"{pid}-rest0.02s"]
    # resumed after the first rest's drain: the same before the second rest
    ctx = _Ctx(prof, done={pid, f"{pid}-rest0.01s"})
    burst.run_burst(ctx)
    assert ctx.calls == [f"kept {pid}", f"kept {pid}-rest0.01s", pid.replace("burst", "redrain", 1), "rest 0.02",
                         f"{pid}-rest0.02s"]


def test_no_drop_within_the_time_limit_means_no_rests():
    prof = parse_profile(_burst_doc(rests_s=[0.01]), "t")
    ctx = _Ctx(prof, drops=False)
    burst.run_burst(ctx)
    pid = prof.points[0].point_id
    assert ctx.calls == [pid]
    assert ctx.manifest["burst"][pid]["note"].startswith("the rate did not drop within the drain's 60 s: no rests")


def test_real_fio_burst_run_on_a_plain_file_has_no_bucket(tmp_path, scratch_dir, fio_path):
    """A burst run of one 1.2 s drain held at 1,000 IOPS by fio's rate limit on a plain file: the rate never drops
    (for 6 windows of 0.1 s: longer than this VM's disk stalls under load), so no rest is taken, and the analysis says
    there is no burst."""
    import yaml

    from helpers import config
    from helpers.analysis import burst_buckets, point_series
    from helpers.ingest import core
    from helpers.processed import store
    from helpers.run import sweep

    prof = tmp_path / "b.yaml"
    prof.write_text(yaml.safe_dump({
        "description": "short burst", "mode": "burst",
        "settings": {"ioengine": "libaio", "ramp_s": 0, "runtime_s": 1.2, "log_avg_msec": 100, "log_hist_msec": 0},
        "burst": {"rests_s": [0.5], "low_windows": 6},
        "points": [{"rw": "randwrite", "bs": "4k", "iodepth": 4, "rate_iops": 1000}]}))
    m = sweep.sweep(target=scratch_dir / "burst-plain.bin", profile=prof, run_id="b", size="16m",
                    raw_dir=tmp_path / "raw", progress=False)
    pid = "burst-randwrite-bs4k-qd4-nj1-rate1000"
    assert m["status"] == "complete" and list(m["points"]) == [pid]
    assert m["burst"][pid]["rests_s"] == [] and "no rests" in m["burst"][pid]["note"]
    core.ingest_paths([tmp_path / "raw" / "b"], "b", out=tmp_path / "processed")
    ts = point_series(store.load(tmp_path / "processed", config.TIMESERIES_DATASET, "b"))
    (row,) = burst_buckets(ts).itertuples()
    assert row.point_id == pid and row.rate_unit == "IOPS" and row.bucket_size is None
    # "held within X %", or "varied by up to X %" when this VM's disk stalled a few windows (no drop that stayed), or,
    # when it stalled in the last windows under load, a fall it cannot tell from a burst running out: never a burst
    assert (row.reason.startswith("no burst found: the rate ") or "too short to tell a burst running out from a stall"
            in row.reason), (row.reason, ts[["window_end_s", "iops"]])
