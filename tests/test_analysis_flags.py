"""Validity-flag table (helpers.analysis.flags.flag_table): which rows, which columns.  No fio, no files."""

from __future__ import annotations

import pandas as pd

from figdata import rows
from helpers.analysis.flags import ID_COLUMNS, flag_table
from helpers.processed.validity import add_flags

BOOL_FLAGS = ["flag_page_cache", "flag_cpu_bound", "flag_few_ios", "flag_short_run", "flag_repeat_spread", "flag_implausible",
              "flag_throttled"]
FLAG_COLS = ["flag_page_cache", "flag_cpu_bound", "flag_few_ios", "unreliable_percentiles", "flag_short_run",
             "flag_repeat_spread", "flag_implausible", "flag_throttled", "flag_reasons"]


def test_one_row_per_raised_flag_of_any_kind():
    df = rows([
        {"point_id": "clean"},
        {"point_id": "cache", "direct": 0, "flag_page_cache": True, "flag_reasons": "buffered I/O"},
        {"point_id": "cpu", "flag_cpu_bound": True, "flag_reasons": "fio used 99 % of a CPU (CPU-bound)"},
        {"point_id": "clean2", "iodepth": 8},
        {"point_id": "few", "flag_few_ios": True, "unreliable_percentiles": "clat_p99_99_us"},  # no reason text
        {"point_id": "short", "flag_short_run": True, "flag_reasons": "ran 1.0 s"},
        {"point_id": "spread", "flag_repeat_spread": True, "flag_reasons": "repeats vary"},
        {"point_id": "two", "flag_cpu_bound": True, "flag_short_run": True, "flag_reasons": "cpu; short"},
    ])
    t = flag_table(df)
    assert list(t["point_id"]) == ["cache", "cpu", "few", "short", "spread", "two"]
    assert list(t.index) == list(range(6))
    assert list(t.columns) == ID_COLUMNS + FLAG_COLS
    row = t.set_index("point_id").loc["few"]
    assert row["unreliable_percentiles"] == "clat_p99_99_us" and row["flag_few_ios"]
    assert t.set_index("point_id").loc["cache", "direct"] == 0
    assert t.set_index("point_id").loc["two", "flag_reasons"] == "cpu; short"


def test_flags_from_validity_are_found():
    # 2 s runtime -> short run; direct=0 -> page cache; 10^6 I/Os and 5 s -> clean
    df = add_flags(rows([{"point_id": "ok", "total_ios": 10**6}, {"point_id": "short", "runtime_s": 2.0, "total_ios": 10**6},
                         {"point_id": "buffered", "direct": 0, "total_ios": 10**6}]))
    t = flag_table(df)
    assert list(t["point_id"]) == ["short", "buffered"]
    assert list(t["flag_short_run"]) == [True, False] and list(t["flag_page_cache"]) == [False, True]


def test_missing_values_in_flag_columns_are_not_flags():
    df = rows([{"point_id": "a"}, {"point_id": "b"}, {"point_id": "c"}])
    df["flag_page_cache"] = pd.array([pd.NA, True, pd.NA], dtype="boolean")
    df["flag_cpu_bound"] = pd.Series([None, None, False], dtype=object)
    assert list(flag_table(df)["point_id"]) == ["b"]


def test_older_data_without_some_flag_columns():
    df = rows([{"point_id": "a", "flag_cpu_bound": True}, {"point_id": "b"}])
    df = df.drop(columns=["flag_page_cache", "flag_repeat_spread", "unreliable_percentiles", "ioengine"])
    t = flag_table(df)
    assert list(t["point_id"]) == ["a"]
    assert list(t.columns) == [c for c in ID_COLUMNS if c != "ioengine"] + [
        "flag_cpu_bound", "flag_few_ios", "flag_short_run", "flag_implausible", "flag_throttled", "flag_reasons"]


def test_no_flag_columns_at_all_gives_an_empty_table_with_the_id_columns():
    df = rows([{"point_id": "a"}]).drop(columns=BOOL_FLAGS + ["unreliable_percentiles"])
    t = flag_table(df)
    assert t.empty and list(t.columns) == ID_COLUMNS + ["flag_reasons"]


def test_nothing_flagged_gives_an_empty_table():
    t = flag_table(rows([{"point_id": "a"}, {"point_id": "b", "iodepth": 4}]))
    assert t.empty and list(t.columns) == ID_COLUMNS + FLAG_COLS


def test_every_count_counts_the_same_rows_and_every_flag_has_its_sentence(tmp_path):
    """Issue 10 point 3, as issue 34.4 refined it: a row with only too few I/Os behind a deep percentile
    (flag_reasons stays empty: its throughput is sound) is listed with a sentence by the flag table, but that mark
    belongs to the percentile, not the point: the run summary and the device card count it apart from the
    point-level flags, never as a flagged measurement."""
    from helpers.analysis import device_card
    from helpers.analysis.flags import flagged_rows
    from helpers.notebook.runs import RunData

    df = add_flags(rows([{"point_id": "few", "total_ios": 40_000},  # p99.99 has 4 I/Os beyond it
                         {"point_id": "ok", "rw": "randwrite", "direction": "write", "total_ios": 10**6}]))
    assert df.loc[0, "flag_few_ios"] and df.loc[0, "flag_reasons"] == ""
    t = flag_table(df)
    assert list(t["point_id"]) == ["few"]
    assert t.loc[0, "flag_reasons"] == ("40,000 I/Os: too few for p99.99 (those percentiles only; throughput "
                                        "and mean latency are sound)")
    summary = RunData(tmp_path, ["r1"], df, pd.DataFrame({"run_id": pd.Series(dtype="string")})).summary
    assert summary.loc["r1", "flagged_rows"] == int(flagged_rows(df).sum()) == 0
    assert summary.loc["r1", "few_ios_percentile_rows"] == len(t) == 1
    card = device_card(df)
    assert "validity flag" not in " ".join(card.findings)
    assert "1 of 2 measurements have too few I/Os behind their deepest percentiles" in " ".join(card.findings)
    df.loc[1, ["flag_cpu_bound", "flag_reasons"]] = [True, "fio used 99 % of a CPU (CPU-bound)"]
    assert "1 of 2 measurements carry a validity flag" in " ".join(device_card(df).findings)


def test_a_raised_flag_without_stored_sentence_gets_one():
    df = rows([{"point_id": "cpu", "flag_cpu_bound": True, "flag_reasons": ""}])
    assert flag_table(df).loc[0, "flag_reasons"] == "fio CPU-bound"


def test_the_flag_table_names_the_latency_whose_percentiles_were_measured():
    """Issue 34.8: validity checks the I/O count under clat's column names; where fio wrote total-latency
    percentiles (lat_percentiles=1) the flag table names those, not clat_p99_99_us."""
    df = add_flags(rows([{"point_id": "total", "total_ios": 40_000, "lat_p99_us": 100.0, "lat_p99_99_us": 900.0},
                         {"point_id": "clat", "total_ios": 40_000}]))
    t = flag_table(df).set_index("point_id")["unreliable_percentiles"]
    assert "lat_p99_99_us" in t["total"] and "clat_" not in t["total"]
    assert "clat_p99_99_us" in t["clat"]
