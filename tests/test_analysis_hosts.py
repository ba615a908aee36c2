"""Multi-host tables (helpers.analysis.hosts): host:port labels from the manifest and the all-hosts
aggregate (sums, worst-host percentiles, IOPS-weighted mean latency).  Known answers, no fio."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis.hosts import host_table, label_hosts, multi_host_rows


def two_host_rows() -> pd.DataFrame:
    # fio reports the connection address as hostname: both servers on 10.0.0.5 look alike
    return rows([
        {"point_id": "p1", "job_index": 0, "host": "10.0.0.5", "iops": 1000.0, "lat_mean_us": 100.0,
         "clat_p50_us": 90.0, "clat_p99_us": 200.0, "clat_p99_9_us": 400.0, "clat_p99_99_us": 800.0,
         "lat_max_us": 900.0, "io_bytes": 4096000, "total_ios": 1000},
        {"point_id": "p1", "job_index": 1, "host": "10.0.0.5", "iops": 3000.0, "lat_mean_us": 300.0,
         "clat_p50_us": 80.0, "clat_p99_us": 500.0, "clat_p99_9_us": 300.0, "clat_p99_99_us": 1200.0,
         "lat_max_us": 1500.0, "io_bytes": 12288000, "total_ios": 3000},
        {"point_id": "p2", "job_index": 0, "host": "10.0.0.5", "iops": 2000.0, "lat_mean_us": 50.0},
        {"point_id": "p2", "job_index": 1, "host": "10.0.0.5", "iops": 2000.0, "lat_mean_us": 150.0},
    ])


MANIFEST = {"points": {"p1": {"clients": {"0": "10.0.0.5:8765", "1": "10.0.0.5:8766"}},
                       "p2": {"clients": {"0": "10.0.0.5:8765", "1": "10.0.0.5:8766"}}}}


def test_label_hosts_uses_the_manifest_client_map():
    df = two_host_rows()
    out = label_hosts(df, MANIFEST)
    assert list(out["host"]) == ["10.0.0.5:8765", "10.0.0.5:8766", "10.0.0.5:8765", "10.0.0.5:8766"]
    assert out["host"].dtype == "string"
    assert list(df["host"]) == ["10.0.0.5"] * 4  # the input is not modified
    assert out.drop(columns="host").equals(df.drop(columns="host"))


def test_label_hosts_keeps_host_without_a_map():
    df = rows([{"point_id": "p1", "job_index": 0, "host": "alpha"},
               {"point_id": "p1", "job_index": 2, "host": "beta"},  # job index not in the map
               {"point_id": "local", "job_index": 0, "host": "gamma"},  # point not in the manifest
               {"point_id": "noclients", "job_index": 0, "host": "delta"}])  # point without clients
    m = {"points": {"p1": {"clients": {"0": "alpha:9000"}}, "noclients": {"status": "ok"}}}
    assert list(label_hosts(df, m)["host"]) == ["alpha:9000", "beta", "gamma", "delta"]
    assert list(label_hosts(df, {})["host"]) == ["alpha", "beta", "gamma", "delta"]


def test_label_hosts_on_empty_or_foreign_frames():
    empty = two_host_rows().iloc[0:0]
    assert label_hosts(empty, MANIFEST).empty
    no_index = two_host_rows().drop(columns="job_index")
    assert list(label_hosts(no_index, MANIFEST)["host"]) == ["10.0.0.5"] * 4


def test_host_table_sums_throughput_and_takes_the_worst_percentile():
    t = host_table(label_hosts(two_host_rows(), MANIFEST))
    assert len(t) == 2 * 3  # two points x (two hosts + all hosts)
    # sorted by point, then host ("1..." sorts before "all hosts")
    assert list(zip(t["point_id"], t["host"], t["hosts"])) == [
        ("p1", "10.0.0.5:8765", 1), ("p1", "10.0.0.5:8766", 1), ("p1", "all hosts", 2),
        ("p2", "10.0.0.5:8765", 1), ("p2", "10.0.0.5:8766", 1), ("p2", "all hosts", 2)]
    agg = t[t["host"] == "all hosts"].set_index("point_id")
    assert agg.loc["p1", "iops"] == pytest.approx(4000.0)
    assert agg.loc["p1", "bw_bytes_per_s"] == pytest.approx(4000.0 * 4096)  # figdata: iops x bs
    assert agg.loc["p1", "io_bytes"] == 4096000 + 12288000 and agg.loc["p1", "total_ios"] == 4000
    # percentiles: the worst host per column (not one host's row): p50 90, p99 500, p99.9 400, p99.99 1200
    assert agg.loc["p1", ["clat_p50_us", "clat_p99_us", "clat_p99_9_us", "clat_p99_99_us"]].tolist() == \
        [90.0, 500.0, 400.0, 1200.0]
    assert agg.loc["p1", "lat_max_us"] == 1500.0
    # mean latency weighted by IOPS: (1000 x 100 + 3000 x 300) / 4000 = 250 (plain mean would be 200)
    assert agg.loc["p1", "lat_mean_us"] == pytest.approx(250.0)
    assert agg.loc["p2", "lat_mean_us"] == pytest.approx(100.0)  # equal weights: (50 + 150) / 2
    assert (agg["hosts"] == 2).all() and (agg["direction"] == "read").all() and (agg["run_id"] == "r1").all()
    per = t[t["host"] != "all hosts"].set_index(["point_id", "host"])
    assert per.loc[("p1", "10.0.0.5:8766"), "iops"] == 3000.0 and per.loc[("p1", "10.0.0.5:8766"), "hosts"] == 1
    assert per.loc[("p1", "10.0.0.5:8765"), "clat_p99_us"] == 200.0  # per-host rows are as measured


def test_host_table_keeps_points_and_directions_apart():
    df = rows([{"point_id": "mix", "rw": "randrw", "direction": "read", "host": "a", "iops": 700.0},
               {"point_id": "mix", "rw": "randrw", "direction": "write", "host": "a", "iops": 300.0},
               {"point_id": "mix", "rw": "randrw", "direction": "read", "host": "b", "iops": 600.0},
               {"point_id": "mix", "rw": "randrw", "direction": "write", "host": "b", "iops": 200.0},
               {"run_id": "r2", "point_id": "mix", "rw": "randrw", "direction": "read", "host": "a", "iops": 10.0}])
    t = host_table(df)
    agg = t[t["host"] == "all hosts"].set_index(["run_id", "direction"])["iops"]
    assert agg.to_dict() == {("r1", "read"): 1300.0, ("r1", "write"): 500.0, ("r2", "read"): 10.0}
    assert t[t["host"] == "all hosts"].set_index(["run_id", "direction"])["hosts"].to_dict() == {
        ("r1", "read"): 2, ("r1", "write"): 2, ("r2", "read"): 1}


def test_host_table_zero_iops_has_no_mean_latency():
    t = host_table(rows([{"host": "a", "iops": 0.0, "lat_mean_us": 100.0},
                         {"host": "b", "iops": 0.0, "lat_mean_us": 300.0}]))
    assert math.isnan(t.loc[t["host"] == "all hosts", "lat_mean_us"].iloc[0])


def test_host_table_with_only_some_columns():
    df = pd.DataFrame({"run_id": ["r"] * 2, "point_id": ["p"] * 2, "direction": ["read"] * 2, "host": ["a", "b"],
                       "iops": [10.0, 30.0], "clat_p99_us": [5.0, 7.0]})
    t = host_table(df)
    assert list(t.columns) == ["run_id", "point_id", "direction", "host", "iops", "clat_p99_us", "hosts"]
    agg = t[t["host"] == "all hosts"].iloc[0]
    assert (agg["iops"], agg["clat_p99_us"], agg["hosts"]) == (40.0, 7.0, 2)


def test_host_table_of_nothing():
    empty = two_host_rows().iloc[0:0]
    assert host_table(empty).empty


def test_multi_host_rows_keeps_only_points_measured_on_several_hosts():
    df = rows([{"point_id": "p", "host": "a"}, {"point_id": "p", "host": "b"},
               {"point_id": "single", "host": "a"}, {"run_id": "r2", "point_id": "p", "host": "a"}])
    kept = multi_host_rows(df)
    assert sorted(zip(kept["run_id"], kept["point_id"], kept["host"])) == [("r1", "p", "a"), ("r1", "p", "b")]
    assert multi_host_rows(df[df["point_id"] == "single"]).empty
