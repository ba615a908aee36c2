"""A short ``mode: burst`` run against a device with a known token bucket (tests/burst_device.py: its own zram behind
the kernel's block throttle, a controller following the bucket every 100 ms): the sweep drains, rests and drains
again, the ingest reads fio's logs, and analysis.burst_series recovers the burst rate, the baseline, the bucket and
its refill within 10 % of the device's.  Skipped, with the reason, where the harness cannot run (not root, no zram,
no block throttle).  The plain scratch file's case is tests/test_burst_mode.py's real-fio run."""

from __future__ import annotations

import os

import pytest
import yaml

import burst_device
from helpers import config
from helpers.analysis import burst_series, point_series
from helpers.ingest import core
from helpers.processed import store
from helpers.run import sweep
from quiet_helpers import idle_cpus
from realfio import fio_favoured

BUCKET_IOS, BURST_IOPS, BASELINE_IOPS = 5000.0, 3000.0, 500.0  # empties in 2 s; refills at the baseline rate
RESTS_S = [2, 4]  # give back 1,000 and 2,000 I/Os (and what fio's exit and start-up add)


def short_burst_profile(path):
    """The shipped burst profile made short: 4k random writes, quarter-second windows, a drop that stayed low for
    4 windows, rests of 2 and 4 s."""
    path.write_text(yaml.safe_dump({
        "description": "short burst", "mode": "burst",
        "settings": {"ioengine": "libaio", "ramp_s": 0, "runtime_s": 8, "log_avg_msec": 250, "log_hist_msec": 0},
        "burst": {"rests_s": RESTS_S, "low_windows": 4, "drop_ratio": 0.7},
        "points": [{"group": "burst", "rw": "randwrite", "bs": "4k", "iodepth": 8}]}))
    return path


@pytest.mark.quiet
def test_short_burst_run_recovers_a_known_bucket(tmp_path, fio_path):
    """In make test's quiet phase: beside four parallel workers the host stalled fio at nice -10 (the analysis read
    a 404-436 IOPS baseline where the device's ticks had a median of 498, or no refill, in 4 of 6 make test runs and
    1 of 7 beside its parallel phase) and even real-time (a 780 IOPS baseline after a 0.4 s stall in the drain's
    last window, whose catch-up the device let through at 996 IOPS: the kernel here does not preempt its own
    work for a real-time task).  fio runs real-time all the same (realfio.fio_favoured; it sleeps on the throttle
    most of its run), below the bucket's controller, a real-time thread (at 3-worker load a normal one once read a
    407 IOPS refill against the device's 500; beside three busy CPU loops a normal thread read a 423 IOPS baseline,
    a real-time one passed 5 of 6 runs and skipped the sixth below)."""
    why = burst_device.available()
    if why:
        pytest.skip(why)
    idle = idle_cpus(0.3)
    prof = short_burst_profile(tmp_path / "burst-short.yaml")
    with burst_device.BucketDevice(BUCKET_IOS, BURST_IOPS, BASELINE_IOPS, size="64M") as dev, dev.joined(), \
            fio_favoured(realtime=True):
        m = sweep.sweep(target=dev.path, profile=prof, run_id="bd", size="64m", raw_dir=tmp_path / "raw",
                        progress=False, destroy_device=dev.path)
    assert m["status"] == "complete", m
    (pid,) = m["burst"]
    seen = m["burst"][pid]["rests_seen_s"]
    # the rests as the device saw them: the nominal rest plus fio's exit and start-up (a few tenths of a second on
    # an idle machine; 1.04 s beside make test's workers and a busy CPU loop); the refill is measured over these
    assert [float(k) for k in seen] == RESTS_S and all(r <= seen[f"{r:g}"] < r + 2.0 for r in RESTS_S), seen
    core.ingest_paths([tmp_path / "raw" / "bd"], "bd", out=tmp_path / "processed")
    ts = point_series(store.load(tmp_path / "processed", config.TIMESERIES_DATASET, "bd"))
    (b,) = burst_series(ts, {"bd": m})
    tb = b.bucket
    print(f"rests seen {seen}: {tb.reason} {tb.refill_reason} {tb.refills}")
    assert b.point_id == pid and tb.rate_unit == "IOPS" and [r for r, _, _ in b.rests] == list(seen.values())
    load = os.getloadavg()[0]
    if tb.burst_rate is None and idle < (os.cpu_count() or 1) - 0.5:
        # fio and the bucket's controller share the CPUs with the load: the device never reached its burst rate, so
        # the bucket did not empty within the drain's limit (seen at load 4.7: 'the rate varied by up to 24 % ...')
        pytest.skip(f"machine busy ({idle:.1f} of {os.cpu_count()} CPUs idle, load average {load:.1f}): the drain "
                    "never reached the "
                    f"device's {BURST_IOPS:,} IOPS burst ({tb.reason})")
    # the known answers: the bucket and its refill are the controller's; the burst and baseline rates are what the
    # device let through at those ceilings (its own counter, 100 ms ticks): the ceilings, tightly, on a quiet
    # machine; less and spread when the host could not drive it there (a median of 2,699 of 3,000 IOPS, and a
    # baseline read as 436 where the ticks' median was 498, beside four test workers): within 10 % of the ticks'
    # 10th-90th percentile range
    burst, baseline = dev.delivered_iops(BURST_IOPS), dev.delivered_iops(BASELINE_IOPS)
    print(f"the device delivered {burst} IOPS (10th percentile, median, 90th) at its burst ceiling, {baseline} at "
          "its baseline")
    assert burst and baseline and burst[1] >= 0.75 * BURST_IOPS and baseline[1] >= 0.75 * BASELINE_IOPS
    assert 0.9 * burst[0] <= tb.burst_rate <= 1.1 * burst[2], (tb.burst_rate, burst)
    assert 0.9 * baseline[0] <= tb.baseline_rate <= 1.1 * baseline[2], (tb.baseline_rate, baseline)
    assert tb.bucket_size == pytest.approx(BUCKET_IOS, rel=0.10)
    # the time a 5,000 I/O bucket lasts at the rates the device let through (its ticks' medians; 2.0 s at the
    # ceilings), not the analysis's own rates, which would make this the bucket-size check again
    assert tb.seconds_to_empty == pytest.approx(BUCKET_IOS / (burst[1] - baseline[1]), rel=0.10)
    assert tb.refill_rate == pytest.approx(BASELINE_IOPS, rel=0.10)
