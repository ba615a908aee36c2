"""Multi-host figure (helpers.figures.hosts): one bar trace per host, the all-hosts aggregate as markers."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis.hosts import host_table
from helpers.figures.hosts import hosts_figure


def table() -> pd.DataFrame:
    return host_table(rows([
        {"point_id": "qd1", "host": "h1:8765", "iops": 1000.0},
        {"point_id": "qd1", "host": "h2:8765", "iops": 1500.0},
        {"point_id": "qd8", "host": "h1:8765", "iops": 6000.0},
        {"point_id": "qd8", "host": "h2:8765", "iops": 7000.0},
    ]))


def test_bars_per_host_and_aggregate_markers():
    fig = hosts_figure(table())
    assert [t.type for t in fig.data] == ["bar", "bar", "scatter"]
    assert [t.name for t in fig.data] == ["h1:8765", "h2:8765", "all hosts"]
    h1, h2, agg = fig.data
    assert list(h1.x) == ["qd1 (read)", "qd8 (read)"] and list(h1.y) == [1000.0, 6000.0]
    assert list(h2.x) == ["qd1 (read)", "qd8 (read)"] and list(h2.y) == [1500.0, 7000.0]
    assert list(agg.x) == ["qd1 (read)", "qd8 (read)"] and list(agg.y) == [2500.0, 13000.0]
    assert agg.mode == "markers" and agg.marker.symbol == "diamond"
    assert fig.layout.barmode == "group" and fig.layout.title.text == "Per-host and aggregate"


def test_y_axis_follows_the_metric_and_its_unit_bearing_column_name():
    fig = hosts_figure(table(), metric="bw_bytes_per_s", title="Bandwidth per host")
    assert fig.layout.yaxis.title.text == "Bandwidth (bytes per second)" and fig.layout.title.text == "Bandwidth per host"
    assert list(fig.data[-1].y) == pytest.approx([2500.0 * 4096, 13000.0 * 4096])  # figdata: bw = iops x 4k
    assert hosts_figure(table()).layout.yaxis.title.text == "IOPS (I/O operations per second)"
    assert hosts_figure(table()).layout.xaxis.title.text == "point (direction)"


def test_directions_are_labelled_apart():
    t = host_table(rows([{"point_id": "mix", "rw": "randrw", "direction": d, "host": h, "iops": v}
                         for d, h, v in (("read", "a", 70.0), ("write", "a", 30.0),
                                         ("read", "b", 60.0), ("write", "b", 20.0))]))
    fig = hosts_figure(t)
    agg = fig.data[-1]
    assert list(agg.x) == ["mix (read)", "mix (write)"] and list(agg.y) == [130.0, 50.0]


def test_no_table_says_so_in_one_sentence():
    for empty in (None, pd.DataFrame(), table().iloc[0:0]):
        fig = hosts_figure(empty)
        assert not fig.data
        assert [a.text for a in fig.layout.annotations] == ["No multi-host points in this run."]
