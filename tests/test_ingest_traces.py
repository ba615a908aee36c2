"""helpers.ingest.traces: every trace format from a fixture, exact; bad input counted and named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import config
from helpers.ingest import traces as T
from helpers.processed import schema, store

DATA = Path(__file__).parent / "data" / "traces"


def rows(imp: T.TraceImport) -> list[tuple]:
    return [(r.op, r.offset_bytes, r.size_bytes) for r in imp.ios.itertuples()]


@pytest.mark.parametrize("name, fmt", [
    ("blkparse-sample.txt", "blkparse"), ("known-fio-tracefs.trace", "tracepoints"),
    ("perf-script.txt", "tracepoints"), ("known-fio.iolog", "iolog3"), ("known-fio-v2.iolog", "iolog2"),
    ("msr-sample.csv", "msr"), ("alibaba-sample.csv", "alibaba"), ("plain.csv", "csv"),
    ("not-a-trace.txt", None), ("known-fio.json", None)])
def test_format_is_recognised_by_content(name, fmt, tmp_path):
    # the name says nothing: a copy without its extension is recognised the same
    f = tmp_path / "trace"
    shutil.copy(DATA / name, f)
    assert T.sniff(f) == fmt


def test_blkparse_uses_dispatch_and_completion_exactly():
    imp = T.read_trace(DATA / "blkparse-sample.txt")
    assert rows(imp) == [("write", 123456 * 512, 4096), ("read", 1234567 * 512, 256 * 512),
                         ("trim", 2048 * 512, 2048 * 512)]
    assert imp.ios["t_s"].round(9).tolist() == [0.0, 0.000998889, 0.003994322]
    assert imp.ios["latency_us"].tolist() == [120.0, 2341.111, 500.0]
    assert imp.ios["stream"].tolist() == ["8,0"] * 3
    # the sync's flush (D FN, no data) is named; blkparse's closing statistics are not counted as bad lines
    assert imp.summary == ("blkparse-sample.txt (blkparse): 3 I/Os imported; left out: 1 flush or no-data "
                           "requests (no I/O to replay).")


def test_tracepoints_of_a_known_fio_job_match_its_iolog_and_json():
    tp = T.read_trace(DATA / "known-fio-tracefs.trace")
    log = T.read_trace(DATA / "known-fio.iolog")
    job = json.loads((DATA / "known-fio.json").read_text())["jobs"][0]
    assert not tp.skipped and not log.skipped
    # the block layer saw exactly the I/Os fio logged, in the same order
    assert rows(tp) == rows(log)
    assert (tp.ios["op"] == "read").sum() == job["read"]["total_ios"] == 232
    assert (tp.ios["op"] == "write").sum() == job["write"]["total_ios"] == 102
    assert tp.ios.loc[tp.ios["op"] == "read", "size_bytes"].sum() == job["read"]["io_bytes"]
    # every issue found its completion; the first: issue 5246.xxx 0 + 128 WS, latency from the two lines
    assert tp.ios["latency_us"].notna().all() and (tp.ios["latency_us"] > 0).all()
    first = (DATA / "known-fio-tracefs.trace").read_text().splitlines()
    ev = [ln for ln in first if "block_rq_" in ln][:2]
    t0, t1 = (float(ln.split(": block_rq")[0].split()[-1]) for ln in ev)
    assert tp.ios["latency_us"].iloc[0] == round((t1 - t0) * 1e6, 3)
    # iolog v3 times are fio's µs since the job started, from the first I/O: the 2 s job spans 2 s as the
    # block layer saw it
    assert log.ios["t_s"].iloc[0] == 0.0 and log.ios["t_s"].is_monotonic_increasing
    assert abs(log.ios["t_s"].iloc[-1] - tp.ios["t_s"].iloc[-1]) < 0.05 and 1.9 < tp.ios["t_s"].iloc[-1] < 2.1
    assert log.ios["latency_us"].isna().all() and log.ios["stream"].eq("/dev/loop0").all()


def test_perf_script_text_is_read_like_tracefs():
    imp = T.read_trace(DATA / "perf-script.txt")
    assert len(imp.ios) == 20 and imp.ios["op"].eq("read").all() and imp.ios["size_bytes"].eq(4096).all()
    assert imp.ios["offset_bytes"].iloc[:2].tolist() == [7904 * 512, 97024 * 512]
    assert imp.ios["latency_us"].iloc[0] == 39.0  # 5275.070665 - 5275.070626


def test_iolog_v2_has_no_times_and_skips_file_actions():
    imp = T.read_trace(DATA / "known-fio-v2.iolog")
    assert rows(imp)[:3] == [("write", 0, 65536), ("read", 0, 16384), ("read", 16384, 4096)]
    assert len(imp.ios) == 9 and imp.ios["t_s"].isna().all() and not imp.skipped


def test_msr_filetime_and_response_time():
    imp = T.read_trace(DATA / "msr-sample.csv")
    assert rows(imp) == [("write", 7014912, 4096), ("read", 1074696192, 4096), ("read", 1074696192, 512),
                         ("read", 1074696192, 1024)]
    # 100 ns ticks, exact on integers: 128166372016382155 - 128166372003061629 = 13320526 ticks
    assert imp.ios["t_s"].tolist() == pytest.approx([0.0, 1.3320526, 2.3320526, 3.3320526], abs=1e-9)
    assert imp.ios["latency_us"].tolist() == pytest.approx([2.6, 11.3, 11.3, 11.3])
    assert imp.ios["stream"].tolist() == ["hm/0", "hm/0", "hm/1", "prn/0"]


def test_alibaba_and_plain_csv():
    ali = T.read_trace(DATA / "alibaba-sample.csv")
    assert rows(ali) == [("read", 126703644672, 4096), ("write", 126703648768, 8192), ("read", 4096, 16384),
                         ("write", 20480, 4096)]
    assert ali.ios["t_s"].tolist() == pytest.approx([0.0, 188e-6, 688e-6, 1938e-6], abs=1e-9)
    assert ali.ios["stream"].tolist() == ["0", "0", "3", "3"]
    csv = T.read_trace(DATA / "plain.csv")
    assert rows(csv) == [("read", 0, 4096), ("write", 4096, 8192), ("read", 1048576, 4096)]
    assert csv.ios["t_s"].tolist() == pytest.approx([0.0, 0.0015, 0.003])
    assert np.isnan(csv.ios["latency_us"].iloc[1]) and csv.ios["latency_us"].iloc[2] == 120.0


def test_bad_input_is_counted_and_named_in_one_sentence():
    imp = T.read_trace(DATA / "bad-input.trace", target_size_bytes=64 << 20)
    assert rows(imp) == [("read", 0, 4096), ("write", 4096, 4096), ("read", 16384, 8192)]
    assert imp.summary == (
        "bad-input.trace (tracepoints): 3 I/Os imported; left out: 1 I/Os beyond the target's 67,108,864 bytes, "
        "1 I/Os whose time goes backwards, 1 requests of an unknown operation, 1 truncated or unreadable lines.")
    # without a target size the far I/O is kept
    assert len(T.read_trace(DATA / "bad-input.trace").ios) == 4


def test_csv_faults_are_counted(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("device_id,opcode,offset,length,timestamp\n0,R,0,4096,10\n0,X,4096,4096,20\n0,W,8192\n"
                 "0,W,8192,4096,30\n0,R,0,4096,25\n")
    imp = T.read_trace(f)
    assert rows(imp) == [("read", 0, 4096), ("write", 8192, 4096)]
    assert imp.skipped == {"lines of an unknown operation": 1, "truncated or unreadable lines": 1,
                           "I/Os whose time goes backwards": 1}


def test_not_a_trace_is_refused_in_one_sentence():
    with pytest.raises(T.TraceError, match=r"^not-a-trace.txt is not a trace the lab reads .*\.$"):
        T.read_trace(DATA / "not-a-trace.txt")


def test_import_writes_the_traces_dataset_and_one_summary(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for n in ("known-fio-tracefs.trace", "msr-sample.csv", "not-a-trace.txt", "bad-input.trace"):
        shutil.copy(DATA / n, src / n)
    imports, sentence = T.import_traces([src], "r1", tmp_path / "processed", target_size_bytes=64 << 20)
    # three of the four MSR I/Os lie beyond 64 MiB too
    assert sentence == ("338 I/Os imported from 3 traces; left out: 4 I/Os beyond the target's 67,108,864 bytes, "
                        "1 I/Os whose time goes backwards, 1 files that are not traces, 1 requests of an unknown "
                        "operation, 1 truncated or unreadable lines.")
    df = store.load(tmp_path / "processed", config.TRACES_DATASET, "r1")
    assert list(df.columns) == schema.column_names(schema.TRACE_COLUMNS)
    assert df["seq"].dtype == "int64" and df["t_s"].dtype == "float64" and df["offset_bytes"].dtype == "int64"
    assert len(df) == 338 and set(df["trace_id"]) == {"known-fio-tracefs", "bad-input", "msr-sample"}
    assert df.groupby("trace_id")["seq"].apply(lambda s: s.tolist() == list(range(len(s)))).all()
    assert isinstance(df["op"].dtype, pd.StringDtype)


@pytest.mark.skipif(shutil.which("blkparse") is None, reason="blkparse is not installed (apt-get install blktrace)")
def test_blktrace_binary_of_a_known_fio_job_reads_through_blkparse_as_its_tracepoints():
    """known-fio.blktrace holds the tracepoint trace's I/Os in blktrace's binary format (make_blktrace.py: blktrace
    itself is refused here); blkparse turns it into text and the lab reads the same I/Os, latencies and times."""
    binary = T.read_trace(DATA / "known-fio.blktrace")
    tp = T.read_trace(DATA / "known-fio-tracefs.trace")
    assert binary.source_format == "blktrace" and not binary.skipped
    assert binary.summary == "known-fio.blktrace (blktrace): 334 I/Os imported."
    assert rows(binary) == rows(tp)
    assert np.allclose(binary.ios["latency_us"], tp.ios["latency_us"])
    assert np.allclose(binary.ios["t_s"] - binary.ios["t_s"].min(), tp.ios["t_s"] - tp.ios["t_s"].min(), atol=1e-9)


def test_blktrace_binary_without_blkparse_is_one_sentence(monkeypatch):
    monkeypatch.setattr(T.shutil, "which", lambda name: None)
    with pytest.raises(T.TraceError, match="blktrace binary output and blkparse is not installed"):
        T.read_trace(DATA / "known-fio.blktrace")
