"""Known-answer tests for the knee detector (Kneedle on IOPS vs log2 QD)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import find_knee, knee_table
from helpers.analysis.knee import isotonic_increasing

QD = np.array([1, 2, 4, 8, 16, 32, 64, 128], dtype=float)


def hard(k):  # linear in N up to k, then flat (a device with k parallel units)
    return 10_000 * np.minimum(QD, k)


def log_ramp(k):  # equal gain per doubling up to k, then flat
    return 10_000 * (1 + np.minimum(np.log2(QD), np.log2(k)))


def smooth(k, p=4):  # smooth minimum of N and k
    return 10_000 * QD / (1 + (QD / k) ** p) ** (1 / p)


def retrograde(k):  # rises to k, then loses 8 % per doubling (contention)
    return hard(k) * np.where(QD > k, 0.92 ** np.log2(np.maximum(QD / k, 1)), 1.0)


SHAPES = {"hard": hard, "log_ramp": log_ramp, "smooth": smooth, "retrograde": retrograde}


def steps_off(found, k):
    return abs(np.log2(found) - np.log2(k))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", [4, 8, 16, 32])
def test_known_knee_without_noise(shape, k):
    r = find_knee(QD, SHAPES[shape](k))
    assert r.knee_qd is not None, r.reason
    assert steps_off(r.knee_qd, k) <= 1, (r.knee_qd, r.reason)
    assert 0 < r.fraction_of_peak <= 1
    assert r.knee_iops == pytest.approx(SHAPES[shape](k)[QD == r.knee_qd][0])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", [4, 8, 16])
def test_known_knee_with_noise(shape, k):
    """3 % multiplicative noise, 20 seeds each: every detection within one QD step."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        y = SHAPES[shape](k) * rng.normal(1.0, 0.03, len(QD))
        r = find_knee(QD, y)
        assert r.knee_qd is not None and steps_off(r.knee_qd, k) <= 1, (seed, r.knee_qd, r.reason)


def test_the_reason_names_the_qd_range_kneedle_was_given():
    """Kneedle scales QD to the range it is given, so the same curve cut at QD 32 can give another knee: the
    sentence says which range its answer is for."""
    full, cut = find_knee(QD, smooth(8)), find_knee(QD[:6], smooth(8)[:6])
    assert "over QD 1–128" in full.reason and "over QD 1–32" in cut.reason, (full.reason, cut.reason)


def test_repeats_are_averaged():
    rng = np.random.default_rng(1)
    q = np.repeat(QD, 3)
    y = np.repeat(hard(8), 3) * rng.normal(1.0, 0.03, len(q))
    r = find_knee(q, y)
    assert r.n_points == 8 and steps_off(r.knee_qd, 8) <= 1


def test_still_rising_is_not_a_knee():
    r = find_knee(QD, 10_000 * QD)
    assert r.knee_qd is None and r.reason.startswith("not saturated up to QD 128")
    r = find_knee(QD[:5], hard(64)[:5])
    assert r.knee_qd is None and "not saturated up to QD 16" in r.reason


def test_flat_curve():
    rng = np.random.default_rng(0)
    r = find_knee(QD, 11_000 * rng.normal(1.0, 0.02, len(QD)))
    assert r.knee_qd is None and r.reason.startswith("flat")


def test_noisy_non_monotone_flat_does_not_crash():
    y = np.array([100, 104, 97, 103, 99, 102, 98, 101], dtype=float)
    r = find_knee(QD, y)
    assert r.knee_qd is None and r.peak_iops == 104


@pytest.mark.parametrize("q,y", [([], []), ([4], [100.0]), ([1, 2], [100.0, 180.0]), ([1, 2], [100.0, 100.0]),
                                 ([1, 2, 4], [100.0, 190.0, 200.0]), ([1, 2, 4], [100.0, 200.0, 400.0]),
                                 ([1, 2, 4], [0.0, 0.0, 0.0]), ([1, 2, np.nan], [1.0, np.nan, 3.0])])
def test_short_sweeps_never_crash(q, y):
    r = find_knee(q, y)
    assert isinstance(r.reason, str) and r.reason
    if len(q) and len(q) < 3:
        assert r.knee_qd is None and "at least 3" in r.reason


def test_three_point_sweep_finds_obvious_knee():
    r = find_knee([1, 2, 4], [100.0, 190.0, 200.0])
    assert r.knee_qd == 2 and r.fraction_of_peak == pytest.approx(0.95)


def test_sensitivity_parameter_is_used():
    y = smooth(8)
    assert find_knee(QD, y, S=1.0).S == 1.0
    assert find_knee(QD, y, S=100.0).knee_qd is None or find_knee(QD, y, S=100.0).reason


def test_latency_at_knee_and_latency_knee():
    """Closed loop with 8 parallel units: latency flat until QD 8, then grows with N (queueing)."""
    iops = hard(8)
    lat = QD / iops * 1e6
    p99 = 2.5 * lat
    r = find_knee(QD, iops, lat_mean_us=lat, p99_us=p99)
    assert r.knee_qd == 8
    assert r.knee_lat_mean_us == pytest.approx(100.0)
    assert r.knee_p99_us == pytest.approx(250.0)
    assert r.latency_knee_qd is not None and steps_off(r.latency_knee_qd, 8) <= 1, r.latency_reason
    assert r.latency_knee_iops == pytest.approx(80_000)


def test_isotonic_fit():
    assert list(isotonic_increasing([1, 3, 2, 4])) == [1, 2.5, 2.5, 4]


def test_knee_table_per_series():
    rows = [{"series": s, "iodepth": q, "iops": v, "lat_mean_us": 1.0, "clat_p99_us": 2.0}
            for s, f in (("a", hard(8)), ("b", 10_000 * QD)) for q, v in zip(QD, f)]
    t = knee_table(pd.DataFrame(rows)).set_index("series")
    assert t.loc["a", "knee_qd"] == 8 and pd.isna(t.loc["b", "knee_qd"])
    assert "not saturated" in t.loc["b", "reason"]
    assert knee_table(pd.DataFrame(columns=["series", "iodepth", "iops"])).empty


def test_soft_saturation_with_noise_is_found_within_one_step():
    """Soft saturation (smooth minimum of QD and k, p = 3 and 4) with 2 % noise, every k that saturates inside
    the range, over the ranges a grid or an adaptive ladder sweeps: the knee within one QD doubling of k in
    >= 95 % of curves, and >= 85 % in every family.  Before the fallback's threshold scaled with the last
    doubling's gain, a knee one or two doublings from the end of the range was missed: 92 % overall, 0 of 25
    for k = 256 on QD 1-1024 ("IOPS rise smoothly")."""
    hits = total = 0
    for top in (64, 128, 256, 1024):
        q = 2.0 ** np.arange(int(np.log2(top)) + 1)
        for p in (3, 4):
            for k in (2, 4, 8, 16, 32, 64, 128, 256):
                if k > top / 4:
                    continue
                ok = 0
                for seed in range(25):
                    y = 10_000 * q / (1 + (q / k) ** p) ** (1 / p) * np.random.default_rng(seed).normal(1, 0.02, len(q))
                    r = find_knee(q, y)
                    ok += r.knee_qd is not None and abs(np.log2(r.knee_qd) - np.log2(k)) <= 1
                assert ok >= 21, (top, p, k, ok)
                hits, total = hits + ok, total + 25
    assert hits / total >= 0.95, hits / total


def test_a_curve_still_rising_at_a_tenth_per_doubling_has_no_fallback_knee():
    """The scaled threshold only loosens as the curve flattens: a steady 10 %-per-doubling rise (no plateau) is
    not given a knee by noise."""
    found = sum(find_knee(QD, 10_000 * 1.10 ** np.log2(QD) * np.random.default_rng(s).normal(1, 0.02, len(QD)))
                .found for s in range(40))
    assert found <= 2, found


def test_sharp_knees_with_two_percent_noise_are_found_within_one_step():
    """Sharp knees (IOPS linear in QD up to k, or a smooth minimum with p = 12, then flat) with 2 % noise, on the
    ranges a ladder or a grid sweeps (QD 1-64, 1-1024): every one of 8 seeds within one doubling of k, none two
    doublings too deep (issue 31 reported that; with the monotone fit and the gain-scaled fallback it did not
    reproduce on these shapes, 2026-11-28)."""
    for top in (64, 1024):
        q = 2.0 ** np.arange(int(np.log2(top)) + 1)
        for p in (None, 12):
            for k in (2, 8, 16):
                clean = np.minimum(q, k) if p is None else q / (1 + (q / k) ** p) ** (1 / p)
                for seed in range(8):
                    r = find_knee(q, 10_000 * clean * np.random.default_rng(seed).normal(1, 0.02, len(q)))
                    assert r.knee_qd is not None and abs(np.log2(r.knee_qd) - np.log2(k)) <= 1, (top, k, seed, r.reason)


@pytest.mark.parametrize("grid", [[1, 16, 64, 256, 1024], [1, 4, 16, 64, 128], [1, 2, 4, 8, 12, 16, 24, 32, 64, 128],
                                  [1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256, 512]])
def test_sharp_knees_between_depths_on_sparse_and_refined_grids(grid):
    """Issue 31's 'two doublings too deep', looked for on the other grids the lab sweeps (the course profile's
    1, 16, 64, 256, 1024; an adaptive ladder with refine points) and knees between two depths (k every half
    doubling): linear then flat (hard, and smooth minimums with p = 12 and 30), 2 % noise, 6 seeds each.  A
    found knee is right when within one doubling of k or at a depth next to k (on a sparse grid the first depth
    past k can lie further than one doubling); it is never deeper, and is missed only with a single depth past
    k.  (On 2026-11-29 none of 10,560 such curves on QD 1-16 ... 1-1024, nor these, came out too deep: the
    failure the issue reports did not reproduce with the monotone fit and the gain-scaled fallback.)"""
    q = np.array(grid, dtype=float)
    for k in np.exp2(np.arange(1, np.log2(q[-1]) - 1.5, 0.5)):
        first, last = q[q >= k * 0.999][0], q[q <= k * 1.001][-1]
        for p in (None, 12, 30):
            clean = np.minimum(q, k) if p is None else q / (1 + (q / k) ** p) ** (1 / p)
            for seed in range(6):
                r = find_knee(q, 10_000 * clean * np.random.default_rng(seed).normal(1, 0.02, len(q)))
                if r.knee_qd is None:
                    assert (q > k).sum() <= 2, (k, p, seed, r.reason)
                    continue
                assert r.knee_qd in (first, last) or steps_off(r.knee_qd, k) <= 1, (k, p, seed, r.reason)
