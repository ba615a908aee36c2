"""The one fio reader (helpers.fio.reader) on files that reproduce issue 11's points 1-7
(fixtures in tests/data/fio, see its README for their source and fio version)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest

from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import NOT_RECORDED, read_result
from helpers.ingest import core as ingest

CORPUS = Path(__file__).parent / "data" / "fio"


def read(rel: str):
    data = (CORPUS / rel).read_bytes()
    return read_result(parse_fio_bytes(data), data)


def raw(rel: str) -> dict:
    return json.loads((CORPUS / rel).read_text()[(CORPUS / rel).read_text().index("{"):])


def rows(rel: str):
    return ingest.ingest_paths([CORPUS / rel], "t")


# --- 1. fio < 2.1.14: no total_ios -------------------------------------------------------------

def test_fio_2_1_without_total_ios_reads_the_directions_that_did_io():
    res = rows("legacy/fio-2.1.3.out")
    obj = raw("legacy/fio-2.1.3.out")
    assert len(res.quarantine) == 0, list(res.quarantine.reason)
    df = res.results.set_index("job_name")
    assert list(res.results.direction) == ["read", "write"]  # the idle directions are not rows
    for name, d in (("randread-psync", "read"), ("seqwrite-libaio", "write")):
        x = next(j for j in obj["jobs"] if j["jobname"] == name)[d]
        r = df.loc[name]
        assert r.direction == d and pd_na(r.total_ios)  # not written by fio 2.1: unknown, not 0
        assert r.io_bytes == x["io_bytes"] * 1024 and r.iops == x["iops"] and r.runtime_s == x["runtime"] / 1000
        assert r.bw_bytes_per_s == x["bw"] * 1024.0
        assert r.clat_mean_us == x["clat"]["mean"] and r.lat_mean_us == x["lat"]["mean"]  # µs already
        assert r.clat_p99_us == x["clat"]["percentile"]["99.000000"]
    assert str(res.results.total_ios.dtype) == "Int64"


def pd_na(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


# --- 2. fio < 2.3: no option blocks ------------------------------------------------------------

def test_fio_before_2_3_configuration_is_not_invented():
    res = rows("legacy/fio-2.1.3.out").results
    for col in ("rw", "bs_bytes", "iodepth", "numjobs", "ioengine", "direct", "rwmixread_pct", "rate_iops"):
        assert res[col].isna().all(), (col, list(res[col]))
    assert set(res.config_note) == {f"{NOT_RECORDED} (fio-2.1.3 wrote no option blocks)."[:-1]}
    e = read("legacy/fio-2.1.3.out").entries[0]
    assert not e.config.recorded and e.config.bs_bytes("read") is None


def test_options_left_out_of_an_option_block_are_fio_defaults():
    r = rows("options/defaults.json").results.iloc[0]
    assert (r.bs_bytes, r.iodepth, r.ioengine, r.direct) == (4096, 1, "psync", 0) and pd_na(r.config_note)


# --- 3. fio >= 3.39: 'global options' as a list of per-client blocks -----------------------------

def test_fio_3_39_global_options_list_is_matched_to_each_client():
    df = rows("clientserver/fio-3.39-global-list.json").results.set_index("job_name")
    w, r = df.loc["cs-write"], df.loc["cs-randread"]
    assert (w.host, w.ioengine, w.iodepth, w.direct, w.bs_bytes) == ("10.0.0.1", "libaio", 32, 1, 65536)
    assert (r.host, r.ioengine, r.iodepth, r.direct, r.bs_bytes) == ("10.0.0.2", "psync", 1, 0, 4096)
    assert df.config_note.isna().all()
    # per-host disk numbers: each client's own entry
    du = {d["hostname"]: d for d in raw("clientserver/fio-3.39-global-list.json")["disk_util"]}
    assert w.disk_read_ios == du["10.0.0.1"]["read_ios"] and r.disk_read_ios == du["10.0.0.2"]["read_ios"]


# --- 4. older client/server: duplicate 'global options' keys -------------------------------------

def test_duplicate_global_option_keys_equal_are_known_differing_are_na():
    path = CORPUS / "clientserver/fio-3.10-duplicate-globals.json"
    assert path.read_text().count('"ioengine" : "libaio"') == 2  # the file really repeats the keys
    df = rows("clientserver/fio-3.10-duplicate-globals.json").results
    assert set(df.ioengine) == {"libaio"} and set(df.iodepth) == {16} and set(df.direct) == {1}
    assert df.bs_bytes.isna().all()  # 64k from one client, 4k from the other: not attributable
    assert all("bs given different values" in n and "'64k'" in n and "'4k'" in n for n in df.config_note)


def test_one_global_block_for_two_clients_keys_set_once_are_unknown():
    df = rows("clientserver/two-clients.json").results
    assert df.ioengine.isna().all() and df.direct.isna().all()
    assert all(n.startswith("ioengine, direct set in the 'global options' of only 1 of the 2 clients")
               for n in df.config_note)


# --- 5. unmeasured latency is NaN, never 0 -----------------------------------------------------

def test_gtod_reduce_latencies_are_nan_not_zero():
    obj = raw("latency/gtod-reduce.json")
    x = obj["jobs"][0]["read"]
    assert x["clat_ns"]["N"] == 0 and x["lat_ns"]["mean"] == 0 and x["total_ios"] > 0
    r = rows("latency/gtod-reduce.json").results.iloc[0]
    lat_cols = [c for c in r.index if c.endswith("_us") and ("lat" in c)]
    assert len(lat_cols) == 18 and all(math.isnan(r[c]) for c in lat_cols), {c: r[c] for c in lat_cols}
    assert r.iops == x["iops"] and r.total_ios == x["total_ios"]


def test_slat_of_a_sync_engine_and_zero_blocks_of_fio_2_are_nan():
    e = read("options/defaults.json").entries[0]  # psync: slat_ns has N = 0
    assert math.isnan(e.directions[0].slat_mean_us) and e.directions[0].clat_mean_us > 0
    legacy = rows("legacy/fio-2.1.3.out").results.set_index("job_name")
    assert math.isnan(legacy.loc["randread-psync", "slat_mean_us"])  # fio 2.1: all zeros = not measured
    assert legacy.loc["seqwrite-libaio", "slat_mean_us"] == 5.40


# --- 6. disk_util of stacked devices counted once ------------------------------------------------

def test_stacked_dm_over_sda_is_counted_once():
    obj = raw("disk/dm-over-sda.json")
    dm = obj["disk_util"][0]
    assert dm["name"] == "dm-0" and "aggr_read_ios" in dm and obj["disk_util"][1]["name"] == "sda"
    r = rows("disk/dm-over-sda.json").results.iloc[0]
    assert r.disk_read_ios == dm["read_ios"] and r.disk_write_ios == dm["write_ios"]  # not dm + sda
    assert r.disk_read_ios < 2 * r.total_ios and not r.flag_page_cache


# --- 7. error sentences --------------------------------------------------------------------------

def test_error_of_another_machine_is_not_explained_with_this_hosts_strerror():
    q = rows("bad/windows-error-42.json").quarantine
    (reason,) = list(q.reason)
    assert "fio error 42" in reason and os.strerror(42) not in reason
    assert reason.startswith("fio reported error 42 for this job") and reason.endswith(".")


def test_error_uses_fios_own_text_from_the_file():
    (reason,) = list(rows("bad/stderr-before.json").quarantine.reason)
    assert "fio: Input/output error" in reason and "error 5" in reason


def test_error_text_from_normal_output_after_the_json():
    data = (CORPUS / "bad/error-trim-on-file.json").read_bytes() + (
        b"trim-on-file: (groupid=0, jobs=1): err=25 (file:ioengines.c:399, func=td_io_queue, "
        b"error=Inappropriate ioctl for device): pid=13410: Mon Nov 23 15:38:24 2026\n")
    _, bad = ingest.rows_from_bytes(data, "t", "f")
    assert "(fio: Inappropriate ioctl for device)" in bad[0]["reason"]


def test_a_missing_required_key_is_named():
    (reason,) = list(rows("bad/missing-runtime.json").quarantine.reason)
    assert reason == "the job's 'read' entry has no 'runtime' key (wrong schema)."


# --- the reader's other users ----------------------------------------------------------------------

def test_source_format_json_and_json_plus():
    assert set(rows("json/randread-qd4.json").results.source_format) == {"json"}
    assert set(rows("jsonplus/randrw-mix70.json").results.source_format) == {"json+"}
    assert rows("json/randread-qd4.json").results.rounded_columns.isna().all()


@pytest.mark.parametrize("rel", ["json/randread-qd4.json", "clientserver/two-clients.json"])
def test_every_entry_is_read_once(rel):
    res = read(rel)
    assert [e.index for e in res.entries] == list(range(len(res.entries)))
    assert sum(e.aggregate for e in res.entries) == (1 if res.client else 0)


def test_fio_3_39_two_connections_to_one_server_keep_only_what_both_blocks_say():
    obj = raw("clientserver/fio-3.39-global-list.json")
    for j in obj["client_stats"]:
        j["hostname"], j["port"] = "127.0.0.1", 8765
    obj["global options"] = [
        {"hostname": "127.0.0.1", "port": 8765, "size": "64m", "ioengine": "libaio", "direct": "1"},
        {"hostname": "127.0.0.1", "port": 8765, "size": "64m", "direct": "0"},
    ]
    rows, bad = ingest.rows_from_bytes(json.dumps(obj).encode(), "t", "f")
    assert not bad and len(rows) == 2
    for r in rows:
        assert r["ioengine"] is None and r["direct"] is None  # one block only / different values
        assert r["config_note"].startswith("ioengine, direct not set alike by the 'global options' of the clients")
