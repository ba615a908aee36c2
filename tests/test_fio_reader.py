"""The one fio reader (helpers.fio.reader) on files that reproduce issue 11's points 1-7
(fixtures in tests/data/fio, see its README for their source and fio version)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from helpers.fio import reader
from helpers.fio.json_output import parse_fio_bytes
from helpers.fio.reader import NOT_RECORDED, Direction, read_result
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
    assert os.strerror(42) not in reason
    assert reason == ("fio reported error 42 for this job (the file has no message for it), so its numbers are not "
                      "a measurement.")  # its cause once: the number is not repeated


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


# --- fast paths: the same numbers as the general path, or the general path's verdict -----------------

def _same(a, b) -> bool:
    """Two reader results (Direction or None) hold the same values (NaN equal to NaN, bins element-wise)."""
    if a is None or b is None:
        return a is b
    for name in Direction.__slots__:
        x, y = getattr(a, name), getattr(b, name)
        if name == "bins":
            same = x is None and y is None or x is not None and y is not None and all(
                u.dtype == v.dtype and np.array_equal(u, v) for u, v in zip(x, y))
        elif isinstance(x, tuple):
            same = len(x) == len(y) and all(map(_equal, x, y))
        else:
            same = _equal(x, y)
        if not same:
            return False
    return True


def _equal(x, y) -> bool:
    return x == y or isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)


def _outcome(f, *args):
    try:
        return "ok", f(*args)
    except Exception as exc:  # noqa: BLE001 - compared between the two paths
        return type(exc).__name__, str(exc)


def _check_direction(d: dict, direction: str) -> None:
    """The fast fio >= 3 path gives what the general path gives (result or error) on ``d``."""
    got, want = _outcome(reader._direction, d, direction), _outcome(reader._direction_any, d, direction)
    assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "ok" else got[1] == want[1]), (got, want)


def _corpus_directions():
    for p in sorted(CORPUS.rglob("*.json")):
        if p.parts[-2] == "bad":
            continue
        data = p.read_bytes()
        for obj in parse_fio_bytes(data):
            for job in obj.get("jobs") or obj.get("client_stats") or []:
                for direction in ("read", "write", "trim"):
                    if isinstance(job.get(direction), dict):
                        yield job[direction], direction


def test_fast_direction_path_matches_the_general_path_on_the_corpus():
    found = list(_corpus_directions())
    assert sum(reader._direction_ns(d, k, d["total_ios"]) is not None for d, k in found
               if type(d.get("total_ios")) is int and d["total_ios"] > 0 and "io_kbytes" in d) > 20
    for d, direction in found:
        _check_direction(d, direction)


ODD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.integers(2**63 - 2, 2**64),
                       st.sampled_from([0.0, -0.0, 1.5, 1e308, math.inf, math.nan, "1", [], {}]))


EDIT_PATHS = [("total_ios",), ("io_bytes",), ("iops",), ("runtime",), ("bw_bytes",), ("io_kbytes",), ("lat_ns",),
              ("clat_ns",), ("slat_ns",), ("lat_ns", "N"), ("clat_ns", "N"), ("slat_ns", "N"), ("lat_ns", "mean"),
              ("lat_ns", "max"), ("clat_ns", "mean"), ("slat_ns", "mean"), ("clat_ns", "percentile"),
              ("clat_ns", "percentile", "99.000000"), ("lat_ns", "percentile"), ("clat_ns", "bins"),
              ("lat_ns", "bins"), ("clat_ns", "bins", "1000")]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(EDIT_PATHS), st.one_of(ODD_VALUES, st.just(KeyError))), max_size=4))
def test_fast_direction_path_matches_the_general_path_on_odd_values(edits):
    d = json.loads((CORPUS / "jsonplus/randrw-mix70.json").read_text())["jobs"][0]["read"]
    d["lat_ns"]["percentile"] = dict(d["clat_ns"]["percentile"])  # as with lat_percentiles=1
    for (*parents, key), value in edits:
        node = d
        for k in parents:
            node = node.get(k) if isinstance(node, dict) else None
        if isinstance(node, dict):
            if value is KeyError:
                node.pop(key, None)
            else:
                node[key] = value
    _check_direction(d, "read")


def _bins_by_int(bins: dict):
    """The bins as fio's keys read one by one with int() (the general conversion)."""
    keys = np.fromiter(map(int, bins), dtype=np.int64, count=len(bins))
    counts = np.fromiter(bins.values(), dtype=np.int64, count=len(bins))
    return keys, counts


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(st.from_regex(r"\A[0-9]{1,20}\Z"), st.text("0123456789 _+-\u0663.e", max_size=21)),
                       st.integers(0, 5), max_size=6))
@example({"5 6": 1, "": 2, "7": 3})  # a key with a space and an empty key: as many numbers as keys
@example({"": 1, "5 6": 2})
@example({"5 6": 1, "": 2})
@example({"9223372036854775807": 1, "9223372036854775808": 1})  # int64's last value, then beyond it
@example({"0017": 1, "+5": 1, " 5": 1, "1_000": 1, "\u0663": 1})
def test_bin_keys_in_one_pass_read_as_int_does(bins):
    got, want = _outcome(reader._bins, {"bins": bins}, "clat"), _outcome(_bins_by_int, bins)
    if want[0] != "ok":
        assert got[0] == "EntryError", (bins, got)
    elif want[1][0].size and want[1][0].min() < 0:
        assert got[0] == "EntryError" and "negative" in got[1]
    else:
        assert got[0] == "ok", (bins, got)
        for u, v in zip(got[1], want[1]):
            assert u.dtype == v.dtype and np.array_equal(u, v), (bins, got, want)
