"""Device card (helpers.analysis.card): headline numbers from the right rows, unflagged points preferred,
findings that each carry their number.  Known answers on small hand-made tables (no fio, no files)."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import bs_sweep, rows
from helpers import analysis
from helpers.analysis.card import DeviceCard, Metric, device_card, rand4k_qd_series
from helpers.processed.validity import add_flags

METRIC_NAMES = ["QD1 4k random read latency", "QD1 4k random read p99 latency", "QD1 4k random read p99.9 latency",
                "QD1 4k random write latency", "QD1 4k random write p99 latency", "QD1 4k random write p99.9 latency",
                "Peak 4k random read IOPS",
                "Peak 4k random write IOPS", "Peak sequential read bandwidth", "Peak sequential write bandwidth",
                "p99 latency at the knee", "Throughput stops growing beyond"]


def mixed_run() -> pd.DataFrame:
    """One run with decoys around every headline: other block sizes, modes, job counts and directions."""
    return rows([
        {"point_id": "rr-qd1-a", "iodepth": 1, "iops": 11000.0, "lat_mean_us": 90.0},
        {"point_id": "rr-qd1-b", "iodepth": 1, "iops": 12500.0, "lat_mean_us": 80.0},  # a QD1 repeat
        {"point_id": "rr-qd1-x4", "iodepth": 1, "numjobs": 4, "iops": 40000.0, "lat_mean_us": 50.0},  # 4 jobs
        {"point_id": "rr-qd32", "iodepth": 32, "iops": 250000.0, "lat_mean_us": 128.0},
        {"point_id": "rr-qd32-x4", "iodepth": 32, "numjobs": 4, "iops": 400000.0, "lat_mean_us": 320.0},
        {"point_id": "rr-8k", "bs_bytes": 8192, "iodepth": 1, "iops": 900000.0, "lat_mean_us": 20.0},  # not 4k
        {"point_id": "mix-r", "rw": "randrw", "rwmixread_pct": 50.0, "iodepth": 1, "iops": 2e6, "lat_mean_us": 1.0},
        {"point_id": "mix-w", "rw": "randrw", "rwmixread_pct": 50.0, "direction": "write", "iodepth": 1,
         "iops": 2e6, "lat_mean_us": 2.0},
        {"point_id": "rw-qd1", "rw": "randwrite", "direction": "write", "iodepth": 1, "iops": 5000.0,
         "lat_mean_us": 200.0},
        {"point_id": "rw-qd16", "rw": "randwrite", "direction": "write", "iodepth": 16, "iops": 90000.0,
         "lat_mean_us": 180.0},
        {"point_id": "sr-4k-qd1", "rw": "read", "iodepth": 1, "iops": 30000.0, "lat_mean_us": 30.0},  # sequential
        {"point_id": "sr-128k", "rw": "read", "bs_bytes": 131072, "iodepth": 32, "bw_bytes_per_s": 3.2e9,
         "iops": 3.2e9 / 131072},
        {"point_id": "sr-1m", "rw": "read", "bs_bytes": 1048576, "iodepth": 8, "bw_bytes_per_s": 3.5e9,
         "iops": 3.5e9 / 1048576},
        {"point_id": "sw-128k", "rw": "write", "direction": "write", "bs_bytes": 131072, "iodepth": 32,
         "bw_bytes_per_s": 2.1e9, "iops": 2.1e9 / 131072},
        {"point_id": "seqmix", "rw": "rw", "rwmixread_pct": 50.0, "bs_bytes": 1048576, "iodepth": 32,
         "bw_bytes_per_s": 9e9, "iops": 9e9 / 1048576},  # mixed sequential: not a pure read peak
    ])


def test_headline_numbers_come_from_the_right_rows():
    card = device_card(mixed_run())
    expected = {  # name: (value, unit, measured at)
        # two runs of one setting: their mean, and their range (issue 34.1: never the luckier run)
        "QD1 4k random read latency": (85.0, "µs", "randread 4k QD1; mean of 2 runs: 80.0–90.0 µs"),
        "QD1 4k random write latency": (200.0, "µs", "randwrite 4k QD1"),
        "Peak 4k random read IOPS": (400000.0, "IOPS", "randread 4k QD32 x4 jobs"),
        "Peak 4k random write IOPS": (90000.0, "IOPS", "randwrite 4k QD16"),
        "Peak sequential read bandwidth": (3500.0, "MB/s", "read 1m QD8"),  # decimal: 3.5e9 B/s / 1e6
        "Peak sequential write bandwidth": (2100.0, "MB/s", "write 128k QD32"),
    }
    for name, (value, unit, where) in expected.items():
        m = card.metric(name)
        assert (m.value, m.unit, m.detail, m.flag_reasons, m.left_out) == (pytest.approx(value), unit, where, "", ""), name
    assert [m.name for m in card.metrics] == METRIC_NAMES


def test_findings_each_carry_their_number():
    card = device_card(mixed_run())
    # 200 / 85 = 2.4; 3.5e9 B/s / 2^20 = 3337.9 MiB/s; 2.1e9 / 2^20 = 2002.7 MiB/s
    assert card.findings == [
        "At queue depth 1 a 4k random read takes 85 µs on average.",
        "At queue depth 1 a 4k random write takes 200 µs on average, 2.4× the read latency.",
        "4k random reads peak at 400,000 IOPS at 4 jobs × QD 32, libaio (randread 4k QD32 x4 jobs).",
        "4k random writes peak at 90,000 IOPS (randwrite 4k QD16).",
        "No queue-depth knee was found for 4k random reads: only 2 distinct QDs: a knee needs at least 3.",
        "Sequential read bandwidth peaks at 3,500 MB/s (3,338 MiB/s) with read 1m QD8.",
        # one queue depth measured: its number, not a "peak"
        "Sequential write bandwidth at QD32: 2,100 MB/s (2,003 MiB/s), best with write 128k QD32 (one queue "
        "depth measured, so not a peak).",
    ]
    assert all(any(ch.isdigit() for ch in f) for f in card.findings)


def test_knee_metric_without_a_sweep_and_with_two_depths():
    one = device_card(rows([{"iodepth": 1, "lat_mean_us": 70.0}]))
    knee = one.metric("Throughput stops growing beyond")
    assert one.knee_qd is None and knee.value is None and not knee.available and knee.unit == "QD"
    assert knee.detail == one.knee_reason == "no 4k random-read queue-depth sweep in this run"
    assert not any("knee" in f for f in one.findings)  # nothing measured, nothing said
    two = device_card(mixed_run())
    assert two.knee_qd is None and two.knee_reason == "only 2 distinct QDs: a knee needs at least 3"
    assert two.metric("Throughput stops growing beyond").detail == two.knee_reason


def test_knee_metric_names_the_qd_range_it_was_found_on():
    """Kneedle's answer depends on the QD range it is given (an adaptive search ends at QD 128 or 256, a grid
    at 1024): the card's knee says which range it is for."""
    iops = {1: 10000.0, 2: 19000.0, 4: 36000.0, 8: 60000.0, 16: 70000.0, 32: 71000.0, 64: 71500.0}
    card = device_card(rows([{"point_id": f"q{q}", "iodepth": q, "iops": v} for q, v in iops.items()]))
    knee = card.metric("Throughput stops growing beyond")
    assert card.knee_qd is not None and knee.detail.endswith("over QD 1–64, on the 'g' points"), knee.detail


def test_still_rising_sweep_has_no_knee_and_says_why():
    # IOPS double with every doubling of QD: the last step adds 100 %
    card = device_card(rows([{"point_id": f"q{q}", "iodepth": q, "iops": 1000.0 * q} for q in (1, 2, 4, 8)]))
    assert card.knee_qd is None
    assert "No queue-depth knee was found for 4k random reads: not saturated up to QD 8: the last doubling " \
           "still added 100 % IOPS." in card.findings


def test_rand4k_qd_series_averages_repeats_of_one_job_only():
    df = rows([
        {"iodepth": 1, "iops": 1000.0, "lat_mean_us": 100.0, "clat_p99_us": 200.0},
        {"iodepth": 1, "iops": 3000.0, "lat_mean_us": 50.0, "clat_p99_us": 100.0},
        {"iodepth": 4, "iops": 8000.0, "lat_mean_us": 500.0, "clat_p99_us": 900.0},
        {"iodepth": 4, "numjobs": 2, "iops": 99999.0},  # two jobs: not in the one-job series
        {"iodepth": 4, "bs_bytes": 8192, "iops": 99999.0},  # 8k
        {"iodepth": 4, "rw": "read", "iops": 99999.0},  # sequential
        {"iodepth": 4, "rw": "randrw", "rwmixread_pct": 50.0, "iops": 99999.0},  # mixed
    ])
    s = rand4k_qd_series(df)
    assert list(s.columns) == ["iodepth", "iops", "lat_mean_us", "p99_us", "percentile_latency"]
    assert list(s["iodepth"]) == [1, 4]
    assert list(s["iops"]) == pytest.approx([2000.0, 8000.0])
    assert list(s["lat_mean_us"]) == pytest.approx([75.0, 500.0])
    assert list(s["p99_us"]) == pytest.approx([150.0, 900.0])


def flagged_run() -> pd.DataFrame:
    """Flags derived from the rows' own fields by helpers.processed.validity: buffered I/O (direct=0) and a
    sub-5 µs read latency are page cache; 2 s runtime is too short."""
    return add_flags(rows([
        {"point_id": "clean-qd1", "iodepth": 1, "iops": 12000.0, "lat_mean_us": 85.0, "total_ios": 60000},
        {"point_id": "cache-qd1", "iodepth": 1, "direct": 0, "iops": 300000.0, "lat_mean_us": 3.0,
         "total_ios": 60000},
        {"point_id": "clean-qd32", "iodepth": 32, "iops": 200000.0, "lat_mean_us": 160.0, "total_ios": 600000},
        {"point_id": "short-qd64", "iodepth": 64, "iops": 260000.0, "lat_mean_us": 246.0, "runtime_s": 2.0,
         "total_ios": 520000},
        {"point_id": "sr-clean", "rw": "read", "bs_bytes": 131072, "iodepth": 32, "bw_bytes_per_s": 3.0e9,
         "iops": 3.0e9 / 131072, "total_ios": 100000},
        {"point_id": "sr-cache", "rw": "read", "bs_bytes": 131072, "iodepth": 32, "direct": 0,
         "bw_bytes_per_s": 9.0e9, "iops": 9.0e9 / 131072, "lat_mean_us": 450.0, "total_ios": 100000},
    ]))


def test_flagged_points_never_become_the_headline_but_are_named():
    df = flagged_run()
    assert list(df["flag_page_cache"]) == [False, True, False, False, False, True]  # the set-up is what we think
    assert list(df["flag_short_run"]) == [False, False, False, True, False, False]
    card = device_card(df)
    lat = card.metric("QD1 4k random read latency")
    assert lat.value == pytest.approx(85.0) and lat.detail == "randread 4k QD1" and lat.flag_reasons == ""
    assert lat.left_out.startswith("lower 3.0 µs at randread 4k QD1, flagged: buffered I/O (direct=0)")
    peak = card.metric("Peak 4k random read IOPS")
    # the page-cache QD1 point (300,000) and the short QD64 run (260,000) both beat the clean 200,000 at QD32
    assert peak.value == pytest.approx(200000.0) and peak.detail == "randread 4k QD32"
    assert peak.left_out.startswith("higher 300,000 IOPS at randread 4k QD1, flagged: buffered I/O")
    seq = card.metric("Peak sequential read bandwidth")
    assert seq.value == pytest.approx(3000.0) and seq.detail == "read 128k QD32"
    assert seq.left_out.startswith("higher 9,000 MB/s at read 128k QD32, flagged: buffered I/O")
    assert card.table().loc["Sequential read bandwidth at QD32", "flagged value left out"] == seq.left_out
    text = "\n".join(card.findings)
    assert "At queue depth 1 a 4k random read takes 85 µs on average; not counted: a lower 3.0 µs at " \
           "randread 4k QD1, flagged: buffered I/O" in text
    assert "4k random reads peak at 200,000 IOPS (randread 4k QD32); not counted: a higher 300,000 IOPS" in text
    assert "Sequential read bandwidth at QD32: 3,000 MB/s (2,861 MiB/s), best with read 128k QD32 (one queue depth " \
           "measured, so not a peak); not counted: a higher 9,000 MB/s" in text
    # knee series: QD 1 (two points averaged), 32, 64; it contains flagged points and says which kind
    assert "(the series includes flagged points at QD 1, 64: page cache suspected, run too short)" in text
    # the count is the flag table's point-level flags; too few I/Os for a percentile is the percentile's mark,
    # counted apart (issue 34.4)
    assert "3 of 6 measurements carry a validity flag: they may not measure the device alone (see the flag " \
           "table)." in card.findings
    assert any(f.startswith("4 of 6 measurements have too few I/Os behind their deepest percentiles")
               for f in card.findings), card.findings


def test_only_flagged_points_fall_back_and_say_so():
    df = add_flags(rows([{"iodepth": 1, "direct": 0, "lat_mean_us": 3.0, "iops": 300000.0, "total_ios": 10**6}]))
    card = device_card(df)
    lat = card.metric("QD1 4k random read latency")
    assert lat.value == pytest.approx(3.0) and lat.flag_reasons.startswith("buffered I/O (direct=0)")
    assert lat.left_out == ""  # the headline is the flagged point itself: nothing better left out
    assert card.findings[0] == "At queue depth 1 a 4k random read takes 3 µs on average (a flagged point)."
    assert card.findings[1].startswith("4k random read at QD1: 300,000 IOPS (the only setting measured, so not a "
                                       "peak) (a flagged point).")
    assert card.findings[-1].startswith("1 of 1 measurements carry a validity flag")


def test_a_worse_or_equal_flagged_point_is_not_mentioned():
    df = rows([
        # a flagged tie listed first: it is the raw best, but it is no better than the clean headline
        {"point_id": "same", "iodepth": 1, "iops": 20000.0, "lat_mean_us": 50.0, "flag_short_run": True,
         "flag_reasons": "ran 1.0 s: too short for steady state (< 3 s)"},
        {"point_id": "clean", "iodepth": 1, "iops": 20000.0, "lat_mean_us": 50.0},
        {"point_id": "slow", "iodepth": 1, "iops": 5000.0, "lat_mean_us": 200.0, "flag_cpu_bound": True,
         "flag_reasons": "fio used 95 % of a CPU (CPU-bound)"},
    ])
    card = device_card(df)
    for name in ("QD1 4k random read latency", "Peak 4k random read IOPS"):
        assert card.metric(name).left_out == "" and card.metric(name).flag_reasons == ""
    assert not any("not counted" in f for f in card.findings)


def test_few_ios_alone_does_not_disqualify_a_point():
    # 200 I/Os: too few for p99.9 and beyond, but IOPS and mean latency are sound (no flag_reasons)
    df = add_flags(rows([
        {"point_id": "many", "iodepth": 8, "iops": 50000.0, "total_ios": 10**7},
        {"point_id": "few", "iodepth": 16, "iops": 70000.0, "total_ios": 200},
    ]))
    assert list(df["flag_few_ios"]) == [False, True] and list(df["flag_reasons"]) == ["", ""]
    peak = device_card(df).metric("Peak 4k random read IOPS")
    assert peak.value == pytest.approx(70000.0) and peak.detail == "randread 4k QD16" and peak.left_out == ""


def test_plateau_finding_for_each_sequential_mode():
    # bs_sweep: 100, 400, 410 MB/s at 4k, 64k, 1m at QD16 (x 1/16 at QD1); 90 % of 410 = 369 first at 64k.
    # Only the series with the highest peak per mode (QD16) is told.
    card = device_card(pd.concat([bs_sweep("read"), bs_sweep("write")], ignore_index=True))
    plateau = sorted(f for f in card.findings if "reaches 90% of its peak" in f)
    assert plateau == ["Sequential read bandwidth at QD 16 reaches 90% of its peak at 64k blocks (400 of 410 MB/s).",
                       "Sequential write bandwidth at QD 16 reaches 90% of its peak at 64k blocks (400 of 410 MB/s)."]
    assert card.metric("Peak sequential write bandwidth").detail == "write 1m QD16"


def test_plateau_finding_does_not_silently_use_a_flagged_peak():
    # the 64k point ran 2 s (flag_short_run): same series as its neighbours (runtime is no series key)
    df = add_flags(rows([{"point_id": f"s{b}", "rw": "read", "bs_bytes": b, "iodepth": 16, "bw_bytes_per_s": bw,
                          "iops": bw / b, "runtime_s": runtime, "total_ios": 10**6}
                         for b, bw, runtime in ((4096, 100e6, 5.0), (65536, 5000e6, 2.0), (262144, 400e6, 5.0),
                                                (1048576, 410e6, 5.0))]))
    assert list(df["flag_short_run"]) == [False, True, False, False]
    card = device_card(df)
    seq = card.metric("Peak sequential read bandwidth")
    assert seq.value == pytest.approx(410.0) and seq.left_out.startswith("higher 5,000 MB/s at read 64k QD16")
    # the plateau sentence, too, is read off unflagged points (90 % of 410 = 369 first at 256k) and names the left-out one
    assert all("flagged" in f for f in card.findings if "5,000" in f), card.findings
    assert "Sequential read bandwidth at QD 16 reaches 90% of its peak at 256k blocks (400 of 410 MB/s; " \
           "flagged points left out: 64k)." in card.findings


def test_nothing_measured():
    card = device_card(rows([]))
    assert isinstance(card, DeviceCard) and card.findings == []
    for m in card.metrics:
        assert not m.available
    assert {m.detail for m in card.metrics[:-1]} == {"not measured in this run"}
    t = card.table()
    # the table names each metric as the page does: the QD1 latencies are means of total latency
    assert list(t.index) == [m.label for m in card.metrics]
    assert [m.label for m in card.metrics if m.name.startswith("QD1") and " p9" not in m.name] == [
        "QD1 4k random read mean total latency", "QD1 4k random write mean total latency"]
    assert not any(n.startswith("Peak") for n in t.index)
    assert list(t.columns) == ["value", "unit", "measured at", "flags", "flagged value left out"]


def test_metric_available():
    assert Metric("x", 1.0, "IOPS").available
    assert not Metric("x", None, "IOPS").available
    assert not Metric("x", float("nan"), "IOPS").available
    assert Metric("x", 0.0, "IOPS").available  # zero is a measurement


def test_peak_only_for_a_series_that_varied_qd_and_one_setting_is_named_by_it():
    """Issue 10 point 2: 'peak' only where QD/numjobs varied; a single setting is labelled with it."""
    df = rows([{"point_id": "w1", "rw": "randwrite", "direction": "write", "iodepth": 1, "iops": 9973.0},
               {"point_id": "r1", "iodepth": 1, "iops": 10000.0}, {"point_id": "r8", "iodepth": 8, "iops": 50000.0}])
    card = device_card(df)
    assert card.metric("Peak 4k random write IOPS").label == "4k random write IOPS at QD1"
    assert card.metric("Peak 4k random read IOPS").label == "Peak 4k random read IOPS"
    assert "4k random write at QD1: 9,973 IOPS (the only setting measured, so not a peak)." in card.findings
    assert "4k random reads peak at 50,000 IOPS (randread 4k QD8)." in card.findings
    assert "4k random write IOPS at QD1" in card.table().index


def test_one_unflagged_setting_among_flagged_ones_is_named_by_it_not_a_peak():
    """A characterize run: the 5 s QD1 point is the only unflagged 4k random write; the ladder's short probes
    at QD16 and QD64 read higher but carry a validity flag.  The headline is that point's number, named by its
    setting, and the flagged peak is named beside it, never called the peak."""
    short = {"flagged": True, "flag_reasons": "ran 0.5 s: too short for steady state (< 3 s)"}
    df = rows([{"point_id": "w1", "rw": "randwrite", "direction": "write", "iodepth": 1, "iops": 28628.0},
               {"point_id": "w16", "rw": "randwrite", "direction": "write", "iodepth": 16, "iops": 120000.0, **short},
               {"point_id": "w64", "rw": "randwrite", "direction": "write", "iodepth": 64, "iops": 138291.0, **short}])
    m = device_card(df).metric("Peak 4k random write IOPS")
    assert m.label == "4k random write IOPS at QD1" and m.value == 28628.0 and m.only_unflagged_setting
    assert "138,291 IOPS" in m.left_out
    finding = next(f for f in device_card(df).findings if f.startswith("4k random write at QD1"))
    assert finding.startswith("4k random write at QD1: 28,628 IOPS (the only setting measured without a validity "
                              "flag, so not a peak)"), finding


def test_identity_names_device_target_host_and_software_from_the_manifest():
    from helpers import config
    from helpers.analysis.card import device_identity, is_virtual_disk
    from helpers.run.manifest import read_manifest

    m = read_manifest(config.SAMPLE_RAW_DIR / "sample-quick-vm")  # a real manifest: a file on a VM's vda
    ident = device_card(rows([{}]), manifest=m).identity
    assert list(ident) == ["device model", "capacity", "kernel device", "device health", "target", "host", "kernel",
                           "fio version", "fio clock", "profile", "date"]
    assert ident["fio clock"].startswith("not recorded")  # the sample was swept before the lab pinned fio's clock
    assert device_card(rows([{}]), manifest={**m, "fio_clocksource": "cpu"}).identity["fio clock"] == (
        "cpu for every point (fio's own pick on this host, asked once)")
    assert device_card(rows([{}]), manifest={**m, "fio_clocksource": None}).identity["fio clock"].startswith(
        "fio's own choice at each start")
    assert ident["device model"] == "not reported by the kernel (a virtual disk)"
    assert ident["device health"] == ("no SMART/health data: this run was recorded before the lab read the "
                                      "device's health.")
    assert ident["kernel device"] == "/dev/vda, a virtual disk" and is_virtual_disk(m)
    assert ident["target"] == "file /tmp/fiot/sample.bin on ext4 (/dev/vda mounted at /), 256m used"
    assert (ident["host"], ident["kernel"], ident["fio version"], ident["profile"]) == (
        "vm", "6.18.44-fc-v445", "fio-3.33", "quick")
    assert ident["date"] == "2026-11-22T03:22:12+0000 to 2026-11-22T03:23:32+0000"
    nvme = {"target": {"path": "/dev/nvme0n1", "kind": "block device", "disk": "nvme0n1", "device": "nvme0n1",
                       "model": "INTEL SSDPF2KX016T1", "capacity_bytes": 1_600_321_314_816}}
    ident = device_identity(nvme)
    assert ident["capacity"] == "1,600.3 GB (1,490.4 GiB)" and ident["target"].startswith("block device /dev/nvme0n1")
    assert ident["host"] == "unknown" and not is_virtual_disk(nvme)
    assert device_identity({}) == {"run": "no manifest found for this run: device, target and host are unknown"}


def test_card_ends_with_the_slo_capacity_when_asked():
    """QD series 1..16 of 4k random reads: p99 200, 400, 800, 1600, 3200 µs; with a 1 ms SLO the last finding
    is the SLO sentence (the same one analysis.slo_card_sentence writes), without it there is none."""
    qd = [{"point_id": f"q{q}", "iodepth": q, "iops": 10000.0 * min(q, 4), "clat_p99_us": 200.0 * q}
          for q in (1, 2, 4, 8, 16)]
    df = rows(qd)
    card = analysis.device_card(df, slo_us=1000.0)
    assert card.findings[-1] == analysis.slo_card_sentence(df, 1000.0)
    assert "1,000 µs" in card.findings[-1]
    assert not any("SLO" in f for f in analysis.device_card(df).findings)


def test_card_names_the_write_cliff_when_a_sustained_write_point_ran():
    """A sustained-write point whose throughput drops from 2,000 to 500 IOPS x 128k halfway: the card's
    last finding is the cliff sentence analysis.write_cliff_sentence writes; other points add nothing."""
    from timeseries_helpers import frame

    iops = [2000.0] * 60 + [500.0] * 60
    ts = frame(iops, point="sustained-write-bs128k-qd32-nj1-vol1x", direction="write", bytes_per_s=[i * 131072 for i in iops])
    card = analysis.device_card(rows([{}]), timeseries=ts)
    assert card.findings[-1] == analysis.write_cliff_sentence(analysis.point_series(ts))
    assert card.findings[-1].startswith("Sustained write: ") and "slower" in card.findings[-1]
    other = frame(iops, point="grid-randread-bs4k-qd1-nj1")
    assert not any("Sustained" in f for f in analysis.device_card(rows([{}]), timeseries=other).findings)


def test_writes_a_cache_absorbed_are_marked_on_the_card_with_what_to_do():
    # the VM: sequential 1m write at 4,014 MB/s against 1,216 MB/s for reads at the same setting (3.3x)
    mb = 1e6
    df = add_flags(rows([
        {"point_id": f"s{rw}-{bs}", "rw": rw, "direction": rw, "bs_bytes": bs, "iodepth": 16,
         "bw_bytes_per_s": v * mb, "iops": v * mb / bs, "io_bytes": int(v * mb * 5), "runtime_s": 5.0}
        for rw, bs, v in (("read", 131072, 1250.0), ("read", 1 << 20, 1216.0),
                          ("write", 131072, 1100.0), ("write", 1 << 20, 4014.0))]))
    card = device_card(df)
    note = next(f for f in card.findings if f.startswith("Not the device"))
    assert "write 1m QD16 at 4,014 MB/s (writes at 3.3x the bandwidth of reads at the same setting" in note
    assert "larger SIZE" in note and "sustained-write profile" in note
    w = card.metric("Peak sequential write bandwidth")
    assert w.value == pytest.approx(1100.0) and "4,014 MB/s" in w.left_out  # the cache's number is not the headline


def test_the_card_says_when_sequential_bandwidth_falls_past_its_best_block_size():
    mb = 1e6
    df = add_flags(rows([
        {"point_id": f"sw-{bs}", "rw": "write", "direction": "write", "bs_bytes": bs, "iodepth": 16,
         "bw_bytes_per_s": v * mb, "iops": v * mb / bs}
        for bs, v in ((4096, 200.0), (65536, 1900.0), (131072, 2000.0), (1 << 20, 1320.0))]))
    f = next(x for x in device_card(df).findings if x.startswith("Sequential write bandwidth at QD 16"))
    assert f.endswith("(1,900 of 2,000 MB/s); past its best block size (128k) it falls: 1m blocks are 34 % below "
                      "the peak.")


def test_card_leads_with_qd1_tail_and_the_p99_at_the_knee():
    """Issue 22.5: QD1 p99 and p99.9 tiles (marked when the point had too few I/Os for the percentile, the rule of
    processed.validity) and the p99 at the knee."""
    qds = [1, 2, 4, 8, 16, 32, 64]
    iops = [10000, 19000, 36000, 60000, 64000, 65000, 65500]
    pts = [{"iodepth": q, "iops": i, "lat_p99_us": 100.0 * q, "lat_p99_9_us": 150.0 * q, "total_ios": 5_000,
            "unreliable_percentiles": "lat_p99_99_us" if q > 1 else "lat_p99_9_us,lat_p99_99_us"}
           for q, i in zip(qds, iops)]
    card = device_card(rows(pts))
    p99, p999 = card.metric("QD1 4k random read p99 latency"), card.metric("QD1 4k random read p99.9 latency")
    assert (p99.value, p999.value) == (100.0, 150.0)
    assert p99.label == "QD1 4k random read p99 total latency" and p99.few_ios == ""
    assert p999.few_ios == "too few I/Os for a reliable p99.9 (it needs 10,000 or more)", p999.few_ios
    knee = card.metric("p99 latency at the knee")
    assert card.knee_qd is not None and knee.value == 100.0 * card.knee_qd
    assert knee.label == f"p99 total latency at the knee (QD {card.knee_qd:g})"
    assert "too few I/Os" in card.table().loc["QD1 4k random read p99.9 total latency", "flags"]


def characterize_like_run() -> pd.DataFrame:
    """A characterize run's 4k random reads: the searched series' settle-early probes (group qd: QD 1..64, QD 32
    re-probed twice, every probe ended once settled, ~0.5 s), beside the 5 s QD1 latency point (group qd1,
    60,000 I/Os) that reads 5 % above the QD1 probe and a tail point at QD 16 (group tail) far off the curve."""
    probes = {1: 10000.0, 2: 19000.0, 4: 36000.0, 8: 60000.0, 16: 70000.0, 64: 71500.0}
    pts = [{"point_id": f"qd-{q}", "group": "qd", "iodepth": q, "iops": v, "runtime_s": 0.45, "settled_after_s": 0.55,
            "total_ios": int(v * 0.45), "lat_p99_us": 100.0 * q, "lat_p99_9_us": 120.0 * q}
           for q, v in probes.items()]
    pts += [{"point_id": f"qd-32-r{i}", "group": "qd", "iodepth": 32, "iops": v, "runtime_s": 0.45,
             "settled_after_s": 0.55, "total_ios": int(v * 0.45), "lat_p99_us": 3200.0, "lat_p99_9_us": 3840.0}
            for i, v in ((1, 69000.0), (2, 71000.0), (3, 76000.0))]
    pts += [{"point_id": "qd1-5s", "group": "qd1", "iodepth": 1, "iops": 10500.0, "runtime_s": 5.0,
             "total_ios": 60000, "lat_mean_us": 83.0, "lat_p99_us": 130.0, "lat_p99_9_us": 200.0},
            {"point_id": "tail-16", "group": "tail", "iodepth": 16, "iops": 20000.0, "runtime_s": 30.0,
             "total_ios": 600000, "lat_p99_us": 9000.0}]
    df = rows(pts)
    df["lat_mean_us"] = df["iodepth"] * 1e6 / df["iops"]
    return add_flags(df)


def test_the_knee_series_is_one_groups_measurements_never_mixed_with_other_points():
    """Per QD one measurement of the searched series: QD1 is the probe's 10,000 IOPS (the 5 s QD1 point's 10,500
    is not averaged in), QD16 the probe's 70,000 (not the tail point's 20,000), QD 32 the median of its three
    readings (71,000); the detail says which points the knee was found on and what was left out."""
    df = characterize_like_run()
    assert not df["flag_short_run"].any()  # every probe settled: none is flagged too short
    s = rand4k_qd_series(df).set_index("iodepth")
    assert s["iops"].to_dict() == {1: 10000.0, 2: 19000.0, 4: 36000.0, 8: 60000.0, 16: 70000.0, 32: 71000.0,
                                   64: 71500.0}
    assert s.loc[32, "p99_us"] == 3200.0
    card = device_card(df)
    knee = card.metric("Throughput stops growing beyond")
    assert card.knee_qd is not None
    assert knee.detail == ("4k random read, Kneedle on IOPS vs log2 QD over QD 1–64, on the 'qd' points (9 of 9 ended "
                           "once their IOPS settled); QD 32 by the median of its readings; not mixed in: 'qd1' at QD 1; "
                           "'tail' at QD 16"), knee.detail
    at_knee = card.metric("p99 latency at the knee")
    assert at_knee.value == 100.0 * card.knee_qd  # the probe's p99, not a mean with another group's point


def test_settled_probes_are_peak_candidates_and_say_how_they_were_measured():
    """After the probes lost their short-run flag, the 4k random-read headline is a peak over the searched
    series (QD varied among unflagged candidates) and its detail says the probe ended once settled."""
    card = device_card(characterize_like_run())
    peak = card.metric("Peak 4k random read IOPS")
    assert peak.label == "Peak 4k random read IOPS" and not peak.only_unflagged_setting
    # QD 32 read three times (69,000, 71,000, 76,000): their mean, never the luckiest reading (issue 34.1)
    assert peak.value == 72000.0 and peak.detail == "randread 4k QD32; mean of 3 runs: 69,000–76,000 IOPS"
    assert "4k random reads peak at 72,000 IOPS (randread 4k QD32; mean of 3 runs: 69,000–76,000 IOPS)." \
        in card.findings
    one = device_card(characterize_like_run().query("point_id != 'qd-32-r1' and point_id != 'qd-32-r2'"))
    assert one.metric("Peak 4k random read IOPS").detail == ("randread 4k QD32, ended once its IOPS settled after "
                                                              "0.55 s")  # one reading: how it was measured


def characterize_manifest(plateau: bool = True) -> dict:
    """The manifest of :func:`characterize_like_run`'s search: its probes as steps, the plateau it ended on (QD 16,
    32 three times, 64: median 71,000) or none."""
    probes = [(1, 10000.0), (2, 19000.0), (4, 36000.0), (8, 60000.0), (16, 70000.0), (32, 69000.0), (32, 71000.0),
              (32, 76000.0), (64, 71500.0)]
    steps = [{"qd": q, "iops": v, "kind": "ladder" if i < 6 or q == 64 else "reprobe"} for i, (q, v) in enumerate(probes)]
    ids = [f"qd-{q}" for q in (1, 2, 4, 8, 16, 64)] + [f"qd-32-r{i}" for i in (1, 2, 3)]
    series = {"steps": steps, "plateau_qds": [16, 32, 32, 32, 64] if plateau else [],
              "plateau_iops": 71000.0 if plateau else None}
    params = {p: {"rw": "randread", "bs_bytes": 4096, "iodepth": int(p.split("-")[1])} for p in ids}
    return {"adaptive": {"qd-rr": series},
            "points": {p: {"status": "ok", "adaptive": {"series": "qd-rr"}, "parameters": params[p]} for p in ids}}


def test_a_searched_series_headlines_its_plateau_level_within_its_probes_spread():
    """Issue 34.1: a characterize card's peak is the search's plateau level (the median of its plateau probes: 71,000),
    inside the range of those probes (69,000-76,000), not the best one (76,000); the tile says over what."""
    card = device_card(characterize_like_run(), manifest=characterize_manifest())
    peak = card.metric("Peak 4k random read IOPS")
    assert peak.value == 71000.0 and peak.spread == (69000.0, 76000.0) and peak.n_measured == 5
    assert peak.spread[0] <= peak.value <= peak.spread[1] < 76000.0 + 1
    assert peak.detail == "randread 4k plateau at QD 16–64; median of 5 plateau probes: 69,000–76,000 IOPS"
    assert peak.label == "Peak 4k random read IOPS"
    # a search that ended on no plateau: the median of its three best probes (71,500, 71,000, 76,000), not its best
    none = device_card(characterize_like_run(), manifest=characterize_manifest(plateau=False))
    top = none.metric("Peak 4k random read IOPS")
    assert top.value == 71500.0 and top.spread == (71000.0, 76000.0)
    assert top.detail.startswith("randread 4k search (no plateau), best probes at QD 32–64; median of 3 best probes")


def test_qd1_tail_tiles_prefer_a_point_with_enough_ios_for_the_percentile():
    """The QD1 probe (4,500 I/Os: too few for p99.9) reads a lower p99.9 (120 µs) than the 5 s QD1 point (60,000
    I/Os, 200 µs): the tile shows the point that can support a p99.9, unmarked.  p99 (4,500 I/Os would suffice: 45
    beyond it) comes from the long point too (130 µs, not the probe's lower 100 µs), and so does the mean, also when
    the probe's is lower: the lower of a short and a long reading is the luckier one, not the better measured
    (card._longest)."""
    card = device_card(characterize_like_run())
    p999 = card.metric("QD1 4k random read p99.9 latency")
    assert (p999.value, p999.few_ios) == (200.0, "")
    p99 = card.metric("QD1 4k random read p99 latency")
    assert p99.value == 130.0 and p99.few_ios == "" and p99.detail == "randread 4k QD1"
    mean = card.metric("QD1 4k random read latency")
    assert mean.value == pytest.approx(1e6 / 10500.0)
    # a probe with a lower mean than the 5 s point is not the tile either
    df = characterize_like_run()
    df.loc[df["point_id"] == "qd-1", "lat_mean_us"] = 50.0
    assert device_card(df).metric("QD1 4k random read latency").value == pytest.approx(1e6 / 10500.0)
    # without the 5 s point the probe's p99.9 is the tile, marked: validity lists the clat column it checked
    # (fio wrote both latencies' percentiles), the card shows total latency; the I/O count decides for both
    df = characterize_like_run()
    only = df[df["point_id"] != "qd1-5s"]
    assert only.set_index("point_id").loc["qd-1", "unreliable_percentiles"] == "clat_p99_9_us,clat_p99_99_us"
    p999 = device_card(only).metric("QD1 4k random read p99.9 latency")
    assert p999.value == 120.0 and p999.few_ios == "too few I/Os for a reliable p99.9 (it needs 10,000 or more)"


def test_the_drive_summary_has_every_searched_series_with_its_level_and_saturation_depth():
    """Issue 34.4: the card's page lists every searched series (here one) at its concluded level, the probes'
    range, the depth its plateau starts at; mixed workloads measured as listed points follow (their totals)."""
    df = pd.concat([characterize_like_run(), add_flags(rows([
        {"point_id": "mix70", "rw": "randrw", "rwmixread_pct": 70.0, "iodepth": 16, "iops": 7000.0},
        {"point_id": "mix70", "rw": "randrw", "rwmixread_pct": 70.0, "direction": "write", "iodepth": 16,
         "iops": 3000.0}]))], ignore_index=True)
    t = analysis.series_summary(df, characterize_manifest())
    assert list(t["series"]) == ["randread 4k", "randrw 70% read 4k at QD16"]
    first = t.iloc[0]
    assert (first["IOPS"], first["saturates from QD"]) == (71000.0, 16.0)
    assert first["MB/s"] == pytest.approx(71000 * 4096 / 1e6) and first["range (IOPS)"] == "69,000–76,000 (5 probes)"
    assert t.iloc[1]["IOPS"] == 10000.0  # reads and writes together
    assert analysis.series_summary(df.iloc[0:0]).empty


def test_the_drive_summary_lists_a_demand_search_beside_its_one_job_ladder():
    """A search whose demand step went past the ladder's one job (helpers.run.demand): the summary names the ladder
    row's setting and adds the demand search's best configuration, the number the card's headline reads, with
    'at least' when every configuration was CPU-bound."""
    df = characterize_like_run()
    m = characterize_manifest()
    probes = [{"jobs": 1, "qd": 32, "ioengine": "libaio", "iops": 71000.0, "cpu_bound": True},
              {"jobs": 2, "qd": 16, "ioengine": "libaio", "iops": 130000.0, "cpu_bound": True},
              {"jobs": 2, "qd": 16, "ioengine": "io_uring", "iops": 180000.0, "cpu_bound": True}]
    m["adaptive"]["qd-rr"]["demand"] = {"probes": probes, "lower_bound": True}
    t = analysis.series_summary(df, m)
    assert list(t["series"]) == ["randread 4k (1 job, libaio: the QD ladder)",
                                 "randread 4k (demand search: jobs × QD, engine)"]
    row = t.iloc[1]
    assert row["IOPS"] == 180000.0 and row["how"] == "the best configuration: 2 jobs × QD 16, io_uring"
    assert row["range (IOPS)"] == "71,000–180,000 (3 configurations)" and row["flags"].startswith("at least")
    m["adaptive"]["qd-rr"]["demand"] = {"probes": probes[:1], "lower_bound": True}  # nothing past the start
    assert list(analysis.series_summary(df, m)["series"]) == ["randread 4k"]
    m["adaptive"]["qd-rr"]["demand"] = {"probes": probes[:2], "lower_bound": False}
    assert analysis.series_summary(df, m).iloc[1]["flags"] == ""
