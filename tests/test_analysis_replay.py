"""helpers.analysis.replay: known answers on a made-up trace and replay log."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import replay as rp


def trace(n=10):
    return pd.DataFrame({"seq": range(n), "t_s": [10 + i * 0.01 for i in range(n)],
                         "op": ["read", "write"] * (n // 2), "offset_bytes": [i * 4096 for i in range(n)],
                         "size_bytes": [4096] * (n - 2) + [16384] * 2, "latency_us": [100.0] * n})


def replay_log(t, lag_ms, lat_us=200.0):
    """fio's per-I/O log of a replay issuing each I/O lag_ms[i] after the trace's time: completion ms, lat ns."""
    issue_ms = (t["t_s"] - t["t_s"].min()).to_numpy() * 1e3 + np.asarray(lag_ms)
    return pd.DataFrame({"time_ms": np.floor(issue_ms + lat_us / 1e3).astype("int64"),
                         "value": (np.floor(issue_ms + lat_us / 1e3) - issue_ms) * 1e6,
                         "direction": t["op"].map({"read": 0, "write": 1}), "bs_bytes": t["size_bytes"],
                         "offset_bytes": t["offset_bytes"]})


def test_lag_is_the_issue_time_behind_the_trace():
    t = trace()
    lag = [0.0] + [float(i) for i in range(1, 10)]  # fio falls 1 ms further behind at each I/O
    m = rp.lag(t, rp.achieved(replay_log(t, lag)))
    assert len(m) == 10 and m["lag_ms"].to_numpy() == pytest.approx(lag, abs=1e-6)
    s = rp.lag_summary(m, 10)
    assert (s["p50_ms"], s["p90_ms"], s["max_ms"]) == pytest.approx((4.0, 8.0, 9.0))
    assert s["stretch_pct"] == pytest.approx(100 * (0.099 / 0.09 - 1))
    # replay_time_scale 50 (fio: half the trace's rate, its times doubled): no lag when fio keeps up with them
    half = replay_log(t.assign(t_s=10 + (t["t_s"] - 10) * 2), [0.0] * 10)
    assert rp.lag(t, rp.achieved(half), time_scale_pct=50)["lag_ms"].abs().max() == pytest.approx(0, abs=1e-6)


def test_lag_matches_by_offset_as_replayed():
    t = trace()
    moved = t["offset_bytes"].to_numpy() + (1 << 20)  # wrapped or scaled: other offsets
    log = replay_log(t.assign(offset_bytes=moved), [0.0] * 10)
    assert rp.lag(t, rp.achieved(log)).empty
    assert len(rp.lag(t, rp.achieved(log), moved)) == 10


def test_fidelity_table_and_sentence():
    t = trace()
    r = rp.measures(t)
    assert r["iops"] == pytest.approx(100) and r["read_pct"] == 50 and r["p99_us"] == 100
    assert r["mb_per_s"] == pytest.approx((7 * 4096 + 2 * 16384) / 0.09 / 1e6)
    c = rp.measures(pd.concat([t, t.iloc[:1].assign(t_s=10.09, op="read")], ignore_index=True)
                    .assign(t_s=lambda d: 10 + np.arange(len(d)) * 0.0105))
    tab = rp.fidelity(r, c).set_index("quantity")
    assert tab.loc["IOPS", "clone vs replay"] == f"{100 * (c['iops'] / r['iops'] - 1):+.1f} %"
    assert tab.loc["Block sizes (the three most frequent)", "clone vs replay"] == \
        f"{100 * abs(9 / 11 - 8 / 10):.1f} % of I/Os differ"
    assert rp.fidelity_sentence(r, c).endswith("within the 10 % a clone should hold.")
    far = {**c, "iops": r["iops"] * 1.2}
    assert "not within 10 %" in rp.fidelity_sentence(r, far)
    trace_m = {**r, "iops": r["iops"] * 1.2}  # the replay ran behind the trace, the clone kept its rate
    assert rp.fidelity_sentence(r, far, trace=trace_m, stretch_pct=20.0).endswith(
        "against the trace's 120.0 IOPS the clone ran +0.0 % and the replay -16.7 %: fio's timed replay took +20.0 % "
        "of the trace's time (its per-I/O delays run behind the trace, fio issue 1537).")


def test_lag_figure_draws_every_io_up_to_a_cap():
    from helpers.figures import replay as fr

    m = pd.DataFrame({"trace_s": np.arange(50_000) / 1e4, "lag_ms": 1.0, "op": ["read", "write"] * 25_000})
    fig = fr.lag_figure(m, "lag", "none")
    assert sum(len(t.x) for t in fig.data) == 16_667 and "(one I/O in 3 drawn)" in fig.layout.title.text
    assert sum(len(t.x) for t in fr.lag_figure(m.iloc[:100], "lag", "none").data) == 100
    assert fr.lag_figure(m.iloc[:0], "lag", "No replay.").layout.annotations[0].text == "No replay."
