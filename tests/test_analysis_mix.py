"""Known-answer tests for read/write-mix sweeps: read and write rows as measured plus read+write totals."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import mix_series
from helpers.processed import schema


def empty_results() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.columns_of("results")})


def mix_point(share: float, total_iops: float = 10_000.0, bs: int = 4096, **extra) -> list[dict]:
    """One randrw point at ``share`` % reads: reads at 100 µs, writes at 400 µs; fio writes no row
    for a direction without I/O (0 % or 100 % reads)."""
    out = []
    for d, frac, lat in (("read", share / 100, 100.0), ("write", 1 - share / 100, 400.0)):
        if frac > 0:
            out.append({"point_id": f"mix{share:g}-bs{bs}", "rw": "randrw", "rwmixread_pct": float(share),
                        "direction": d, "bs_bytes": bs, "iodepth": 16, "iops": total_iops * frac,
                        "lat_mean_us": lat, **extra})
    return out


def sweep(shares=(0, 30, 70, 100), **kw) -> pd.DataFrame:
    return rows([r for s in shares for r in mix_point(s, **kw)])


def test_read_write_and_one_total_row_per_point():
    s = mix_series(sweep())
    counts = s.groupby("direction").size().to_dict()
    assert counts == {"read": 3, "write": 3, "total": 4}  # no read row at 0 %, no write row at 100 %
    t = s[s["direction"] == "total"].set_index("rwmixread_pct")
    assert list(t["iops"]) == pytest.approx([10_000.0] * 4)
    assert list(t["bw_bytes_per_s"]) == pytest.approx([10_000.0 * 4096] * 4)
    assert list(t["mb_per_s"]) == pytest.approx([40.96] * 4)  # decimal MB: 10^6 bytes
    assert list(t["mib_per_s"]) == pytest.approx([40.96e6 / 2**20] * 4)


def test_total_latency_is_weighted_by_each_direction_iops():
    t = mix_series(sweep()).query("direction == 'total'").set_index("rwmixread_pct")["lat_mean_us"]
    # 30 % reads: 0.3 x 100 + 0.7 x 400 = 310 µs; 70 %: 0.7 x 100 + 0.3 x 400 = 190 µs
    assert t.loc[0.0] == pytest.approx(400.0) and t.loc[100.0] == pytest.approx(100.0)
    assert t.loc[30.0] == pytest.approx(310.0) and t.loc[70.0] == pytest.approx(190.0)


def test_totals_have_no_percentiles():
    t = mix_series(sweep()).query("direction == 'total'")
    assert t["clat_p99_us"].isna().all()


def test_direction_rows_keep_their_measured_values():
    s = mix_series(sweep())
    r = s[(s["direction"] == "read") & (s["rwmixread_pct"] == 30.0)].iloc[0]
    w = s[(s["direction"] == "write") & (s["rwmixread_pct"] == 30.0)].iloc[0]
    assert r["iops"] == pytest.approx(3000.0) and w["iops"] == pytest.approx(7000.0)
    assert r["lat_mean_us"] == 100.0 and w["lat_mean_us"] == 400.0


def test_sorted_by_block_size_series_direction_then_read_share():
    df = pd.concat([sweep(bs=65536), sweep(bs=4096)], ignore_index=True).sample(frac=1.0, random_state=7)
    s = mix_series(df)
    assert list(s.index) == list(range(len(s)))
    first = s[s["bs_bytes"] == 4096]
    assert list(first.index) == list(range(10))  # all 4k rows first
    assert list(first["direction"]) == ["read"] * 3 + ["write"] * 3 + ["total"] * 4
    assert list(first["rwmixread_pct"]) == [30, 70, 100, 0, 30, 70, 0, 30, 70, 100]
    assert s["direction"].map(type).eq(str).all()  # plain strings again, not a categorical


def test_series_label_is_operation_block_size_and_queue_depth():
    s = mix_series(pd.concat([sweep(bs=4096), sweep(bs=131072)], ignore_index=True))
    assert list(dict.fromkeys(s["series"])) == ["randrw 4k QD16", "randrw 128k QD16"]
    assert s["series"].dtype == "string"


def test_several_runs_are_prefixed_with_the_run():
    s = mix_series(pd.concat([sweep(), sweep().assign(run_id="r2")], ignore_index=True))
    assert set(s["series"]) == {"r1: randrw 4k QD16", "r2: randrw 4k QD16"}


def test_pure_modes_and_mixed_points_without_read_share_are_left_out():
    extra = rows([{"rw": "randread", "point_id": "rr"}, {"rw": "randwrite", "direction": "write", "point_id": "rw"},
                  {"rw": "randrw", "direction": "read", "point_id": "nomix"}])  # read share unknown: NaN
    s = mix_series(pd.concat([sweep(), extra], ignore_index=True))
    assert set(s["point_id"]) == {"mix0-bs4096", "mix30-bs4096", "mix70-bs4096", "mix100-bs4096"}


def test_sequential_rw_counts_as_mixed():
    df = rows([{**r, "rw": "rw"} for s in (30, 70) for r in mix_point(s)])
    s = mix_series(df)
    assert len(s) == 6 and set(s["series"]) == {"rw 4k QD16"}


def test_one_read_share_is_not_a_sweep():
    assert mix_series(sweep(shares=(70,))).empty
    assert mix_series(sweep(shares=(30, 70)), min_points=3).empty
    assert len(mix_series(sweep(shares=(30, 70)), min_points=2)) == 6


def test_other_block_size_or_queue_depth_is_another_series():
    df = rows(mix_point(30) + [{**r, "iodepth": 32} for r in mix_point(70)])
    assert mix_series(df).empty  # 30 % at QD16 and 70 % at QD32: two one-point series
    df = rows(mix_point(30) + mix_point(70, bs=8192))
    assert mix_series(df).empty  # 30 % at 4k and 70 % at 8k


def test_empty_results_and_no_mixed_rows_give_empty_frames_with_a_series_column():
    for df in (empty_results(), rows([{"rw": "randread"}])):
        s = mix_series(df)
        assert s.empty and {"series", "mb_per_s", "direction"} <= set(s.columns)


def test_flag_of_one_direction_marks_the_total():
    pts = [r for s in (30, 70) for r in mix_point(s)]
    pts[0]["flag_reasons"] = "fio used 99 % of a CPU (CPU-bound)"
    s = mix_series(rows(pts))
    t = s[(s["direction"] == "total") & (s["rwmixread_pct"] == 30.0)].iloc[0]
    assert bool(t["flagged"]) and "CPU-bound" in t["flag_reasons"]
    assert not s[(s["direction"] == "total") & (s["rwmixread_pct"] == 70.0)]["flagged"].iloc[0]


def test_sweeps_with_different_numjobs_get_different_labels():
    df = pd.concat([sweep(), rows([{**r, "numjobs": 4, "point_id": r["point_id"] + "-nj4"}
                                   for s in (0, 30, 70, 100) for r in mix_point(s)])], ignore_index=True)
    s = mix_series(df)
    assert s.groupby("series")["numjobs"].nunique().max() == 1


def test_foreign_files_with_the_same_job_name_keep_one_total_each():
    pts = [{**r, "point_id": "mixjob", "source_file": f"mix{s}.json"} for s in (30, 70) for r in mix_point(s)]
    t = mix_series(rows(pts)).query("direction == 'total'")
    assert list(t["rwmixread_pct"]) == [30.0, 70.0]
    assert list(t["iops"]) == pytest.approx([10_000.0, 10_000.0])
