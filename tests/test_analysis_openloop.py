"""Open-loop table (helpers.analysis.openloop): offered load from rate_iops / manifest / point id,
achieved load, saturation threshold, worst-direction percentiles.  Known answers, no fio."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from helpers.analysis.openloop import COLUMNS, offered_rate, openloop_table


def ol_rows(points: list[dict]) -> pd.DataFrame:
    base = {"rw": "randread", "bs_bytes": 4096, "iodepth": 32, "direction": "read", "host": "h", "numjobs": 1,
            "group_reporting": True, "clat_p50_us": 80.0, "clat_p99_us": 200.0, "clat_p99_9_us": 400.0}
    return pd.DataFrame([{**base, **p} for p in points])


def test_offered_rate_from_manifest_then_point_id():
    m = {"points": {"a-rate100": {"parameters": {"rate_iops": 250}},
                    "b-rate100": {"parameters": {"rate_iops": None}}}}
    assert offered_rate("a-rate100", m) == 250.0  # the manifest wins over the id
    assert offered_rate("b-rate100", m) == 100.0  # no rate in the manifest: the id
    assert offered_rate("ol-randread-bs4k-qd32-nj1-rate3000") == 3000.0
    assert offered_rate("ol-randread-bs4k-qd32-nj1-rate3000-r2") == 3000.0  # repeat suffix
    for pid in ("qd-randread-bs4k-qd32-nj1", "x-rate3k", "x-rated", "x_rate100", "x-rate-100"):
        assert math.isnan(offered_rate(pid)), pid
    assert offered_rate("x-rate5", {"points": {"x-rate5": None}}) == 5.0


def test_table_from_point_ids_sorted_by_offered_load():
    df = ol_rows([
        {"point_id": "ol-rate4000", "iops": 3000.0},
        {"point_id": "ol-rate1000", "iops": 1000.0},
        {"point_id": "ol-rate2000", "iops": 1900.0},  # 95 % exactly: still keeping up
        {"point_id": "qd-closed", "iops": 50000.0},  # closed-loop point: no offered load, left out
    ])
    t = openloop_table(df)
    assert list(t.columns) == [c for c in COLUMNS if c != "run_id"]  # these rows carry no run_id
    assert list(t["point_id"]) == ["ol-rate1000", "ol-rate2000", "ol-rate4000"]
    assert list(t["offered_iops"]) == [1000.0, 2000.0, 4000.0]
    assert list(t["achieved_iops"]) == [1000.0, 1900.0, 3000.0]
    assert list(t["achieved_fraction"]) == pytest.approx([1.0, 0.95, 0.75])
    assert list(t["saturated"]) == [False, False, True]


def test_fraction_threshold_is_a_parameter():
    df = ol_rows([{"point_id": "x-rate1000", "iops": 900.0}])
    assert bool(openloop_table(df)["saturated"].iloc[0])  # 90 % < 95 %
    assert not bool(openloop_table(df, fraction=0.9)["saturated"].iloc[0])  # 90 % is not below 90 %
    assert bool(openloop_table(df, fraction=0.91)["saturated"].iloc[0])


def test_manifest_gives_the_offered_load_when_ids_do_not():
    df = ol_rows([{"point_id": "p-low", "iops": 500.0}, {"point_id": "p-high", "iops": 600.0}])
    m = {"points": {"p-low": {"parameters": {"rate_iops": 500}}, "p-high": {"parameters": {"rate_iops": 5000}}}}
    t = openloop_table(df, m)
    assert list(t["point_id"]) == ["p-low", "p-high"]
    assert list(t["achieved_fraction"]) == pytest.approx([1.0, 0.12])
    assert list(t["saturated"]) == [False, True]
    assert openloop_table(df).empty and list(openloop_table(df).columns) == COLUMNS  # no manifest, no -rateN


def test_rate_column_sums_directions_and_takes_the_worst_percentile():
    # randrw with rate_iops=500 per direction: 1000 offered; achieved 480 + 470 = 950 (95 %)
    df = ol_rows([
        {"point_id": "mix", "rw": "randrw", "direction": "read", "rate_iops": 500.0, "iops": 480.0,
         "clat_p50_us": 70.0, "clat_p99_us": 900.0, "clat_p99_9_us": 1500.0},
        {"point_id": "mix", "rw": "randrw", "direction": "write", "rate_iops": 500.0, "iops": 470.0,
         "clat_p50_us": 95.0, "clat_p99_us": 300.0, "clat_p99_9_us": 2500.0},
    ])
    t = openloop_table(df)
    row = t.iloc[0]
    assert (row["offered_iops"], row["achieved_iops"]) == (1000.0, 950.0) and not row["saturated"]
    assert (row["clat_p50_us"], row["clat_p99_us"], row["clat_p99_9_us"]) == (95.0, 900.0, 2500.0)


def test_ungrouped_clones_count_once_each():
    # numjobs=4 without group_reporting: four rows, each offered 250 -> 1000 in all (not 4 x 4 x 250)
    df = ol_rows([{"point_id": "nj4", "numjobs": 4, "group_reporting": False, "job_index": i, "rate_iops": 250.0,
                   "iops": 200.0} for i in range(4)])
    t = openloop_table(df)
    assert t["offered_iops"].iloc[0] == 1000.0 and t["achieved_iops"].iloc[0] == 800.0
    assert bool(t["saturated"].iloc[0])


def test_rows_without_a_rate_are_dropped_when_the_column_exists():
    df = ol_rows([{"point_id": "ol-rate1000", "rate_iops": 1000.0, "iops": 990.0},
                  {"point_id": "qd32-rate7", "rate_iops": np.nan, "iops": 90000.0}])  # closed loop; id ignored
    t = openloop_table(df)
    assert list(t["point_id"]) == ["ol-rate1000"]
    assert t["achieved_fraction"].iloc[0] == pytest.approx(0.99)


def test_an_all_nan_rate_column_falls_back_to_ids():
    df = ol_rows([{"point_id": "ol-rate800", "rate_iops": np.nan, "iops": 400.0}])
    t = openloop_table(df)
    assert t["offered_iops"].iloc[0] == 800.0 and t["achieved_fraction"].iloc[0] == pytest.approx(0.5)


def test_sorted_by_operation_and_block_size_first():
    df = ol_rows([{"point_id": "w-rate100", "rw": "randwrite", "direction": "write", "iops": 100.0},
                  {"point_id": "r64k-rate100", "bs_bytes": 65536, "iops": 100.0},
                  {"point_id": "r4k-rate900", "iops": 900.0},
                  {"point_id": "r4k-rate100", "iops": 100.0}])
    assert list(openloop_table(df)["point_id"]) == ["r4k-rate100", "r4k-rate900", "r64k-rate100", "w-rate100"]


def test_missing_percentile_columns_are_left_out():
    df = ol_rows([{"point_id": "x-rate10", "iops": 10.0}]).drop(columns=["clat_p99_9_us", "clat_p50_us"])
    t = openloop_table(df)
    assert list(t.columns) == [c for c in COLUMNS if c not in ("run_id", "clat_p50_us", "clat_p99_9_us")]


def test_empty_input():
    t = openloop_table(pd.DataFrame())
    assert t.empty and list(t.columns) == COLUMNS


def test_fallback_offered_load_counts_every_host_like_the_rate_column():
    hosts = ol_rows([{"point_id": "ol-rate1000", "host": h, "iops": 600.0} for h in ("a:8765", "b:8765")])
    with_col = openloop_table(hosts.assign(rate_iops=1000.0)).iloc[0]
    assert (with_col["offered_iops"], bool(with_col["saturated"])) == (2000.0, True)  # the reference
    fallback = openloop_table(hosts).iloc[0]
    assert fallback["offered_iops"] == 2000.0 and bool(fallback["saturated"])


def test_two_runs_with_the_same_point_ids_stay_apart():
    df = pd.concat([ol_rows([{"point_id": "ol-rate1000", "iops": 990.0}]).assign(run_id="ssd-a"),
                    ol_rows([{"point_id": "ol-rate1000", "iops": 400.0}]).assign(run_id="ssd-b")], ignore_index=True)
    t = openloop_table(df)
    assert list(t["run_id"]) == ["ssd-a", "ssd-b"] and list(t["offered_iops"]) == [1000.0, 1000.0]
    assert list(t["saturated"]) == [False, True]  # 99 % and 40 % of the offered load


def test_total_latency_percentiles_travel_with_the_table_and_the_figure_uses_them():
    """Lab runs record total-latency percentiles (lat_percentiles=1): the table carries them beside clat and
    the hockey stick plots them, labelled; without them it plots clat, labelled as completion latency."""
    from helpers.figures.openloop import openloop_figure

    df = ol_rows([{"point_id": "ol-rate1000", "rate_iops": 1000.0, "iops": 990.0, "clat_p50_us": 50.0,
                "clat_p99_us": 90.0, "clat_p99_9_us": 120.0, "lat_p50_us": 60.0, "lat_p99_us": 100.0,
                "lat_p99_9_us": 130.0}])
    t = openloop_table(df)
    assert t[["lat_p50_us", "lat_p99_us", "lat_p99_9_us"]].iloc[0].tolist() == [60.0, 100.0, 130.0]
    fig = openloop_figure(t)
    assert [list(tr.y) for tr in fig.data[:3]] == [[60.0], [100.0], [130.0]]
    assert fig.layout.yaxis.title.text == "total latency (µs)"
    fig = openloop_figure(t.drop(columns=["lat_p50_us", "lat_p99_us", "lat_p99_9_us"]))
    assert [list(tr.y) for tr in fig.data[:3]] == [[50.0], [90.0], [120.0]]
