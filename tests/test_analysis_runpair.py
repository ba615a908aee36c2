"""Run comparison by configuration: matching, per-repeat and per-interval samples, histogram
percentiles, verdicts and the one-line summary (hand-made tables with known answers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import runpair
from helpers.analysis.samples import compare_samples

T0 = 1_795_000_000  # a fio timestamp (Unix seconds); 0 means "unknown"


def repeated(run: str, prefix: str, iops: list[float], lat: list[float], t0: int = 0, **cfg) -> list[dict]:
    """One row per repeat (its own raw file), point names chosen by ``prefix`` (never used to match); the
    repeats end at fio timestamps T0 + t0, + 2, + 4, ... (runs with t0 0 and 1 are interleaved in time)."""
    out = []
    for i, (x, m) in enumerate(zip(iops, lat)):
        pid = f"{prefix}-r{i}" if i else prefix
        out.append({"run_id": run, "point_id": pid, "source_file": f"{pid}.json", "iops": x, "lat_mean_us": m,
                    "total_ios": int(x), "timestamp_s": T0 + t0 + 2 * i, **cfg})
    return out


QD4 = {"rw": "randread", "direction": "read", "bs_bytes": 4096, "iodepth": 4}
QD16 = {**QD4, "iodepth": 16}


@pytest.fixture
def pair() -> pd.DataFrame:
    """Runs A and B with their repeats interleaved in time (A r0, B r0, A r1, ...)."""
    a = (repeated("A", "grid-randread-bs4k-qd4-nj1", [1000, 1010, 990], [100, 99, 101], **QD4)
         + repeated("A", "grid-randread-bs4k-qd16-nj1", [3000, 3100, 2900], [300, 290, 310], **QD16)
         + repeated("A", "grid-read-bs1m-qd1-nj1", [100, 101, 99], [1e4, 1e4, 1e4],
                    rw="read", direction="read", bs_bytes=1 << 20, iodepth=1))
    b = (repeated("B", "qd-randread-bs4k-qd4-nj1", [800, 808, 792], [125, 124, 126], t0=1, **QD4)
         + repeated("B", "qd-randread-bs4k-qd16-nj1", [3050, 2950, 3000], [295, 305, 300], t0=1, **QD16)
         + repeated("B", "qd-randread-bs4k-qd8-nj1", [2000, 2000, 2001], [200, 200, 200], t0=1,
                    **{**QD4, "iodepth": 8}))
    return rows(a + b)


def test_points_are_matched_by_configuration_not_by_name(pair):
    c = runpair.compare_runs(runpair.repeat_samples(pair), "A", "B", metrics=["iops", "lat_mean"])
    assert sorted(c.table["point"].unique()) == ["4k randread QD16", "4k randread QD4"]
    un = c.unmatched.set_index("point")
    assert un.loc["4k randread QD8", "run_id"] == "B" and un.loc["4k randread QD8", "side"] == "new"
    assert un.loc["1m read QD1", "run_id"] == "A" and un.loc["1m read QD1", "side"] == "base"
    assert c.matched_points == 2


def test_repeats_give_ratio_interval_and_verdict(pair):
    c = runpair.compare_runs(runpair.repeat_samples(pair), "A", "B", metrics=["iops", "lat_mean"])
    t = c.table.set_index(["point", "metric"])
    iops = t.loc[("4k randread QD4", "iops")]
    ref = compare_samples([1000, 1010, 990], [800, 808, 792])
    assert iops["ratio"] == pytest.approx(0.8) and iops["verdict"] == "slower"
    assert (iops["low"], iops["high"]) == (pytest.approx(ref.low), pytest.approx(ref.high))
    assert iops["method"] == "independent" and (iops["n_base"], iops["n_new"]) == (3, 3)
    assert iops["drift"] == "interleaved" and "interleaved in time" in iops["reason"]
    lat = t.loc[("4k randread QD4", "lat_mean")]
    assert lat["ratio"] == pytest.approx(1.25) and lat["verdict"] == "slower"  # latency up = slower
    assert t.loc[("4k randread QD16", "iops"), "verdict"] == "within noise"
    assert c.summary.startswith("1 of 2 points within noise; 4k randread QD4 ")
    assert "IOPS -20 % [" in c.summary or "mean lat +25 % [" in c.summary
    assert "1 point(s) slower, 0 faster" in c.summary and "2 point(s) measured in one run only" in c.summary


def test_regression_threshold(pair):
    c = runpair.compare_runs(runpair.repeat_samples(pair), "A", "B", metrics=["iops"])
    assert list(c.regressions(5)["point"]) == ["4k randread QD4"]  # -20 % with a tight interval
    assert c.regressions(30).empty  # not significantly worse than -30 %


def test_numjobs_clones_of_one_file_are_summed_and_latency_io_weighted():
    r = rows([{"run_id": "A", "source_file": "f.json", "job_index": i, "numjobs": 2, "iops": x, "total_ios": n,
               "lat_mean_us": m, "point_id": "p"} for i, (x, n, m) in enumerate([(600.0, 600, 100.0), (400.0, 200, 400.0)])])
    s = runpair.repeat_samples(r).set_index("metric")["value"]
    assert s["iops"] == 1000.0
    assert s["lat_mean"] == pytest.approx((600 * 100 + 200 * 400) / 800)  # weighted by I/Os completed


def hist(run: str, source: str, job_index: int, bins: dict[int, int]) -> pd.DataFrame:
    return pd.DataFrame({"run_id": run, "source_file": source, "point_id": "p", "job_name": "p",
                         "job_index": job_index, "direction": "read", "bin_ns": list(bins), "count": list(bins.values())})


def test_percentiles_come_from_the_summed_histograms_by_fios_rule():
    r = rows([{"run_id": "A", "source_file": "f.json", "job_index": i, "numjobs": 2, "point_id": "p"} for i in (0, 1)])
    # clone 0: 990 I/Os at 10 us, 10 at 50 us; clone 1: 1000 at 20 us.  Summed: 2000 I/Os; fio's p99
    # is the first bin whose cumulative count reaches 0.99 x 2000 = 1980: 10 us holds 990, 20 us 1990.
    h = pd.concat([hist("A", "f.json", 0, {10_000: 990, 50_000: 10}), hist("A", "f.json", 1, {20_000: 1000})])
    s = runpair.repeat_samples(r, h).set_index("metric")["value"]
    assert s["p99"] == 20.0
    assert s["p99_9"] == 50.0  # 0.999 x 2000 = 1998 > 1990
    assert "p99" not in set(runpair.repeat_samples(r)["metric"])  # without histograms: no percentile


def test_interval_samples_use_the_series_method():
    rng = np.random.default_rng(5)
    res = rows([{"run_id": run, "source_file": f"{run}.json", "job_index": 0} for run in ("A", "B")])
    frames = []
    for run, mean in (("A", 1000.0), ("B", 700.0)):
        x = np.empty(60)
        x[0] = 0.0
        for t in range(1, 60):
            x[t] = 0.7 * x[t - 1] + rng.normal(0, 30)
        frames.append(pd.DataFrame({"run_id": run, "point_id": "p", "source_file": f"{run}.json", "job_index": 0,
                                    "direction": "read", "window_start_s": np.arange(60.0),
                                    "window_end_s": np.arange(1.0, 61.0), "iops": mean + x,
                                    "bytes_per_s": (mean + x) * 4096, "lat_mean_us": 4e6 / (mean + x)}))
    ts = pd.concat(frames, ignore_index=True)
    # two single 60 s runs one after the other: three earlier runs (one result each) measure the drift
    history = rows([{"run_id": f"H{k}", "source_file": f"h{k}.json", "iops": v} for k, v in enumerate([1000, 1020, 985])])
    c = runpair.run_comparison(res, None, ["A", "B"], metrics=["iops"], timeseries=ts, history_results=history)
    row = c.table.iloc[0]
    assert row["method"] == "series" and row["n_base"] == 60 and row["verdict"] == "slower"
    assert row["drift"] == "history" and row["history_runs"] == 3
    assert row["low"] <= 0.7 <= row["high"]
    ref = compare_samples(ts.loc[ts.run_id == "A", "iops"], ts.loc[ts.run_id == "B", "iops"], method="series",
                          history=[[1000.0], [1020.0], [985.0]])
    assert row["ratio"] == pytest.approx(ref.ratio) and row["high"] == pytest.approx(ref.high)
    alone = runpair.run_comparison(res, None, ["A", "B"], metrics=["iops"], timeseries=ts).table.iloc[0]
    assert alone["drift"] == "not measured" and alone["verdict"] == "drift not measured"


def test_repeats_win_over_interval_samples_when_both_exist(pair):
    s = runpair.repeat_samples(pair)
    extra = s[s["metric"] == "iops"].assign(kind="interval", value=lambda d: d["value"] * 2)
    c = runpair.compare_runs(pd.concat([s, extra]), "A", "B", metrics=["iops"])
    assert set(c.table["method"]) == {"independent"}


def test_single_samples_give_ratios_only_and_the_summary_says_so():
    r = rows([{"run_id": "A", "source_file": "a.json", "iops": 1000.0},
              {"run_id": "B", "source_file": "b.json", "iops": 500.0}])
    c = runpair.compare_runs(runpair.repeat_samples(r), "A", "B", metrics=["iops"])
    assert c.table["verdict"].tolist() == ["not enough samples"] and c.table["ratio"].iloc[0] == 0.5
    assert c.summary.startswith("0 of 1 points within noise; 1 of 1 without any interval")


def test_a_throttled_run_matches_when_rate_is_left_out_of_the_keys():
    r = rows(repeated("A", "a", [1000, 1010, 990], [1, 1, 1], **QD4)
             + repeated("B", "b", [700, 701, 699], [1, 1, 1], t0=1, **QD4, rate_iops=700.0))
    s = runpair.repeat_samples(r)
    assert runpair.compare_runs(s, "A", "B").table.empty  # an offered rate is another point
    keys = [k for k in runpair.MATCH_KEYS if k != "rate_iops"]
    c = runpair.compare_runs(s, "A", "B", metrics=["iops"], keys=keys)
    assert c.table["verdict"].tolist() == ["slower"] and c.table["ratio"].iloc[0] == pytest.approx(0.7)


def test_groups_of_runs_and_errors(pair):
    s = runpair.repeat_samples(pair)
    c = runpair.compare_runs(s, ["A"], ["B"], metrics=["iops"])
    assert c.base == ["A"] and len(c.table) == 2
    with pytest.raises(ValueError, match="unknown metric"):
        runpair.compare_runs(s, "A", "B", metrics=["p95"])


def test_one_run_needs_a_second():
    c = runpair.run_comparison(rows([{"run_id": "A"}]), None, ["A"])
    assert c.table.empty and c.summary == runpair.needs_runs_message(["A"])
    assert c.summary.startswith("Comparing needs two or more runs; this report has 1 (A)")
    assert c.unmatched.empty and c.unmatched_empty == ""  # nothing was compared: no claim about both runs
    both = runpair.run_comparison(rows([{"run_id": "A"}, {"run_id": "B"}]), None, ["A", "B"])
    assert both.unmatched.empty and both.unmatched_empty == "Every measured configuration appears in both runs."


def test_point_labels():
    base = {"rw": "randrw", "direction": "write", "bs_bytes": 65536, "iodepth": 32, "numjobs": 4,
            "rwmixread_pct": 70.0, "ioengine": "io_uring", "direct": 0, "rate_iops": 5000.0}
    assert runpair.point_label(base) == "64k randrw write QD32 x4 jobs 70 % read @ 5,000 IOPS offered io_uring buffered"


def test_stonewalled_repeats_in_one_file_stay_separate_samples():
    r = rows([{"run_id": "A", "source_file": "jobs.json", "job_index": i, "point_id": f"rep{i}",
               "iops": x, "total_ios": int(x)} for i, x in enumerate([1000.0, 1100.0, 900.0])])
    s = runpair.repeat_samples(r)
    iops = s[s["metric"] == "iops"]
    assert sorted(iops["value"]) == [900.0, 1000.0, 1100.0]
    assert sorted(iops["sample"]) == ["jobs.json:rep0", "jobs.json:rep1", "jobs.json:rep2"]


def test_groups_of_runs_use_the_run_as_the_sample():
    rng = np.random.default_rng(21)
    recs = []
    for side, level in (("a", 1000.0), ("b", 900.0)):
        for k in range(3):
            recs += repeated(f"{side}{k}", f"{side}{k}", list(level * (1 + k / 100) * (1 + rng.normal(0, 0.01, 3))),
                             [1, 1, 1], **QD4)
    s = runpair.repeat_samples(rows(recs))
    row = runpair.compare_runs(s, ["a0", "a1", "a2"], ["b0", "b1", "b2"], metrics=["iops"]).table.iloc[0]
    run_means = s[s["metric"] == "iops"].groupby("run_id")["value"].mean()
    ref = compare_samples(run_means[["a0", "a1", "a2"]], run_means[["b0", "b1", "b2"]])
    assert (row["n_base"], row["n_new"]) == (3, 3)  # three runs a side, not nine repeats
    assert (row["low"], row["high"]) == (pytest.approx(ref.low), pytest.approx(ref.high))


def test_run_level_samples_keep_the_false_alarm_rate_when_runs_drift():
    # each run has its own level (drift between runs, SD 10 %) and 3 tight repeats (SD 1 %): pooling the
    # repeats of 3 + 3 runs calls many A/A pairs different; one sample per run keeps the nominal rate
    rng = np.random.default_rng(22)
    trials = 400
    level = 1000 * (1 + rng.normal(0, 0.10, (trials, 2, 3, 1)))
    x = level * (1 + rng.normal(0, 0.01, (trials, 2, 3, 3)))
    pooled = np.mean([compare_samples(t[0].ravel(), t[1].ravel()).verdict != "within noise" for t in x])
    by_run = np.mean([compare_samples(t[0].mean(1), t[1].mean(1)).verdict != "within noise" for t in x])
    assert by_run <= 0.10 and pooled > 0.3, (by_run, pooled)


# --- run-to-run drift: where the between-run part of the interval comes from ------------------------


def back_to_back(**b_cfg) -> pd.DataFrame:
    """Run A's three repeats, then run B's (B 20 % slower at QD4), as two runs one after the other."""
    return rows(repeated("A", "a", [1000, 1010, 990], [100, 99, 101], **QD4)
                + repeated("B", "b", [800, 808, 792], [125, 124, 126], t0=10, **QD4, **b_cfg))


def history_runs(levels: list[float], t0: int = -100) -> pd.DataFrame:
    return rows([r for k, lv in enumerate(levels)
                 for r in repeated(f"H{k}", f"h{k}", [lv, lv * 1.01, lv * 0.99], [1e5 / lv] * 3, t0=t0 - 10 * k, **QD4)])


def test_interleaved_in_time():
    assert runpair.interleaved([0, 2, 4], [1, 3, 5])  # A r0, B r0, A r1, ...
    assert runpair.interleaved([0, 3], [1, 4])
    assert not runpair.interleaved([0, 1, 2], [3, 4, 5])  # back to back
    assert not runpair.interleaved([0, 1, 3], [3, 4, 5])  # touching at one timestamp second
    assert not runpair.interleaved([0, 0, 0], [0, 0, 0])  # unknown order (no timestamps)
    assert not runpair.interleaved([0, np.nan, 4], [1, 3, 5]) and not runpair.interleaved([0], [1, 2])
    assert not runpair.interleaved(np.arange(20.0), np.arange(19.5, 40))  # overlapping at the edge only


def test_back_to_back_runs_without_history_do_not_claim_a_change():
    c = runpair.compare_runs(runpair.repeat_samples(back_to_back()), "A", "B", metrics=["iops", "lat_mean"])
    t = c.table.set_index("metric")
    assert set(t["drift"]) == {"not measured"} and set(t["verdict"]) == {"drift not measured"}
    ref = compare_samples([1000, 1010, 990], [800, 808, 792])  # the within-run interval is still shown
    assert (t.loc["iops", "low"], t.loc["iops", "high"]) == (pytest.approx(ref.low), pytest.approx(ref.high))
    assert "beyond the within-run noise" in t.loc["iops", "reason"] and "drift alone could explain it" in t.loc["iops", "reason"]
    assert c.regressions(0).empty  # never a regression
    assert c.summary.startswith("0 of 1 points within noise; 1 point(s) changed beyond the within-run noise (e.g. "
                                "4k randread QD4 mean lat +25 %) but run-to-run drift was not measured")
    assert "not measured" in runpair.drift_sentence(c.table)


def test_history_runs_measure_the_drift():
    s = runpair.repeat_samples(back_to_back())
    calm = runpair.repeat_samples(history_runs([1000, 1010, 995, 1005]))  # runs within ~0.6 % of each other
    c = runpair.compare_runs(s, "A", "B", metrics=["iops"], history=calm)
    row = c.table.iloc[0]
    assert row["drift"] == "history" and row["history_runs"] == 4 and row["verdict"] == "slower"
    assert row["run_cv_pct"] == pytest.approx(100 * np.std([1000, 1010, 995, 1005], ddof=1) / 1002.5, rel=1e-6)
    assert "4 earlier runs" in row["reason"] and list(c.regressions(5)["point"]) == ["4k randread QD4"]
    wild = runpair.repeat_samples(history_runs([1000, 700, 1300, 850]))  # runs ±25 % apart: -20 % is noise
    assert runpair.compare_runs(s, "A", "B", metrics=["iops"], history=wild).table.iloc[0]["verdict"] == "within noise"
    other = runpair.repeat_samples(history_runs([1000, 1010, 995]).assign(iodepth=8))  # another point: unused
    assert runpair.compare_runs(s, "A", "B", metrics=["iops"], history=other).table.iloc[0]["drift"] == "not measured"
    # the compared runs themselves are never their own history
    assert runpair.compare_runs(s, "A", "B", metrics=["iops"], history=s).table.iloc[0]["drift"] == "not measured"
    assert "from earlier runs of the same points (4 runs; run-to-run SD 0.6 %" in runpair.drift_sentence(c.table)


def test_a_stated_run_noise_is_used_when_nothing_measured_it():
    s = runpair.repeat_samples(back_to_back())
    row = runpair.compare_runs(s, "A", "B", metrics=["iops"], run_noise=0.05).table.iloc[0]
    assert row["drift"] == "assumed" and row["run_cv_pct"] == pytest.approx(5.0) and row["verdict"] == "slower"
    assert runpair.compare_runs(s, "A", "B", metrics=["iops"], run_noise=0.15).table.iloc[0]["verdict"] == "within noise"
    # interleaved runs need no assumption: drift is in the samples
    inter = runpair.compare_runs(s.assign(time_s=np.where(s["run_id"] == "A", s["time_s"], s["time_s"] - 9)),
                                 "A", "B", metrics=["iops"], run_noise=0.15).table.iloc[0]
    assert inter["drift"] == "interleaved" and inter["verdict"] == "slower"


def test_several_runs_on_one_side_measure_the_drift_for_a_single_run_on_the_other():
    r = pd.concat([history_runs([1000, 1010, 995, 1005], t0=0), back_to_back().query("run_id == 'B'")])
    c = runpair.compare_runs(runpair.repeat_samples(r), ["H0", "H1", "H2", "H3"], "B", metrics=["iops"])
    row = c.table.iloc[0]
    assert row["drift"] == "history" and row["history_runs"] == 4 and row["verdict"] == "slower"
    g = runpair.compare_runs(runpair.repeat_samples(r), ["H0", "H1"], ["H2", "H3"], metrics=["iops"]).table.iloc[0]
    assert g["drift"] == "runs as samples" and (g["n_base"], g["n_new"]) == (2, 2)


def test_history_must_span_the_time_between_the_compared_runs():
    # base and new a day apart; the other runs were all made within one minute: drift at the scale of a day
    # is not in their spread
    s = runpair.repeat_samples(rows(repeated("A", "a", [1000, 1010, 990], [100, 99, 101], **QD4)
                                    + repeated("B", "b", [800, 808, 792], [125, 124, 126], t0=86_400, **QD4)))
    recent = runpair.repeat_samples(history_runs([1000, 1010, 995, 1005], t0=86_300))
    row = runpair.compare_runs(s, "A", "B", metrics=["iops"], history=recent).table.iloc[0]
    assert row["drift"] == "not measured" and row["verdict"] == "drift not measured"
    assert "the other runs of the point span 30 s, less than the 1.0 days between the compared runs" in row["reason"]
    spread = runpair.repeat_samples(history_runs([1000, 1010, 995, 1005], t0=0))
    spread["time_s"] += spread["run_id"].str[1].astype(int) * 40_000  # runs 11 h apart: 1.4 days in all
    assert runpair.compare_runs(s, "A", "B", metrics=["iops"], history=spread).table.iloc[0]["drift"] == "history"


def test_setting_differences_name_runtime_target_size_profile_host_and_fio():
    from figdata import rows
    from helpers.analysis.runpair import setting_differences

    res = rows([{"run_id": "a", "runtime_s": 5.0}, {"run_id": "b", "runtime_s": 5.5, "fio_version": "fio-3.36"}])
    man = {"a": {"target": {"path": "/t/a.bin"}, "target_size_bytes": 1 << 30, "profile": "quick"},
           "b": {"target": {"path": "/t/b.bin"}, "target_size_bytes": 256 << 20, "profile": "quick"}}
    assert setting_differences(res, ["a"], ["b"], man) == [
        "fio version: base fio-3.33, new fio-3.36", "target: base /t/a.bin, new /t/b.bin",
        "target size: base 1g, new 256m"]  # runtime within 25 %, same profile and host: not listed
    res.loc[1, "runtime_s"] = 60.0
    assert setting_differences(res, ["a"], ["b"])[0] == "measured runtime per point: base 5 s, new 60 s (median)"
    assert setting_differences(res.assign(fio_version="fio-3.33"), ["a"], ["b"], {"a": {}, "b": man["b"]}) == [
        "measured runtime per point: base 5 s, new 60 s (median)"]  # unknown on one side: not compared


def test_setting_differences_of_raw_fio_folders_come_from_fios_options():
    """Issue 22.1: two raw fio folders (no manifest) written to different files of different sizes: the gate
    listed no difference; the results now state fio's filename and size options, and the manifest still wins
    where a run has one."""
    from figdata import rows
    from helpers.analysis.runpair import setting_differences

    res = rows([{"run_id": "a", "runtime_s": 1.0, "target_file": "/s/a.bin", "target_size_bytes": 64 << 20},
                {"run_id": "b", "runtime_s": 1.0, "target_file": "/s/b.bin", "target_size_bytes": 32 << 20}])
    assert setting_differences(res, ["a"], ["b"]) == ["target: base /s/a.bin, new /s/b.bin",
                                                      "target size: base 64m, new 32m"]
    man = {"a": {"target": {"path": "/dev/x"}}, "b": {"target": {"path": "/dev/x"}}}
    assert setting_differences(res, ["a"], ["b"], man) == ["target size: base 64m, new 32m"]


def test_fio_options_state_the_target_and_its_size():
    from helpers.fio import options as fo

    assert fo.target({"filename": "/s/a.bin", "size": "64m"}) == ("/s/a.bin", 64 << 20)
    assert fo.target({"size": "80%"}) == (None, None) and fo.target({}) == (None, None)
    assert fo.target({"filename": "/dev/nvme0n1", "size": "1g"}) == ("/dev/nvme0n1", 1 << 30)


def test_interval_samples_join_on_the_fio_run_of_the_file():
    """Since the ingest writes run_index into both results and timeseries (runs appended to one file), the join
    keys include it, but on_grid dropped it: `make reports RUN=a,b` and `python -m helpers.compare A B` on two
    processed lab runs with logs died with KeyError: 'run_index' (seen on two smoke runs).  on_grid keeps it."""
    res = rows([{"run_id": run, "source_file": f"{run}.json", "job_index": 0, "run_index": 0} for run in ("A", "B")])
    ts = pd.concat([pd.DataFrame({"run_id": run, "point_id": "p", "source_file": f"{run}.json", "run_index": 0,
                                  "job_index": 0, "direction": "read", "window_start_s": np.arange(20.0),
                                  "window_end_s": np.arange(1.0, 21.0), "iops": mean + np.arange(20.0) % 3,
                                  "bytes_per_s": 4096.0 * mean, "lat_mean_us": 1e6 / mean})
                    for run, mean in (("A", 1000.0), ("B", 700.0))], ignore_index=True)
    samples = runpair.interval_samples(ts, res)
    assert len(samples[samples["metric"] == "iops"]) == 40
    row = runpair.run_comparison(res, None, ["A", "B"], metrics=["iops"], timeseries=ts).table.iloc[0]
    assert row["method"] == "series" and row["n_base"] == 20
