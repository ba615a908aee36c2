"""SNIA PTS DIRTH: the operating points (known answers on synthetic tables), the profile's matrix (numjobs = the
thread count, iodepth = the queue depth, never swapped), and the real run of the tiny PTS profile (the shared
``pts_page`` fixture of test_pts.py: DIRTH T2/T1 x Q1 on a file) through its page."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.analysis import pts as analysis_pts
from helpers.errors import LabError
from helpers.run.profiles import load_profile, parse_profile
from helpers.run.pts_dirth import dirth_operating_points


def _grid(rows):
    return pd.DataFrame(rows, columns=["numjobs", "iodepth", "iops", "lat_mean_us"])


def test_operating_points_known_answer():
    # IOPS grows with outstanding I/O; T4/Q8 (32 outstanding) exceeds the 5 ms ceiling, so max is T4/Q4
    t = _grid([(1, 1, 1000.0, 1000.0), (1, 4, 3000.0, 1333.0), (4, 1, 3100.0, 1290.0), (4, 4, 8000.0, 2000.0),
               (4, 8, 9000.0, 5000.0), (2, 4, 4400.0, 1818.0)])
    ops = dirth_operating_points(t)
    assert (ops["max"]["numjobs"], ops["max"]["iodepth"], ops["max"]["iops"]) == (4, 4, 8000.0)  # 5000 is not below
    assert (ops["min"]["numjobs"], ops["min"]["iodepth"]) == (1, 1)
    # (8000 + 1000) / 2 = 4500: T2/Q4 (4400, 100 away) beats T1/Q4 (3000) and T4/Q1 (3100)
    assert (ops["mid"]["numjobs"], ops["mid"]["iodepth"]) == (2, 4)
    assert list(ops["max"].index) == ["numjobs", "iodepth", "iops", "lat_mean_us"]
    assert analysis_pts.dirth_operating_points is dirth_operating_points  # the public name of issue 32


def test_operating_points_ties_go_to_the_smaller_outstanding_io():
    t = _grid([(1, 1, 100.0, 10.0), (2, 8, 500.0, 32.0), (4, 2, 500.0, 16.0), (8, 4, 500.0, 64.0),
               (1, 2, 300.0, 6.0), (2, 1, 300.0, 6.0)])
    ops = dirth_operating_points(t, art_limit_us=5000)
    assert (ops["max"]["numjobs"], ops["max"]["iodepth"]) == (4, 2)  # 8 outstanding, not 16 or 32
    # mid target 300: T1/Q2 and T2/Q1 both 2 outstanding: the fewer threads
    assert (ops["mid"]["numjobs"], ops["mid"]["iodepth"]) == (1, 2)


def test_no_point_below_the_ceiling_names_the_reason():
    t = _grid([(1, 1, 100.0, 6000.0), (2, 2, 300.0, 12000.0)])
    ops = dirth_operating_points(t, art_limit_us=5000)
    assert ops["max"] is None and ops["mid"] is None and (ops["min"]["numjobs"], ops["min"]["iodepth"]) == (1, 1)
    assert "below 5000 µs" in ops["reason"] and "6,000 µs" in ops["reason"]
    # a lower ceiling than every point but one: max and mid are that point
    ops = dirth_operating_points(t, art_limit_us=7000)
    assert ops["max"]["iops"] == 100.0 and ops["mid"]["iops"] == 100.0
    assert dirth_operating_points(_grid([]))["min"] is None


def test_profile_matrix_threads_are_numjobs_and_qd_is_iodepth():
    s = load_profile("pts").pts
    pts = s.test_points("dirth", 1)
    assert (pts[0].rw, pts[0].numjobs, pts[0].iodepth, pts[0].runtime_s) == ("randwrite", 32, 32, 300.0)
    demand = pts[1:]
    assert len(demand) == 49 and (demand[0].numjobs, demand[0].iodepth) == (32, 32)
    assert [(p.numjobs, p.iodepth) for p in demand[:8]] == [(32, q) for q in (32, 16, 8, 6, 4, 2, 1)] + [(16, 32)]
    assert all(p.rw == "randrw" and p.rwmixread == 65 and p.bs_bytes == 4096 for p in demand)
    doc = {"mode": "pts", "pts": {"tests": ["dirth"], "dirth_threads": [1, 4, 2], "dirth_qds": [2, 8]}}
    s = parse_profile(doc, "p").pts
    assert s.dirth_threads == (4, 2, 1) and s.dirth_qds == (8, 2)  # high to low outstanding I/O
    for bad in ({"dirth_threads": [0]}, {"dirth_mix": 101}, {"dirth_hist_s": 0}):
        with pytest.raises(LabError):
            parse_profile({"mode": "pts", "pts": bad}, "p")


def test_xsr_recovery_known_answer():
    from helpers.analysis.pts import xsr_recovery

    t = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    seg = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    rec = xsr_recovery(t, [10, 11, 9, 2, 2, 2, 5, 9.9, 10], seg)  # segment 1's mean: 10
    assert rec.seconds == 3.0 and rec.target_bytes_per_s == 10.0  # segment 3 starts at 6 (segment 2's last end)
    assert xsr_recovery(t, [10, 10, 10, 2, 2, 2, 12, 1, 1], seg).seconds == 1.0  # the first sample already
    # unordered input: sorted by time first
    assert xsr_recovery(t[::-1], [10, 11, 9, 2, 2, 2, 5, 9.9, 10][::-1], seg[::-1]).seconds == 3.0
    never = xsr_recovery(t, [10, 10, 10, 2, 2, 2, 5, 6, 7], seg)
    assert never.seconds is None and "never reached" in never.reason and "7" in never.reason
    assert xsr_recovery([1, 2], [5, 5], [2, 3]).seconds is None  # no segment 1
    assert xsr_recovery([1, 2], [5, 5], [1, 1]).reason == "segment 3 has no sample"


def test_hir_summary_known_answer():
    from helpers.analysis.pts_hir import hir_summary

    samples = pd.DataFrame({"wait_s": [5.0] * 4 + [10.0] * 4, "phase": ["wait", "wait", "baseline", "baseline"] * 2,
                            "iops": [150.0, 250.0, 100.0, 120.0, 300.0, 500.0, 90.0, 110.0]})
    out = hir_summary(samples, baseline_iops=100.0)
    assert out["wait state (s)"].tolist() == [5.0, 10.0] and out["cycles"].tolist() == [2, 2]
    assert out["mean IOPS after the wait"].tolist() == [200.0, 400.0] and out["x baseline"].tolist() == [2.0, 4.0]
    assert out["mean IOPS returning to baseline"].tolist() == [110.0, 100.0]
    assert out["x baseline (return)"].tolist() == pytest.approx([1.1, 1.0])
    assert out.drop(columns=["x baseline", "x baseline (return)"]).equals(
        hir_summary(samples, None).drop(columns=["x baseline", "x baseline (return)"]))
    assert hir_summary(samples, None)["x baseline"].isna().all() and hir_summary(samples.iloc[0:0], 1.0).empty


def test_hir_resumes_at_the_cycle_it_lacks():
    from types import SimpleNamespace

    from helpers.run import pts_hir
    from test_pts import _FakeCtx

    s = parse_profile({"mode": "pts", "pts": {"tests": ["hir"], "hir_waits": [5, 10], "hir_cycles": 2}}, "p").pts
    plan = SimpleNamespace(profile=SimpleNamespace(pts=s))
    done = [pts_hir.cycle_point(s, 5, "wait", 1).point_id, pts_hir.cycle_point(s, 5, "wait", 2).point_id]
    ctx, slept, t = _FakeCtx(plan, {}, done=done), [], {}
    pts_hir.run_wait_states(ctx, s, t, 1024**2, sleep=slept.append)
    ran = [pid for pid, _ in ctx.ran]
    assert len(ran) == 2 + 2 + 2 and not set(done) & set(ran)  # the measured cycles are skipped
    assert ran[0] == pts_hir.cycle_point(s, 5, "baseline", 1).point_id
    assert slept == [10.0, 10.0]  # a wait after every new wait-state cycle, none after a baseline sample
    assert t["waits_s"] == [5.0, 10.0] and all(p.endswith(("round1", "round2")) for p in ran)


def test_nines_never_exceed_the_measured_maximum():
    from helpers.analysis.pts_dirth import capped_percentiles

    # 200,000 I/Os: 199,990 at 1 µs, 10 in a bin whose value (400 µs) lies above the slowest I/O fio saw (350 µs)
    bins, counts = [1000, 400_000], [199_990, 10]
    p99, p99999 = capped_percentiles(bins, counts, [99.0, 99.999], max_us=350.0)
    assert p99 == 1.0 and p99999 == 350.0
    # 50,000 I/Os cannot show a 99.999 %: NaN, the 99.99 % still shown
    p9999, p99999 = capped_percentiles([1000], [50_000], [99.99, 99.999], max_us=5.0)
    assert p9999 == 1.0 and p99999 != p99999
