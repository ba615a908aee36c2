"""Knee detection: the queue depth where more outstanding I/O stops buying throughput.

Method (Kneedle, Satopää et al. 2011, via the ``kneed`` package):

* x is **log2(QD)** — sweeps double the queue depth, so each step is one unit of x;
  y is IOPS, treated as a *concave, increasing* curve.
* Duplicated QDs (repeats) are averaged first.  A non-monotone (noisy or retrograde) curve is
  replaced by its least-squares monotone fit (isotonic regression) before Kneedle, so one noisy
  point cannot create or hide a knee; the IOPS reported at the knee are the measured mean.
* ``S`` is Kneedle's sensitivity: how far the difference curve must drop below its local maximum
  (in units of the mean x step) before a knee is declared.  Larger S = more conservative (fewer
  knees); 1.0 is the paper's recommendation for offline data.
* The knee is the maximum of Kneedle's difference curve up to the point where Kneedle confirms
  a knee (kneed itself takes the last local maximum, which on a plateau of the monotone fit can
  be one step late).
* When the plateau is reached but Kneedle cannot confirm the drop at the end of the data (short
  sweeps of 3–4 points, a knee one or two doublings before the last QD), the maximum of the difference
  curve is used and the reason says so.  That maximum must reach :data:`MIN_DIFFERENCE` scaled by how
  much the last doubling still added (÷ :data:`RISING_GAIN`): the flatter the end, the surer the knee is
  inside the sweep.  A fixed threshold sat where 2 % noise flipped a soft saturation's answer between a
  knee and "rises smoothly" (tests/test_analysis_knee.py: 92 % → 99 % of such curves within one step).

No knee (``knee_qd is None``) and the reason says why:

* still rising — the last doubling of QD still added ≥ :data:`RISING_GAIN` of IOPS:
  "not saturated up to QD N";
* flat — IOPS vary by less than :data:`FLAT_TOLERANCE` over the whole sweep;
* fewer than 3 distinct QDs.

The latency-side knee is Kneedle on p99 completion latency against IOPS (*convex, increasing*):
the throughput beyond which tail latency rises steeply.  Its x is the running maximum of IOPS in
QD order, so a retrograde point counts as "no IOPS gained".
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from helpers.analysis.points import percentile_latency

X_SCALE = "log2(QD)"
FLAT_TOLERANCE = 0.10  # (max - min) / max below this: the curve is flat
RISING_GAIN = 0.15  # last doubling of QD still adds >= 15 % IOPS: not saturated
MIN_DIFFERENCE = 0.10  # fallback knee needs the normalized difference curve to reach this, scaled by how
# much the last doubling of QD still added (x gain / RISING_GAIN): a curve that flattened has its knee inside


@dataclass
class Knee:
    """Result of :func:`find_knee`.  IOPS in I/O per second, latencies in µs."""

    knee_qd: float | None
    knee_iops: float | None
    fraction_of_peak: float | None
    reason: str
    peak_iops: float | None = None
    peak_qd: float | None = None
    max_qd: float | None = None
    n_points: int = 0
    knee_lat_mean_us: float | None = None
    knee_p99_us: float | None = None
    latency_knee_qd: float | None = None
    latency_knee_iops: float | None = None
    latency_knee_p99_us: float | None = None
    latency_reason: str = "no p99 latency given"
    S: float = 1.0
    x_scale: str = X_SCALE
    method: str = "kneedle"

    @property
    def found(self) -> bool:
        return self.knee_qd is not None

    def to_dict(self) -> dict:
        return asdict(self)


def isotonic_increasing(y, w=None) -> np.ndarray:
    """Least-squares non-decreasing fit of ``y`` (pool-adjacent-violators)."""
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    blocks: list[list[float]] = []  # [mean, weight, count]
    for yi, wi in zip(y, w):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return np.concatenate([[m] * c for m, _, c in blocks]) if blocks else y


def _kneedle(x: np.ndarray, y: np.ndarray, S: float, curve: str,
             min_difference: float = MIN_DIFFERENCE) -> tuple[int | None, str]:
    """Index of the knee in (x, y) (x strictly increasing) and how it was found."""
    # heavy (~0.3-1 s): imported where used, so a notebook kernel that never calls this starts faster
    from kneed import KneeLocator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kl = KneeLocator(x, y, S=S, curve=curve, direction="increasing", interp_method="interp1d")
    xn = (x - x.min()) / (x.max() - x.min())
    yn = (y - y.min()) / (y.max() - y.min())
    diff = yn - xn if curve == "concave" else xn - yn
    if kl.knee is not None:
        i = int(np.argmin(np.abs(x - kl.knee)))
        # kneed takes the last local maximum before the drop, and plateaus of the monotone fit
        # count as local maxima: use the highest difference up to the confirmed knee instead
        i = int(np.argmax(diff[: i + 1]))
        if i > 0:
            return i, "Kneedle"
    # fall back on the maximum of the normalized difference curve
    i = int(np.argmax(diff))
    if 0 < i < len(x) - 1 and diff[i] >= min_difference and diff[i] > 0:
        return i, "maximum of the Kneedle difference curve (too few points past it for Kneedle's threshold)"
    return None, ""


def _prepare(qd, *cols) -> pd.DataFrame:
    d = pd.DataFrame({"qd": pd.to_numeric(pd.Series(np.asarray(qd, dtype=float)), errors="coerce")})
    for i, c in enumerate(cols):
        d[f"c{i}"] = np.nan if c is None else np.asarray(c, dtype=float)
    d = d[(d["qd"] > 0) & d["c0"].notna()]
    return d.groupby("qd", as_index=False).mean().sort_values("qd").reset_index(drop=True)


def _fmt_qd(q: float) -> str:
    return f"{q:g}"


def find_knee(qd, iops, S: float = 1.0, *, lat_mean_us=None, p99_us=None) -> Knee:
    """The throughput knee of a queue-depth sweep.

    ``qd``: queue depths (or outstanding I/O); ``iops``: throughput at each (repeats allowed,
    they are averaged); ``S``: Kneedle sensitivity (see module docstring); optional
    ``lat_mean_us`` and ``p99_us`` (same length) give the latency at the knee and the
    latency-side knee (p99 vs IOPS).  Never raises on short, flat or noisy input: the
    ``reason`` explains a missing knee.
    """
    d = _prepare(qd, iops, lat_mean_us, p99_us)
    n = len(d)
    base = {"S": float(S), "n_points": n}
    if n == 0:
        return Knee(None, None, None, "no valid points", **base)
    q, y = d["qd"].to_numpy(), d["c0"].to_numpy()
    ipk = int(np.argmax(y))
    base.update(peak_iops=float(y[ipk]), peak_qd=float(q[ipk]), max_qd=float(q[-1]))
    res = Knee(None, None, None, "", **base)
    if p99_us is not None:
        _latency_knee(res, q, y, d["c2"].to_numpy(), S)
    if n < 3:
        res.reason = f"only {n} distinct QD{'s' if n > 1 else ''}: a knee needs at least 3"
        return res
    if y.max() <= 0 or (y.max() - y.min()) / y.max() < FLAT_TOLERANCE:
        res.reason = (f"flat: IOPS within {100 * (y.max() - y.min()) / max(y.max(), 1e-12):.0f} % from QD "
                      f"{_fmt_qd(q[0])} to {_fmt_qd(q[-1])} — queue depth does not raise throughput "
                      "(saturated already at the lowest QD, or a synchronous engine)")
        return res
    x = np.log2(q)
    yf = isotonic_increasing(y)
    step = x[-1] - x[-2]
    gain = (yf[-1] / yf[-2]) ** (1.0 / step) - 1.0 if yf[-2] > 0 else np.inf
    if ipk == n - 1 and gain >= RISING_GAIN:
        res.reason = (f"not saturated up to QD {_fmt_qd(q[-1])}: the last doubling still added "
                      f"{100 * gain:.0f} % IOPS")
        return res
    if yf.max() - yf.min() <= 0:
        res.reason = (f"IOPS do not increase with queue depth (highest at QD {_fmt_qd(q[ipk])}): saturated at the "
                      "lowest QD, no knee")
        return res
    # the flatter the end of the curve, the surer a knee lies inside the sweep: the fallback's threshold falls
    # with the last doubling's gain, continuously, so 2 % noise on a soft saturation near the end of the range
    # moves it a little instead of flipping the answer between "knee" and "rises smoothly"
    i, how = _kneedle(x, yf, S, "concave", MIN_DIFFERENCE * min(max(gain, 0.0) / RISING_GAIN, 1.0))
    if i is None:
        res.reason = f"no knee found by Kneedle (S={S:g}, x = {X_SCALE}); IOPS rise smoothly to the peak"
        return res
    res.knee_qd, res.knee_iops = float(q[i]), float(y[i])
    res.fraction_of_peak = float(y[i] / y[ipk])
    res.knee_lat_mean_us = None if np.isnan(d["c1"][i]) else float(d["c1"][i])
    res.knee_p99_us = None if np.isnan(d["c2"][i]) else float(d["c2"][i])
    mono = "" if np.all(np.diff(y) >= 0) else "; non-monotone IOPS smoothed by a monotone fit"
    # Kneedle scales x to the range it is given: the same device's knee can sit a step lower on QD 1-128 than
    # on 1-1024 (an adaptive search's probes against a grid, docs/sweeps.md), so the range is part of the answer
    res.reason = (f"knee at QD {_fmt_qd(q[i])} ({how}, S={S:g}, x = {X_SCALE}, over QD {_fmt_qd(q[0])}–"
                  f"{_fmt_qd(q[-1])}){mono}: {100 * res.fraction_of_peak:.0f} % of peak IOPS")
    return res


def _latency_knee(res: Knee, q: np.ndarray, iops: np.ndarray, p99: np.ndarray, S: float) -> None:
    ok = ~np.isnan(p99)
    q, iops, p99 = q[ok], iops[ok], p99[ok]
    if len(q) < 3:
        res.latency_reason = f"only {len(q)} points with p99: a latency knee needs at least 3"
        return
    x = np.maximum.accumulate(iops).astype(float)
    eps = max(x.max() - x.min(), abs(x.max())) * 1e-6
    for j in range(1, len(x)):  # strictly increasing for interpolation; ties = no IOPS gained
        x[j] = max(x[j], x[j - 1] + eps)
    y = isotonic_increasing(p99)
    if y.max() <= 0 or (y.max() - y.min()) / y.max() < FLAT_TOLERANCE:
        res.latency_reason = "p99 latency is flat over the sweep: no latency knee"
        return
    i, how = _kneedle(x, y, S, "convex")
    if i is None:
        res.latency_reason = f"no latency knee found (S={S:g}): p99 rises smoothly with IOPS"
        return
    res.latency_knee_qd, res.latency_knee_iops, res.latency_knee_p99_us = float(q[i]), float(iops[i]), float(p99[i])
    res.latency_reason = (f"p99 latency rises steeply above {iops[i]:,.0f} IOPS (QD {_fmt_qd(q[i])}; {how}, "
                          f"convex p99 vs IOPS)")


def knee_table(series: pd.DataFrame, S: float = 1.0, x: str = "iodepth") -> pd.DataFrame:
    """One row per series of :func:`helpers.analysis.qd_series` output with the fields of
    :class:`Knee` (repeats averaged per QD)."""
    cols = list(Knee.__dataclass_fields__)
    if series.empty:
        return pd.DataFrame(columns=["series", *cols])
    rows = []
    for name, s in series.groupby("series", sort=False):
        k = find_knee(s[x], s["iops"], S=S, lat_mean_us=s.get("lat_mean_us"), p99_us=s.get("p99_us", s.get("clat_p99_us")))
        rows.append({"series": name, **k.to_dict()})
    out = pd.DataFrame(rows)
    if "percentile_latency" in series.columns:  # which latency knee_p99_us / latency_knee_p99_us are of
        out["percentile_latency"] = percentile_latency(series)
    return out
