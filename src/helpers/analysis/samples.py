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

Run-to-run drift.  The quantity compared is a RUN's mean, and its uncertainty has two parts: the
within-run part above (what the run's own repeats or windows show) and a between-run part (the disk,
the host and its neighbours are not in the same state in two runs: on this lab's shared VM disk,
A/A pairs of back-to-back runs were called different 18 % of the time with the within-run part
alone, docs/statistics.md).  A run's own samples cannot measure the between-run part: of the
deviation of a whole run's mean from the long-run mean, one run holds a single draw.  So it comes
from other runs:

* ``history``: the samples of earlier runs of the same point (same configuration on the same host
  and target), >= 2 runs.  The run-to-run variance of a run's mean is the sample variance S² of
  their means, relative to their grand mean (drift is multiplicative: a slower disk scales every
  mean), with k − 1 degrees of freedom.  S² already holds the within-run noise of runs like them,
  so each side's variance of the mean is ``S² mean² + max(0, w − W mean²)``: the history's run
  variance, raised when this run's own within-run variance ``w`` exceeds the history runs' average
  ``W`` (a noisier run than usual is not made to look precise).  Known-answer simulation:
  docs/statistics.md and tests/test_analysis_samples.py.
* ``run_noise``: a stated SD of a run's mean from run to run beyond its own noise (a fraction of the
  mean, e.g. 0.05), added to each side as ``run_noise² mean²`` with infinite degrees of freedom.  No
  default: it is the user's assumption, and the reason says so.  With both, the larger variance wins.

Without either, the interval is the within-run one (``drift="within-run only"``); whether that
suffices (the runs were interleaved in time, or the samples are themselves run means) is for the
caller to know: :func:`helpers.analysis.compare_runs` decides from the sample times and says
"drift not measured" instead of "faster"/"slower" when it does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

METHODS = ("auto", "independent", "series")
# how the between-run part entered the interval (SampleComparison.drift)
DRIFT_WITHIN_ONLY = "within-run only"
DRIFT_HISTORY = "history"
DRIFT_ASSUMED = "assumed"
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
    drift: str = DRIFT_WITHIN_ONLY  # "within-run only", "history" or "assumed" (run_noise)
    run_cv: float = float("nan")  # SD of a run's mean from run to run used, as a fraction of the mean
    history_runs: int = 0  # earlier runs behind run_cv (drift "history")

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
    try:  # numbers already (the common case, and the simulations' hot path)
        v = np.asarray(x, dtype=float).ravel()
    except (TypeError, ValueError):  # pd.NA, None, text
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
    return fieller_components(mean_a, mean_b, [(var_mean_b, 0.0, df_b), (0.0, var_mean_a, df_a)], confidence)


def fieller_components(mean_a: float, mean_b: float, components: list[tuple[float, float, float]],
                       confidence: float = 0.95) -> tuple[float, float, float]:
    """Fieller's interval when the variances of the two means are sums of independently estimated
    parts: ``components`` holds (part of Var(mean_b), part of Var(mean_a), degrees of freedom) for
    each estimated quantity (a part shared by both sides, like a run-to-run variance measured once
    from history, is ONE component with both parts).  Var(b − θ a) = Σ (vb + θ² va); the degrees of
    freedom are Satterthwaite's over the components at θ = the estimated ratio."""
    r = mean_b / mean_a
    var_mean_b = sum(c[0] for c in components)
    var_mean_a = sum(c[1] for c in components)
    num = var_mean_b + r**2 * var_mean_a
    den = sum((vb + r**2 * va) ** 2 / df for vb, va, df in components if math.isfinite(df) and vb + va > 0)
    df = num**2 / den if den > 0 else float("inf")
    # heavy (~0.8 s): imported where used, so a notebook kernel that never calls this starts faster
    from scipy import stats

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


def run_mean_and_variance(x, method: str = "independent") -> tuple[float, float, float]:
    """(mean, variance of the mean, degrees of freedom) of one run's samples: s²/n with n − 1
    (``independent``) or the prewhitened long-run variance / n with n_eff − 1 (``series``).  One
    sample: the variance is 0 with 0 degrees of freedom (unknown; the caller treats it as 0)."""
    v = _clean(x)
    n = len(v)
    if n == 0:
        return float("nan"), float("nan"), 0.0
    if n == 1:
        return float(v[0]), 0.0, 0.0
    if method == "series" or (method == "auto" and n >= SERIES_MIN_SAMPLES):
        lrv, n_eff = long_run_variance(v)
        return float(v.mean()), lrv / n, n_eff - 1
    return float(v.mean()), float(v.var(ddof=1)) / n, n - 1.0


@dataclass(frozen=True)
class RunVariance:
    """Run-to-run variance of a run's mean, measured over ``runs`` earlier runs of one point and metric
    (:func:`run_variance`): ``cv2`` = S², the sample variance of their means relative to their grand
    mean (k − 1 degrees of freedom, ``df``); ``within_cv2`` = W, their average within-run variance of
    the mean, relative (what S² already holds of within-run noise)."""

    runs: int
    cv2: float
    df: float
    within_cv2: float


def run_variance(history, method: str = "auto") -> RunVariance | None:
    """:class:`RunVariance` of earlier runs' samples (``history``: one array-like per run, or a
    (array-like, method) pair for a run whose samples are of another kind), or None with fewer than
    two runs that have a positive mean."""
    items = [h if isinstance(h, tuple) else (h, method) for h in (history or [])]
    stats_ = [run_mean_and_variance(h, m) for h, m in items]
    stats_ = [(m, w) for m, w, _ in stats_ if math.isfinite(m) and m > 0]
    if len(stats_) < 2:
        return None
    means = np.array([m for m, _ in stats_])
    grand = float(means.mean())
    cv2 = float((means / grand).var(ddof=1))
    within = float(np.mean([w for _, w in stats_])) / grand**2
    return RunVariance(len(stats_), cv2, len(stats_) - 1.0, within)


def compare_samples(a, b, confidence: float = 0.95, higher_is_better: bool = True,
                    method: str = "auto", history=None, run_noise: float = 0.0) -> SampleComparison:
    """Compare samples ``b`` (new) with ``a`` (base) of one positive metric.

    ``method``: ``"independent"`` for per-repeat samples (Welch variances + Fieller), ``"series"``
    for per-interval samples of one run (prewhitened HAC variances + Fieller), ``"auto"``: series
    when both sides have at least :data:`SERIES_MIN_SAMPLES` samples, else independent.  NaN and
    infinite values are dropped.  ``higher_is_better=False`` for latency (then a ratio above 1 is
    "slower").

    Run-to-run drift (module docstring): ``history`` = samples of earlier runs of the same point (one
    array-like per run, >= 2 runs; or a :class:`RunVariance`), ``run_noise`` = a stated SD of a run's
    mean from run to run beyond its own noise, as a fraction of the mean (0.05 = 5 %; 0 = none).
    Either adds a between-run part to each side's variance; without them the interval is within-run
    only (``drift`` says which).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}.")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1 (e.g. 0.95).")
    if not (run_noise >= 0 and math.isfinite(run_noise)):
        raise ValueError("run_noise must be a fraction of the mean at or above 0 (e.g. 0.05 for 5 %).")
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
    _, var_a, df_a = run_mean_and_variance(va, method)
    _, var_b, df_b = run_mean_and_variance(vb, method)
    if method == "series":
        how = (f"Fieller interval with autocorrelation-robust variances (prewhitened Newey-West; "
               f"effective samples {df_a + 1:.0f} of {na} and {df_b + 1:.0f} of {nb})")
    else:
        how = f"Fieller interval with Welch variances ({na} and {nb} independent samples)"
    within = [(var_b, 0.0, df_b), (0.0, var_a, df_a)]
    comps, drift, run_cv, k = within, DRIFT_WITHIN_ONLY, nan, 0
    rv = history if isinstance(history, RunVariance) or history is None else run_variance(history, method)
    candidates = []
    if rv is not None:
        xb, xa = max(var_b - rv.within_cv2 * mb**2, 0.0), max(var_a - rv.within_cv2 * ma**2, 0.0)
        c = [(rv.cv2 * mb**2, rv.cv2 * ma**2, rv.df), (xb, 0.0, df_b), (0.0, xa, df_a)]
        candidates.append((c, DRIFT_HISTORY, math.sqrt(rv.cv2), rv.runs))
    if run_noise > 0:
        candidates.append(([(run_noise**2 * mb**2, run_noise**2 * ma**2, float("inf")), *within], DRIFT_ASSUMED,
                           run_noise, 0))
    if candidates:  # the larger variance of b − θ a at θ = the ratio wins
        comps, drift, run_cv, k = max(candidates, key=lambda c: sum(vb + ratio**2 * va for vb, va, _ in c[0]))
        comps = [c for c in comps if c[0] + c[1] > 0] or within
    if drift == DRIFT_HISTORY:
        how += (f", plus the run-to-run variance of a run's mean measured over {k} earlier runs "
                f"(SD {100 * run_cv:.1f} % of the mean, {k - 1} degrees of freedom)")
    elif drift == DRIFT_ASSUMED:
        how += f", plus an assumed run-to-run SD of {100 * run_cv:g} % of the mean (run_noise, not measured)"
    low, high, df = fieller_components(ma, mb, comps, confidence)
    return SampleComparison(ratio, low, high, verdict_of(low, high, higher_is_better), method=method, df=df,
                            reason=how + ".", drift=drift, run_cv=run_cv, history_runs=k, **common)
