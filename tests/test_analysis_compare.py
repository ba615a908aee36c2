"""Comparing runs (helpers.analysis.compare): card metrics side by side, measured / spec-sheet ratios
against helpers/specs/drives.csv, and the workloads common to every run.  Known answers, no fio."""

from __future__ import annotations

import csv
import math

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis.compare import SPEC_FOR_METRIC, common_points, run_metrics, spec_comparison
from helpers.processed.specs import DRIVES_CSV, load_drive_specs

SPEC_HEADER = ("vendor,model,capacity,interface,rand_read_4k_iops,rand_write_4k_iops,seq_read_mb_per_s,"
               "seq_write_mb_per_s,rand_qd,seq_bs,seq_qd,source,note\n")
LIKE = "16,128k,16"  # the spec's random QD, sequential block size and QD


def full_run(run_id: str = "r1", scale: float = 1.0) -> pd.DataFrame:
    """Every metric the spec sheets give: 4k random read / write IOPS, 128k sequential read / write."""
    return rows([
        {"run_id": run_id, "point_id": "rr", "iodepth": 32, "iops": 500000.0 * scale, "lat_mean_us": 64.0},
        {"run_id": run_id, "point_id": "rw", "rw": "randwrite", "direction": "write", "iodepth": 32,
         "iops": 65000.0 * scale},
        {"run_id": run_id, "point_id": "sr", "rw": "read", "bs_bytes": 131072, "iodepth": 32,
         "bw_bytes_per_s": 3.5e9 * scale, "iops": 3.5e9 * scale / 131072},
        {"run_id": run_id, "point_id": "sw", "rw": "write", "direction": "write", "bs_bytes": 131072, "iodepth": 32,
         "bw_bytes_per_s": 2.15e9 * scale, "iops": 2.15e9 * scale / 131072},
    ])


def test_run_metrics_one_row_per_run_and_metric_in_run_order():
    df = pd.concat([full_run("b", 0.5), full_run("a")], ignore_index=True)
    t = run_metrics(df)
    assert list(t.columns) == ["run_id", "metric", "value", "unit", "measured_at", "flag_reasons", "comparable"]
    assert len(t) == 2 * 12 and list(dict.fromkeys(t["run_id"])) == ["b", "a"]  # first appearance, not sorted
    v = t.set_index(["run_id", "metric"])["value"]
    assert v["b", "4k random read IOPS at QD32"] == pytest.approx(250000.0)
    assert v["a", "4k random read IOPS at QD32"] == pytest.approx(500000.0)
    assert v["a", "Sequential read bandwidth at QD32"] == pytest.approx(3500.0)  # MB/s, decimal
    assert v["b", "Sequential write bandwidth at QD32"] == pytest.approx(1075.0)
    assert pd.isna(v["a", "QD1 4k random read mean total latency"])  # no QD1 point: not measured, not zero
    where = t.set_index(["run_id", "metric"])["measured_at"]
    assert where["a", "4k random write IOPS at QD32"] == "randwrite 4k QD32"
    assert where["a", "QD1 4k random read mean total latency"] == "not measured in this run"


def test_run_metrics_keep_runs_apart():
    # run x has the higher IOPS; run y must not borrow it
    df = rows([{"run_id": "x", "iodepth": 8, "iops": 90000.0}, {"run_id": "y", "iodepth": 8, "iops": 30000.0}])
    peak = run_metrics(df).query("metric == '4k random read IOPS at QD8'").set_index("run_id")["value"]
    assert peak.to_dict() == {"x": pytest.approx(90000.0), "y": pytest.approx(30000.0)}


def test_run_metrics_say_peak_only_where_every_run_varied_the_queue_depth():
    """Issue 22.4: the compare page titled one-setting numbers "Peak ..."."""
    one = rows([{"run_id": "x", "iodepth": 8, "iops": 90000.0}])
    swept = rows([{"run_id": "y", "iodepth": q, "iops": 1000.0 * q, "point_id": f"q{q}"} for q in (1, 4, 16)])
    t = run_metrics(pd.concat([swept, swept.assign(run_id="z")], ignore_index=True))
    assert "Peak 4k random read IOPS" in set(t["metric"])  # both runs swept QD1-16
    mixed = run_metrics(pd.concat([one, swept], ignore_index=True))
    names = set(mixed["metric"])
    assert "4k random read IOPS (best measured)" in names and not any(n.startswith("Peak") for n in names)
    assert set(mixed.loc[mixed["metric"] == "4k random read IOPS (best measured)", "measured_at"]) == {
        "randread 4k QD8", "randread 4k QD16"}


def _csv_specs() -> list[dict]:
    """drives.csv read with the csv module (independently of helpers.processed.specs)."""
    with open(DRIVES_CSV, newline="") as f:
        return list(csv.DictReader(f))


def test_load_drive_specs_matches_the_csv():
    specs = load_drive_specs()
    raw = _csv_specs()
    assert len(specs) == len(raw) >= 1
    for (_, s), r in zip(specs.iterrows(), raw):
        for col in SPEC_FOR_METRIC.values():
            if r[col] == "":
                assert pd.isna(s[col])
            else:
                assert s[col] == float(r[col])
    # the course's reference drive: 130,000 random-write IOPS and nothing else on its row
    p5600 = specs[(specs["model"] == "D7-P5600") & (specs["capacity"] == "1.6 TB")].iloc[0]
    assert p5600["rand_write_4k_iops"] == 130000
    assert p5600[["rand_read_4k_iops", "seq_read_mb_per_s", "seq_write_mb_per_s"]].isna().all()


def test_bundled_spec_rows_state_no_queue_depth_so_no_ratio_is_claimed():
    """The bundled spec rows do not say at which queue depth the vendor measured: every figure is listed with
    its sentence, none gets a measured value or ratio (issue 10 point 2: like for like only)."""
    specs = load_drive_specs()
    t = spec_comparison(full_run(), specs)
    expected = [(f"{r['vendor']} {r['model']} {r['capacity']}", metric, float(r[col]), r["source"])
                for r in _csv_specs() for metric, col in SPEC_FOR_METRIC.items() if r[col]]
    assert [(r.drive, r.metric, r.spec, r.source) for r in t.itertuples()] == expected
    assert t["ratio"].isna().all() and t["measured"].isna().all()
    assert set(t["comparison"]) == {"no like-for-like ratio: the spec sheet row does not state its queue depth"} | (
        {"no like-for-like ratio: the spec sheet row does not state its block size and queue depth"}
        if any(r["seq_read_mb_per_s"] or r["seq_write_mb_per_s"] for r in _csv_specs()) else set())


def test_measured_over_spec_like_for_like(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + "Acme,X1,2 TB,NVMe,1000000,130000,7000,4300,32,128k,32,acme.example,\n")
    t = spec_comparison(full_run(), load_drive_specs(path)).set_index("metric")
    assert t.loc["4k random read IOPS", "ratio"] == pytest.approx(500000 / 1e6)
    assert t.loc["4k random write IOPS", "ratio"] == pytest.approx(0.5)  # 65,000 / 130,000
    assert t.loc["sequential read bandwidth", "ratio"] == pytest.approx(3500 / 7000)
    assert t.loc["sequential write bandwidth", "measured_at"] == "write 128k QD32"
    assert t.loc["sequential write bandwidth", "spec_workload"] == "write 128k at QD 32"
    assert (t["comparison"] == "").all() and (t["unit"] == ["IOPS", "IOPS", "MB/s", "MB/s"]).all()


def test_shallower_or_other_block_size_is_not_compared(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + "Acme,X1,2 TB,NVMe,1000000,,7000,,64,1m,32,acme.example,\n")
    t = spec_comparison(full_run(), load_drive_specs(path)).set_index("metric")  # measured at QD32, 128k
    assert t["ratio"].isna().all() and t["measured"].isna().all()
    assert t.loc["4k random read IOPS", "comparison"] == (
        "not measured like for like: this run has no randread 4k point at QD 64 or deeper")
    assert t.loc["sequential read bandwidth", "comparison"] == (
        "not measured like for like: this run has no read 1m point at QD 32 or deeper")


def test_one_warning_for_a_file_on_a_virtual_disk_or_an_unmatched_model():
    from helpers import config
    from helpers.analysis.compare import spec_warning
    from helpers.run.manifest import read_manifest

    specs = load_drive_specs()
    vm = read_manifest(config.SAMPLE_RAW_DIR / "sample-quick-vm")
    w = spec_warning({"sample-quick-vm": vm}, specs)
    assert w == ("These are not like-for-like drive comparisons: run sample-quick-vm measured a file on ext4, not "
                 "the raw device, ran on a virtual disk (/dev/vda), its device model (not reported) matches no "
                 "spec-sheet row. The spec sheets describe the drives themselves, so a ratio here says how this "
                 "setup compares, not how the drive does.")
    drive = {"target": {"path": "/dev/nvme0n1", "kind": "block device", "disk": "nvme0n1", "model": "INTEL D7-P5600"}}
    assert spec_warning({"r": drive}, specs) == ""


def test_spec_rows_for_a_metric_the_run_did_not_measure(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + f"Acme,X1,2 TB,NVMe,100000,50000,3000,,{LIKE},acme.example,\n")
    t = spec_comparison(rows([{"iodepth": 16, "iops": 80000.0}]), load_drive_specs(path))
    # three spec figures (no sequential-write spec); the run measured only random reads
    assert list(t["metric"]) == ["4k random read IOPS", "4k random write IOPS", "sequential read bandwidth"]
    assert t["ratio"].iloc[0] == pytest.approx(0.8)
    assert t["measured"].iloc[1:].isna().all() and t["ratio"].iloc[1:].isna().all()
    assert list(t["spec"]) == [100000.0, 50000.0, 3000.0]
    assert set(t["drive"]) == {"Acme X1 2 TB"} and set(t["source"]) == {"acme.example"}
    assert set(t["note"]) == {""}  # an empty note cell is an empty string, not NaN


def test_spec_comparison_uses_the_unflagged_headline(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + f"Acme,X1,2 TB,NVMe,100000,,,,{LIKE},acme.example,vendor maximum\n")
    df = rows([{"point_id": "clean", "iodepth": 16, "iops": 90000.0},
               {"point_id": "cached", "iodepth": 32, "iops": 400000.0, "direct": 0, "flag_page_cache": True,
                "flag_reasons": "buffered I/O (direct=0): the page cache may serve it"}])
    t = spec_comparison(df, load_drive_specs(path))
    assert len(t) == 1
    assert t["measured"].iloc[0] == pytest.approx(90000.0) and t["ratio"].iloc[0] == pytest.approx(0.9)
    assert t["measured_at"].iloc[0] == "randread 4k QD16" and t["note"].iloc[0] == "vendor maximum"


def test_zero_spec_gives_no_ratio(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + f"Acme,X0,1 TB,NVMe,0,,,,{LIKE},acme.example,\n")
    t = spec_comparison(rows([{"iops": 1000.0}]), load_drive_specs(path))
    assert len(t) == 1 and math.isnan(t["ratio"].iloc[0])


def test_two_runs_against_one_drive(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + "Acme,X1,2 TB,NVMe,,,,4300,32,128k,32,acme.example,\n")
    df = pd.concat([full_run("a"), full_run("b", 2.0)], ignore_index=True)
    t = spec_comparison(df, load_drive_specs(path))
    assert list(t["run_id"]) == ["a", "b"]
    assert list(t["ratio"]) == pytest.approx([2150 / 4300, 4300 / 4300])


def test_empty_inputs_give_the_empty_table():
    cols = ["run_id", "drive", "metric", "measured", "spec", "unit", "ratio", "measured_at", "spec_workload",
            "comparison", "source", "note"]
    specs = load_drive_specs()
    for t in (spec_comparison(full_run().iloc[0:0], specs), spec_comparison(full_run(), specs.iloc[0:0])):
        assert t.empty and list(t.columns) == cols


def test_drive_name_without_capacity(tmp_path):
    path = tmp_path / "drives.csv"
    path.write_text(SPEC_HEADER + f"Acme,X1,,NVMe,100000,,,,{LIKE},acme.example,\n")
    t = spec_comparison(rows([{"iops": 50000.0}]), load_drive_specs(path))
    assert list(t["drive"]) == ["Acme X1"]


def test_common_points_keeps_workloads_measured_in_every_run():
    df = rows([
        {"run_id": "a", "point_id": "rr-qd1", "iodepth": 1},
        {"run_id": "a", "point_id": "rr-qd1-repeat", "iodepth": 1},  # a repeat in one run still counts
        {"run_id": "a", "point_id": "rr-qd4", "iodepth": 4},
        {"run_id": "a", "point_id": "mix70", "rw": "randrw", "rwmixread_pct": 70.0},
        {"run_id": "a", "point_id": "sr", "rw": "read"},
        {"run_id": "b", "point_id": "rr-qd1", "iodepth": 1},
        {"run_id": "b", "point_id": "mix70", "rw": "randrw", "rwmixread_pct": 70.0},
        {"run_id": "b", "point_id": "mix50", "rw": "randrw", "rwmixread_pct": 50.0},  # another mix: not common
        {"run_id": "b", "point_id": "sr-qd4", "rw": "read", "iodepth": 4},  # another QD: not common
    ])
    out = common_points(df)
    assert list(out["point_id"]) == ["rr-qd1", "rr-qd1-repeat", "mix70", "rr-qd1", "mix70"]
    assert list(out["run_id"]) == ["a", "a", "a", "b", "b"]
    assert list(out.index) == list(range(5))
    # with custom keys: rw alone is common to both runs for randread, randrw and read
    assert set(common_points(df, keys=["rw"])["point_id"]) == set(df["point_id"])
    # one run: everything is common
    assert len(common_points(df[df["run_id"] == "b"])) == 4


def test_numbers_measured_differently_are_not_comparable_side_by_side():
    """Issue 34.7: a run that measured sequential writes at QD16 x 2 jobs and one that measured them at QD512 have
    the same card metric under two titles: not comparable, so the figure draws neither side by side and says why;
    with no metric measured the same way it draws nothing at all."""
    from helpers.figures import run_metrics_figure

    df = pd.concat([rows([{"run_id": "a", "point_id": "w", "rw": "write", "direction": "write", "bs_bytes": 131072,
                           "iodepth": 16, "numjobs": 2, "iops": 30000.0, "bw_bytes_per_s": 4.9e9},
                          {"run_id": "a", "point_id": "r", "iodepth": 8, "iops": 50000.0}]),
                    rows([{"run_id": "b", "point_id": "w", "rw": "write", "direction": "write", "bs_bytes": 131072,
                           "iodepth": 512, "iops": 18000.0, "bw_bytes_per_s": 2.45e9},
                          {"run_id": "b", "point_id": "r", "iodepth": 8, "iops": 40000.0}])], ignore_index=True)
    t = run_metrics(df)
    seq = t[t["metric"].str.contains("equential write")]
    assert len(seq) == 2 and not seq["comparable"].any()
    assert t[t["metric"] == "4k random read IOPS at QD8"]["comparable"].all()
    fig = run_metrics_figure(t)
    drawn = {a.text for a in fig.layout.annotations}
    assert "4k random read IOPS at QD8" in drawn and not any("equential write" in x and "Not drawn" not in x
                                                              for x in drawn)
    assert any(x.startswith("Not drawn side by side") and "equential write" in x for x in drawn)
    only = run_metrics_figure(t[t["metric"].str.contains("equential write")])
    assert only.layout.annotations[0].text.startswith("No headline number was measured the same way in every run")
    unlike = "no point of b has the configuration of a point of a, so there is nothing to compare."
    said = run_metrics_figure(t[t["metric"].str.contains("equential write")], unlike=unlike).layout.annotations[0].text
    assert said.replace("<br>", " ").startswith("No point of b has the configuration of a point of a, so there is "
                                                "nothing to compare. No headline number")
