import pandas as pd
import pytest

from figdata import bs_sweep, rows
from helpers import analysis, figures


def test_series_has_decimal_and_binary_units_and_one_line_per_operation_and_qd():
    df = pd.concat([bs_sweep("read"), bs_sweep("write")], ignore_index=True)
    s = analysis.blocksize_series(df)
    assert set(s["series"]) == {"read QD1", "read QD16", "write QD1", "write QD16"}
    r = s[(s["series"] == "read QD16") & (s["bs_bytes"] == 65536)].iloc[0]
    assert r["mb_per_s"] == pytest.approx(400.0) and r["mib_per_s"] == pytest.approx(400e6 / 2**20)


def test_plateau_is_the_smallest_block_size_reaching_90_percent_of_peak():
    p = analysis.bandwidth_plateau(analysis.blocksize_series(bs_sweep()))
    row = p[p["series"] == "read QD16"].iloc[0]
    assert row["plateau_bs_bytes"] == 65536 and row["peak_mb_per_s"] == pytest.approx(410.0)
    assert "64k" in row["note"]


def test_plateau_is_missing_when_bandwidth_still_grows_at_the_largest_block():
    df = rows([{"rw": "read", "bs_bytes": b, "iops": 1000.0} for b in (4096, 65536, 1048576)])
    p = analysis.bandwidth_plateau(analysis.blocksize_series(df))
    assert p["plateau_bs_bytes"].isna().all() and "still growing" in p["note"].iloc[0]


def test_figure_traces_axes_units_values_and_qd_slider():
    s = analysis.blocksize_series(bs_sweep())
    fig = figures.blocksize_figure(s, analysis.bandwidth_plateau(s))
    bw = [t for t in fig.data if t.name == "read QD16" and t.xaxis == "x"]
    assert len(bw) == 1 and list(bw[0].x) == [4096, 65536, 1048576]
    assert list(bw[0].y) == pytest.approx([100.0, 400.0, 410.0])
    assert "MB/s" in fig.layout.yaxis.title.text and "10^6" in fig.layout.yaxis.title.text
    assert "IOPS" in fig.layout.yaxis2.title.text
    assert fig.layout.yaxis3.type == "log" and "µs" in fig.layout.yaxis3.title.text
    assert "4096" in fig.layout.xaxis.title.text and list(fig.layout.xaxis.ticktext) == ["4k", "64k", "1m"]
    assert "MiB" in fig.layout.title.text
    slider = fig.layout.sliders[0]
    assert [s.label for s in slider.steps] == ["QD 1", "QD 16", "all"]
    qd1 = slider.steps[0].args[0]["visible"]
    shown = [t for v, t in zip(qd1, fig.data) if v]
    assert [t.name for t in shown] == ["read QD1"] * 4 + ["bandwidth stops growing"]
    assert shown[-1].hovertemplate.startswith("read QD1:")
    star = [t for t in fig.data if t.name == "bandwidth stops growing"]
    assert star and list(star[-1].x) == [65536]


def test_flagged_points_are_crosses_with_the_reason_in_the_hover():
    df = bs_sweep(qds=(16,))
    df.loc[0, "flag_reasons"] = "fio used 99 % of a CPU (CPU-bound)"
    fig = figures.blocksize_figure(analysis.blocksize_series(df))
    t = fig.data[0]
    assert list(t.marker.symbol) == ["x", "circle", "circle"]
    assert "CPU-bound" in t.customdata[0][2] and t.customdata[1][2] == ""


def test_no_sweep_is_one_sentence():
    fig = figures.blocksize_figure(analysis.blocksize_series(rows([{"rw": "read"}])))
    assert len(fig.data) == 0 and "no block-size sweep" in fig.layout.annotations[0].text


def test_slider_opens_at_the_depth_with_most_points_and_skipped_sizes_are_gaps():
    """Issue 34.6: a characterize run's block sizes at QD 1024 (4k, 16k, 128k from its searches) beside its
    block-size sweep at QD 16 (4k ... 128k): the figure opens at QD 16, not the deepest depth, and the QD 1024
    line breaks where 32k and 64k were not measured instead of joining 16k to 128k straight."""
    sweep = [{"rw": "read", "bs_bytes": b, "iodepth": 16, "iops": 1e9 / b} for b in (4096, 16384, 32768, 65536, 131072)]
    deep = [{"rw": "read", "bs_bytes": b, "iodepth": 1024, "iops": 2e9 / b} for b in (4096, 16384, 131072)]
    fig = figures.blocksize_figure(analysis.blocksize_series(rows(sweep + deep)))
    slider = fig.layout.sliders[0]
    assert slider.steps[slider.active].label == "QD 16"
    line = next(t for t in fig.data if t.name == "read QD1024" and t.xaxis == "x")
    assert list(line.x) == [4096, 16384, 32768, 65536, 131072]
    assert [y is None or y != y for y in line.y] == [False, False, True, True, False]  # NaN: a gap
    assert not line.visible and next(t for t in fig.data if t.name == "read QD16").visible


def test_repeats_of_a_block_size_are_markers_and_the_line_goes_through_their_mean():
    """Issue 34.6: a characterize run's search probed write 4k at QD 128 three times (165k, 140k, 115k IOPS): one
    line through every repeat drew a vertical stroke at 4k.  The line now goes through the mean of the repeats (one
    x per block size), each repeat stays a marker of its own, both under the series' one legend entry."""
    pts = [{"rw": "write", "direction": "write", "bs_bytes": 4096, "iodepth": 128, "iops": i}
           for i in (165_000.0, 140_000.0, 115_000.0)]
    pts.append({"rw": "write", "direction": "write", "bs_bytes": 16384, "iodepth": 128, "iops": 100_000.0})
    fig = figures.blocksize_figure(analysis.blocksize_series(rows(pts)))
    iops = [t for t in fig.data if t.name == "write QD128" and t.xaxis == "x2"]
    lines = [t for t in iops if "lines" in t.mode]
    assert len(lines) == 1 and list(lines[0].x) == [4096, 16384]
    assert list(lines[0].y) == pytest.approx([140_000.0, 100_000.0])
    marks = [t for t in iops if t.mode == "markers"]
    assert len(marks) == 1 and sorted(marks[0].y) == pytest.approx([100_000.0, 115_000.0, 140_000.0, 165_000.0])
    assert sum(t.showlegend is not False for t in fig.data if t.name == "write QD128") == 1
