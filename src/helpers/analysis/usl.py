"""Universal Scalability Law (Gunther): throughput against concurrency.

    X(N) = λ N / (1 + σ (N − 1) + κ N (N − 1))

λ: throughput of one unit of concurrency (IOPS at N = 1); σ: contention (0–1, the serial
fraction); κ: coherency (crosstalk) cost, which makes throughput *fall* past
N* = √((1 − σ) / κ).  N is the outstanding I/O (iodepth × numjobs) for queue-depth sweeps, or
numjobs for job sweeps.  Fitted by bounded least squares (scipy ``curve_fit``, λ > 0,
0 ≤ σ ≤ 1, κ ≥ 0) from several starting points; with repeats, the per-point standard errors
weight the fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analysis.points import numeric_order

KAPPA_ZERO = 1e-9  # κ below this (after normalising throughput) is reported as 0
# the fitted curve is drawn beyond the measured range only when the fit is credible there:
MIN_R2 = 0.95  # it explains the measured points
LAMBDA_TOLERANCE = 0.25  # and λ (the model's throughput at N = 1) is within 25 % of the measured N = 1 throughput
# A retrograde region (throughput falling past N*) is claimed only with evidence: a measured decline (the mean
# throughput at the largest N at least 10 % below the best measured mean: more than this VM's ~9 % run-to-run
# noise), or κ's 95 % confidence interval (from the fit's covariance) excluding 0.  Otherwise κ > 0 may be noise
# fitted as crosstalk, and the curve is refitted with κ = 0 (contention only: it flattens, it does not fall).
DECLINE_FRACTION = 0.10
KAPPA_Z = 1.96


def usl(n, lam: float, sigma: float, kappa: float):
    """The USL throughput at concurrency ``n``."""
    n = np.asarray(n, dtype=float)
    return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


@dataclass
class UslFit:
    """Result of :func:`fit_usl`.  ``lam`` has the unit of the throughput given (IOPS)."""

    lam: float
    sigma: float
    kappa: float
    r2: float
    n_star: float | None
    reason: str
    n_points: int = 0
    n_min: float = float("nan")
    n_max: float = float("nan")
    x_peak: float | None = None  # predicted throughput at N* (None without N*)
    residuals: list[float] = field(default_factory=list, repr=False)
    extrapolate: bool = False  # credible beyond the measured range (R² and λ checks below)
    credibility: str = ""  # one sentence: why the curve is / is not drawn beyond the measured range
    kappa_low: float = float("nan")  # lower end of κ's 95 % interval (NaN when the fit gives no covariance)
    decline_measured: bool = False  # the largest N's mean throughput >= 10 % below the best measured mean

    @property
    def ok(self) -> bool:
        return not math.isnan(self.lam)

    def predict(self, n) -> np.ndarray:
        """Fitted throughput at concurrency ``n`` (also beyond the measured range)."""
        return usl(n, self.lam, self.sigma, self.kappa)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("lam", "sigma", "kappa", "r2", "n_star", "x_peak", "reason",
                                              "n_points", "n_min", "n_max", "extrapolate", "credibility",
                                              "kappa_low", "decline_measured")}


def _nan_fit(reason: str, n_points: int, n_min=float("nan"), n_max=float("nan")) -> UslFit:
    nan = float("nan")
    return UslFit(nan, nan, nan, nan, None, reason, n_points, n_min, n_max,
                  credibility=f"No USL curve: {reason}.")


def _credibility(fit: UslFit, n: np.ndarray, y: np.ndarray) -> tuple[bool, str]:
    """Whether the fit may be drawn beyond the measured range, and the one sentence saying why (not)."""
    problems = []
    if not (fit.r2 >= MIN_R2):
        problems.append(f"R² {fit.r2:.2f} is below {MIN_R2:g}")
    at1 = y[n == 1]
    if len(at1) == 0:
        problems.append("N = 1 was not measured, so λ cannot be checked against it")
    else:
        x1 = float(np.mean(at1))
        if x1 > 0 and abs(fit.lam - x1) > LAMBDA_TOLERANCE * x1:
            problems.append(f"λ {fit.lam:,.0f} is {fit.lam / x1:.2g}× the measured N = 1 throughput {x1:,.0f}")
    if problems:
        return False, ("The USL fit is not credible beyond the measured range (" + "; ".join(problems) +
                       "), so no prediction is drawn.")
    return True, (f"The USL fit is credible (R² {fit.r2:.3f}, λ within {LAMBDA_TOLERANCE:.0%} of the measured "
                  f"N = 1 throughput), so it is extended beyond the measured range as a prediction.")


def fit_usl(n, throughput, y_err=None) -> UslFit:
    """Fit the USL to ``throughput`` measured at concurrency ``n`` (repeats allowed).

    ``y_err``: optional standard error per point (e.g. from repeats) used as weights.
    Returns λ, σ, κ, R² (on the unweighted data) and N* = √((1 − σ)/κ) when κ > 0 with evidence of a
    retrograde region (a measured decline, or κ's 95 % interval excluding 0; without it κ is set to 0 and
    the curve refitted, the reason says why); ``n_star`` None and the reason "no retrograde region
    observed" otherwise.  Never raises
    on short input: fewer than 3 distinct N give NaN parameters and a reason.
    """
    from scipy.optimize import curve_fit  # heavy (~0.5 s): imported where used, so kernels start faster

    n = np.asarray(n, dtype=float)
    y = np.asarray(throughput, dtype=float)
    ok = np.isfinite(n) & np.isfinite(y) & (n > 0)
    err = None if y_err is None else np.asarray(y_err, dtype=float)
    n, y = n[ok], y[ok]
    if err is not None:
        err = err[ok]
        if not (np.isfinite(err).all() and (err > 0).all()):
            err = None
    distinct = len(np.unique(n))
    if distinct < 3:
        return _nan_fit(f"only {distinct} distinct N: the USL has 3 parameters and needs at least 3",
                        len(n), *(float(n.min()), float(n.max())) if len(n) else ())
    scale = float(np.max(np.abs(y))) or 1.0
    ys = y / scale
    es = None if err is None else err / scale
    n1 = n.min()
    lam0 = float(np.mean(ys[n == n1]) / n1)
    best = _best_fit(curve_fit, usl, n, ys, es, lam0, (0.0, 1e-4, 1e-3, 1e-2))
    if best is None:
        return _nan_fit("the least-squares fit did not converge", len(n), float(n.min()), float(n.max()))
    lam, sigma, kappa = float(best[1][0]) * scale, float(best[1][1]), float(best[1][2])
    if kappa < KAPPA_ZERO:
        kappa = 0.0
    var = float(best[2][2, 2]) if np.ndim(best[2]) == 2 else float("nan")
    kappa_low = kappa - KAPPA_Z * math.sqrt(var) if np.isfinite(var) and var >= 0 else float("nan")
    decline = _decline_measured(n, y)
    unproven = ""
    if kappa > 0 and not decline and not (kappa_low > 0):
        ci = "cannot be computed" if math.isnan(kappa_low) else f"reaches {kappa_low:.1e}, so it includes 0"
        unproven = (f"no retrograde region claimed: the fitted κ {kappa:.2e} has a 95 % interval that {ci}, and "
                    f"no decline was measured (the largest N is within {DECLINE_FRACTION:.0%} of the best), so the "
                    "curve is refitted with κ = 0")
        flat = _best_fit(curve_fit, lambda x, lam_, s_: usl(x, lam_, s_, 0.0), n, ys, es, lam0, None)
        if flat is not None:
            lam, sigma, kappa = float(flat[1][0]) * scale, float(flat[1][1]), 0.0
    pred = usl(n, lam, sigma, kappa)
    sst = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum((y - pred) ** 2)) / sst if sst > 0 else float("nan")
    fit = UslFit(lam, sigma, kappa, r2, None, "", len(n), float(n.min()), float(n.max()),
                 residuals=[float(v) for v in (y - pred)], kappa_low=kappa_low, decline_measured=decline)
    if kappa > 0 and sigma >= 1.0 - 1e-9:
        fit.reason = "σ = 1: throughput does not scale with N at all (fully serialised); N* is undefined"
    elif kappa > 0:
        fit.n_star = math.sqrt((1.0 - sigma) / kappa)
        fit.x_peak = float(usl(fit.n_star, lam, sigma, kappa))
        where = "inside" if fit.n_star <= fit.n_max else "beyond"
        fit.reason = f"retrograde past N* = {fit.n_star:.1f} ({where} the measured range up to {fit.n_max:g})"
    elif unproven:
        fit.reason = unproven
    else:
        fit.reason = "no retrograde region observed (κ = 0)"
    fit.extrapolate, fit.credibility = _credibility(fit, n, y)
    return fit


def _best_fit(curve_fit, model, n, ys, es, lam0: float, kappas) -> tuple | None:
    """(sse, parameters, covariance) of the best of several starting points; ``kappas`` None fits the
    two-parameter model (κ fixed)."""
    best = None
    for s0 in (0.0, 0.05, 0.3, 0.8):
        for k0 in (kappas or (None,)):
            p0 = [max(lam0, 1e-9), s0] + ([] if k0 is None else [k0])
            lower, upper = [1e-12, 0.0] + ([] if k0 is None else [0.0]), [np.inf, 1.0] + ([] if k0 is None else [np.inf])
            try:
                p, cov = curve_fit(model, n, ys, p0=p0, sigma=es, bounds=(lower, upper), method="trf", maxfev=20000)
            except (RuntimeError, ValueError):
                continue
            r = (model(n, *p) - ys) / (1.0 if es is None else es)
            sse = float(np.sum(r * r))
            if best is None or sse < best[0]:
                best = (sse, p, cov)
    return best


def _decline_measured(n: np.ndarray, y: np.ndarray) -> bool:
    """True when the mean throughput at the largest N lies at least :data:`DECLINE_FRACTION` below the best
    mean measured at a smaller N."""
    means = pd.Series(y).groupby(n).mean()
    if len(means) < 2:
        return False
    return bool(means.iloc[-1] <= (1.0 - DECLINE_FRACTION) * means.iloc[:-1].max())


JOB_KEYS = ["run_id", "host", "rw", "bs_bytes", "direction", "iodepth", "rwmixread_pct", "ioengine", "direct"]


def numjobs_series(df: pd.DataFrame, min_points: int = 3) -> pd.DataFrame:
    """Rows of series that differ only in numjobs (≥ ``min_points`` distinct values), with
    ``outstanding_io`` and a ``series`` label."""
    if df.empty or "numjobs" not in df.columns:
        return df.iloc[0:0].assign(outstanding_io=pd.Series(dtype="int64"), series=pd.Series(dtype="string"))
    keys = [k for k in JOB_KEYS if k in df.columns]
    g = df.groupby(keys, dropna=False)["numjobs"].transform("nunique")
    out = df[g >= min_points].copy()
    out["outstanding_io"] = out["iodepth"] * out["numjobs"]
    out["series"] = pd.Series([f"{r.rw} {int(r.bs_bytes)}B QD{int(r.iodepth)} ({r.direction})"
                               for r in out.itertuples()], index=out.index, dtype="string")
    return numeric_order(out, ["run_id", "rw", "bs_bytes", "iodepth", "direction", "series", "numjobs"])


def _point_means(s: pd.DataFrame, x: str) -> pd.DataFrame:
    g = s.groupby(x)["iops"]
    m = g.agg(["mean", "count", "std"]).reset_index()
    m["sem"] = m["std"] / np.sqrt(m["count"])
    return m


def usl_fit_series(s: pd.DataFrame, x: str = "outstanding_io") -> UslFit:
    """Fit one series on its per-point means (weighted by the standard error when every point
    is repeated)."""
    m = _point_means(s, x)
    err = m["sem"] if (m["count"] > 1).all() and (m["sem"] > 0).all() else None
    return fit_usl(m[x], m["mean"], y_err=err)


def usl_table(points: pd.DataFrame, x: str = "outstanding_io") -> pd.DataFrame:
    """One row per series: the USL fit of IOPS against ``x`` — ``outstanding_io`` for
    queue-depth series (:func:`helpers.analysis.qd_series` output) or ``numjobs`` for job series
    (:func:`numjobs_series`)."""
    cols = ["series", "x", "lam", "sigma", "kappa", "r2", "n_star", "x_peak", "reason", "n_points", "n_min", "n_max",
            "extrapolate", "credibility"]
    rows = [{"series": name, "x": x, **usl_fit_series(s, x).to_dict()}
            for name, s in (points.groupby("series", sort=False) if not points.empty else [])]
    return pd.DataFrame(rows, columns=cols)
