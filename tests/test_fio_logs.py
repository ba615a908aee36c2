"""fio log files (helpers.fio.logs): names, value logs, histogram logs and fio's bin -> latency rule, checked
against a real fio run's own json+ bins; per-window percentiles through helpers.fio.histogram."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from helpers.fio import histogram, logs


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory, scratch_dir, fio_path):
    """A 3 s randrw run (0.5 s ramp) with 1 s bw/iops/lat logs and a 1 s histogram log."""
    d = tmp_path_factory.mktemp("fio-logs")
    target = scratch_dir / "fio-logs-target.bin"
    if not target.exists():
        target.write_bytes(b"\x5a" * (64 << 20))
    prefix = d / "job"
    subprocess.run([fio_path, "--name=job", f"--filename={target}", "--size=64m", "--rw=randrw", "--bs=4k",
                    "--iodepth=2", "--ioengine=libaio", "--direct=1", "--time_based=1", "--runtime=3s",
                    "--ramp_time=0.5s", f"--write_bw_log={prefix}", f"--write_iops_log={prefix}",
                    f"--write_lat_log={prefix}", "--log_avg_msec=1000", f"--write_hist_log={prefix}",
                    "--log_hist_msec=1000", "--output-format=json+", f"--output={d / 'job.json'}"],
                   check=True, capture_output=True, timeout=60)
    return d


def test_names():
    assert logs.parse_log_name("p-1_clat_hist.2.log.gz") == logs.LogName("p-1", "clat_hist", 2)
    assert logs.parse_log_name("a_b_bw.1.log") == logs.LogName("a_b", "bw", 1)
    assert logs.parse_log_name("x_clat.1.log") == logs.LogName("x", "clat", 1)
    assert logs.parse_log_name("x_lat.log") == logs.LogName("x", "lat", 1)  # per_job_logs=0: no job number
    assert logs.parse_log_name("x.json") is None and logs.parse_log_name("x_bw.1.txt") is None


def test_plat_idx_to_val_known_answers():
    # below 128 the index is the value; then group g: base 2^(g+5), bins 2^(g-1) wide, value = middle, truncated
    v = logs.plat_idx_to_val([0, 1, 127, 128, 129, 191, 192, 255, 256])
    assert v.tolist() == [0, 1, 127, 129, 131, 255, 258, 510, 516]
    top = logs.plat_idx_to_val(29 * 64 - 1)
    assert top == (1 << 33) + int(63.5 * (1 << 27))  # group 28: error_bits 27
    assert np.all(np.diff(logs.plat_idx_to_val(np.arange(1856))) > 0)
    with pytest.raises(ValueError):
        logs.plat_idx_to_val(1856)
    # fio 2.x logs: 1216 bins in µs
    assert logs.hist_bins(3 + 1216) == (3, 19, 0) and logs.hist_bins(3 + 1856) == (3, 29, 0)
    assert logs.hist_bins(3 + 1856 // 4) == (3, 29, 2)
    assert logs.hist_bin_ns(1216, 19, 0, lat_unit_ns=False)[200] == 1000 * logs.plat_idx_to_val(200, 19)
    with pytest.raises(ValueError, match="histogram log"):
        logs.hist_bins(100)


def test_value_logs_of_real_fio(logged_run):
    names = sorted(p.name for p in logged_run.glob("*.log"))
    assert names == [f"job_{k}.1.log" for k in ("bw", "clat", "clat_hist", "iops", "lat", "slat")]
    iops = logs.read_value_log(logs.read_text(logged_run / "job_iops.1.log"))
    bw = logs.read_value_log(logs.read_text(logged_run / "job_bw.1.log"))
    lat = logs.read_value_log(logs.read_text(logged_run / "job_lat.1.log"))
    assert set(iops["direction"]) == {0, 1} and (iops["bs_bytes"] == 0).all()  # averaged windows
    # windows of ~1 s counted from the end of the ramp
    # the first 1 s window ends near 1000 ms; a busy CPU delays fio's log thread (1078 ms seen under make test)
    assert iops["time_ms"].min() == pytest.approx(1000, abs=150)
    # bw (KiB/s) = IOPS x 4 KiB, window by window
    merged = iops.merge(bw, on=["time_ms", "direction"], suffixes=("_iops", "_bw"))
    assert len(merged) >= 2
    np.testing.assert_allclose(merged["value_bw"], merged["value_iops"] * 4, rtol=0.01)
    job = json.loads((logged_run / "job.json").read_text())["jobs"][0]
    # ns: the per-window mean total latency is of the order of fio's overall mean (µs would be 1000x off;
    # the shared VM disk makes windows vary a lot)
    assert 0.2 < lat["value"].median() / job["read"]["lat_ns"]["mean"] < 5


def test_histogram_log_matches_fios_json_bins(logged_run):
    h = logs.read_hist_log(logs.read_text(logged_run / "job_clat_hist.1.log"))
    job = json.loads((logged_run / "job.json").read_text())["jobs"][0]
    assert h.counts.shape[1] == 1856 and len(h) >= 4
    for code, name in ((0, "read"), (1, "write")):
        bins = {int(k): v for k, v in job[name]["clat_ns"]["bins"].items()}
        c = h.counts[h.direction == code].sum(axis=0)
        used = dict(zip(h.bin_ns[c > 0].tolist(), c[c > 0].tolist()))
        # every logged bin value is one of fio's json+ bin keys, never with more I/Os than the whole run
        assert used and set(used) <= set(bins)
        assert all(used[k] <= bins[k] for k in used)
        # the logged windows hold part of the run's I/Os: fio drops the last partial window, so of a 3 s run with
        # 1 s windows at most two are logged, one when its helper thread logs late (1059, 2054 ms seen in make
        # test, the two holding 40 % of the I/Os on this disk, whose speed wanders by tens of % over seconds)
        assert 0.2 * job[name]["total_ios"] <= sum(used.values()) <= job[name]["total_ios"]
        # the windows' percentiles by fio's rule: rows of percentile_rows == percentile of each row
        rows = h.counts[h.direction == code]
        got = histogram.percentile_rows(h.bin_ns, rows, [50, 99, 99.9])
        for r, g in zip(rows, got):
            np.testing.assert_array_equal(g, histogram.percentile(h.bin_ns, r, [50, 99, 99.9]))


def test_percentile_rows_known_answers():
    bins = np.array([10, 20, 30, 40])
    counts = np.array([[50, 40, 9, 1], [0, 0, 0, 0], [0, 0, 1, 0], [1, 0, 0, 99]])
    got = histogram.percentile_rows(bins, counts, [50, 90, 99, 99.9])
    np.testing.assert_array_equal(got[0], [10, 20, 30, 40])  # cum 50, 90, 99, 100 of 100
    assert np.isnan(got[1]).all()
    np.testing.assert_array_equal(got[2], [30, 30, 30, 30])
    np.testing.assert_array_equal(got[3], [40, 40, 40, 40])
    # unsorted bins are sorted with their counts
    np.testing.assert_array_equal(histogram.percentile_rows(bins[::-1], counts[:, ::-1], [50])[:, 0],
                                  [10, np.nan, 30, 40])


def test_many_value_logs_in_one_pass_match_file_by_file(logged_run, tmp_path):
    """read_value_logs parses files of one width together; each file's arrays are what it alone gives, and a
    file that is not a fio log (or is missing) is left out alone, the others of its batch still read."""
    files = sorted(logged_run.glob("job_[bil]*.log")) + sorted(logged_run.glob("job_[cs]lat.1.log"))
    bad = tmp_path / "bad_bw.1.log"
    bad.write_text("1000, 5, 0, 0, 0\nnot, a, log, line, x\n")
    four = tmp_path / "old_iops.1.log"  # fio 3.1-era lines: time, value, direction, bs
    four.write_text("250, 10, 0, 4096\n500, 12, 1, 4096\n")
    empty = tmp_path / "empty_lat.1.log"
    empty.write_text("")
    got = logs.read_value_logs([*files, bad, four, empty, tmp_path / "missing_bw.1.log"])
    for f, g in zip(files, got):
        one = logs.read_value_arrays(logs.read_text(f))
        assert set(g) == set(one) and all(np.array_equal(g[k], one[k]) for k in one), f.name
    assert isinstance(got[len(files)], ValueError) and isinstance(got[-1], OSError)
    assert got[len(files) + 1]["time_ms"].tolist() == [250, 500] and got[len(files) + 1]["direction"].tolist() == [0, 1]
    assert len(got[len(files) + 2]["time_ms"]) == 0
