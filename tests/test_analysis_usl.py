"""Known-answer tests for the Universal Scalability Law fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import fit_usl, numjobs_series, usl, usl_table

N_QD = np.array([1, 2, 4, 8, 16, 32, 64, 128], dtype=float)


@pytest.mark.parametrize("lam,sigma,kappa,n", [
    (11_000, 0.05, 0.0005, N_QD),  # QD sweep with a retrograde region
    (11_000, 0.10, 0.0001, N_QD),
    (500, 0.02, 0.002, np.arange(1, 33, dtype=float)),  # numjobs 1..32
    (80_000, 0.30, 0.01, np.array([1, 2, 3, 4, 6, 8, 12, 16], dtype=float)),
])
def test_recovers_known_parameters_without_noise(lam, sigma, kappa, n):
    f = fit_usl(n, usl(n, lam, sigma, kappa))
    assert f.sigma == pytest.approx(sigma, rel=0.10)
    assert f.kappa == pytest.approx(kappa, rel=0.10)
    assert f.lam == pytest.approx(lam, rel=0.01)
    assert f.r2 > 0.999
    assert f.n_star == pytest.approx(np.sqrt((1 - sigma) / kappa), rel=0.10)
    assert f.x_peak == pytest.approx(float(usl(f.n_star, lam, sigma, kappa)), rel=0.01)


def test_no_coherency_means_no_n_star():
    f = fit_usl(N_QD, usl(N_QD, 1000, 0.2, 0.0))
    assert f.kappa == 0.0 and f.n_star is None
    assert "no retrograde region observed" in f.reason
    assert f.sigma == pytest.approx(0.2, rel=0.10)


def test_linear_scaling():
    f = fit_usl(N_QD, 1000 * N_QD)
    assert f.sigma == pytest.approx(0.0, abs=1e-6) and f.kappa == 0.0 and f.n_star is None


def test_noisy_fit_within_bounds_and_predicts_beyond_range():
    rng = np.random.default_rng(3)
    n = np.repeat(N_QD, 3)
    y = usl(n, 11_000, 0.05, 0.0005) * rng.normal(1, 0.02, len(n))
    f = fit_usl(n, y)
    assert f.lam > 0 and 0 <= f.sigma <= 1 and f.kappa >= 0
    assert f.r2 > 0.95 and f.n_points == len(n)
    pred = f.predict([256, 512])
    assert np.all(np.isfinite(pred)) and pred[1] < pred[0]  # past N*, throughput falls


def test_weights_from_repeats_are_accepted():
    y = usl(N_QD, 1000, 0.1, 0.001)
    f = fit_usl(N_QD, y, y_err=0.01 * y)
    assert f.sigma == pytest.approx(0.1, rel=0.10)


@pytest.mark.parametrize("n,y", [([], []), ([1], [5.0]), ([1, 2], [5.0, 9.0]), ([1, 1, 2, 2], [1.0, 1, 2, 2])])
def test_too_few_points(n, y):
    f = fit_usl(n, y)
    assert np.isnan(f.lam) and f.n_star is None and "at least 3" in f.reason


def test_usl_table_for_qd_and_numjobs_series():
    rows = []
    for nj in (1, 2, 4, 8):
        rows.append({"run_id": "r", "host": "h", "rw": "randread", "bs_bytes": 4096, "direction": "read",
                     "iodepth": 1, "numjobs": nj, "rwmixread_pct": np.nan, "ioengine": "psync", "direct": 1,
                     "iops": float(usl(nj, 10_000, 0.1, 0.01))})
    jobs = numjobs_series(pd.DataFrame(rows))
    assert list(jobs["numjobs"]) == [1, 2, 4, 8]
    qd = pd.DataFrame({"series": "s", "outstanding_io": N_QD, "iops": usl(N_QD, 1000, 0.05, 0.0005)})
    t = usl_table(jobs, x="numjobs")
    assert t.loc[0, "x"] == "numjobs" and t.loc[0, "sigma"] == pytest.approx(0.1, rel=0.1)
    assert usl_table(qd).loc[0, "kappa"] == pytest.approx(0.0005, rel=0.1)
    assert usl_table(qd.iloc[0:0]).empty


def test_fully_serial_has_no_n_star():
    f = fit_usl(N_QD, np.full(len(N_QD), 3000.0) * np.linspace(1.0, 0.95, len(N_QD)))
    assert f.sigma == pytest.approx(1.0, abs=0.05)
    assert f.n_star is None or f.n_star >= 1


def test_prediction_beyond_the_measured_range_only_when_credible():
    """Issue 10 point 4: R² and λ against the measured N = 1 throughput decide whether the curve is extended."""
    n = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    good = fit_usl(n, usl(n, 10_000, 0.05, 0.002))
    assert good.extrapolate and good.credibility.startswith("The USL fit is credible (R² 1.000")
    jump = fit_usl(n, np.array([100, 1000, 1000, 1000, 1000, 1000, 1000], dtype=float))
    assert not jump.extrapolate
    assert "R² 0.58 is below 0.95" in jump.credibility  # no decline measured: fitted with κ = 0 and "the measured N = 1 throughput 100" in jump.credibility
    no_one = fit_usl(n[1:], usl(n[1:], 10_000, 0.05, 0.002))
    assert not no_one.extrapolate and "N = 1 was not measured" in no_one.credibility
    assert fit_usl([1, 2], [1.0, 2.0]).credibility == (
        "No USL curve: only 2 distinct N: the USL has 3 parameters and needs at least 3.")


def test_no_retrograde_region_without_a_measured_decline_or_a_kappa_interval_above_0():
    """Issue 22.4: a plateau with noise (no decline measured) fitted some κ > 0, and the curve then fell past an
    N* the data never showed.  Now κ's 95 % interval must exclude 0, or a decline be measured."""
    rng = np.random.default_rng(23)
    n = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    y = usl(n, 10_000, 0.08, 0.0) * rng.normal(1, 0.05, len(n))  # contention only (κ = 0), 5 % noise
    f = fit_usl(n, y)  # the best fit has κ 7.8e-4 (N* 34: a fall drawn past it before), its interval from -3.5e-4
    assert not f.decline_measured and f.kappa == 0.0 and f.n_star is None
    assert f.reason.startswith("no retrograde region claimed: the fitted κ") and "refitted with κ = 0" in f.reason
    assert f.predict([128, 256])[1] >= f.predict([128, 256])[0]  # the curve flattens, it does not fall
    # the same plateau with a measured decline at the largest N: retrograde, N* given
    y2 = np.append(y, 0.8 * y.max())
    f2 = fit_usl(np.append(n, 64.0), y2)
    assert f2.decline_measured and f2.kappa > 0 and f2.n_star is not None and f2.reason.startswith("retrograde past")


def test_kappa_interval_excluding_0_is_evidence_without_a_decline_in_range():
    # noise-free USL data whose N* (95) lies inside the range but whose fall at 128 is under 10 %
    f = fit_usl(N_QD, usl(N_QD, 11_000, 0.10, 0.0001))
    assert not f.decline_measured and f.kappa_low > 0 and f.n_star == pytest.approx(94.9, rel=0.05)
