"""Burst bucket procedure (``mode: burst``, issue 33): per point, a drain at full rate with per-window logs until
the rate has dropped and stayed low (:class:`helpers.run.runner.DropMonitor`) or its time limit (``runtime_s``),
then for each rest of ``burst.rests_s`` (in order) an idle wait of that long followed by a drain of its own
(point id ``...-rest<S>s``): what the rest gave back.  A first drain whose rate did not drop within its time
limit has no rests (nothing was spent that a rest could give back; the manifest says so).  :func:`helpers.analysis.token_bucket` reads them.

Every phase is resumable: a drain already measured is kept; a rest whose drain is still to run needs an empty
bucket before it, so when the drain before it did not just run in this process (a resumed run: the time since
refilled the bucket by an unknown amount) a drain in group ``redrain`` empties it again first (recorded, never
read as a burst).
"""

from __future__ import annotations

from dataclasses import replace

from helpers.run.profiles import Point

REDRAIN_GROUP = "redrain"  # a drain that empties the bucket again after a resume (not a measurement of the bucket)


def drains(p0: Point, rests_s) -> list[Point]:
    """The point's drains in run order: the first, then one after each rest."""
    return [p0, *(replace(p0, rest_s=float(r)) for r in rests_s)]


def run_burst(ctx) -> None:
    """The burst procedure on a sweep context (helpers.run.sweep._SweepContext: run_point, done, raw, manifest,
    stop, plan); a rest is waited on the stop event, so Ctrl-C ends it at once."""
    prof = ctx.plan.profile
    summary = ctx.manifest.setdefault("burst", {})
    for p0 in prof.points:
        first, *after = drains(p0, prof.burst.rests_s)
        emptied = not ctx.done(first)
        entry = ctx.run_point(first, {"burst": {"series": p0.point_id, "rest_s": 0.0}})
        if entry.get("status") == "ok" and entry.get("settled_after_s") is None:  # no drop within the time limit
            summary[p0.point_id] = {"drains": [first.point_id], "rests_s": [],
                                    "note": f"the rate did not drop within the drain's {p0.runtime_s:g} s: no rests "
                                            "(nothing was spent that a rest could give back)"}
            continue
        rests = []
        for d in after:
            if ctx.done(d):
                emptied = False
                ctx.run_point(d, {"burst": {"series": p0.point_id, "rest_s": d.rest_s}})
                rests.append(d.rest_s)
                continue
            if not emptied:
                again = replace(p0, group=REDRAIN_GROUP)
                ctx.raw(again).unlink(missing_ok=True)  # it must run now, not be taken as done
                ctx.manifest["points"].pop(again.point_id, None)
                ctx.run_point(again, {"burst": {"series": p0.point_id, "redrain_before_rest_s": d.rest_s}})
            ctx.tracker.write(label=f"resting {d.rest_s:g} s before the next drain of {p0.point_id}",
                              seconds=d.rest_s)
            if ctx.stop.wait(d.rest_s):
                raise KeyboardInterrupt
            ctx.run_point(d, {"burst": {"series": p0.point_id, "rest_s": d.rest_s}})
            emptied = True
            rests.append(d.rest_s)
        summary[p0.point_id] = {"drains": [first.point_id, *(d.point_id for d in after)], "rests_s": rests,
                                "low_windows": p0.drop_windows, "drop_ratio": p0.drop_ratio}
