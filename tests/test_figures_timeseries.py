"""Time-series figures (helpers.figures.timeseries): one dropdown entry per point, ramp shaded, display-only
reduction of long series that keeps stalls and spikes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis import timeseries as an
from helpers.figures import timeseries as fts
from timeseries_helpers import frame


def test_figure_per_point_with_ramp_and_dropdown():
    ts = pd.concat([frame([1000] * 8, point="a", clat_p99_us=200.0, clat_p99_9_us=400.0),
                    frame([500] * 8, point="b")], ignore_index=True)
    ts.loc[ts["point_id"] == "a", "unreliable_percentiles"] = "clat_p99_9_us"
    fig = fts.timeseries_figure(an.point_series(ts), an.consistency(ts))
    assert len(fig.layout.updatemenus[0].buttons) == 2
    visible = [t for t in fig.data if t.visible]
    assert {t.name for t in visible} == {"read IOPS", "read mean total latency",
                                         "read p99 completion latency (clat)", "read p99.9 completion latency (clat)"}
    p999 = next(t for t in visible if "p99.9" in t.name)
    assert set(p999.marker.symbol) == {"circle-open"}  # too few I/Os: hollow
    assert fig.layout.shapes[0].x0 == -1.0 and fig.layout.shapes[0].x1 == 0  # ramp shaded
    assert "median 1,000 IOPS" in " ".join(a.text for a in fig.layout.annotations)


def test_display_reduction_keeps_extremes():
    y = np.full(100_000, 1000.0)
    y[54_321] = 3.0
    y[77_777] = 9999.0
    x, r, reduced = fts.display_reduce(np.arange(len(y)), y, 1000)
    assert reduced and len(r) <= 1000 and r.min() == 3.0 and r.max() == 9999.0
    assert np.all(np.diff(x) > 0)
    x2, r2, reduced2 = fts.display_reduce([1, 2, 3], [1, 2, 3], 1000)
    assert not reduced2 and list(r2) == [1, 2, 3]


def test_long_point_is_reduced_for_display_only():
    ts = frame(np.r_[np.full(3600, 1000.0), [5.0]])
    fig = fts.timeseries_figure(an.point_series(ts), an.consistency(ts))
    iops = next(t for t in fig.data if t.name == "read IOPS")
    assert len(iops.x) <= fts.DISPLAY_MAX_WINDOWS and min(iops.y) == 5.0
    assert "min/max per bucket" in fig.layout.title.text


def test_no_logs_is_one_sentence():
    fig = fts.timeseries_figure(pd.DataFrame())
    assert len(fig.layout.annotations) == 1 and "no fio time-series logs" in fig.layout.annotations[0].text


def test_time_no_window_covers_is_drawn_at_zero():
    """After a stall in which fio ticked and no I/O completed, the next entry covers one tick: the uncovered time
    is drawn at 0 IOPS (not a line from the last window before the stall); a hidden narrow window's gap is not."""
    from helpers.figures.timeseries import _gaps_at_zero

    x, y = _gaps_at_zero(np.array([0.0, 1.0, 3.0, 4.0]), np.array([1.0, 2.0, 4.0, 5.0]), np.array([5.0, 5, 7, 5]))
    assert x.tolist() == [1.0, 2.0, 2.0, 3.0, 4.0, 5.0] and y.tolist() == [5, 5, 0, 0, 7, 5]
    x, _ = _gaps_at_zero(np.array([0.0, 1.05, 2.0]), np.array([1.0, 2.0, 3.0]), np.array([5.0, 5, 5]))
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_latency_axis_ticks_at_1_2_5_over_the_drawn_latencies():
    """Issue 22.6: the latency panel's axis was built without the data (powers of ten only: p99 200 µs and
    p99.9 400 µs read '100 · 1k'); now the drawn latencies get 1, 2, 5 x 10^k ticks."""
    ts = frame([1000] * 8, point="a", clat_p99_us=200.0, clat_p99_9_us=400.0)
    fig = fts.timeseries_figure(an.point_series(ts), an.consistency(ts))
    axis = fig.get_subplot(2, 1).yaxis
    assert axis.type == "log" and {"200", "500"} <= set(axis.ticktext)


def test_write_cliff_figure_of_one_window_shows_it_and_says_a_cache_absorbed_it():
    """A sustained write shorter than fio's first log tick has one window (from the JSON): drawn as a marker (one
    point makes no line), and with the run's results the title says the cache's flag, wrapped to fit."""
    from figdata import rows

    point = "sustained-write-bs128k-qd32-nj1-vol1x"
    ts = frame([2.27e9 / 131072], point=point, direction="write", window_s=0.118, from_json=True)
    ts["bytes_per_s"] = 2.27e9
    res = rows([{"point_id": point, "run_id": "r", "rw": "write", "direction": "write", "flag_implausible": True,
                 "flag_reasons": "writes at 1.7x the bandwidth of reads at the same setting (1,367 MB/s) after 256 MiB "
                                 "written: more than a flash device sustains"}])
    fig = fts.write_cliff_figure(an.point_series(ts), results=res)
    assert fig.data[0].mode == "lines+markers" and list(fig.data[0].y) == [2270.0]
    title = fig.layout.title.text
    assert title.replace("<br>", " ").startswith(f"{point}: too few windows (1) to look for a write cliff: 0.268 GB "
                                                 "written in 0.12 s; its writes at 1.7x")
    assert "write-back cache" in title and all(len(x) <= fts.TITLE_WIDTH for x in title.split("<br>"))
    assert fig.layout.margin.t >= 60 + 20 * title.count("<br>")
    assert "write-back" not in fts.write_cliff_figure(an.point_series(ts)).layout.title.text  # without results
