"""Demand-intensity points and their figure: known answers on a synthetic frame, one-job and foreign files."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.demand import demand_points, demand_varied
from helpers.figures.demand import NO_POINTS, demand_figure


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


def test_no_points_says_so():
    fig = demand_figure(demand_points(pd.DataFrame()))
    assert NO_POINTS in str(fig.layout.annotations[0].text)
