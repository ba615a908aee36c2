"""Open-loop profile: fixed offered loads (rate_iops, Poisson) on real fio; achieved vs offered and the
hockey-stick figure marking loads the device could not sustain."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.analysis.openloop import offered_rate, openloop_table
from helpers.figures.openloop import openloop_figure
from helpers.run import sweep
from helpers.run.profiles import load_profile
from realfio import still_target
from sweep_helpers import write_profile


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def test_shipped_openloop_profile():
    p = load_profile("openloop")
    rates = [pt.rate_iops for pt in p.points]
    assert rates == sorted(rates) and len(rates) >= 6 and {pt.rate_process for pt in p.points} == {"poisson"}
    assert p.points[0].point_id == "openloop-randread-bs4k-qd256-nj1-rate1000"


def test_offered_loads_low_to_past_saturation(tmp_path, scratch_dir, fio_path):
    from helpers.ingest.core import ingest_run

    prof = write_profile(tmp_path, "ol", [{"group": "openloop", "rw": "randread", "bs": "4k", "iodepth": 32,
                                          "rate_process": "poisson", "rate_iops": [2000, 4000, 2000000]}],
                         settings={"ioengine": "libaio", "runtime_s": 3, "ramp_s": 0})
    # Poisson arrivals: 6,000 and 12,000 expected I/Os keep the random shortfall (1.3 % and 0.9 % per sigma)
    # well inside the 5 % saturation margin; 1,000 IOPS for 1.5 s (2.6 % per sigma) fell under it now and then
    raw = tmp_path / "raw"
    # on a target that holds still (realfio.still_target): beside make test's workers a disk stall left the shared
    # disk's 4,000 IOPS point below 95 % of its offered load (2026-11-29); zram, like the disk, cannot take 2 million
    with still_target(scratch_dir / "openloop.bin", 32 << 20) as target:
        m = sweep.sweep(target, prof, "ol", None, "32m", raw, progress=False)
    assert m["status"] == "complete"
    argv = " ".join(m["points"]["openloop-randread-bs4k-qd32-nj1-rate4000"]["argv"])
    assert "--rate_iops=4000" in argv and "--rate_process=poisson" in argv
    assert m["points"]["openloop-randread-bs4k-qd32-nj1-rate4000"]["parameters"]["rate_iops"] == 4000
    rows = ingest_run(raw / "ol").results
    t = openloop_table(rows, m)
    assert list(t["offered_iops"]) == [2000, 4000, 2000000]
    assert list(t["saturated"]) == [False, False, True]
    assert t["achieved_iops"].iloc[0] == pytest.approx(2000, rel=0.1)
    assert t["achieved_iops"].iloc[2] < 0.95 * 2000000
    assert t[["clat_p50_us", "clat_p99_us", "clat_p99_9_us"]].notna().all().all()
    # ingest keeps fio's rate_iops option: the table needs no manifest ...
    assert sorted(rows["rate_iops"]) == [2000, 4000, 2000000]
    assert list(openloop_table(rows)["offered_iops"]) == [2000, 4000, 2000000]
    # ... and data ingested without that column falls back to the point id
    assert list(openloop_table(rows.drop(columns="rate_iops"))["offered_iops"]) == [2000, 4000, 2000000]
    fig = openloop_figure(t)
    names = [tr.name for tr in fig.data]
    assert names == ["p50", "p99", "p99.9", "achieved < 95 % of offered"]
    assert list(fig.data[-1].x) == [t["achieved_iops"].iloc[2]]


def test_offered_load_sums_directions_hosts_and_grouped_clones():
    rows = pd.DataFrame({
        "point_id": ["p"] * 3, "rw": ["randrw"] * 3, "bs_bytes": [4096] * 3, "iodepth": [16] * 3,
        "direction": ["read", "write", "read"], "host": ["a", "a", "b"], "rate_iops": [300.0, 100.0, 300.0],
        "numjobs": [2, 2, 1], "group_reporting": [True, True, False], "iops": [590.0, 200.0, 150.0]})
    t = openloop_table(rows)
    # host a: 2 grouped clones x (300 read + 100 write); host b: one job x 300 read
    assert t["offered_iops"].iloc[0] == 2 * (300 + 100) + 300
    assert t["achieved_iops"].iloc[0] == 590 + 200 + 150
    assert bool(t["saturated"].iloc[0])  # 940 of 1100 offered is below 95 %


def test_offered_rate_and_empty():
    assert offered_rate("ol-randread-bs4k-qd32-nj1-rate500-r1") == 500
    assert pd.isna(offered_rate("qd-randread-bs4k-qd32-nj1"))
    assert openloop_table(pd.DataFrame()).empty
    assert openloop_figure(pd.DataFrame()).layout.annotations
