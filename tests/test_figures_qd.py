import pytest

from figdata import rows
from helpers import analysis, figures


def qd_rows(sizes=(4096,)):
    return rows([{"bs_bytes": b, "iodepth": q, "iops": 1000.0 * q, "lat_mean_us": 100.0 + q, "clat_p50_us": 90.0 + q,
                  "clat_p99_us": 200.0 + q} for b in sizes for q in (1, 2, 4)])


def test_qd_figure_has_iops_bandwidth_and_three_latencies_on_log2_axes():
    fig = figures.qd_figure(analysis.qd_series(qd_rows()))
    names = [t.name for t in fig.data]
    assert any(n.endswith("IOPS") for n in names) and any(n.endswith("MB/s") for n in names)
    lat = [n for n in names if "latency" in n]
    assert [n.split(") ", 1)[1] for n in lat] == ["mean total latency", "p50 completion latency (clat)",
                                                 "p99 completion latency (clat)"]
    iops = next(t for t in fig.data if t.name.endswith("IOPS"))
    assert list(iops.x) == [1, 2, 4] and list(iops.y) == pytest.approx([1000, 2000, 4000])
    mb = next(t for t in fig.data if t.name.endswith("MB/s"))
    assert list(mb.y) == pytest.approx([4.096, 8.192, 16.384])
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == [1, 2, 4]
    assert "IOPS" in fig.layout.yaxis.title.text and "MB/s" in fig.layout.yaxis2.title.text
    assert fig.layout.yaxis3.type == "log" and "µs" in fig.layout.yaxis3.title.text
    assert not fig.layout.sliders  # one block size: no slider


def test_block_size_slider_when_several_sizes():
    fig = figures.qd_figure(analysis.qd_series(qd_rows((4096, 65536))))
    assert [s.label for s in fig.layout.sliders[0].steps] == ["4k", "64k", "all"]


def test_tradeoff_curve_is_latency_vs_iops_labelled_by_qd():
    fig = figures.qd_tradeoff_figure(analysis.qd_series(qd_rows()))
    p99 = next(t for t in fig.data if "(p99 completion latency (clat))" in t.name)
    assert list(p99.x) == pytest.approx([1000, 2000, 4000]) and list(p99.y) == pytest.approx([201, 202, 204])
    assert list(p99.text) == ["QD1", "QD2", "QD4"]
    assert "IOPS" in fig.layout.xaxis.title.text and fig.layout.yaxis.type == "log"


def test_no_qd_sweep_says_so():
    for f in (figures.qd_figure, figures.qd_tradeoff_figure):
        fig = f(analysis.qd_series(rows([{}])))
        assert not fig.data and "no queue-depth sweep" in fig.layout.annotations[0].text


def test_total_latency_percentiles_are_preferred_and_named():
    """Issue 10 point 1: with fio's total-latency percentiles (lat_percentiles=1) the QD views plot them and
    say so; the completion-latency columns are not mixed in."""
    df = qd_rows().assign(lat_p50_us=[150.0, 160.0, 170.0], lat_p99_us=[300.0, 310.0, 320.0])
    fig = figures.qd_figure(analysis.qd_series(df))
    p99 = next(t for t in fig.data if t.name.endswith("p99 total latency"))
    assert list(p99.y) == pytest.approx([300, 310, 320])
    assert not any("clat" in t.name for t in fig.data)
    assert "total" in fig.layout.yaxis3.title.text
    trade = figures.qd_tradeoff_figure(analysis.qd_series(df))
    assert "p99 total latency" in trade.layout.yaxis.title.text
    table = analysis.qd_table(df)
    assert "lat_p99_us" in table.columns and "clat_p99_us" not in table.columns


def test_one_legend_entry_per_series_beside_the_panels_and_legible_ticks_with_refine_depths():
    """Issue 34.6: a legend of every metric of 8 series (40 entries) was drawn over the block-size slider: one entry
    per series now (its IOPS trace; clicking it hides the series in every panel), to the right of the panels; a
    search's refine depths (23, 45, 91, ...) no longer crowd the ticks: powers of two only."""
    depths = [1, 2, 4, 8, 11, 16, 23, 32, 45, 64, 91, 128]
    df = rows([{"iodepth": q, "iops": 1000.0 * q} for q in depths])
    fig = figures.qd_figure(analysis.qd_series(df))
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert len(shown) == 1 and shown[0].endswith("IOPS") and len(fig.data) >= 3
    assert fig.layout.legend.x >= 1 and fig.layout.legend.orientation == "v"
    assert list(fig.layout.xaxis.tickvals) == [1, 2, 4, 8, 16, 32, 64, 128]


def test_panel_titles_fit_their_panels_and_stay_off_the_legend():
    """Issue 34.6: the latency panel's title ('Latency (µs, log): mean total, p50/p99 ...', ~460 px at 16 px) was
    wider than its panel (~290 px on a 1400 px page) and ran into the legend's title beside it.  Each panel title,
    at a generous 0.6 em per character, fits its panel's share of the plot width."""
    fig = figures.qd_figure(analysis.qd_series(qd_rows()))
    plot_px = 1360 - (fig.layout.margin.l if fig.layout.margin.l is not None else 80) - fig.layout.margin.r
    domains = [fig.layout[f"xaxis{i if i > 1 else ''}"].domain for i in (1, 2, 3)]
    titles = [a for a in fig.layout.annotations if a.yref == "paper" and a.y and a.y >= 1]
    assert len(titles) == 3
    for a, (x0, x1) in zip(sorted(titles, key=lambda a: a.x), domains):
        size = (a.font.size if a.font and a.font.size else 16)
        assert len(a.text) * 0.6 * size <= (x1 - x0) * plot_px, a.text
