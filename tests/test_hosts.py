"""Multi-host sweeps through fio client/server on loopback: two fio servers on 127.0.0.1, different ports."""

from __future__ import annotations

import json

import pytest

from helpers.errors import LabError
from helpers.run import sweep
from helpers.run.hosts import parse_hosts
from sweep_helpers import fio_recorder, free_port, write_profile


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def test_parse_hosts():
    assert parse_hosts("a, b:9000") == ["a:8765", "b:9000"]
    assert parse_hosts("") == []
    with pytest.raises(LabError, match="twice"):
        parse_hosts("a,a:8765")
    with pytest.raises(LabError, match="not 'name' or 'name:port'"):
        parse_hosts("a:b")


def test_unreachable_hosts_named_in_one_sentence_before_any_io(tmp_path, scratch_dir, fio_path, fio_servers,
                                                               monkeypatch):
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    dead1, dead2 = free_port(), free_port()
    prof = write_profile(tmp_path, "p", [{"group": "g", "rw": "randread", "bs": "4k"}])
    target = scratch_dir / "hosts-unreachable.bin"
    with pytest.raises(LabError) as exc:
        sweep.sweep(target, prof, "h0", None, "8m", tmp_path / "raw", progress=False,
                    hosts=[fio_servers[0], f"127.0.0.1:{dead1}", f"127.0.0.1:{dead2}"])
    msg = str(exc.value)
    assert msg.startswith(f"hosts 127.0.0.1:{dead1}, 127.0.0.1:{dead2} are unreachable") and "\n" not in msg
    assert fio_servers[0] not in msg
    assert not log.exists() and not target.exists() and not (tmp_path / "raw").exists()


def test_points_run_on_every_host_at_once_and_rows_are_tagged(tmp_path, scratch_dir, fio_path, fio_servers):
    from helpers.analysis.hosts import host_table, label_hosts
    from helpers.figures.hosts import hosts_figure
    from helpers.ingest.core import ingest_run

    prof = write_profile(tmp_path, "mh", [{"group": "g", "rw": "randread", "bs": "4k", "iodepth": [1, 4]}])
    target = scratch_dir / "hosts.bin"
    raw = tmp_path / "raw"
    m = sweep.sweep(target, prof, "mh", None, "16m", raw, progress=False, hosts=",".join(fio_servers))
    assert m["status"] == "complete" and m["hosts"] == fio_servers
    for pid, entry in m["points"].items():
        assert sorted(entry["clients"].values()) == sorted(fio_servers)
        obj = json.loads((raw / "mh" / f"{pid}.json").read_text())
        assert len([j for j in obj["client_stats"] if j["jobname"] != "All clients"]) == 2
    rows = ingest_run(raw / "mh").results
    rows = rows[rows["direction"] == "read"]
    assert len(rows) == 4  # 2 points x 2 hosts, "All clients" skipped
    labelled = label_hosts(rows, m)
    assert sorted(labelled["host"].unique()) == sorted(fio_servers)
    t = host_table(labelled)
    agg = t[t["host"] == "all hosts"].set_index("point_id")["iops"]
    per = labelled.groupby("point_id")["iops"].sum()
    assert (abs(agg - per) < 1e-6).all() and (t[t["host"] == "all hosts"]["hosts"] == 2).all()
    assert len(hosts_figure(t).data) == 3
