"""parse_fio_bytes, split_runs and final_jobs on the shapes fio files really take (real fio for runs appended
to one file and --status-interval output, in every output format)."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes, split_runs
from helpers.fio.reader import read_runs
from helpers.ingest import core as ingest
from helpers.ingest.core import read_results
from realfio import prefill

OBJ = {"fio version": "fio-3.33", "jobs": [{"jobname": "a", "groupid": 0}]}


def test_text_around_one_object():
    data = b"note: capped\n" + json.dumps(OBJ).encode() + b"\n\nRun status group 0 (all jobs): {x}\n"
    assert parse_fio_bytes(data) == [OBJ]


def test_concatenated_objects_and_final_jobs():
    objs = [{"jobs": [{"jobname": "a", "groupid": 0, "n": i}, {"jobname": "a", "groupid": 0, "n": 10 + i}]}
            for i in range(3)]
    objs[0]["jobs"].append({"jobname": "early", "groupid": 1})
    data = b"\n".join(json.dumps(o, indent=1).encode() for o in objs)
    parsed = parse_fio_bytes(data)
    assert len(parsed) == 3
    assert [j.get("n") for j in final_jobs(parsed)] == [None, 2, 12]  # clones kept apart, last wins


@pytest.mark.parametrize("data,word", [
    (b"", "empty"), (b"   \n", "empty"), (b"hello", "no JSON"), (b'{"a": 1}', "neither"),
    (b'{"jobs": [', "truncated"), (json.dumps(OBJ).encode() + b"\n{\"jobs\": [", "truncated"),
])
def test_unusable_bytes(data, word):
    with pytest.raises(FioParseError, match=word):
        parse_fio_bytes(data)


def test_jobs_not_a_list():
    with pytest.raises(FioParseError, match="wrong schema"):
        final_jobs([{"jobs": {}}, {"jobs": {}}])


# --- runs: a fio process is one result, whatever the file holds ------------------------------------------
#
# Real fio, every output format: a --status-interval run (snapshots + final block) and two plain runs of the
# same job, one fio process each, written to files the way users append them (`fio ... >> file`).  The
# twelve fio processes run four at a time (one thread per format) once for the module.

FORMATS = ("json", "json+", "normal", "terse")
JOB = ["--name=rep", "--size=64m", "--rw=randread", "--bs=4k", "--ioengine=psync", "--direct=1", "--time_based",
       "--randrepeat=0"]


def _fio_runs(fio: str, target: Path, fmt: str) -> dict[str, bytes]:
    def run(*extra: str) -> bytes:
        return subprocess.run([fio, *JOB, f"--filename={target}", f"--output-format={fmt}", *extra],
                              check=True, capture_output=True, timeout=60).stdout

    status = run("--ramp_time=600ms", "--runtime=1500ms", "--status-interval=250ms")  # snapshots in the ramp too
    first, second = run("--runtime=1s"), run("--runtime=1s")
    return {"status": status, "appended": first + second, "mixed": status + first + second}


@pytest.fixture(scope="module")
def appended(fio_path, scratch_dir) -> dict[str, dict[str, bytes]]:
    """{format: {"status": one status-interval run, "appended": two runs, "mixed": status run + two runs}}."""
    target = scratch_dir / "runs-target.bin"
    prefill(fio_path, target)
    with ThreadPoolExecutor(len(FORMATS)) as pool:
        return dict(zip(FORMATS, pool.map(lambda f: _fio_runs(fio_path, target, f), FORMATS)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_status_interval_output_is_one_run_its_final_block(appended, fmt):
    objs = read_results(appended[fmt]["status"])
    assert len(objs) >= 4  # fio printed snapshots during the ramp and after it, then the final block
    if fmt.startswith("json"):  # a ramp snapshot (no latency samples yet): fio resets the numbers after it
        assert any(o["jobs"][0]["read"]["clat_ns"]["N"] == 0 < o["jobs"][0]["read"]["total_ios"] for o in objs)
    runs = split_runs(objs)
    assert [len(r) for r in runs] == [len(objs)]
    rows, bad = ingest.rows_from_bytes(appended[fmt]["status"], "r", "status.out")
    assert not bad and len(rows) == 1 and rows[0]["run_index"] == 0
    last = read_runs(objs)[-1].entries[0].directions[0]
    assert rows[0]["io_bytes"] == last.io_bytes and rows[0]["runtime_s"] == last.runtime_s
    # (terse prints zeros for a direction without I/O, read as no direction: a snapshot fio printed before its
    # first I/O completed -- under make test's load -- has no read figures)
    snapshots = [o["jobs"][0]["read"]["runtime"] for o in objs if "read" in o["jobs"][0]]
    assert "read" in objs[-1]["jobs"][0]
    assert rows[0]["runtime_s"] * 1000 == max(snapshots) == snapshots[-1] > 1400  # the final block, after the ramp


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_appended_to_one_file_stay_separate(appended, fmt):
    rows, bad = ingest.rows_from_bytes(appended[fmt]["appended"], "r", "all.out")
    assert not bad
    assert [(r["run_index"], r["job_name"], r["direction"]) for r in rows] == [(0, "rep", "read"), (1, "rep", "read")]
    alone = [ingest.rows_from_bytes(b, "r", "x")[0][0] for b in _halves(appended[fmt]["appended"], fmt)]
    assert [r["io_bytes"] for r in rows] == [a["io_bytes"] for a in alone]  # each run's own numbers, exact
    assert [r["total_ios"] for r in rows] == [a["total_ios"] for a in alone]


def _halves(data: bytes, fmt: str) -> list[bytes]:
    """The two runs of an appended file, cut where the second fio process started writing."""
    mark = {"json": b"{\n  \"fio version\"", "json+": b"{\n  \"fio version\"", "normal": b"rep: (g=0)",
            "terse": b"3;fio-"}[fmt]
    i = data.find(mark, data.find(mark) + 1)
    return [data[:i], data[i:]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_status_interval_run_followed_by_separate_runs(appended, fmt):
    data = appended[fmt]["mixed"]
    runs = read_runs(read_results(data))
    assert [(r.run_index, r.runs) for r in runs] == [(0, 3), (1, 3), (2, 3)]
    rows, bad = ingest.rows_from_bytes(data, "r", "mixed.out")
    assert not bad and [r["run_index"] for r in rows] == [0, 1, 2]
    status, = ingest.rows_from_bytes(appended[fmt]["status"], "r", "s")[0]
    assert rows[0]["io_bytes"] == status["io_bytes"]  # the status-interval run: its final block
    assert [r["io_bytes"] for r in rows[1:]] == [r["io_bytes"] for r in
                                                  ingest.rows_from_bytes(appended[fmt]["appended"], "r", "a")[0]]


def test_ingest_counts_runs_and_keys_histograms_and_quarantine_by_run(appended, tmp_path):
    (tmp_path / "all.json").write_bytes(appended["json+"]["mixed"])
    (tmp_path / "one.json").write_bytes(appended["json"]["status"])
    bad = appended["json"]["appended"].replace(b'"error" : 0', b'"error" : 5', 1)  # the first run failed
    (tmp_path / "bad.json").write_bytes(bad)
    res = ingest.ingest_paths([tmp_path], "runs")
    assert res.runs == 6 and res.multi_run == {"all.json": 3, "bad.json": 2}
    assert sorted(zip(res.results.source_file, res.results.run_index)) == [
        ("all.json", 0), ("all.json", 1), ("all.json", 2), ("bad.json", 1), ("one.json", 0)]
    h = res.histograms.groupby(["source_file", "run_index"])["count"].sum()
    r = res.results.set_index(["source_file", "run_index"])["total_ios"]
    assert h.to_dict() == r[r.index.get_level_values(0) == "all.json"].to_dict()  # each run's own bins
    q, = res.quarantine.itertuples()
    assert (q.source_file, q.run_index, q.job_name) == ("bad.json", 0, "rep")
    assert res.summary() == ("3 files: 6 results (5 rows; 2 files held 5 separate fio runs), 0 fio logs "
                             "(0 windows), 1 quarantined")
    line, = ingest.quarantine_report(res.quarantine, multi_run=res.multi_run)
    assert line.startswith("  quarantined bad.json [rep, run 1 of 2]: fio reported error 5")
