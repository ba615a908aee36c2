"""Known-answer tests for compare_samples: ratio of means with an interval that respects how the
samples were taken (per-repeat: Welch + Fieller; per-interval: prewhitened HAC + Fieller).

Coverage is measured on synthetic data with a known true ratio over 400 seeds: the binomial standard
error of a 95 % coverage estimate over 400 trials is 1.1 %, so the accepted band [0.91, 0.985] is
about -3.6 / +3.2 standard errors around the nominal 0.95.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.analysis import compare_samples
from helpers.analysis.samples import long_run_variance, run_variance, verdict_of

SEEDS = 400
BAND = (0.91, 0.985)
T975_4 = 2.776445  # textbook t(0.975, 4)


def ar1(rng: np.random.Generator, trials: int, n: int, phi: float, mean: float, cv: float = 0.05) -> np.ndarray:
    """``trials`` stationary AR(1) series of length n with the given mean and marginal CV."""
    sd = mean * cv
    x = np.empty((trials, n))
    x[:, 0] = rng.standard_normal(trials) * sd
    e = rng.standard_normal((trials, n)) * sd * math.sqrt(1 - phi**2)
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    return x + mean


def coverage(a: np.ndarray, b: np.ndarray, truth: float, **kw) -> tuple[float, list]:
    res = [compare_samples(x, y, **kw) for x, y in zip(a, b)]
    return float(np.mean([r.low <= truth <= r.high for r in res])), res


# --- exact values -----------------------------------------------------------------------------------


def test_fieller_welch_interval_by_hand():
    # a: mean 2, var 1 -> var of mean 1/3; b: mean 4, var 4 -> 4/3.  Ratio 2.
    # Welch df of b - 2a: (4/3 + 4/3)^2 / ((4/3)^2/2 + (4/3)^2/2) = 4.
    r = compare_samples([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    t2 = T975_4**2
    qa, qb, qc = 4 - t2 / 3, -16.0, 16 - 4 * t2 / 3
    root = math.sqrt(qb**2 - 4 * qa * qc)
    assert r.ratio == pytest.approx(2.0)
    assert r.df == pytest.approx(4.0)
    assert (r.low, r.high) == (pytest.approx((16 - root) / (2 * qa), rel=1e-6),
                               pytest.approx((16 + root) / (2 * qa), rel=1e-6))
    assert r.method == "independent" and r.verdict == "within noise"  # three repeats this noisy prove nothing
    assert r.change_pct == pytest.approx(100.0)


def test_interval_bounds_are_where_the_t_statistic_equals_the_critical_value():
    rng = np.random.default_rng(7)
    a, b = rng.normal(1000, 40, 5), rng.normal(800, 30, 4)
    r = compare_samples(a, b)
    va, vb = a.var(ddof=1) / 5, b.var(ddof=1) / 4
    crit = float(__import__("scipy").stats.t.ppf(0.975, r.df))
    for theta in (r.low, r.high):
        assert abs(b.mean() - theta * a.mean()) / math.sqrt(vb + theta**2 * va) == pytest.approx(crit, rel=1e-9)
    assert r.verdict == "slower" and r.high < 1


def test_verdicts_follow_higher_is_better():
    fast = compare_samples([100, 101, 99, 100], [120, 121, 119, 120])
    assert fast.verdict == "faster" and fast.low > 1
    lat = compare_samples([100, 101, 99, 100], [120, 121, 119, 120], higher_is_better=False)
    assert lat.verdict == "slower" and lat.ratio == pytest.approx(1.2)
    assert verdict_of(0.9, 1.1) == "within noise" and verdict_of(0.5, 0.8, False) == "faster"
    assert fast.effect_size > 10  # 20 units apart with SD 0.8: a huge standardised effect


def test_too_few_samples_give_no_interval_and_say_so():
    r = compare_samples([100.0], [89.0, 91.0])
    assert r.ratio == pytest.approx(0.9)
    assert math.isnan(r.low) and math.isnan(r.high) and r.verdict == "not enough samples"
    assert "1 sample(s) in a" in r.reason and r.text() == "-10 % [no interval]"
    assert compare_samples([1.0, float("nan"), 2.0], [1.0, 2.0]).n_a == 2  # NaN dropped


def test_denominator_indistinguishable_from_zero_gives_an_unbounded_interval():
    r = compare_samples([0.1, 5.0], [1.0, 1.1])
    assert math.isinf(r.high) and r.verdict == "within noise"


def test_bad_arguments():
    with pytest.raises(ValueError, match="method"):
        compare_samples([1, 2], [1, 2], method="bootstrap")
    with pytest.raises(ValueError, match="confidence"):
        compare_samples([1, 2], [1, 2], confidence=95)


def test_long_run_variance_of_a_long_ar1_series():
    # AR(1) with marginal variance s2: long-run variance s2 (1 + phi) / (1 - phi) = 5.667 s2 at phi 0.7
    x = ar1(np.random.default_rng(3), 1, 20_000, 0.7, 100.0, cv=0.05)[0]
    lrv, n_eff = long_run_variance(x)
    assert lrv == pytest.approx(25.0 * 1.7 / 0.3, rel=0.12)
    assert n_eff == pytest.approx(20_000 * 0.3 / 1.7, rel=0.12)
    iid = np.random.default_rng(4).normal(0, 2, 20_000)
    assert long_run_variance(iid)[0] == pytest.approx(4.0, rel=0.06)


# --- coverage over many seeds (known truth) --------------------------------------------------------


def test_coverage_iid_series_known_ratio():
    rng = np.random.default_rng(11)
    a, b = ar1(rng, SEEDS, 60, 0.0, 1000.0), ar1(rng, SEEDS, 60, 0.0, 800.0)
    cov, res = coverage(a, b, 0.8)
    assert BAND[0] <= cov <= BAND[1], cov
    assert {r.method for r in res} == {"series"}
    assert np.mean([r.verdict == "slower" for r in res]) > 0.99  # -20 % at 5 % CV: always detected


def test_coverage_ar1_series_known_ratio():
    rng = np.random.default_rng(12)
    a, b = ar1(rng, SEEDS, 60, 0.7, 1000.0), ar1(rng, SEEDS, 60, 0.7, 1100.0)
    cov, res = coverage(a, b, 1.1)
    assert BAND[0] <= cov <= BAND[1], cov
    assert np.mean([r.verdict == "faster" for r in res]) > 0.8  # +10 % at 5 % CV, 60 autocorrelated samples
    # the same data treated as independent samples: the interval is far too narrow
    naive, _ = coverage(a, b, 1.1, method="independent")
    assert naive < 0.8, naive


def test_aa_false_alarm_rate_on_ar1_series_is_at_most_10_percent():
    rng = np.random.default_rng(13)
    a, b = ar1(rng, SEEDS, 60, 0.7, 1000.0), ar1(rng, SEEDS, 60, 0.7, 1000.0)
    res = [compare_samples(x, y) for x, y in zip(a, b)]
    alarms = np.mean([r.verdict != "within noise" for r in res])
    assert alarms <= 0.10, alarms
    lat = [compare_samples(x, y, higher_is_better=False) for x, y in zip(a, b)]
    assert np.mean([r.verdict != "within noise" for r in lat]) == alarms  # same interval, same alarms


@pytest.mark.parametrize("n", [3, 5])
def test_coverage_of_few_independent_repeats(n):
    rng = np.random.default_rng(20 + n)
    a = rng.normal(50_000, 50_000 * 0.09, (SEEDS, n))  # the VM's ~9 % CV between repeats
    b = rng.normal(35_000, 35_000 * 0.09, (SEEDS, n))
    cov, res = coverage(a, b, 0.7)
    assert BAND[0] <= cov <= BAND[1], cov
    assert {r.method for r in res} == {"independent"}
    power = np.mean([r.verdict == "slower" for r in res])  # -30 % at 9 % CV
    assert power > {3: 0.75, 5: 0.97}[n], power


# --- run-to-run drift: a random run effect on top of within-run noise -------------------------------


def runs_with_drift(rng: np.random.Generator, trials: int, runs: int, n: int, mean: float, run_cv: float,
                    cv: float, phi: float = 0.0) -> np.ndarray:
    """(trials, runs, n): each run's level is mean × (1 + N(0, run_cv)) (drift between runs), its n samples
    AR(1) noise of marginal CV ``cv`` around that level (phi 0: independent repeats)."""
    level = mean * (1 + rng.normal(0, run_cv, (trials, runs, 1)))
    return level * ar1(rng, trials * runs, n, phi, 1.0, cv).reshape(trials, runs, n)


def test_history_gives_the_run_to_run_variance_by_hand():
    hist = [[90.0, 92.0, 88.0], [100.0, 101.0, 99.0], [110.0, 108.0, 112.0]]  # run means 90, 100, 110
    rv = run_variance(hist)
    assert (rv.runs, rv.df) == (3, 2.0)
    assert rv.cv2 == pytest.approx(np.var([0.9, 1.0, 1.1], ddof=1))  # relative to the grand mean 100
    assert rv.within_cv2 == pytest.approx(np.mean([4 / 3, 1 / 3, 4 / 3]) / 100**2)  # s² / n of each run
    a, b = [100.0, 102.0, 98.0], [80.0, 81.0, 79.0]
    r = compare_samples(a, b, history=hist)
    # each side: S² mean² plus the excess of its own s²/n over the history's average (a: 4/3 vs 1 -> 1/3)
    va = rv.cv2 * 100**2 + (4 / 3 - rv.within_cv2 * 100**2)
    vb = rv.cv2 * 80**2 + max(1 / 3 - rv.within_cv2 * 80**2, 0)
    crit = float(__import__("scipy").stats.t.ppf(0.975, r.df))
    for theta in (r.low, r.high):
        assert abs(80 - theta * 100) / math.sqrt(vb + theta**2 * va) == pytest.approx(crit, rel=1e-9)
    assert r.drift == "history" and r.history_runs == 3 and r.run_cv == pytest.approx(0.1)
    assert "3 earlier runs (SD 10.0 % of the mean" in r.reason
    assert r.verdict == "within noise"  # -20 % against a 10 % run-to-run SD measured on 3 runs: cannot tell
    assert compare_samples(a, b).verdict == "slower"  # the within-run interval alone would claim it


def test_a_stated_run_noise_is_added_and_named_an_assumption():
    a, b = [100.0, 102.0, 98.0], [80.0, 81.0, 79.0]
    r = compare_samples(a, b, run_noise=0.05)
    va, vb = 4 / 3 + 0.05**2 * 100**2, 1 / 3 + 0.05**2 * 80**2
    z = float(__import__("scipy").stats.norm.ppf(0.975))
    assert r.df > 100  # the stated part has infinite degrees of freedom and dominates the variance
    theta = r.high
    crit = float(__import__("scipy").stats.t.ppf(0.975, r.df)) if math.isfinite(r.df) else z
    assert abs(80 - theta * 100) / math.sqrt(vb + theta**2 * va) == pytest.approx(crit, rel=1e-6)
    assert r.drift == "assumed" and r.run_cv == 0.05 and "assumed run-to-run SD of 5 %" in r.reason
    with pytest.raises(ValueError, match="run_noise"):
        compare_samples(a, b, run_noise=-0.1)
    # with history too, the larger variance wins: a tiny stated floor does not narrow a measured drift
    hist = [[90.0, 92.0, 88.0], [100.0, 101.0, 99.0], [110.0, 108.0, 112.0]]
    assert compare_samples(a, b, history=hist, run_noise=0.001).drift == "history"
    assert compare_samples(a, b, history=hist[:1]).drift == "within-run only"  # one run: no run-to-run variance


@pytest.mark.parametrize("n_hist", [3, 8])
def test_run_drift_coverage_false_alarms_and_power_with_history(n_hist):
    # 10 % SD between runs, 3 % within a run, 3 repeats: the within-run interval alone covers ~40 %
    rng = np.random.default_rng(30 + n_hist)
    base = runs_with_drift(rng, SEEDS, n_hist + 2, 3, 1000.0, 0.10, 0.03)
    new = runs_with_drift(rng, SEEDS, 1, 3, 600.0, 0.10, 0.03)[:, 0]
    hist, a, a2 = base[:, :n_hist], base[:, n_hist], base[:, n_hist + 1]
    ab = [compare_samples(x, y, history=list(h)) for x, y, h in zip(a, new, hist)]
    cov = np.mean([r.low <= 0.6 <= r.high for r in ab])
    assert BAND[0] <= cov <= BAND[1], cov
    power = np.mean([r.verdict == "slower" for r in ab])  # -40 % against 10 % drift
    assert power > {3: 0.3, 8: 0.7}[n_hist], power
    aa = np.mean([compare_samples(x, y, history=list(h)).verdict != "within noise" for x, y, h in zip(a, a2, hist)])
    assert aa <= 0.10, aa
    within_only = np.mean([compare_samples(x, y).verdict != "within noise" for x, y in zip(a, a2)])
    assert within_only > 0.4, within_only  # what ignoring the drift does


def test_run_drift_with_autocorrelated_windows_and_history():
    # per-second windows (AR(1) phi 0.7, 5 % CV) of 30 s runs whose levels drift by 5 % SD; 5 earlier runs
    rng = np.random.default_rng(40)
    x = runs_with_drift(rng, SEEDS // 2, 8, 30, 1000.0, 0.05, 0.05, phi=0.7)
    res = [compare_samples(t[5], t[6], history=list(t[:5])) for t in x]
    assert {r.method for r in res} == {"series"} and {r.drift for r in res} == {"history"}
    assert np.mean([r.verdict != "within noise" for r in res]) <= 0.10
    slow = [compare_samples(t[5], t[7] * 0.7, history=list(t[:5])) for t in x]
    assert BAND[0] - 0.02 <= np.mean([r.low <= 0.7 <= r.high for r in slow]) <= BAND[1]  # 200 seeds
    assert np.mean([r.verdict == "slower" for r in slow]) > 0.7  # -30 % against 5 % drift: mostly found
    assert np.mean([compare_samples(t[5], t[6]).verdict != "within noise" for t in x]) > 0.2  # without history
