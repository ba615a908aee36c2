"""Ingest of real fio outputs (tests/data/fio, see its README) with expected values computed here
from the JSON itself, bad files quarantined with reasons, and property-based robustness."""

from __future__ import annotations

import copy
import json
import math
import random
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import config
from helpers.ingest import core as ingest
from helpers.processed import schema, store

CORPUS = Path(__file__).parent / "data" / "fio"
GOOD = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.json") if p.parts[-2] != "bad")
PCT = {"50.000000": "clat_p50_us", "90.000000": "clat_p90_us", "99.000000": "clat_p99_us",
       "99.990000": "clat_p99_99_us"}


def fio_objects(path: Path) -> list[dict]:
    """Every JSON object of a raw file, decoded with the standard library (independent of our parser)."""
    text = path.read_text()
    dec, out, i = json.JSONDecoder(), [], text.find("{")
    while 0 <= i < len(text):
        obj, end = dec.raw_decode(text, i)
        out.append(obj)
        i = text.find("\n{", end)
        i = i + 1 if i >= 0 else -1
    return out


def job_entries(obj: dict) -> list[dict]:
    return obj.get("jobs") or obj.get("client_stats")


def measured(block: dict, key: str) -> float:
    """A latency stat in µs; NaN when fio did not measure it (N = 0: slat on sync engines, gtod_reduce)."""
    return math.nan if block["N"] == 0 else block[key] / 1000


def expected_rows(obj: dict) -> list[dict]:
    """One expected row per job entry and direction with I/O, straight from the fio JSON."""
    out = []
    for i, job in enumerate(job_entries(obj)):
        if job["jobname"] == "All clients" or job["error"]:
            continue
        for d in ("read", "write", "trim"):
            x = job[d]
            if not x["total_ios"]:
                continue
            out.append({
                "job_name": job["jobname"], "job_index": i, "direction": d, "total_ios": x["total_ios"],
                "io_bytes": x["io_bytes"], "iops": x["iops"], "bw_bytes_per_s": float(x["bw_bytes"]),
                "runtime_s": x["runtime"] / 1000, "lat_mean_us": measured(x["lat_ns"], "mean"),
                "lat_max_us": measured(x["lat_ns"], "max"), "clat_mean_us": measured(x["clat_ns"], "mean"),
                "slat_mean_us": measured(x["slat_ns"], "mean"), "usr_cpu_pct": job["usr_cpu"],
                **{col: x["clat_ns"]["percentile"][k] / 1000 if x["clat_ns"]["N"] else math.nan
                   for k, col in PCT.items()},
            })
    return out


def ingest_file(path: Path, run_id: str = "t") -> pd.DataFrame:
    return ingest.ingest_paths([path], run_id).results


def check_rows(df: pd.DataFrame, expected: list[dict]) -> None:
    assert len(df) == len(expected)
    got = df.sort_values(["job_index", "direction"]).reset_index(drop=True)
    exp = sorted(expected, key=lambda e: (e["job_index"], e["direction"]))
    for (_, row), e in zip(got.iterrows(), exp):
        for k, v in e.items():
            if isinstance(v, float) and math.isnan(v):
                assert math.isnan(row[k]), (k, row[k], v)
            elif isinstance(v, float):
                assert row[k] == pytest.approx(v, rel=1e-12), (k, row[k], v)
            else:
                assert row[k] == v, (k, row[k], v)


@pytest.mark.parametrize("rel", GOOD)
def test_every_good_corpus_file_matches_its_json(rel):
    df = ingest_file(CORPUS / rel)
    check_rows(df, expected_rows(fio_objects(CORPUS / rel)[-1]))
    assert list(df.columns) == schema.column_names()
    assert (df["total_ios"] > 0).all() and (df["io_bytes"] > 0).all()


def test_plain_json_options_from_the_command_line():
    df = ingest_file(CORPUS / "json/randread-qd4.json")
    r = df.iloc[0]
    # fio --rw=randread --bs=4k --iodepth=4 --ioengine=libaio --direct=1 (see make_corpus.sh)
    assert (r.rw, r.direction, r.bs_bytes, r.iodepth, r.numjobs, r.ioengine, r.direct) == \
        ("randread", "read", 4096, 4, 1, "libaio", 1)
    assert math.isnan(r.rwmixread_pct) and r.group_reporting is False or not r.group_reporting
    obj = fio_objects(CORPUS / "json/randread-qd4.json")[0]
    assert r.fio_version == obj["fio version"] and r.timestamp_s == obj["timestamp"]
    assert r.disk_read_ios == sum(d["read_ios"] for d in obj["disk_util"])
    assert r.disk_write_ios == sum(d["write_ios"] for d in obj["disk_util"])
    assert pd.isna(r.host) and pd.isna(r.group) and r.point_id == "randread-qd4"


def test_jsonplus_bins_are_kept_per_direction():
    path = CORPUS / "jsonplus/randrw-mix70.json"
    res = ingest.ingest_paths([path], "t")
    job = fio_objects(path)[0]["jobs"][0]
    h = res.histograms
    for d in ("read", "write"):
        bins = job[d]["clat_ns"]["bins"]
        got = h[h.direction == d].sort_values("bin_ns")
        assert list(got.bin_ns) == sorted(int(k) for k in bins)
        assert list(got["count"]) == [bins[k] for k in sorted(bins, key=int)]
        assert got["count"].sum() == job[d]["clat_ns"]["N"]
    assert set(h.job_index) == {0} and set(h.source_file) == {"randrw-mix70.json"}
    assert list(h.columns) == schema.column_names(schema.HISTOGRAM_COLUMNS)
    assert ingest_file(CORPUS / "json/randread-qd4.json").shape[0] == 1
    assert len(ingest.ingest_paths([CORPUS / "json/randread-qd4.json"], "t").histograms) == 0


def test_stonewall_groups_and_numjobs_clones_without_group_reporting():
    df = ingest_file(CORPUS / "multijob/stonewall-clones.json")
    assert list(df.job_name) == ["seqread", "randwrite", "clones", "clones"]
    assert list(df.job_index) == [0, 1, 2, 3]
    assert list(df.bs_bytes) == [131072, 4096, 4096, 4096]  # bs=128k, 4k, default
    assert list(df.iodepth) == [1, 16, 1, 1]
    assert list(df.numjobs) == [1, 1, 2, 2] and not df.group_reporting.any()
    assert list(df.direction) == ["read", "write", "read", "read"]


def test_numjobs_with_group_reporting_is_one_entry():
    df = ingest_file(CORPUS / "multijob/group-reporting.json")
    assert len(df) == 1 and df.numjobs.iloc[0] == 3 and bool(df.group_reporting.iloc[0])


def test_mixed_workloads_one_row_per_direction_and_rwmix_default():
    mix = ingest_file(CORPUS / "jsonplus/randrw-mix70.json")
    assert list(mix.direction) == ["read", "write"] and set(mix.rwmixread_pct) == {70.0}
    rw = ingest_file(CORPUS / "mixed/rw-default-mix.json")
    assert list(rw.direction) == ["read", "write"] and set(rw.rwmixread_pct) == {50.0}  # fio default
    assert set(rw.bs_bytes) == {65536}


def test_trim_on_a_loop_device():
    df = ingest_file(CORPUS / "mixed/trim-loop.json")
    assert list(zip(df.job_name, df.direction, df.bs_bytes)) == [
        ("randtrim", "trim", 65536), ("trimwrite", "write", 16384), ("trimwrite", "trim", 16384)]
    assert df.rwmixread_pct.isna().all()


def test_global_options_dict_per_direction_bs_and_overrides():
    df = ingest_file(CORPUS / "options/global-options.json")
    # [global] rw=randrw rwmixread=60 bs=4k,16k iodepth=64; [override] rw=write bs=1m iodepth=2
    fg = df[df.job_name == "from-global"].set_index("direction")
    assert fg.loc["read", "bs_bytes"] == 4096 and fg.loc["write", "bs_bytes"] == 16384
    assert set(fg.iodepth) == {64} and set(fg.rwmixread_pct) == {60.0} and set(fg.ioengine) == {"libaio"}
    ov = df[df.job_name == "override"].iloc[0]
    assert (ov.rw, ov.bs_bytes, ov.iodepth, ov.direct) == ("write", 1048576, 2, 1)
    assert math.isnan(ov.rwmixread_pct)


def test_global_options_as_a_one_item_list(tmp_path):
    obj = fio_objects(CORPUS / "options/global-options.json")[0]
    obj["global options"] = [obj["global options"]]  # the form some fio versions/tools write
    (tmp_path / "list.json").write_text(json.dumps(obj))
    a = ingest_file(CORPUS / "options/global-options.json").drop(columns="source_file")
    b = ingest_file(tmp_path / "list.json").drop(columns="source_file")
    pd.testing.assert_frame_equal(a, b)


def test_options_at_fio_defaults_are_absent_from_the_json():
    path = CORPUS / "options/defaults.json"
    opts = fio_objects(path)[0]["jobs"][0]["job options"]
    assert not {"bs", "iodepth", "rwmixread", "ioengine", "direct"} & set(opts)
    df = ingest_file(path)
    assert set(df.bs_bytes) == {4096} and set(df.iodepth) == {1} and set(df.rwmixread_pct) == {50.0}
    assert set(df.ioengine) == {"psync"} and set(df.direct) == {0} and set(df.numjobs) == {1}


def test_client_server_two_clients():
    path = CORPUS / "clientserver/two-clients.json"
    obj = fio_objects(path)[0]
    df = ingest_file(path)
    assert "All clients" in [j["jobname"] for j in obj["client_stats"]]
    assert sorted(df.job_name) == ["cs-randread", "cs-write"] and set(df.host) == {"127.0.0.1"}
    # one 'global options' block for two clients' job files: it cannot be attributed -> <NA>, not a guess
    assert df.ioengine.isna().all() and df.direct.isna().all()
    assert set(df.bs_bytes) == {4096, 65536}
    # disk_util: the same disk once per client connection -> counted once (largest), never summed
    vda = [d for d in obj["disk_util"] if d["name"] == "vda"]
    assert len(vda) == 2
    assert set(df.disk_read_ios) == {max(d["read_ios"] for d in vda)}
    assert set(df.disk_write_ios) == {max(d["write_ios"] for d in vda)}


def test_client_server_one_client_applies_its_global_options():
    path = CORPUS / "clientserver/one-client.json"
    obj = fio_objects(path)[0]
    r = ingest_file(path).iloc[0]
    assert (r.host, r.ioengine, r.direct, r.iodepth) == ("127.0.0.1", "libaio", 1, 8)
    assert r.disk_read_ios == obj["disk_util"][0]["read_ios"]


def to_fio2(obj: dict) -> dict:
    """A fio 2.x-style copy of a fio 3.x result: latency blocks clat/lat/slat in µs (no *_ns),
    percentiles in µs, io_bytes in KiB (fio 2.x wrote io_bytes >> 10), no io_kbytes/bw_bytes/bins."""
    obj = json.loads(json.dumps(obj))
    for job in job_entries(obj):
        job.pop("latency_ns", None)
        for d in ("read", "write", "trim"):
            x = job[d]
            x["io_bytes"] = x.pop("io_bytes") >> 10
            x.pop("io_kbytes"), x.pop("bw_bytes")
            for name in ("slat", "clat", "lat"):
                blk = x.pop(f"{name}_ns")
                blk.pop("bins", None)
                for k in ("min", "max", "mean", "stddev"):
                    blk[k] = blk[k] / 1000
                if "percentile" in blk:
                    blk["percentile"] = {k: v / 1000 for k, v in blk["percentile"].items()}
                x[name] = blk
    obj["fio version"] = "fio-2.2.10"
    return obj


@pytest.mark.parametrize("rel", ["json/randread-qd4.json", "jsonplus/randrw-mix70.json"])
def test_fio2_latency_keys_give_the_same_microsecond_columns(tmp_path, rel):
    obj = fio_objects(CORPUS / rel)[0]
    (tmp_path / "fio2.json").write_text(json.dumps(to_fio2(obj), indent=2))
    df = ingest_file(tmp_path / "fio2.json")
    exp = expected_rows(obj)
    for e in exp:  # 2.x has only KiB numbers: io_bytes (multiple of 1 KiB here) and bw in KiB/s
        e["bw_bytes_per_s"] = float(job_entries(obj)[e["job_index"]][e["direction"]]["bw"] * 1024)
    check_rows(df, exp)
    assert len(ingest.ingest_paths([tmp_path / "fio2.json"], "t").histograms) == 0


def test_text_before_the_json():
    path = CORPUS / "text/note-before.json"
    assert path.read_text().startswith("note: ")
    check_rows(ingest_file(path), expected_rows(fio_objects(path)[0]))


def test_normal_output_after_the_json():
    path = CORPUS / "text/json-normal.json"
    assert "Run status group" in path.read_text()
    check_rows(ingest_file(path), expected_rows(fio_objects(path)[0]))


def test_status_interval_keeps_the_final_object():
    path = CORPUS / "text/status-interval.json"
    objs = fio_objects(path)
    assert len(objs) >= 3
    first, last = objs[0]["jobs"][0]["read"]["total_ios"], objs[-1]["jobs"][0]["read"]["total_ios"]
    assert first < last
    df = ingest_file(path)
    assert len(df) == 1 and df.total_ios.iloc[0] == last
    check_rows(df, expected_rows(objs[-1]))


def test_bench_fio_tree_is_read_from_contents_not_names(tmp_path):
    tree = tmp_path / "benchfio"
    shutil.copytree(CORPUS / "benchfio", tree)
    # a file whose name lies: bench-fio naming says 128k, write, QD 64, 4 jobs
    (tree / "128k").mkdir(exist_ok=True)
    shutil.copy(CORPUS / "benchfio/4k/randread-8-1.json", tree / "128k" / "write-64-4.json")
    df = ingest.ingest_paths([tree], "bf").results.set_index("source_file")
    assert sorted(df.index) == ["128k/read-1-2.json", "128k/write-64-4.json", "4k/randread-8-1.json"]
    liar = df.loc["128k/write-64-4.json"]
    assert (liar.rw, liar.bs_bytes, liar.iodepth, liar.numjobs) == ("randread", 4096, 8, 1)
    seq = df.loc["128k/read-1-2.json"]
    assert (seq.rw, seq.bs_bytes, seq.iodepth, seq.numjobs, bool(seq.group_reporting)) == \
        ("read", 131072, 1, 2, True)


# --- bad files -----------------------------------------------------------------------------------

def make_bad_files(d: Path) -> dict[str, str]:
    """name -> a word the quarantine reason must contain."""
    good = (CORPUS / "json/randread-qd4.json").read_bytes()
    si = (CORPUS / "text/status-interval.json").read_bytes()
    obj = json.loads(good)
    wrong = json.loads(good)
    wrong["jobs"] = {"not": "a list"}
    strtotal = json.loads(good)
    strtotal["jobs"][0]["read"]["total_ios"] = "many"
    files = {
        "empty.json": (b"", "empty"),
        "truncated.json": (good[: len(good) // 2], "truncated"),
        "not-fio.json": (b'{"name": "left-pad", "version": "1.3.0"}', "not a fio result"),
        "text.json": (b"fio: failed parsing job file\n", "neither fio JSON"),
        "wrong-schema.json": (json.dumps(wrong).encode(), "wrong schema"),
        "string-count.json": (json.dumps(strtotal).encode(), "wrong schema"),
        "si-truncated.json": (si[: len(si) - 2000], "truncated"),
        "empty-jobs.json": (json.dumps({**obj, "jobs": []}).encode(), "empty"),
    }
    for name, (data, _) in files.items():
        (d / name).write_bytes(data)
    shutil.copy(CORPUS / "bad/error-trim-on-file.json", d / "error.json")
    shutil.copy(CORPUS / "bad/zero-io.json", d / "zero-io.json")
    shutil.copy(CORPUS / "json/randread-qd4.json", d / "good.json")
    return {**{k: w for k, (_, w) in files.items()}, "error.json": "error 25", "zero-io.json": "no I/O"}


def test_bad_files_are_quarantined_with_reasons_and_the_batch_goes_on(tmp_path, capsys):
    expect = make_bad_files(tmp_path)
    res = ingest.ingest_paths([tmp_path], "bad")
    q = res.quarantine
    for name, word in expect.items():
        reasons = list(q[q.source_file == name].reason)
        assert len(reasons) == 1, (name, reasons)
        assert word in reasons[0], (name, reasons[0])
        assert reasons[0].endswith(".") and "\n" not in reasons[0]
    assert set(q[q.source_file == "error.json"].job_name) == {"trim-on-file"}
    assert set(q[q.source_file == "zero-io.json"].job_name) == {"never-started"}
    # the good file and the good job of zero-io.json still ingest; no row of zeros anywhere
    assert sorted(res.results.source_file) == ["good.json", "zero-io.json"]
    assert (res.results.total_ios > 0).all() and (res.results.runtime_s > 0).all()


def test_command_line_writes_three_datasets_and_replaces_a_run(tmp_path, capsys):
    (tmp_path / "raw").mkdir()
    make_bad_files(tmp_path / "raw")
    out = tmp_path / "out"
    for _ in range(2):  # re-ingest: the run's rows are replaced, never duplicated
        assert ingest.main([str(tmp_path / "raw"), str(CORPUS / "jsonplus"), "--out", str(out), "--run", "r1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("12 files: 6 results (4 rows), 0 fio logs (0 windows), 10 quarantined (528 histogram bins; run r1)")
    assert any("error.json [trim-on-file]: fio reported error 25" in x for x in lines)
    res = store.load(out, config.RESULTS_DATASET, "r1")
    # several PATHs in one run: source_file is relative to their common folder
    assert sorted(s.rsplit("/", 2)[-2] + "/" + s.rsplit("/", 1)[-1] for s in res.source_file) == \
        ["jsonplus/randrw-mix70.json"] * 2 + ["raw/good.json", "raw/zero-io.json"]
    hist = store.load(out, config.HISTOGRAM_DATASET, "r1")
    job = fio_objects(CORPUS / "jsonplus/randrw-mix70.json")[0]["jobs"][0]
    assert len(hist) == len(job["read"]["clat_ns"]["bins"]) + len(job["write"]["clat_ns"]["bins"])
    assert len(store.load(out, config.QUARANTINE_DATASET, "r1")) == 10
    # one PATH per run by default: the folder name is the run id
    assert ingest.main([str(CORPUS / "multijob"), "--out", str(out)]) == 0
    assert store.list_runs(out) == ["multijob", "r1"]
    assert len(pd.read_parquet(out / "results")) == 4 + 5  # Hive partitions read as one table


def test_notebook_api_keeps_its_signatures(tmp_path):
    raw = tmp_path / "raw" / "run1"
    shutil.copytree(CORPUS / "multijob", raw)
    (raw / "manifest.json").write_text(json.dumps({"run_id": "run1", "host": "lab-host", "points": {
        "seqread": {"parameters": {"group": "blocksize"}}}}))
    r = ingest.ingest("run1", raw_dir=tmp_path / "raw", processed_dir=tmp_path / "processed")
    assert r.summary() == "2 files: 2 results (5 rows), 0 fio logs (0 windows), 0 quarantined"
    assert set(r.results.host) == {"lab-host"}
    assert r.results.set_index("job_name").loc["seqread", "group"] == "blocksize"
    assert len(store.load(tmp_path / "processed", config.RESULTS_DATASET, "run1")) == 5
    r2 = ingest.ingest_run(raw, run_id="other")
    assert set(r2.results.run_id) == {"other"} and len(r2.quarantine) == 0
    rows, bad = ingest.rows_from_bytes(b"", "x", "f.json")
    assert rows == [] and bad[0]["reason"] == "the file is empty."


def test_process_pool_gives_the_same_frame_as_one_process(tmp_path, monkeypatch):
    for i, rel in enumerate(GOOD * 2):
        shutil.copy(CORPUS / rel, tmp_path / f"{i:03d}.json")
    serial = ingest.ingest_paths([tmp_path], "p", workers=1, batch_files=5)
    monkeypatch.setattr(ingest, "POOL_MIN_FILES", 0)
    pooled = ingest.ingest_paths([tmp_path], "p", workers=2, batch_files=5)
    pd.testing.assert_frame_equal(serial.results, pooled.results)
    pd.testing.assert_frame_equal(serial.histograms, pooled.histograms)


def archive(folder: Path, n: int, seed: int = 3) -> dict[str, dict]:
    """``n`` files shaped like a real archive (as in benchmarks/bench_ingest.py): each a numjobs run without
    group_reporting, so 1-64 clone entries, with their numbers varied; json+ with bins on every 8th file.
    Returns {source_file: the JSON written}."""
    rng = random.Random(seed)
    plain, plus = (json.loads((CORPUS / r).read_text()) for r in ("json/randread-qd4.json", "jsonplus/randrw-mix70.json"))
    out = {}
    for i in range(n):
        obj = copy.deepcopy(plus if i % 8 == 7 else plain)
        k = rng.choice((1, 2, 4, 8, 16, 32, 64))
        job = obj["jobs"][0]
        job["job options"]["numjobs"] = str(k)
        obj["jobs"] = []
        for _ in range(k):
            j = copy.deepcopy(job)
            for d in ("read", "write"):
                x = j[d]
                if x["total_ios"]:
                    f = rng.uniform(0.5, 2.0)
                    x["total_ios"], x["io_bytes"] = int(x["total_ios"] * f), int(x["io_bytes"] * f)
                    x["iops"], x["bw_bytes"] = x["iops"] * f, int(x["bw_bytes"] * f)
                    x["lat_ns"]["mean"] *= f
                    x["clat_ns"]["percentile"] = {p: int(v * f) for p, v in x["clat_ns"]["percentile"].items()}
                    if "bins" in x["clat_ns"]:
                        x["clat_ns"]["bins"] = {b: c * rng.randint(1, 9) for b, c in x["clat_ns"]["bins"].items()}
            j["usr_cpu"] = rng.uniform(0, 50)
            obj["jobs"].append(j)
        rel = f"host{i % 3}/qd{2 ** (i % 5)}/run-{i:03d}.json"
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(json.dumps(obj, indent=2))
        out[rel] = obj
    return out


def test_archive_shaped_corpus_matches_the_naive_reading(tmp_path, monkeypatch):
    files = archive(tmp_path / "raw", 40)
    monkeypatch.setattr(ingest, "POOL_MIN_FILES", 0)  # worker processes, as for a real archive
    res = ingest.ingest_paths([tmp_path / "raw"], "a", out=tmp_path / "out", keep=False, workers=2, batch_files=6)
    results = store.load(tmp_path / "out", config.RESULTS_DATASET, "a")
    hist = store.load(tmp_path / "out", config.HISTOGRAM_DATASET, "a")
    assert res.files == 40 and len(res.quarantine) == 0 and res.rows == len(results)
    by_file = dict(tuple(results.groupby("source_file")))
    by_hist = dict(tuple(hist.groupby(["source_file", "job_index", "direction"])))
    plus = 0
    for rel, obj in files.items():
        got = by_file[rel]
        check_rows(got, expected_rows(obj))
        assert set(got.numjobs) == {len(obj["jobs"])} and not got.group_reporting.any()
        assert set(got.source_format) == {"json+" if "bins" in obj["jobs"][0]["read"]["clat_ns"] else "json"}
        for i, job in enumerate(obj["jobs"]):
            for d in ("read", "write"):
                bins = job[d]["clat_ns"].get("bins")
                h = by_hist.get((rel, i, d))
                if not bins:
                    assert h is None
                    continue
                plus += 1
                h = h.sort_values("bin_ns")
                assert list(h.bin_ns) == sorted(int(b) for b in bins)
                assert list(h["count"]) == [bins[b] for b in sorted(bins, key=int)]
                assert set(h.latency) == {"clat"} and set(h.point_id) == {job["jobname"]}
    assert plus > 0 and len(by_hist) == plus
    kept = ingest.ingest_paths([tmp_path / "raw"], "a", workers=2, batch_files=6)  # frames, not Arrow tables
    pd.testing.assert_frame_equal(hist, kept.histograms)
    assert res.histogram_rows == len(hist)


# --- property-based: no uncaught exception, ever -------------------------------------------------

SEEDS = [(CORPUS / r).read_bytes() for r in ("json/randread-qd4.json", "text/status-interval.json",
                                              "clientserver/two-clients.json")]
SEED_OBJ = json.loads(SEEDS[0])
PROPS = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))


def assert_never_raises(data: bytes) -> None:
    sink = ingest._Sink()
    ingest.add_file(data, "h", "f.json", sink)
    df = ingest._results_frame(sink.rows)
    ingest._hist_frame(sink.pack())
    ingest._quarantine_frame(sink.bad)
    assert len(sink.rows) + len(sink.bad) > 0  # every file is either data or quarantined
    assert (df.total_ios > 0).all() and (df.io_bytes > 0).all()


@PROPS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data):
    assert_never_raises(data)


@PROPS
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=8)), max_size=5),
       st.integers(0, 10**6))
def test_mutated_real_files(seed, edits, cut):
    data = bytearray(seed)
    for pos, chunk in edits:
        pos %= len(data)
        data[pos:pos + len(chunk)] = chunk
    assert_never_raises(bytes(data[: len(data) - cut % len(data)]))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


SEED_PATHS = list(_paths(SEED_OBJ))[1:]


@PROPS
@given(st.lists(st.tuples(st.sampled_from(SEED_PATHS), json_values), min_size=1, max_size=4))
def test_structurally_mutated_fio_json(mutations):
    obj = json.loads(SEEDS[0])
    for path, value in mutations:
        node = obj
        try:
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    assert_never_raises(json.dumps(obj, allow_nan=True).encode())


# --- files recognised by content (issue 11 point 10) ----------------------------------------------

def make_mixed_folder(d: Path) -> None:
    """fio results under names people give them, junk, binary, and the lab's own files."""
    (d / "sub").mkdir(parents=True)
    shutil.copy(CORPUS / "json/randread-qd4.json", d / "run1.out")
    shutil.copy(CORPUS / "jsonplus/randrw-mix70.json", d / "sub" / "mix.txt")
    shutil.copy(CORPUS / "text/note-before.json", d / "sub" / "fio.log")
    shutil.copy(CORPUS / "multijob/group-reporting.json", d / "results")  # no extension
    (d / "notes.md").write_text("# my fio notes\nnothing measured here\n")
    (d / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(200))
    (d / "manifest.json").write_text('{"run_id": "x", "points": {}}')  # the lab's own: not a result
    (d / "part-0.parquet").write_bytes(b"PAR1\0\0PAR1")
    (d / ".hidden.fio").write_text("[job]\nrw=read\n")


def test_files_are_recognised_by_content_not_name(tmp_path):
    make_mixed_folder(tmp_path)
    res = ingest.ingest_paths([tmp_path], "mixed")
    assert res.files == 6 and res.recognised == 4
    assert sorted(set(res.results.source_file)) == ["results", "run1.out", "sub/fio.log", "sub/mix.txt"]
    q = res.quarantine.set_index("source_file").reason
    assert sorted(q.index) == ["image.bin", "notes.md"]  # every other file has its line
    assert q["image.bin"] == "the file is binary (a NUL byte near its start), not fio output."
    assert q["notes.md"] == "the file holds neither fio JSON nor fio's normal or terse text output."  # once
    only = ingest.ingest_paths([tmp_path], "g", glob="*.out")
    assert list(only.results.source_file) == ["run1.out"] and only.files == 1
    assert ingest.ingest_paths([tmp_path], "g", glob="sub/*").files == 2  # a relative path matches too


def test_command_line_exits_non_zero_when_nothing_is_fio_output(tmp_path, capsys):
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.out").write_text("Linux 6.1 (host) \t11/23/2026\n")
    (junk / "b.log").write_text("not fio\n")
    assert ingest.main([str(junk), "--out", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("2 files: 0 results (0 rows), 0 fio logs (0 windows), 2 quarantined")
    err = captured.err.strip().splitlines()
    assert err == [f"error: nothing in {junk} was recognised as fio output (2 files considered, none holds a "
                   "fio result; see the quarantine lines above)."]
    make_mixed_folder(tmp_path / "mixed")
    assert ingest.main([str(tmp_path / "mixed"), "--out", str(tmp_path / "out")]) == 0
    assert ingest.main([str(tmp_path / "mixed"), "--glob", "*.md", "--out", str(tmp_path / "out")]) == 1
    assert "1 file matching '*.md' considered" in capsys.readouterr().err


def test_windows_utf16_output_is_read(tmp_path):
    text = (CORPUS / "json/randread-qd4.json").read_text()
    (tmp_path / "win.json").write_bytes(b"\xff\xfe" + text.replace("\n", "\r\n").encode("utf-16-le"))
    a = ingest_file(CORPUS / "json/randread-qd4.json").drop(columns="source_file")
    b = ingest_file(tmp_path / "win.json").drop(columns="source_file")
    pd.testing.assert_frame_equal(a, b)


def test_a_settled_probe_carries_its_settle_time_and_is_not_flagged_short(tmp_path):
    """The manifest's settled_after_s of a point (a settle-early probe that ended once its IOPS settled) reaches
    its result rows; a 1 s point without one stays flagged too short."""
    raw = tmp_path / "run1"
    shutil.copytree(CORPUS / "multijob", raw)
    (raw / "manifest.json").write_text(json.dumps({"run_id": "run1", "points": {
        "seqread": {"parameters": {"group": "qd"}, "settled_after_s": 0.85}, "randwrite": {"parameters": {}}}}))
    r = ingest.ingest_run(raw).results.set_index("point_id")
    assert r.loc["seqread", "settled_after_s"] == 0.85 and r.loc["seqread", "group"] == "qd"
    assert not r.loc["seqread", "flag_short_run"] and r.loc["seqread", "flag_reasons"] == ""
    assert pd.isna(r.loc["randwrite", "settled_after_s"]) and r.loc["randwrite", "flag_short_run"]


def test_manifest_facts_is_one_mapping():
    m = {"points": {"a": {"parameters": {"group": "qd"}, "settled_after_s": 0.85}, "b": {"parameters": {}}, "c": {}}}
    assert ingest.manifest_facts(m) == {"a": ingest.PointFacts("qd", 0.85), "b": ingest.PointFacts(), "c": ingest.PointFacts()}
    assert ingest.manifest_facts({}) == {}


# --- total-latency percentiles (issue 10 point 1, ingest part) ------------------------------------

@pytest.fixture(scope="module")
def lat_percentiles_run(fio_path, scratch_dir) -> Path:
    """One real 1 s json+ run with lat_percentiles=1 (total latency percentiles and bins)."""
    import subprocess

    from realfio import prefill

    target = scratch_dir / "latpct-target.bin"
    prefill(fio_path, target)
    out = scratch_dir / "latpct.json"
    subprocess.run([fio_path, "--name=latpct", f"--filename={target}", "--size=64m", "--rw=randread", "--bs=4k",
                    "--ioengine=libaio", "--iodepth=4", "--direct=1", "--runtime=1", "--time_based",
                    "--lat_percentiles=1", "--output-format=json+", f"--output={out}"],
                   check=True, capture_output=True, timeout=60)
    return out


def test_lat_percentiles_are_total_latency_and_exactly_fios(lat_percentiles_run):
    from helpers.fio.histogram import percentile

    x = fio_objects(lat_percentiles_run)[0]["jobs"][0]["read"]
    res = ingest.ingest_paths([lat_percentiles_run], "lp")
    r = res.results.iloc[0]
    for key, suffix in (("50.000000", "p50"), ("90.000000", "p90"), ("95.000000", "p95"), ("99.000000", "p99"),
                        ("99.900000", "p99_9"), ("99.990000", "p99_99")):
        assert r[f"lat_{suffix}_us"] == x["lat_ns"]["percentile"][key] / 1000  # exactly fio's number
        assert r[f"clat_{suffix}_us"] == x["clat_ns"]["percentile"][key] / 1000
    assert r.lat_p50_us >= r.clat_p50_us and r.lat_mean_us >= r.clat_mean_us
    h = res.histograms
    assert set(h.latency) == {"lat"} and h["count"].sum() == x["lat_ns"]["N"]  # the total-latency bins
    assert percentile(h.bin_ns, h["count"], 99.0) == x["lat_ns"]["percentile"]["99.000000"]
    assert r.source_format == "json+"


def test_without_lat_percentiles_the_lat_columns_are_nan_and_bins_are_clat():
    res = ingest.ingest_paths([CORPUS / "jsonplus/randrw-mix70.json"], "t")
    assert res.results[[c for c in res.results.columns if c.startswith("lat_p")]].isna().all().all()
    assert set(res.histograms.latency) == {"clat"}


def test_text_results_go_through_the_same_reader(monkeypatch):
    """The dispatch: JSON first, else the text parser (helpers.fio.text_output, another engineer's; its
    contract is stood in for here). A text row says its format and rounded columns, and options the
    text does not print are <NA>, not fio's defaults."""
    obj = fio_objects(CORPUS / "json/randread-qd4.json")[0]
    job = obj["jobs"][0]
    job["job options"] = {"rw": "randread", "bs": "4k", "iodepth": "4", "ioengine": "libaio"}  # no direct
    job["lab_text"] = {"format": "normal", "rounded": ["iops", "bw_bytes_per_s"]}
    calls = []

    def fake_text(data: bytes) -> list[dict]:
        calls.append(data)
        if not data.startswith(b"randread-qd4: (g=0)"):
            raise ingest.FioParseError("not fio text output.")
        return [obj]

    monkeypatch.setattr(ingest, "parse_fio_text", fake_text)
    rows, bad = ingest.rows_from_bytes(b"randread-qd4: (g=0): rw=randread, bs=(R) 4096B-4096B ...\n", "t", "a.txt")
    assert not bad and len(rows) == 1
    r = rows[0]
    assert (r["source_format"], r["rounded_columns"]) == ("normal", "iops,bw_bytes_per_s")
    assert (r["rw"], r["bs_bytes"], r["iodepth"], r["ioengine"]) == ("randread", 4096, 4, "libaio")
    assert r["direct"] is None and r["numjobs"] is None and r["rate_iops"] is None
    assert r["config_note"] == "numjobs, direct, rate_iops not printed in fio's normal output"
    calls.clear()
    json_rows, _ = ingest.rows_from_bytes((CORPUS / "json/randread-qd4.json").read_bytes(), "t", "b.json")
    assert calls == [] and json_rows[0]["source_format"] == "json" and json_rows[0]["rounded_columns"] is None


def test_help_shows_the_whole_description_and_the_out_default(capsys):
    with pytest.raises(SystemExit) as exc:
        ingest.main(["--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ingest.description() in text and ingest.description().endswith("quarantined.")
    assert "one row per job entry and direction with I/O." in text  # the first sentence, not cut mid-way
    assert f"--out OUT processed data folder (default: {config.PROCESSED_DIR})" in text


def test_summary_line_counts_with_thousands_and_millions():
    line = ingest.summary_line(3455, 3450, 3666, {}, 106610, 6_200_000, 5)
    assert line == "3,455 files: 3,450 results (3,666 rows), 106,610 fio logs (6.2 M windows), 5 quarantined"
    assert ingest.summary_line(1, 3, 3, {"all.log": 3}, 1, 1, 0) == (
        "1 file: 3 results (3 rows; all.log held 3 separate fio runs), 1 fio log (1 window), 0 quarantined")


def test_results_state_the_target_and_size_fio_was_given(tmp_path):
    """Issue 22.1: fio's filename and size options reach the results (the gate names a differing target or size
    of two raw fio folders, which have no manifest)."""
    from helpers import config
    from helpers.ingest.core import ingest_paths

    r = ingest_paths([config.SAMPLE_RAW_DIR / "sample-quick-vm"], "s", out=tmp_path).results
    assert set(r["target_file"]) == {"/tmp/fiot/sample.bin"} and set(r["target_size_bytes"]) == {256 << 20}
