"""Analysis: pure functions on DataFrames (never reading files, never plotting).

Public API (queueing analytics, issue 5)::

    from helpers.analysis import find_knee, fit_usl, littles_law

``find_knee(qd, iops, S=1.0, *, lat_mean_us=None, p99_us=None) -> Knee``
    Kneedle (``kneed``) on IOPS vs queue depth, x = log2(QD), concave increasing; ``S`` is the
    Kneedle sensitivity (larger = fewer knees).  Fields: ``knee_qd`` (None when there is no
    knee), ``knee_iops``, ``fraction_of_peak`` (knee IOPS / peak IOPS), ``reason`` (always set:
    why there is / is not a knee, e.g. "not saturated up to QD 128", "flat: ..."), ``peak_iops``,
    ``peak_qd``, ``knee_lat_mean_us``, ``knee_p99_us``, and the latency-side knee (p99 vs IOPS,
    convex): ``latency_knee_qd``, ``latency_knee_iops``, ``latency_knee_p99_us``,
    ``latency_reason``.  Repeats are averaged; never raises on 0–3 points, flat or noisy curves.

``fit_usl(n, throughput, y_err=None) -> UslFit``
    Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)), bounded least squares
    (λ > 0, 0 ≤ σ ≤ 1, κ ≥ 0).  Fields: ``lam`` (throughput unit), ``sigma``, ``kappa``, ``r2``,
    ``n_star`` = √((1−σ)/κ) (None when κ = 0, ``reason`` then says "no retrograde region
    observed"), ``x_peak``; ``predict(n)`` extrapolates.  NaN parameters and a reason with < 3 N.

``littles_law(df) -> DataFrame``
    One row per measured point of processed results: ``outstanding_io`` (iodepth × numjobs),
    ``iops_total``, ``lat_mean_us`` (IOPS-weighted mean total latency), ``littles_l``
    (L̂ = IOPS × mean latency in s), ``littles_ratio`` (L̂ / outstanding_io), ``littles_flag``
    (deviation > 10 %) and ``littles_reason`` (likely cause: synchronous engine, buffered libaio,
    fio CPU-bound, batch options).

Table helpers for notebooks: ``knee_table(series)``, ``usl_table(points, x)``, ``flag_table(df)``,
``linear_region_table(series)`` (fit of IOPS = N / service latency in the unsaturated region,
with residuals), ``numjobs_series(df)``, ``aggregate_repeats(df)`` (mean and 95 % CI).
"""

from helpers.analysis.blocksize import bandwidth_plateau, blocksize_series
from helpers.analysis.card import DeviceCard, device_card
from helpers.analysis.cliff import WriteCliff, find_write_cliff, sustained_write_cliffs, write_cliff_sentence
from helpers.analysis.compare import common_points, run_metrics, spec_comparison
from helpers.analysis.flags import flag_table
from helpers.analysis.hosts import host_table, label_hosts
from helpers.analysis.knee import Knee, find_knee, knee_table
from helpers.analysis.littles import LinearFit, fit_linear_region, linear_region_table, littles_law
from helpers.analysis.mix import mix_series
from helpers.analysis.openloop import offered_rate, openloop_table
from helpers.analysis.overview import distribution, grid, held_constant
from helpers.analysis.points import operations, totals, with_units
from helpers.analysis.qd import qd_series, qd_table
from helpers.analysis.repeats import aggregate_repeats, mean_ci
from helpers.analysis.tail import distribution_percentile, latency_distribution, percentiles_long
from helpers.analysis.timeseries import consistency, point_series, stall_windows, with_unstable
from helpers.analysis.usl import UslFit, fit_usl, numjobs_series, usl, usl_table

__all__ = [
    "Knee", "LinearFit", "UslFit", "aggregate_repeats", "find_knee", "fit_linear_region", "flag_table", "fit_usl", "knee_table",
    "linear_region_table", "littles_law", "mean_ci", "numjobs_series", "qd_series", "qd_table", "usl", "usl_table",
]
__all__ += [  # analysis views (issue 4)
    "DeviceCard", "bandwidth_plateau", "blocksize_series", "common_points", "device_card", "distribution",
    "distribution_percentile", "grid", "held_constant", "latency_distribution", "mix_series", "operations",
    "percentiles_long", "run_metrics", "spec_comparison", "totals", "with_units",
]
__all__ += ["host_table", "label_hosts", "offered_rate", "openloop_table"]  # sweep engine (issue 6)
__all__ += ["consistency", "point_series", "stall_windows", "with_unstable"]  # time inside a point (issue 12)
__all__ += ["WriteCliff", "find_write_cliff", "sustained_write_cliffs", "write_cliff_sentence"]  # issue 12
