"""Known-answer tests for the overview views: operation x block size / QD grids, distributions and
one factor's effect with the others held constant."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import bs_sweep, rows
from helpers.analysis import distribution, grid, held_constant
from helpers.processed import schema

GRID_COLUMNS = ["held", "operation", "x", "iops", "mb_per_s", "lat_mean_us", "p99_us", "n_points", "flagged",
                "flag_reasons", "percentile_latency", "note"]  # note: cells a search did not measure


def empty_results() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of("results")})


def mixed(bs: int, share: float = 70.0, total: float = 1000.0, qd: int = 16) -> list[dict]:
    """A randrw point: reads at 100 µs, writes at 300 µs, ``total`` IOPS split by the read share."""
    return [{"point_id": f"mix{share:g}-{bs}-{qd}", "rw": "randrw", "rwmixread_pct": share, "direction": d,
             "bs_bytes": bs, "iodepth": qd, "iops": total * f, "lat_mean_us": lat}
            for d, f, lat in (("read", share / 100, 100.0), ("write", 1 - share / 100, 300.0))]


def run() -> pd.DataFrame:
    """read at QD1 and QD16, randread at QD16 (64k flagged), randrw 70 % at QD16 (4k, 64k), a repeat of
    read 4k QD16 at 120 MB/s, read x4 jobs at QD16 (not single-job) and a lone randwrite."""
    rr = bs_sweep("randread", qds=(16,))
    rr.loc[rr["bs_bytes"] == 65536, "flag_reasons"] = "fio used 99 % of a CPU (CPU-bound)"
    return pd.concat([
        bs_sweep("read", qds=(1, 16)), rr, rows(mixed(4096) + mixed(65536, total=500.0)),
        rows([{"point_id": "read-4096-16-r1", "rw": "read", "iodepth": 16, "bw_bytes_per_s": 120e6,
               "iops": 120e6 / 4096, "lat_mean_us": 30.0, "clat_p99_us": 60.0}]),
        bs_sweep("read", qds=(16,)).assign(numjobs=4, iops=1.0, bw_bytes_per_s=1.0),
        rows([{"point_id": "lone", "rw": "randwrite", "direction": "write", "iodepth": 16}]),
    ], ignore_index=True)


# --- grid -------------------------------------------------------------------------------------------


def test_grid_cells_in_held_operation_and_block_size_order():
    g = grid(run(), "bs_bytes", "iodepth")
    assert list(g.columns) == GRID_COLUMNS
    cells = list(zip(g["held"], g["operation"], g["x"]))
    sizes = [4096, 65536, 1048576]
    assert cells == ([(1, "read", b) for b in sizes] + [(16, "read", b) for b in sizes]
                     + [(16, "randread", b) for b in sizes] + [(16, "randrw 70% read", b) for b in (4096, 65536)])


def test_grid_values_in_decimal_megabytes_and_iops():
    g = grid(run(), "bs_bytes", "iodepth").set_index(["held", "operation", "x"])
    r = g.loc[(16, "read", 65536)]
    assert r["mb_per_s"] == pytest.approx(400.0) and r["iops"] == pytest.approx(400e6 / 65536)
    assert r["n_points"] == 1
    assert g.loc[(1, "read", 1048576), "mb_per_s"] == pytest.approx(410.0 / 16)


def test_grid_averages_repeats_in_a_cell_and_ignores_multi_job_points():
    r = grid(run(), "bs_bytes", "iodepth").set_index(["held", "operation", "x"]).loc[(16, "read", 4096)]
    # 100 MB/s (figdata: latency 10 x QD x bs/4k = 160 µs, p99 320 µs) and the repeat at 120 MB/s, 30 µs, 60 µs;
    # the numjobs=4 rows (1 IOPS) would pull the mean far down if they were included
    assert r["n_points"] == 2
    assert r["mb_per_s"] == pytest.approx(110.0)
    assert r["iops"] == pytest.approx((100e6 + 120e6) / 2 / 4096)
    assert r["lat_mean_us"] == pytest.approx((160.0 + 30.0) / 2)
    assert r["p99_us"] == pytest.approx((320.0 + 60.0) / 2)


def test_grid_mixed_modes_are_read_plus_write_totals():
    g = grid(run(), "bs_bytes", "iodepth").set_index(["held", "operation", "x"])
    r4, r64 = g.loc[(16, "randrw 70% read", 4096)], g.loc[(16, "randrw 70% read", 65536)]
    assert r4["iops"] == pytest.approx(1000.0) and r64["iops"] == pytest.approx(500.0)
    assert r4["mb_per_s"] == pytest.approx(1000.0 * 4096 / 1e6)
    assert r64["mb_per_s"] == pytest.approx(500.0 * 65536 / 1e6)
    assert r4["lat_mean_us"] == pytest.approx(0.7 * 100.0 + 0.3 * 300.0)  # 160 µs, IOPS-weighted
    assert pd.isna(r4["p99_us"])  # a percentile of two directions is not known


def test_grid_flags_a_cell_when_one_of_its_points_is_flagged():
    g = grid(run(), "bs_bytes", "iodepth").set_index(["held", "operation", "x"])
    assert bool(g.loc[(16, "randread", 65536), "flagged"])
    assert g.loc[(16, "randread", 65536), "flag_reasons"] == "fio used 99 % of a CPU (CPU-bound)"
    others = g.drop(index=(16, "randread", 65536))
    assert not others["flagged"].any() and (others["flag_reasons"] == "").all()


def test_grid_transposed_queue_depth_per_block_size():
    g = grid(bs_sweep("read", qds=(1, 16)), "iodepth", "bs_bytes")
    assert list(zip(g["held"], g["x"])) == [(4096, 1), (4096, 16), (65536, 1), (65536, 16), (1048576, 1),
                                             (1048576, 16)]
    assert list(g["mb_per_s"]) == pytest.approx([100 / 16, 100, 400 / 16, 400, 410 / 16, 410])


def test_grid_is_empty_without_two_values_on_the_x_axis():
    for df in (empty_results(), rows([{}]), bs_sweep("read", qds=(16,)).assign(numjobs=4),
               rows([{"bs_bytes": b, "iodepth": q, "point_id": f"{b}-{q}"} for b, q in ((4096, 1), (65536, 16))])):
        g = grid(df, "bs_bytes", "iodepth")
        assert g.empty and list(g.columns) == GRID_COLUMNS


# --- distribution -----------------------------------------------------------------------------------


def test_distribution_has_every_point_once_with_mixed_modes_as_totals():
    d = distribution(run())
    # read: 6 + 1 repeat + 3 x4-jobs rows, randread 3, randrw 2 totals, randwrite 1
    assert d["operation"].value_counts().to_dict() == {"read": 10, "randread": 3, "randrw 70% read": 2,
                                                      "randwrite": 1}
    assert set(d.loc[d["rw"] == "randrw", "direction"]) == {"total"}
    assert sorted(d.loc[d["rw"] == "randrw", "iops"]) == pytest.approx([500.0, 1000.0])


def test_distribution_is_ordered_read_write_randread_randwrite_mixed():
    d = distribution(run())
    assert list(dict.fromkeys(d["operation"])) == ["read", "randread", "randwrite", "randrw 70% read"]
    assert list(d["order"]) == sorted(d["order"])
    assert set(zip(d["operation"], d["order"])) == {("read", 0), ("randread", 1), ("randwrite", 2),
                                                    ("randrw 70% read", 3)}


def test_distribution_flags_and_empty_input():
    d = distribution(run())
    assert d["flagged"].sum() == 1 and "mb_per_s" in d.columns
    e = distribution(empty_results())
    assert e.empty and {"operation", "order", "mb_per_s"} <= set(e.columns)


# --- held_constant ----------------------------------------------------------------------------------


def test_block_size_at_a_fixed_queue_depth():
    r, msg = held_constant(bs_sweep("read", qds=(1, 16)), "bs_bytes", {"iodepth": 16})
    assert msg == ""
    assert list(r["iodepth"]) == [16, 16, 16] and list(r["bs_bytes"]) == [4096, 65536, 1048576]
    assert list(r["line"]) == ["read"] * 3
    assert list(r["mb_per_s"]) == pytest.approx([100.0, 400.0, 410.0])


def test_lines_name_the_factors_that_still_vary():
    r, msg = held_constant(run(), "bs_bytes", {"iodepth": 16})
    assert msg == ""
    assert list(dict.fromkeys(r["line"])) == ["randread x1 jobs", "randrw 70% read x1 jobs", "read x1 jobs",
                                              "read x4 jobs"]
    assert "randwrite x1 jobs" not in set(r["line"])  # one block size only
    r, _ = held_constant(bs_sweep("read", qds=(1, 16)), "bs_bytes", {})
    assert set(r["line"]) == {"read QD1", "read QD16"} and list(r.index) == list(range(6))
    r, _ = held_constant(bs_sweep("read", qds=(1, 16)), "iodepth", {"bs_bytes": 65536})
    assert list(r["line"]) == ["read", "read"] and list(r["iodepth"]) == [1, 16]


def test_fixed_read_share_keeps_only_that_mix():
    r, msg = held_constant(run(), "bs_bytes", {"rwmixread_pct": 70.0})
    assert msg == "" and list(r["operation"]) == ["randrw 70% read"] * 2
    assert list(r["iops"]) == pytest.approx([1000.0, 500.0])


def test_missing_value_is_one_sentence_naming_what_was_measured():
    r, msg = held_constant(bs_sweep("read", qds=(1, 16)), "bs_bytes", {"iodepth": 64})
    assert r.empty and "line" in r.columns
    assert msg == "This run has no points at QD 64 (measured: QD 1, QD 16)."
    _, msg = held_constant(run(), "bs_bytes", {"rwmixread_pct": 30.0})
    assert msg == "This run has no points at 30% read (measured: 70% read)."
    _, msg = held_constant(bs_sweep("read", qds=(1, 16)), "iodepth", {"iodepth": 16, "bs_bytes": 8192})
    assert msg == "This run has no points at 8k (measured: 4k, 64k, 1m)."


def test_a_single_value_of_the_factor_is_one_sentence():
    r, msg = held_constant(bs_sweep("read", qds=(16,)), "iodepth", {"bs_bytes": 4096})
    assert r.empty and msg == "At 4k this run varies queue depth over fewer than two values."


def test_empty_results_say_so():
    r, msg = held_constant(empty_results(), "bs_bytes", {"iodepth": 1})
    assert r.empty and "line" in r.columns and msg == "This run has no data points."


def test_read_share_as_the_varying_factor():
    df = rows(mixed(4096, 30.0) + mixed(4096, 50.0) + mixed(4096, 70.0))
    r, msg = held_constant(df, "rwmixread_pct", {"bs_bytes": 4096, "iodepth": 16})
    assert msg == "" and list(r["rwmixread_pct"]) == [30.0, 50.0, 70.0]


def quick_like() -> pd.DataFrame:
    """The quick profile's shape: a QD sweep at 4k, read/write block sizes at QD16, mixes at 4k QD16 only."""
    qd = [{"point_id": f"qd{q}", "iodepth": q, "iops": 1000.0 * q} for q in (1, 2, 4, 8, 16, 32)]
    bs = [{"point_id": f"{rw}{b}", "rw": rw, "direction": "read" if rw == "read" else "write", "bs_bytes": b,
           "iodepth": 16, "iops": 1e8 / b} for rw in ("read", "write") for b in (4096, 65536, 1048576)]
    mixes = [p for share in (0.0, 30.0, 70.0, 100.0) for p in mixed(4096, share)]
    return rows(qd + bs + mixes)


def test_held_values_default_to_what_the_run_has_so_no_section_is_empty():
    """Issue 10 point 6: the overview's held QD and mix default to values the run measured (the quick run's
    QD16), and a run whose mixes are at one block size shows the read share at that block size instead."""
    from helpers.analysis import held_section, pick_held

    df = quick_like()
    assert pick_held(df, "bs_bytes", "iodepth") == 16
    r, msg, factor, title = held_section(df, "bs_bytes", "iodepth", 0)
    assert msg == "" and factor == "bs_bytes" and title == "Block size at QD 16"
    assert set(r["bs_bytes"]) == {4096, 65536, 1048576}
    r, msg, factor, title = held_section(df, "bs_bytes", "rwmixread_pct", -1)
    assert msg == "" and factor == "rwmixread_pct" and not r.empty
    assert title == "Read share at 4k (this run varies the read share at one block size only)"
    assert sorted(r["rwmixread_pct"].unique()) == [0.0, 30.0, 70.0, 100.0]
    # an explicit value is kept, and an empty result says why in one sentence
    r, msg, _, title = held_section(df, "bs_bytes", "iodepth", 64)
    assert r.empty and msg == "This run has no points at QD 64 (measured: QD 1, QD 2, QD 4, QD 8, QD 16, QD 32)."
