"""Known-answer tests for SLO capacity: max IOPS with p99 <= X, interpolated in log space."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import slo_capacity
from helpers.analysis.slo import latency_column, slo_card_sentence, slo_points, slo_rate_capacity, slo_table

QD = [1, 2, 4, 8, 16]
IOPS = [10_000, 20_000, 40_000, 60_000, 70_000]
P99 = [100, 150, 400, 1600, 6400]


def test_crossing_is_interpolated_in_log_space():
    # p99 400 us at QD 4, 1600 at QD 8: 800 us is half way in log p99, so QD 4 x sqrt(2) = 5.657 and
    # IOPS half way in log IOPS: sqrt(40k x 60k) = 48,990
    c = slo_capacity(QD, IOPS, P99, 800)
    assert c.at_iodepth == pytest.approx(4 * math.sqrt(2))
    assert c.max_iops == pytest.approx(math.sqrt(40_000 * 60_000))
    assert c.interpolated and c.limited_by == "slo" and c.latency_us == 800
    assert "QD 5.7 (interpolated in log space between QD 4 and 8)" in c.reason


def test_no_point_meets_the_slo():
    c = slo_capacity(QD, IOPS, P99, 50)
    assert c.max_iops is None and c.at_iodepth is None and c.limited_by == "none"
    assert "lowest 100 µs at QD 1" in c.reason


def test_met_everywhere_says_at_least():
    c = slo_capacity(QD, IOPS, P99, 10_000)
    assert (c.max_iops, c.at_iodepth, c.limited_by, c.interpolated) == (70_000, 16, "range", False)
    assert "at least 70,000 IOPS" in c.reason and "beyond the measured range" in c.reason


def test_slo_equal_to_a_measured_point_and_repeats_averaged():
    c = slo_capacity(QD + [4], IOPS + [44_000], P99 + [400], 400)  # QD 4 repeated: 40k and 44k -> 42k
    assert c.max_iops == pytest.approx(42_000) and c.at_iodepth == 4


def test_retrograde_throughput_keeps_the_better_measured_point():
    # IOPS falls past QD 2; the crossing (QD 2.83) interpolates to sqrt(50k x 40k) = 44.7k < 50k at QD 2
    c = slo_capacity([1, 2, 4], [10_000, 50_000, 40_000], [100, 500, 2000], 1000)
    assert (c.max_iops, c.at_iodepth, c.interpolated) == (50_000, 2, False)


def test_bad_slo():
    with pytest.raises(ValueError, match="positive"):
        slo_capacity(QD, IOPS, P99, 0)


def test_open_loop_largest_offered_load_meeting_rate_and_latency():
    off, ach, p99 = [1000, 2000, 4000, 8000], [1000, 2000, 3990, 6000], [100, 200, 900, 5000]
    c = slo_rate_capacity(off, ach, p99, 1000)
    assert (c.at_rate_iops, c.max_iops, c.limited_by) == (4000, 3990, "slo")
    assert "next load measured, 8,000 IOPS, fails" in c.reason
    assert slo_rate_capacity(off, ach, p99, 500).at_rate_iops == 2000
    assert slo_rate_capacity(off, ach, p99, 1e6).at_rate_iops == 4000  # 8,000 offered only reached 75 %
    assert slo_rate_capacity(off, ach, p99, 50).max_iops is None


def qd_rows(**extra) -> pd.DataFrame:
    return rows([{"iodepth": q, "iops": x, "clat_p99_us": p, **extra} for q, x, p in zip(QD, IOPS, P99)])


def test_latency_column_prefers_total_latency_when_fio_measured_it():
    df = qd_rows()
    assert latency_column(df) == ("clat_p99_us", "p99 completion latency (clat)")
    df["lat_p99_us"] = df["clat_p99_us"] * 2
    assert latency_column(df) == ("lat_p99_us", "p99 total latency")
    assert latency_column(qd_rows(), 99.9) == ("clat_p99_9_us", "p99.9 completion latency (clat)")


def test_table_over_closed_and_open_loop_series():
    ol = rows([{"point_id": f"ol-{r}", "iodepth": 32, "rate_iops": float(r), "iops": a, "clat_p99_us": p}
               for r, a, p in zip([1000, 2000, 4000], [1000, 2000, 3000], [100, 300, 900])])
    t = slo_table(pd.concat([qd_rows(), ol], ignore_index=True), slo_us=800).set_index("mode")
    closed = t.loc["closed loop (QD)"]
    assert closed["series"] == "randread 4k (read)" and closed["max_iops"] == pytest.approx(48_989.8, rel=1e-4)
    assert closed["latency"] == "p99 completion latency (clat)"
    opened = t.loc["open loop (rate)"]
    assert opened["series"] == "randread 4k QD32 (offered rate)" and opened["at_rate_iops"] == 2000
    pts = slo_points(slo_table(qd_rows(), 800))
    assert list(pts["series"]) == ["randread 4k (read)"] and pts["at_iodepth"].iloc[0] == pytest.approx(5.657, 1e-3)
    assert slo_table(qd_rows().iloc[:0]).empty


def test_card_sentence():
    assert slo_card_sentence(qd_rows(), 800) == ("Max 4k random-read IOPS with p99 completion latency (clat) ≤ 800 µs: "
                                                 "48,990 IOPS at QD 5.7, interpolated.")
    assert slo_card_sentence(qd_rows(), 10_000).endswith("70,000 IOPS at QD 16 (met at every measured depth: at least this).")
    assert "not met by 4k random reads" in slo_card_sentence(qd_rows(), 50)
    assert slo_card_sentence(qd_rows(rw="randwrite", direction="write"), 800).startswith("No 4k random-read")


def test_vectorised_rule_matches_slo_capacity():
    import numpy as np

    from helpers.analysis.slo import _capacity_matrix

    for slo in (50, 400, 800, 3000, 10_000):
        want = slo_capacity(QD, IOPS, P99, slo).max_iops
        got = _capacity_matrix(np.array(QD, float), np.array([IOPS], float), np.array([P99], float), slo)[0]
        assert (want is None and math.isnan(got)) or got == pytest.approx(want)


@pytest.mark.parametrize("reps", [3, 5])
def test_interval_from_repeats_covers_the_true_capacity(reps):
    # known truth: the noise-free curve's capacity at 800 us (48,990 IOPS); repeats with 5 % IOPS and
    # 15 % p99 noise; 200 seeds: the t-scaled bootstrap's 95 % interval covers it 96-98 % of the time
    import numpy as np

    from helpers.analysis.slo import slo_capacity_interval

    truth = slo_capacity(QD, IOPS, P99, 800).max_iops
    rng = np.random.default_rng(reps)
    hits = []
    for t in range(200):
        q = np.repeat(QD, reps)
        x = np.repeat(IOPS, reps) * (1 + rng.normal(0, 0.05, len(q)))
        lat = np.repeat(P99, reps) * (1 + rng.normal(0, 0.15, len(q)))
        lo, hi, _ = slo_capacity_interval(q, x, lat, 800, n_boot=1000, seed=t)
        hits.append(lo <= truth <= hi)
    assert 0.90 <= np.mean(hits) <= 0.995, np.mean(hits)


def test_interval_needs_repeats_at_every_depth():
    from helpers.analysis.slo import slo_capacity_interval

    lo, hi, _ = slo_capacity_interval(QD, IOPS, P99, 800)
    assert math.isnan(lo) and math.isnan(hi)
    t = slo_table(pd.concat([qd_rows(), qd_rows()], ignore_index=True), 800).iloc[0]  # identical repeats
    assert t["max_iops_low"] == pytest.approx(t["max_iops"]) and t["max_iops_high"] == pytest.approx(t["max_iops"])
    assert math.isnan(slo_table(qd_rows(), 800).iloc[0]["max_iops_low"])
