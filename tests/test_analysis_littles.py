"""Little's Law per point and the linear-region fit: synthetic cases and real fio runs.

Real runs use QD 1 and 4: on this 2-vCPU VM fio is CPU-bound from QD ~8-16 (usr+sys 90-99 %),
where the check measures fio's own CPU rather than the device; below that the closed loop keeps
exactly iodepth I/Os in flight and L̂ must match it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import fit_linear_region, linear_region_table, littles_law
from realfio import prefill, run_jobs


def row(**kw):
    base = {"run_id": "r", "host": "h", "source_file": "f.json", "point_id": "p", "job_name": "p", "rw": "randread",
            "bs_bytes": 4096, "direction": "read", "iodepth": 4, "numjobs": 1, "ioengine": "libaio", "direct": 1,
            "iops": 40_000.0, "lat_mean_us": 100.0, "usr_cpu_pct": 10.0, "sys_cpu_pct": 20.0}
    return {**base, **kw}


def test_exact_point_is_clean():
    t = littles_law(pd.DataFrame([row()]))
    assert t.loc[0, "outstanding_io"] == 4 and t.loc[0, "littles_l"] == pytest.approx(4.0)
    assert t.loc[0, "littles_ratio"] == pytest.approx(1.0) and not t.loc[0, "littles_flag"]
    assert t.loc[0, "littles_reason"] == ""


def test_mixed_directions_and_job_entries_are_combined():
    rows = [row(direction="read", rw="randrw", iops=21_000.0, lat_mean_us=200.0),
            row(direction="write", rw="randrw", iops=9_000.0, lat_mean_us=400.0),
            row(job_index=1, direction="read", rw="randrw", iops=21_000.0, lat_mean_us=200.0),
            row(job_index=1, direction="write", rw="randrw", iops=9_000.0, lat_mean_us=400.0)]
    d = pd.DataFrame(rows).assign(numjobs=2, iodepth=8)  # two job entries (no group_reporting), QD 8 each
    t = littles_law(d)
    assert len(t) == 1
    assert t.loc[0, "iops_total"] == 60_000 and t.loc[0, "littles_l"] == pytest.approx(15.6)
    assert t.loc[0, "outstanding_io"] == 16 and not t.loc[0, "littles_flag"]
    assert t.loc[0, "lat_mean_us"] == pytest.approx(260.0)


def test_sync_engine_reason():
    t = littles_law(pd.DataFrame([row(ioengine="psync", iodepth=16, iops=10_000.0)]))
    assert t.loc[0, "littles_flag"] and "synchronous engine psync" in t.loc[0, "littles_reason"]


def test_buffered_libaio_and_cpu_reasons():
    t = littles_law(pd.DataFrame([row(direct=0, iops=10_000.0, usr_cpu_pct=40.0, sys_cpu_pct=58.0)]))
    assert "buffered I/O" in t.loc[0, "littles_reason"] and "CPU-bound" in t.loc[0, "littles_reason"]


def test_batch_option_reason_and_unknown():
    t = littles_law(pd.DataFrame([row(iops=30_000.0, iodepth_low="2")]))
    assert "iodepth_low=2" in t.loc[0, "littles_reason"]
    t = littles_law(pd.DataFrame([row(iops=30_000.0)]))
    assert "no known cause" in t.loc[0, "littles_reason"]


def test_empty():
    assert littles_law(pd.DataFrame(columns=list(row()))).empty


def test_linear_region_known_service_latency():
    n = np.array([1, 2, 4, 8, 16, 32])
    iops = np.minimum(n, 4) / 100e-6  # 100 µs service latency, 4 parallel units
    f = fit_linear_region(n, iops)
    assert f.service_latency_us == pytest.approx(100.0)
    assert f.n_linear == 3 and f.max_linear_n == 4
    assert f.residual_pct[:3] == pytest.approx([0, 0, 0], abs=1e-9) and f.residual_pct[-1] == pytest.approx(-87.5)
    assert list(f.in_linear) == [True, True, True, False, False, False]


def test_linear_region_edge_cases():
    assert fit_linear_region([], []).n_linear == 0
    one = fit_linear_region([1], [100.0])  # a line through one point proves nothing (issue 10 point 4)
    assert one.n_linear == 0 and np.isnan(one.service_latency_us) and "at least two points" in one.reason
    f = fit_linear_region([1, 2, 4], [100.0, 200.0, 400.0])
    assert f.n_linear == 3 and "not saturated" in f.reason
    t = linear_region_table(pd.DataFrame({"series": "s", "outstanding_io": [1, 2, 4, 8],
                                          "iops": [100.0, 190.0, 300.0, 310.0]}))
    assert list(t["in_linear_region"]) == [True, True, False, False]


@pytest.fixture(scope="module")
def real_littles(fio_path, scratch_dir, tmp_path_factory):
    target = scratch_dir / "littles-target.bin"
    prefill(fio_path, target)
    jobs = {f"{e}-qd{q}": {"ioengine": e, "iodepth": q} for e in ("libaio", "io_uring") for q in (1, 4)}
    jobs["psync-qd16"] = {"ioengine": "psync", "iodepth": 16}
    out = tmp_path_factory.mktemp("littles") / "littles.json"
    return run_jobs(fio_path, target, jobs, out, rw="randread", bs="4k", direct=1)


@pytest.mark.parametrize("engine", ["libaio", "io_uring"])
def test_real_async_direct_runs_obey_littles_law(real_littles, engine):
    t = littles_law(real_littles).set_index("job_name")
    for q in (1, 4):
        p = t.loc[f"{engine}-qd{q}"]
        assert p["outstanding_io"] == q
        assert abs(p["littles_ratio"] - 1) <= 0.10, (engine, q, p["littles_l"])
        assert not p["littles_flag"]


def test_real_psync_at_depth_16_is_flagged(real_littles):
    p = littles_law(real_littles).set_index("job_name").loc["psync-qd16"]
    assert p["littles_flag"] and p["littles_l"] < 2, p["littles_l"]
    assert "synchronous engine psync" in p["littles_reason"]


def test_linear_region_needs_two_points_on_the_line():
    """Issue 10 point 4: sub-linear from the second point on means no linear region (not a one-point line)."""
    f = fit_linear_region([1, 2, 4], [100.0, 120.0, 130.0])
    assert f.n_linear == 0 and np.isnan(f.slope_iops_per_io) and not f.in_linear.any()
    assert f.reason.startswith("no linear region: throughput is already sub-linear at N = 2")
