"""Percentiles and CDF from json+ bins, checked against fio's own percentiles in the same file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers.fio import histogram
from helpers.ingest import core as ingest

CORPUS = Path(__file__).parent / "data" / "fio"


def test_fio_rule_first_bin_reaching_p_percent():
    bins, counts = [400, 100, 300, 200], [1, 1, 1, 1]  # unsorted on purpose
    assert histogram.percentile(bins, counts, 25) == 100  # 1 >= 0.25 * 4
    assert histogram.percentile(bins, counts, 50) == 200  # 2 >= 2: fio takes the bin that reaches it
    assert histogram.percentile(bins, counts, 50.1) == 300
    assert histogram.percentile(bins, counts, 100) == 400
    assert list(histogram.percentile(bins, counts, [0, 75])) == [100.0, 300.0]
    assert np.isnan(histogram.percentile([], [], 50))
    with pytest.raises(ValueError):
        histogram.percentile(bins, counts, 101)


def test_cdf_is_monotone_and_ends_at_one():
    c = histogram.cdf([10, 30, 20], [5, 3, 2])
    assert list(c.bin_ns) == [10, 20, 30] and list(c.cum_count) == [5, 7, 10]
    assert list(c.cdf) == [0.5, 0.7, 1.0]


def test_percentiles_match_fios_own_in_the_same_file():
    path = CORPUS / "jsonplus/randrw-mix70.json"
    job = json.loads(path.read_text())["jobs"][0]
    hist = ingest.ingest_paths([path], "t").histograms
    ps = [float(k) for k in job["read"]["clat_ns"]["percentile"]]
    table = histogram.percentiles(hist, ps)
    assert len(table) == 2
    for d in ("read", "write"):
        h = hist[hist.direction == d]
        fio = job[d]["clat_ns"]["percentile"]
        ours = histogram.percentile(h.bin_ns, h["count"], ps)
        for v, o in zip(fio.values(), ours):
            assert o == pytest.approx(v, rel=0.01)  # fio's bin resolution
            assert o == v  # same bins, same rule: identical in fact
        row = table[table.direction == d].iloc[0]
        assert row["p99_us"] == fio["99.000000"] / 1000
    cdf = histogram.cdf_table(hist)
    assert set(cdf.groupby("direction").cdf.max()) == {1.0}
    assert (cdf.groupby("direction").cum_count.diff().dropna() >= 0).all()
