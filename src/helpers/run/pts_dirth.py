"""SNIA PTS DIRTH (demand intensity / response-time histogram; PTS-E 1.1 section 11, PTS 2.0.2 its successor):
the rounds run in :func:`helpers.run.pts._run_rounds` (a pre-write of random writes at the largest threads x QD,
then every threads x QD at the test's R/W mix, high to low outstanding I/O; steady state on the IOPS at the largest
threads x QD); this module picks the three operating points from the measurement window and runs each for
``dirth_hist_s`` with fio's json+ latency histogram (every I/O counted in fio's histogram bins).

fio is given ``numjobs`` = the thread count and ``iodepth`` = the queue depth of each thread, never swapped."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from helpers.errors import LabError
from helpers.run.profiles import Point, PtsSettings

OPERATING_POINTS = ("max", "mid", "min")
COLUMNS = ["numjobs", "iodepth", "iops", "lat_mean_us"]


def _first(frame: pd.DataFrame) -> pd.Series:
    """The first row after ordering ties by the smaller outstanding I/O (threads x QD), then fewer threads."""
    order = frame.assign(_oio=frame["numjobs"] * frame["iodepth"]).sort_values(
        ["_oio", "numjobs"], kind="stable")
    return order.iloc[0][COLUMNS]


def dirth_operating_points(table: pd.DataFrame, art_limit_us: float = 5000.0) -> dict[str, Any]:
    """The DIRTH operating points of a table with ``numjobs``, ``iodepth``, ``iops`` and ``lat_mean_us`` (mean
    response time, µs), one row per threads x QD:

    * **max**: the highest IOPS whose mean response time is below ``art_limit_us`` (PTS: 5 ms);
    * **min**: threads 1 / QD 1 (the smallest outstanding I/O when the table has no T1/Q1);
    * **mid**: the point below the ceiling whose IOPS is nearest (max + min) / 2.

    Ties go to the smaller outstanding I/O.  Returns {"max": row, "mid": row, "min": row, "reason": str}, each row
    a Series of those four columns; "max" and "mid" are None (the reason says why) when no point is below the
    ceiling."""
    t = pd.DataFrame(table)[COLUMNS].dropna(subset=["iops"]).astype(float)
    if t.empty:
        return {"max": None, "mid": None, "min": None, "reason": "no threads x QD point was measured"}
    ones = t[(t["numjobs"] == 1) & (t["iodepth"] == 1)]
    low = _first(ones if not ones.empty else t)
    ok = t[t["lat_mean_us"] < art_limit_us]
    if ok.empty:
        best = t["lat_mean_us"].min()
        return {"max": None, "mid": None, "min": low,
                "reason": f"no threads x QD point has a mean response time below {art_limit_us:g} µs (the lowest: "
                          f"{best:,.0f} µs)"}
    high = _first(ok[ok["iops"] == ok["iops"].max()])
    target = (high["iops"] + low["iops"]) / 2
    dist = (ok["iops"] - target).abs()
    mid = _first(ok[dist == dist.min()])
    return {"max": high, "mid": mid, "min": low,
            "reason": f"max: highest IOPS below {art_limit_us:g} µs mean response time; mid: IOPS nearest "
                      f"({high['iops']:,.0f} + {low['iops']:,.0f}) / 2 = {target:,.0f}; min: T1/Q1"}


def hist_point(s: PtsSettings, numjobs: int, iodepth: int, test: str = "dirth") -> Point:
    """The long run at an operating point: the test's mix and block size (CBW: its mix and zones),
    ``dirth_hist_s`` seconds."""
    demand = s.test_points(test, 0)[1]
    return replace(demand, group=f"pts-{test}-hist", iodepth=int(iodepth), numjobs=int(numjobs),
                   runtime_s=s.dirth_hist_s, round=0)


def window_table(s: PtsSettings, t: dict, metrics, test: str = "dirth") -> pd.DataFrame:
    """Per threads x QD: IOPS and mean response time averaged over the test's measurement window (the steady
    window, else its last ``window`` rounds); ``metrics(point)`` reads a measured point's totals."""
    result = t.get("result") or {}
    last = int(result.get("last_round") or len(t.get("rounds") or []))
    first = int(result.get("first_round") or max(1, last - s.window + 1))
    rows = []
    for r in range(first, last + 1):
        for p in s.test_points(test, r)[1:]:  # the pre-write is not a demand point
            m = metrics(p)
            rows.append({"numjobs": p.numjobs, "iodepth": p.iodepth, "iops": m["iops"],
                         "lat_mean_us": m["lat_mean_us"]})
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return pd.DataFrame(rows).groupby(["numjobs", "iodepth"], as_index=False)[["iops", "lat_mean_us"]].mean()


def run_operating_points(ctx, s: PtsSettings, t: dict, active: int, metrics, test: str = "dirth") -> None:
    """Pick the operating points from the window (recorded in ``t["operating_points"]``) and run each once (a
    point shared by two of them runs once); resumed runs skip the measured ones."""
    ops = dirth_operating_points(window_table(s, t, metrics, test), s.dirth_art_limit_us)
    chosen: dict[str, Any] = {"reason": ops["reason"], "art_limit_us": s.dirth_art_limit_us}
    for name in OPERATING_POINTS:
        row = ops[name]
        if row is None:
            chosen[name] = None
            continue
        p = hist_point(s, int(row["numjobs"]), int(row["iodepth"]), test)
        chosen[name] = {"numjobs": int(row["numjobs"]), "iodepth": int(row["iodepth"]),
                        "iops": float(row["iops"]), "lat_mean_us": float(row["lat_mean_us"]), "point": p.point_id}
    t["operating_points"] = chosen
    for name in OPERATING_POINTS:
        if not chosen[name]:
            continue
        p = hist_point(s, chosen[name]["numjobs"], chosen[name]["iodepth"], test)
        names = [n for n in OPERATING_POINTS if chosen[n] and chosen[n]["point"] == p.point_id]
        if names[0] != name:
            continue
        ctx.tracker.write(label=f"PTS {test}: {'/'.join(names)} operating point T{p.numjobs}/Q{p.iodepth}, "
                                f"{s.dirth_hist_s:g} s with its response-time histogram", seconds=p.seconds)
        entry = ctx.run_point(p, {"pts": {"test": test, "operating_point": names}}, size_bytes=active)
        if entry.get("status") != "ok":
            raise LabError(f"PTS {test} operating point {p.point_id} failed: "
                           f"{(entry.get('fio_messages') or 'no message').splitlines()[-1]}")

