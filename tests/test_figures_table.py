"""The one table formatter (issue 10 point 5): readable numbers, units in headers, no None/<NA> text,
sentences kept whole; and the notebook's HTML table built from it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.figures.table import MISSING, format_number, format_table, header
from helpers.notebook import page

LONG = ("ran 1.0 s: too short for steady state (< 3 s); fio used 97 % of a CPU (CPU-bound); repeats of this "
        "point vary by 14 % (CV) in IOPS")


@pytest.mark.parametrize(("value", "text"), [
    (9973.4, "9,973"), (1234567, "1,234,567"), (812.3, "812"), (45.83, "45.8"), (2.345, "2.35"), (0.012345, "0.0123"), (4.63e-19, "4.63e-19"),
    (0.0, "0"), (-45.83, "-45.8"), (None, MISSING), (float("nan"), MISSING), (pd.NA, MISSING), (np.int64(16), "16"),
    (True, "yes"), (False, "no")])
def test_numbers_have_three_significant_digits_and_thousands_separators(value, text):
    assert format_number(value) == text


def test_headers_carry_units_and_name_the_latency():
    assert header("lat_p99_us") == "p99 total latency (µs)"
    assert header("clat_p99_9_us") == "p99.9 completion latency, clat (µs)"
    assert header("p99_us", "total latency") == "p99 total latency (µs)"
    assert header("lat_mean_us") == "mean total latency (µs)"
    assert header("bw_bytes_per_s") == "bandwidth (MB/s)" and header("runtime_s") == "runtime (s)"
    assert header("some_share_pct") == "some share (%)"


def test_table_cells_missing_values_block_sizes_bandwidth_and_whole_sentences():
    df = pd.DataFrame({"point_id": ["a", None], "bs_bytes": [4096, 1048576], "iops": [9973.4, np.nan],
                       "bw_bytes_per_s": [40_850_000.0, 2.5e9], "p99_us": [1234.5, 88.123],
                       "percentile_latency": "total latency",
                       "flag_reasons": pd.array([LONG, pd.NA], dtype="string")}).set_index("point_id")
    t = format_table(df)
    assert list(t.columns) == ["point", "block size", "IOPS", "bandwidth (MB/s)", "p99 total latency (µs)", "flags"]
    assert t.iloc[0].tolist() == ["a", "4k", "9,973", "40.9", "1,234", LONG]
    assert t.iloc[1].tolist() == [MISSING, "1m", MISSING, "2,500", "88.1", MISSING]
    text = t.to_string()
    assert "None" not in text and "<NA>" not in text and "nan" not in text


def test_page_table_wraps_long_sentences_and_scrolls_instead_of_running_off_the_page():
    df = pd.DataFrame({"point_id": ["a"], "iops": [12345.6], "flag_reasons": [LONG]})
    html = page.table(df)._repr_html_()
    assert LONG.replace("<", "&lt;") in html  # the whole sentence, not cut at 50 characters
    assert "overflow-x:auto" in html and "white-space:normal" in html
    assert "12,346" in html and "<th>IOPS</th>" in html
    assert "This run has no rows" in page.table(df.iloc[0:0])._repr_html_()
    sub = page.table(df, columns=["iops", "missing_column"])
    assert list(sub.cells.columns) == ["IOPS"]


def test_block_size_plateau_slo_and_knee_tables_read_without_raw_column_names():
    """Issue 22.7: the block-size plateau table showed 'peak bs (bytes)' 131,072, the SLO table 'max iops',
    'at iodepth', 'limited by' and the knee table 'max qd' (raw column names); the CSV keeps bytes and says so."""
    from figdata import rows
    from helpers import analysis
    from helpers.figures.table import csv_table

    plateau = pd.DataFrame({"series": ["read QD8"], "peak_mb_per_s": [1918.0], "peak_bs_bytes": [131072],
                            "plateau_bs_bytes": [65536], "fall_bs_bytes": [pd.NA]})
    cells = format_table(plateau)
    assert list(cells.iloc[0]) == ["read QD8", "1,918", "128k", "64k", MISSING]
    assert "block size at the peak" in cells.columns and not any("bs" in c for c in cells.columns)
    assert list(csv_table(plateau).columns)[2:] == ["block size at the peak (bytes)",
                                                   "bandwidth plateau from block size (bytes)",
                                                   "larger block furthest below the peak (bytes)"]
    qd = rows([{"point_id": f"p{q}", "iodepth": q, "iops": x, "clat_p99_us": p}
               for q, x, p in [(1, 37e3, 42.0), (4, 85e3, 69.0), (16, 118e3, 326.0)]])
    shown = set(format_table(analysis.slo_table(qd, 1000.0)).columns)
    shown |= set(format_table(analysis.knee_table(analysis.qd_series(qd))).columns)
    raw = {"max iops", "max iops low", "max iops high", "at iodepth", "at rate iops", "max qd", "peak bs (bytes)"}
    assert not shown & raw, shown & raw


def test_depths_held_as_floats_read_as_integers():
    """Issue 34.6: the queue-depth page's knee table showed 'knee (QD) 8.00' beside 16 and 32 (a float column,
    NaN for a series without a knee, and three significant digits below 10)."""
    df = pd.DataFrame({"knee_qd": [8.0, 16.0, float("nan")], "latency_knee_qd": [4.0, 2.0, 1.0],
                       "iodepth": [1.0, 8.0, 512.0], "fraction_of_peak": [1.0, 0.926, 0.5]})
    out = format_table(df)
    assert list(out["knee (QD)"]) == ["8", "16", MISSING]
    assert list(out["latency knee (QD)"]) == ["4", "2", "1"] and list(out["queue depth (QD)"]) == ["1", "8", "512"]
    assert list(out["knee IOPS / peak IOPS"]) == ["1.00", "0.926", "0.500"]  # a ratio keeps its digits
