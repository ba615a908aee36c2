import pandas as pd
import pytest

from figdata import rows
from helpers import analysis, figures


def test_percentiles_figure_one_line_per_point_p50_to_p99_99():
    df = rows([{"iodepth": 1}, {"iodepth": 8, "point_id": "q8", "flag_reasons": "too few I/Os"}])
    fig = figures.percentiles_figure(analysis.percentiles_long(df))
    assert len(fig.data) == 2
    t = fig.data[0]
    assert list(t.x) == ["p50", "p90", "p95", "p99", "p99.9", "p99.99"]
    assert list(t.y) == pytest.approx([90, 120, 130, 200, 300, 400])
    assert fig.layout.yaxis.type == "log" and "µs" in fig.layout.yaxis.title.text
    assert [s.label for s in fig.layout.sliders[0].steps] == ["QD 1", "QD 8", "all"]
    assert set(fig.data[1].marker.symbol) == {"x"}


def test_distribution_from_bins_cdf_and_tail():
    hist = pd.DataFrame({"run_id": "r1", "source_file": "x.json", "point_id": "p0", "job_index": 0,
                         "direction": "read", "bin_ns": [1000, 2000, 4000], "count": [50, 40, 10]})
    dist = analysis.latency_distribution(hist, rows([{"source_file": "x.json"}]))
    assert list(dist["cdf"]) == pytest.approx([0.5, 0.9, 1.0])
    assert list(dist["latency_us"]) == [1.0, 2.0, 4.0] and dist["label"].iloc[0] == "randread 4k QD1"
    fig = figures.latency_distribution_figure(dist)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert list(fig.data[0].y) == pytest.approx([50, 40, 10])
    assert analysis.distribution_percentile(dist, 90)["latency_us"].iloc[0] == 2.0


def test_missing_histograms_are_one_sentence():
    fig = figures.latency_distribution_figure(analysis.latency_distribution(pd.DataFrame()))
    assert not fig.data and "no latency histogram" in fig.layout.annotations[0].text
