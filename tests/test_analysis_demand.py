"""Demand-intensity points and their figure: known answers on a synthetic frame, one-job and foreign files."""

from __future__ import annotations

import pandas as pd

from figdata import rows
from helpers.analysis.card import device_card
from helpers.analysis.demand import demand_envelope, demand_knee_table, demand_points, demand_varied
from helpers.figures.demand import NO_POINTS, demand_figure
from helpers.processed.validity import add_flags


def _rows():
    base = {"rw": "randread", "bs_bytes": 4096, "direction": "read", "rwmixread_pct": None, "run_id": "r",
            "bw_bytes_per_s": 0.0, "rate_iops": None}
    rows = [(1, 16, "libaio", 250e3, 60.0, 40.0), (2, 8, "libaio", 490e3, 50.0, 49.0),
            (2, 32, "io_uring", 800e3, 30.0, 20.0), (1, 1, "libaio", 90e3, 20.0, 30.0)]
    return pd.DataFrame([{**base, "numjobs": n, "iodepth": q, "ioengine": e, "iops": i, "lat_mean_us": 10.0,
                          "usr_cpu_pct": u, "sys_cpu_pct": s, "point_id": f"p{n}-{q}-{e}"}
                         for n, q, e, i, u, s in rows])


def test_outstanding_io_lines_and_cpu_bound():
    p = demand_points(_rows())
    assert dict(zip(p["point_id"], p["outstanding_io"])) == {"p1-1-libaio": 1, "p1-16-libaio": 16, "p2-8-libaio": 16,
                                                            "p2-32-io_uring": 64}
    assert p.set_index("point_id").loc["p2-8-libaio", "cpu_bound"]  # 50 + 49 >= 90
    assert not p.set_index("point_id").loc["p2-32-io_uring", "cpu_bound"]
    assert set(p["line"]) == {"randread 4k, 1 job, libaio", "randread 4k, 2 jobs, libaio",
                              "randread 4k, 2 jobs, io_uring"}
    assert demand_varied(p)
    fig = demand_figure(p)
    assert len(fig.data) == 9  # three lines, three panels


def test_one_job_and_foreign_files_without_engine_or_cpu():
    d = _rows().drop(columns=["ioengine", "usr_cpu_pct", "sys_cpu_pct", "numjobs"])
    p = demand_points(d)
    assert list(p["numjobs"].unique()) == [1] and p["cpu_pct"].isna().all() and not p["cpu_bound"].any()
    assert (p["ioengine"] == "engine not stated").all() and not demand_varied(p)


def test_knee_on_outstanding_io_over_the_best_configuration_per_depth():
    """Known answer: one job is CPU-bound at 250k from 4 outstanding I/O; two jobs reach the device's 800k, linear up
    to 32 outstanding then flat.  The envelope takes the better configuration per outstanding I/O and its knee is at
    32 outstanding, reached by 2 jobs; a one-job run's knee (the QD series itself) sits where one job flattens."""
    base = {"rw": "randread", "bs_bytes": 4096, "direction": "read", "rwmixread_pct": None, "run_id": "r",
            "bw_bytes_per_s": 0.0, "rate_iops": None, "lat_mean_us": 10.0, "usr_cpu_pct": 50.0, "sys_cpu_pct": 49.0}
    one = [(1, q, min(q, 4) * 62.5e3) for q in (1, 2, 4, 8, 16, 32, 64)]
    two = [(2, q, min(2 * q, 32) * 25e3) for q in (1, 2, 4, 8, 16, 32, 64)]
    d = pd.DataFrame([{**base, "numjobs": n, "iodepth": q, "ioengine": "libaio", "iops": i, "point_id": f"p{n}-{q}"}
                      for n, q, i in one + two])
    p = demand_points(d)
    env = demand_envelope(p)
    assert list(env["outstanding_io"]) == [1, 2, 4, 8, 16, 32, 64, 128]
    assert env.set_index("outstanding_io").loc[1, "numjobs"] == 1 and env.set_index("outstanding_io").loc[32, "iops"] == 800e3
    (k,) = demand_knee_table(p).to_dict("records")
    assert k["knee_outstanding_io"] == 32 and k["setting"] == "randread 4k, 2 jobs, libaio", k
    assert "outstanding I/O" in k["reason"] and "QD" not in k["reason"] and k["x"].startswith("outstanding I/O")
    (k1,) = demand_knee_table(demand_points(d[d["numjobs"] == 1])).to_dict("records")
    assert k1["knee_outstanding_io"] == 4
    assert len(demand_figure(p, knees=demand_knee_table(p)).data) == 7  # two lines x three panels + the knee
    assert demand_knee_table(demand_points(pd.DataFrame())).empty


def test_no_points_says_so():
    fig = demand_figure(demand_points(pd.DataFrame()))
    assert NO_POINTS in str(fig.layout.annotations[0].text)


def test_card_names_the_setting_and_says_at_least_when_cpu_bound():
    d = add_flags(rows([
        {"point_id": "a", "iodepth": 16, "iops": 250e3, "usr_cpu_pct": 40.0, "sys_cpu_pct": 60.0},
        {"point_id": "b", "iodepth": 8, "numjobs": 2, "iops": 498e3, "usr_cpu_pct": 45.0, "sys_cpu_pct": 54.0},
        {"point_id": "c", "iodepth": 8, "numjobs": 2, "ioengine": "io_uring", "iops": 480e3, "usr_cpu_pct": 45.0,
         "sys_cpu_pct": 54.0}]))
    card = device_card(d, manifest={"target": {"path": "/dev/zram3", "kind": "block device"}})
    text = " ".join(card.findings)
    assert "peak at 498,000 IOPS at 2 jobs × QD 8, libaio" in text
    assert "At least 498k IOPS: fio used a whole CPU for every job it ran" in text
    assert "/dev/zram3 is zram, a compressed RAM disk: memory, not an SSD" in text
    d2 = d.assign(usr_cpu_pct=10.0, sys_cpu_pct=10.0).pipe(lambda x: add_flags(x.drop(columns=[
        c for c in x.columns if c.startswith("flag_") or c in ("unreliable_percentiles",)])))
    assert "At least" not in " ".join(device_card(d2).findings)


def test_a_searched_series_demand_probe_is_a_setting_of_its_own_not_swallowed_by_the_plateau():
    """make run-all PROFILE=adaptive on zram (2026-11-29 01:27): the card headlined the one-job plateau (307k, 'at 1
    job x QD 4') while the series' demand search read 506k at 2 jobs x QD 3: its probes carry the series' id (kind
    demand) and were counted as plateau points.  Now the demand probe is a level of its own and the peak names it."""
    from test_analysis_card import characterize_like_run, characterize_manifest

    df = characterize_like_run()
    extra = rows([{"point_id": "qd-16-nj2", "group": "qd", "iodepth": 8, "numjobs": 2, "iops": 140000.0,
                   "runtime_s": 0.45, "settled_after_s": 0.55, "total_ios": 63000, "lat_p99_us": 800.0}])
    extra["lat_mean_us"] = 16 * 1e6 / extra["iops"]
    df = add_flags(pd.concat([df, extra], ignore_index=True))
    man = characterize_manifest()
    man["points"]["qd-16-nj2"] = {"status": "ok", "adaptive": {"series": "qd-rr", "kind": "demand"},
                                  "parameters": {"rw": "randread", "bs_bytes": 4096, "iodepth": 8, "numjobs": 2}}
    card = device_card(df, manifest=man)
    peak = card.metric("Peak 4k random read IOPS")
    assert peak.value == 140000.0, peak
    assert any("peak at 140,000 IOPS at 2 jobs × QD 8, libaio" in f for f in card.findings), card.findings
    # the knee is one job's (the knee series), and says so beside a peak reached by more jobs
    assert any("of one job's peak; more jobs read more" in f for f in card.findings), card.findings
    # the plateau is still the series' own level (its five probes, not the demand probe)
    lv = peak.levels.set_index("kind")
    assert lv.loc["plateau", "value"] == 71000.0 and lv.loc["plateau", "n"] == 5
