"""Did it change?  The ratio of two means with a confidence interval that respects how the samples
were taken (docs/statistics.md explains and justifies the choices).

``compare_samples(a, b)`` compares samples of ONE metric of one point in two runs: per-repeat values
(one number per fio run of the point; few, independent) or per-interval values (one number per time
window of one fio run; many, autocorrelated).  The estimate is ``ratio = mean(b) / mean(a)``; the
interval is Fieller's interval for a ratio of two independent means, with each mean's variance

* ``independent`` (per-repeat samples): the sample variance / n (Welch: variances not pooled), and
  Welch–Satterthwaite degrees of freedom;
* ``series`` (per-interval samples): the long-run variance / n from an AR(1)-prewhitened
  Newey–West (Bartlett kernel) estimator with Andrews' data-driven bandwidth (Andrews & Monahan
  1992), the AR coefficient bias-corrected (Kendall); degrees of freedom from the effective sample
  size n × s² / long-run variance.

The verdict is "faster" / "slower" when the whole interval lies on one side of 1 (after
``higher_is_better``), "within noise" when it contains 1, and "not enough samples" when a side has
fewer than two samples (no interval can be measured; the ratio is still reported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

METHODS = ("auto", "independent", "series")
# below this many samples on a side an autocorrelation cannot be estimated: "auto" treats the
# samples as independent repeats
SERIES_MIN_SAMPLES = 12
VERDICTS = ("faster", "slower", "within noise", "not enough samples")


@dataclass(frozen=True)
class SampleComparison:
    """Result of :func:`compare_samples`.  ``ratio``/``low``/``high`` are mean(b)/mean(a) and its
    interval (``high`` is ``inf`` when mean(a) itself is not distinguishable from 0)."""

    ratio: float
    low: float
    high: float
    verdict: str
    confidence: float
    higher_is_better: bool
    method: str  # "independent", "series" or "none"
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    df: float  # degrees of freedom of the t quantile (NaN without interval)
    effect_size: float  # Hedges' g: (mean_b - mean_a) / pooled sample SD, small-sample corrected
    reason: str  # one sentence: how the interval was obtained, or why there is none

    @property
    def change_pct(self) -> float:
        """(ratio − 1) in percent: +38.0 means b is 38 % above a."""
        return (self.ratio - 1.0) * 100.0

    @property
    def low_pct(self) -> float:
        return (self.low - 1.0) * 100.0

    @property
    def high_pct(self) -> float:
        return (self.high - 1.0) * 100.0

    def text(self, digits: int = 0) -> str:
        """'+38 % [+21 %, +55 %]' (or '+38 % [no interval]')."""
        f = f"{{:+.{digits}f}} %"
        if math.isnan(self.low):
            return f.format(self.change_pct) + " [no interval]"
        hi = "+inf %" if math.isinf(self.high) else f.format(self.high_pct)
        return f"{f.format(self.change_pct)} [{f.format(self.low_pct)}, {hi}]"


def _clean(x) -> np.ndarray:
    v = pd.to_numeric(pd.Series(np.asarray(x, dtype=object).ravel()), errors="coerce").to_numpy(dtype=float)
    return v[np.isfinite(v)]


def long_run_variance(x) -> tuple[float, float]:
    """(long-run variance, effective sample size) of a series: AR(1)-prewhitened Newey–West.

    The long-run variance σ²_LR is n × Var(mean) for a stationary series (= the variance for
    independent samples).  Steps: lag-1 autocorrelation ρ of the centred series, bias-corrected by
    (1 + 3ρ)/n and clipped to [−0.9, 0.97]; residuals e_t = d_t − ρ d_{t−1}; Newey–West (Bartlett)
    long-run variance of e with Andrews' (1991) AR(1) plug-in bandwidth 1.1447 (α m)^(1/3); recoloured
    by 1 / (1 − ρ)².  Effective sample size = n × s² / σ²_LR, clipped to [2, n].
    """
    v = _clean(x)
    n = len(v)
    if n < 3:
        s2 = float(v.var(ddof=1)) if n == 2 else float("nan")
        return s2, float(n)
    d = v - v.mean()
    ss = float(d @ d)
    s2 = ss / (n - 1)
    if ss <= 0:
        return 0.0, float(n)
    rho = float(d[1:] @ d[:-1]) / ss
    rho = min(max(rho + (1 + 3 * rho) / n, -0.9), 0.97)
    e = d[1:] - rho * d[:-1]
    m = len(e)
    e = e - e.mean()
    ee = float(e @ e)
    lrv_e = ee / m
    if ee > 0 and m > 2:
        r1 = min(max(float(e[1:] @ e[:-1]) / ee, -0.97), 0.97)
        alpha = 4 * r1**2 / ((1 - r1) ** 2 * (1 + r1) ** 2)
        lags = min(int(1.1447 * (alpha * m) ** (1 / 3)), m - 1)
        for k in range(1, lags + 1):
            lrv_e += 2 * (1 - k / (lags + 1)) * float(e[k:] @ e[:-k]) / m
        lrv_e = max(lrv_e, 1e-3 * ee / m) * m / (m - 1)
    lrv = lrv_e / (1 - rho) ** 2
    n_eff = min(max(n * s2 / lrv, 2.0), float(n)) if lrv > 0 else float(n)
    return lrv, n_eff


def fieller_interval(mean_a: float, var_mean_a: float, mean_b: float, var_mean_b: float,
                     df_a: float, df_b: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """(low, high, df) of Fieller's interval for mean_b / mean_a from two independent means with
    variances ``var_mean_*`` (of the means) and degrees of freedom ``df_*``; the t quantile uses
    Welch–Satterthwaite degrees of freedom of b − θ a at θ = the estimated ratio.  ``high`` is inf
    (and ``low`` 0 or the bound) when mean_a is not significantly different from 0."""
    r = mean_b / mean_a
    num = var_mean_b + r**2 * var_mean_a
    den = (var_mean_b**2 / df_b if var_mean_b > 0 else 0.0) + (r**4 * var_mean_a**2 / df_a if var_mean_a > 0 else 0.0)
    df = num**2 / den if den > 0 else float("inf")
    t = float(stats.t.ppf(0.5 + confidence / 2, df)) if math.isfinite(df) else float(stats.norm.ppf(0.5 + confidence / 2))
    qa = mean_a**2 - t**2 * var_mean_a
    qb = -2 * mean_a * mean_b
    qc = mean_b**2 - t**2 * var_mean_b
    if qa <= 0:  # the denominator's interval contains 0: Fieller's set is unbounded
        return 0.0, float("inf"), df
    disc = max(qb**2 - 4 * qa * qc, 0.0)
    root = math.sqrt(disc)
    # the metrics are positive: a ratio below 0 is impossible, so the lower bound stops at 0
    return max((-qb - root) / (2 * qa), 0.0), (-qb + root) / (2 * qa), df


def hedges_g(a: np.ndarray, b: np.ndarray) -> float:
    """Standardised mean difference (b − a) / pooled SD with Hedges' small-sample correction."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return float("nan")
    sp2 = ((na - 1) * a.var(ddof=1) + (nb - 1) * b.var(ddof=1)) / (na + nb - 2)
    if sp2 <= 0:
        return float("nan") if b.mean() == a.mean() else math.copysign(float("inf"), b.mean() - a.mean())
    j = 1 - 3 / (4 * (na + nb) - 9)
    return float((b.mean() - a.mean()) / math.sqrt(sp2) * j)


def verdict_of(low: float, high: float, higher_is_better: bool = True) -> str:
    """'faster' / 'slower' when [low, high] excludes 1, else 'within noise' ('not enough samples' for NaN)."""
    if math.isnan(low) or math.isnan(high):
        return "not enough samples"
    if low > 1:
        return "faster" if higher_is_better else "slower"
    if high < 1:
        return "slower" if higher_is_better else "faster"
    return "within noise"


def compare_samples(a, b, confidence: float = 0.95, higher_is_better: bool = True,
                    method: str = "auto") -> SampleComparison:
    """Compare samples ``b`` (new) with ``a`` (base) of one positive metric.

    ``method``: ``"independent"`` for per-repeat samples (Welch variances + Fieller), ``"series"``
    for per-interval samples of one run (prewhitened HAC variances + Fieller), ``"auto"``: series
    when both sides have at least :data:`SERIES_MIN_SAMPLES` samples, else independent.  NaN and
    infinite values are dropped.  ``higher_is_better=False`` for latency (then a ratio above 1 is
    "slower").
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}.")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1 (e.g. 0.95).")
    va, vb = _clean(a), _clean(b)
    na, nb = len(va), len(vb)
    ma = float(va.mean()) if na else float("nan")
    mb = float(vb.mean()) if nb else float("nan")
    ratio = mb / ma if na and nb and ma != 0 else float("nan")
    g = hedges_g(va, vb)
    common = {"confidence": confidence, "higher_is_better": higher_is_better, "n_a": na, "n_b": nb,
              "mean_a": ma, "mean_b": mb, "effect_size": g}
    nan = float("nan")
    if na < 2 or nb < 2:
        return SampleComparison(ratio, nan, nan, "not enough samples", method="none", df=nan, **common,
                                reason=f"no interval: {na} sample(s) in a and {nb} in b (two per side needed).")
    if ma <= 0 or mb < 0:
        return SampleComparison(ratio, nan, nan, "not enough samples", method="none", df=nan, **common,
                                reason="no interval: the metric must be positive (mean of a is not).")
    if method == "auto":
        method = "series" if min(na, nb) >= SERIES_MIN_SAMPLES else "independent"
    if method == "series":
        lrv_a, neff_a = long_run_variance(va)
        lrv_b, neff_b = long_run_variance(vb)
        var_a, var_b, df_a, df_b = lrv_a / na, lrv_b / nb, neff_a - 1, neff_b - 1
        how = (f"Fieller interval with autocorrelation-robust variances (prewhitened Newey-West; "
               f"effective samples {neff_a:.0f} of {na} and {neff_b:.0f} of {nb}).")
    else:
        var_a, var_b, df_a, df_b = va.var(ddof=1) / na, vb.var(ddof=1) / nb, na - 1, nb - 1
        how = f"Fieller interval with Welch variances ({na} and {nb} independent samples)."
    low, high, df = fieller_interval(ma, var_a, mb, var_b, df_a, df_b, confidence)
    return SampleComparison(ratio, low, high, verdict_of(low, high, higher_is_better), method=method, df=df,
                            reason=how, **common)
