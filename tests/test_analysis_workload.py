"""helpers.analysis.workload: known answers on a generated trace, and the real trace of a known fio job."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import workload as W
from helpers.ingest import traces as T

DATA = Path(__file__).parent / "data" / "traces"
MIB = 1 << 20
ZONE_OF_GROUP = [0, 0, 0, 0, 0, 0, 1, 1, 2, 9]  # 60 % of the groups in zone 0, 20 % zone 1, 10 % zones 2 and 9


def generated(n: int = 1000) -> pd.DataFrame:
    """70 % reads (i % 10 < 7), sizes 4k/50:16k/30:64k/20 (by i % 10), every 4th I/O (i % 4 == 3) starts
    where the one before ended, the others at whole MiB inside the zone of their group of four
    (ZONE_OF_GROUP over ten 10 MiB zones), one I/O per ms, each 500 µs long."""
    sizes = [4096] * 5 + [16384] * 3 + [65536] * 2
    rows, end = [], 0
    for i in range(n):
        size = sizes[i % 10]
        if i % 4 == 3:
            off = end
        else:
            off = ZONE_OF_GROUP[(i // 4) % 10] * 10 * MIB + (i % 8) * MIB
        rows.append(("s", i * 1e-3, "read" if i % 10 < 7 else "write", off, size, 500.0))
        end = off + size
    return pd.DataFrame(rows, columns=["stream", "t_s", "op", "offset_bytes", "size_bytes", "latency_us"])


def test_generated_trace_is_characterized_exactly():
    ios = generated()
    s = W.summary(ios, zones_n=10, size_bytes=100 * MIB)
    assert s["ios"] == 1000 and s["read_pct"] == 70.0
    m = W.mix(ios).set_index("op")
    assert m.loc["read", "ios"] == 700 and m.loc["write", "ios_pct"] == 30.0
    # bytes: per ten I/Os 7 reads = 5 x 4k + 2 x 16k, 3 writes = 16k + 2 x 64k
    assert m.loc["read", "bytes"] == 100 * (5 * 4096 + 2 * 16384)
    assert m.loc["write", "bytes"] == 100 * (16384 + 2 * 65536)
    assert s["bssplit"] == "4k/50:16k/30:64k/20"
    assert s["bssplit_read"] == "4k/71:16k/29" and s["bssplit_write"] == "16k/33:64k/67"
    assert s["sequential_pct"] == 25.0
    assert s["zoned"] == "zoned:60/10:20/10:10/10:0/60:10/10"
    assert W.zones(ios, 10, 100 * MIB)["ios"].tolist() == [600, 200, 100, 0, 0, 0, 0, 0, 0, 100]
    assert s["iops"] == pytest.approx(1000.0) and s["interarrival_cv"] == pytest.approx(0.0, abs=1e-6)
    assert s["interarrival_p50_us"] == pytest.approx(1000.0)
    # 1000 I/Os of 500 µs over 0.999 s + the last one's 0.5 ms
    assert s["mean_outstanding"] == pytest.approx(0.5 / 0.9995)
    assert W.outstanding(ios)["in_flight"].max() == 1


def test_sequential_is_judged_within_a_stream_and_optionally_per_direction():
    ios = pd.DataFrame({"stream": ["a", "b", "a", "b", "a"], "t_s": [0, 1, 2, 3, 4.0],
                        "op": ["read", "read", "write", "read", "read"],
                        "offset_bytes": [0, 100, 4096, 612, 8192], "size_bytes": [4096, 512, 4096, 512, 4096]})
    assert W.sequential(ios).tolist() == [False, False, True, True, True]
    # per direction: the read at 8192 follows a write, not the read at 0
    assert W.sequential(ios, per_op=True).tolist() == [False, False, False, True, False]


def test_working_set_is_the_union_of_ranges_per_stream():
    ios = pd.DataFrame({"stream": ["a", "a", "a", "a", "b"], "offset_bytes": [0, 2048, 10240, 0, 0],
                        "size_bytes": [4096, 4096, 2048, 1024, 4096]})
    assert W.working_set_bytes(ios) == 6144 + 2048 + 4096


def test_bssplit_sums_to_100_and_folds_rare_sizes():
    ios = pd.DataFrame({"op": ["read"] * 300, "size_bytes": [4096] * 100 + [8192] * 100 + [12288] * 99 + [512]})
    split = W.bssplit(ios)
    assert split == "4k/34:8k/33:12k/33"
    assert sum(int(p.split("/")[1]) for p in split.split(":")) == 100


def test_real_trace_of_a_known_fio_job_matches_the_job():
    """tests/data/traces/README.md: randrw rwmixread=70, bssplit=4k/50:16k/30:64k/20, percentage_random=70."""
    ios = T.read_trace(DATA / "known-fio-tracefs.trace").ios
    job = json.loads((DATA / "known-fio.json").read_text())["jobs"][0]
    s = W.summary(ios, size_bytes=64 * MIB)
    fio_read_pct = 100 * job["read"]["total_ios"] / (job["read"]["total_ios"] + job["write"]["total_ios"])
    assert s["read_pct"] == pytest.approx(fio_read_pct) and abs(s["read_pct"] - 70) < 5
    # fio draws each size; 334 draws land within a few % of the job's split
    got = dict(p.split("/") for p in s["bssplit"].split(":"))
    assert set(got) == {"4k", "16k", "64k"}
    assert all(abs(int(got[k]) - v) <= 5 for k, v in {"4k": 50, "16k": 30, "64k": 20}.items())
    # fio keeps one position per direction: 30 % of each direction's I/Os continue it
    assert abs(s["sequential_per_op_pct"] - 30) < 5
    assert np.isfinite(s["mean_outstanding"]) and 0 < s["mean_outstanding"] <= 1  # psync: one at a time


def test_rate_over_time_and_heat_count_every_io():
    ios = generated()
    rate = W.rate_over_time(ios)  # 0.999 s span: 20 ms windows, 20 I/Os each
    assert W.window_for(0.999) == 0.02
    assert rate.groupby("window_start_s")["iops"].sum().round(6).eq(1000.0).all()
    assert (rate["iops"] * 0.02).sum() == pytest.approx(1000)
    h = W.heat(ios, time_bins=10, address_bins=10)
    assert h["ios"].sum() == 1000 and len(h) == 100
    assert W.heat(ios.assign(t_s=np.nan)).empty and W.rate_over_time(ios.assign(t_s=np.nan)).empty


def test_trace_table_has_one_row_per_trace():
    both = pd.concat([generated().assign(trace_id="g", source_file="g.csv", source_format="csv",
                                         seq=range(1000)),
                      generated(40).assign(trace_id="h", source_file="h.csv", source_format="csv", seq=range(40))])
    t = W.trace_table(both)
    assert t["trace_id"].tolist() == ["g", "h"] and t["ios"].tolist() == [1000, 40]
    assert W.busiest_trace(both)["trace_id"].eq("g").all()
