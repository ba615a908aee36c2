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

SNIA PTS steady state (issue 24)::

    from helpers.analysis import pts_steady_state

``pts_steady_state(values, window=5, max_range_pct=20.0, max_excursion_pct=10.0) -> PtsSteadyState``
    One tracked value per round (round 1 first).  ``steady``; ``first_round``/``last_round`` (1-based): the
    first window of ``window`` rounds whose max - min <= ``max_range_pct`` % of its average and whose
    least-squares excursion |slope| x (window - 1) <= ``max_excursion_pct`` % of it; without one the last
    ``window`` rounds (None with fewer rounds); ``average``, ``range_pct``, ``excursion_pct``, ``slope`` (per
    round), ``intercept``, ``reason`` (always set).  The one home of the rule is helpers.run.steady_state
    (the sweep's rounds stop on it).

Run comparison (issue 13)::

    from helpers.analysis import compare_samples

``compare_samples(a, b, confidence=0.95, higher_is_better=True, method="auto", history=None, run_noise=0.0)``
    -> ``SampleComparison``: ``ratio`` = mean(b) / mean(a), ``low``/``high`` its Fieller interval,
    ``verdict`` ("faster", "slower", "within noise", or "not enough samples" with < 2 samples a side),
    ``effect_size`` (Hedges' g), ``change_pct``, ``method`` ("independent": per-repeat samples, Welch
    variances; "series": per-interval samples, prewhitened Newey-West variances), ``reason``.
    Run-to-run drift: ``history`` (earlier runs' samples, one array per run, >= 2 runs) adds the
    variance of a run's mean from run to run, ``run_noise`` a stated one; ``drift``, ``run_cv`` say
    which.  docs/statistics.md.

``compare_runs(samples, base, new, metrics=None, keys=MATCH_KEYS, history=None, run_noise=0.0) -> RunComparison``
    Points matched by configuration (never by name); ``table`` (one row per point and metric:
    ratio, interval, verdict, effect size, ``drift``: runs as samples / interleaved / history /
    assumed / not measured), ``unmatched``, ``summary`` (one line), ``drift_summary``,
    ``regressions(max_regression_pct)``.  Single runs one after the other with nothing measuring the
    drift get the verdict "drift not measured" instead of faster/slower.  Samples:
    ``repeat_samples(results, histograms)`` (per repeat; p99/p99.9 of completion latency from json+
    bins) and/or ``interval_samples(timeseries, results)``; ``run_comparison(results, histograms,
    run_ids, history_results=...)`` for notebooks.

``slo_capacity(iodepth, iops, p99_us, slo_us) -> SloCapacity``
    Max IOPS of one closed-loop QD series with p99 <= slo_us: ``max_iops`` (None when no measured
    point meets it), ``at_iodepth`` (interpolated in log space, may be fractional), ``reason``,
    ``limited_by`` ("slo", or "range": met at every measured depth, so at least).  Open loop:
    ``slo_rate_capacity(offered, achieved, p99_us, slo_us)``.  ``slo_table(results, slo_us)`` per
    series (p99 of total latency ``lat_p99_us`` when fio measured it, else of completion latency);
    ``slo_card_sentence(results, slo_us)`` for the device card.

``slo_cross_check(manifests) -> DataFrame``
    Per SLO-search series (``mode: slo``): the search's capacity against fio's own ``latency_target``
    result (the cross-check point), ``difference_pct``, ``agree`` and a one-sentence ``verdict`` saying
    why they differ (:func:`cross_check_verdict`), with device time against a full rate grid;
    ``slo_search_steps(manifests)``: every step of the searches.
"""

from helpers.analysis.adaptive import (
    adaptive_steps,
    characterize_phase_table,
    search_plateaus,
    search_steps,
    search_table,
)
from helpers.analysis.blocksize import bandwidth_plateau, blocksize_series
from helpers.analysis.burst import (
    BurstSeries,
    TokenBucket,
    burst_buckets,
    burst_series,
    token_bucket,
)
from helpers.analysis.burst_flags import in_burst_points
from helpers.analysis.card import DeviceCard, device_card, series_summary
from helpers.analysis.cliff import (
    WriteCliff,
    cache_absorbed_reason,
    find_write_cliff,
    point_cliff,
    preconditioning_note,
    sustained_write_cliffs,
    write_cliff_sentence,
)
from helpers.analysis.compare import common_points, run_metrics, spec_comparison, spec_warning
from helpers.analysis.demand import demand_envelope, demand_knee_table, demand_points, demand_varied
from helpers.analysis.flags import flag_sentences, flag_table, flagged_rows
from helpers.analysis.health import health_note, temperature_at_gb, temperature_series
from helpers.analysis.hosts import host_table, label_hosts, multi_host_rows
from helpers.analysis.knee import Knee, find_knee, knee_table
from helpers.analysis.littles import LinearFit, fit_linear_region, linear_region_table, littles_law
from helpers.analysis.mix import mix_series
from helpers.analysis.openloop import offered_rate, openloop_table
from helpers.analysis.overview import distribution, grid, held_constant, held_section, pick_held
from helpers.analysis.points import (
    latency_columns,
    left_out_sentence,
    operations,
    split_configured,
    totals,
    with_latency,
    with_units,
)
from helpers.analysis.qd import qd_series, qd_table
from helpers.analysis.repeats import aggregate_repeats, mean_ci
from helpers.analysis.runpair import (
    RunComparison,
    compare_runs,
    comparison_samples,
    interval_samples,
    no_common_configuration,
    repeat_samples,
    run_comparison,
)
from helpers.analysis.samples import SampleComparison, compare_samples
from helpers.analysis.slo import (
    CrossCheck,
    SloCapacity,
    cross_check_verdict,
    slo_capacity,
    slo_card_sentence,
    slo_cross_check,
    slo_rate_capacity,
    slo_search_steps,
    slo_table,
)
from helpers.analysis.steady_state import (
    PtsSteadyState,
    SteadyStateRun,
    first_steady_state_run,
    pts_steady_state,
    steady_state_result,
    steady_state_runs,
)
from helpers.analysis.tail import distribution_percentile, latency_distribution, percentiles_long
from helpers.analysis.timeseries import (
    consistency,
    consistency_table,
    point_series,
    stall_windows,
    with_unstable,
)
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
__all__ += ["host_table", "label_hosts", "multi_host_rows", "offered_rate", "openloop_table"]  # sweep engine (issue 6)
__all__ += ["SteadyStateRun", "first_steady_state_run", "steady_state_runs"]
__all__ += ["PtsSteadyState", "pts_steady_state", "steady_state_result"]  # SNIA PTS (issue 24)
__all__ += ["flag_sentences", "flagged_rows", "latency_columns", "spec_warning", "with_latency", "held_section",
            "pick_held"]  # issue 10
__all__ += ["RunComparison", "SampleComparison", "compare_runs", "compare_samples", "interval_samples",  # issue 13
            "repeat_samples", "run_comparison", "comparison_samples"]
__all__ += ["SloCapacity", "slo_capacity", "slo_card_sentence", "slo_rate_capacity", "slo_table"]  # SLO (issue 13)
__all__ += ["CrossCheck", "cross_check_verdict", "slo_cross_check", "slo_search_steps"]  # SLO search vs fio (13.7)
__all__ += ["consistency", "consistency_table", "point_series", "stall_windows", "with_unstable"]  # time inside a point (issue 12)
__all__ += ["WriteCliff", "cache_absorbed_reason", "find_write_cliff", "point_cliff", "sustained_write_cliffs",
            "write_cliff_sentence", "preconditioning_note"]  # issue 12; 34.2
__all__ += ["no_common_configuration", "series_summary"]  # the compare page's and the gate's one rule (issue 34.7)
__all__ += ["left_out_sentence", "split_configured"]  # rows whose files do not state the workload (issue 11)
__all__ += ["adaptive_steps", "characterize_phase_table", "search_plateaus", "search_steps", "search_table"]  # the sweep notebook's record of adaptive searches
__all__ += ["health_note", "temperature_at_gb", "temperature_series"]  # device temperature (issue 12)
__all__ += ["demand_envelope", "demand_knee_table", "demand_points", "demand_varied"]  # demand intensity (issue 31)
__all__ += ["BurstSeries", "TokenBucket", "burst_buckets", "burst_series", "in_burst_points", "token_bucket"]  # bursts (issue 33)
