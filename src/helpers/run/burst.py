"""Burst bucket procedure (``mode: burst``, issue 33): per point, a drain at full rate with per-window logs until
the rate has dropped and stayed low (:class:`helpers.run.runner.DropMonitor`) or its time limit (``runtime_s``),
then for each rest of ``burst.rests_s`` (in order) an idle wait of that long followed by a drain of its own
(point id ``...-rest<S>s``; at most 1.5 x as long as the first drain took to drop and stay low, since a rest gives
back at most the whole bucket): what the rest gave back.  A first drain whose rate did not drop within its time
limit has no rests (nothing was spent that a rest could give back; the manifest says so).  :func:`helpers.analysis.token_bucket` reads them.

Every phase is resumable: a drain already measured is kept; a rest whose drain is still to run needs an empty
bucket before it, so when the drain before it did not just run in this process (a resumed run: the time since
refilled the bucket by an unknown amount) a drain in group ``redrain`` empties it again first (recorded, never
read as a burst).

The rest the device saw is longer than the nominal one by fio's exit and start-up and the lab's own book-keeping
(a few tenths of a second: 10 % of a 2 s rest): the manifest's ``rests_seen_s`` is each drain's first I/O (its
fio result's time stamp less its job runtime) less the end of the drain before it (that drain's time stamp), in s,
and :func:`helpers.analysis.burst.burst_series` times the refill by it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers.fio.json_output import parse_fio_bytes
from helpers.run.profiles import Point

REDRAIN_GROUP = "redrain"  # a drain that empties the bucket again after a resume (not a measurement of the bucket)


def drains(p0: Point, rests_s) -> list[Point]:
    """The point's drains in run order: the first, then one after each rest."""
    return [p0, *(replace(p0, rest_s=float(r)) for r in rests_s)]


def io_span_s(raw: Path, ramp_s: float = 0.0) -> tuple[float, float] | None:
    """(first I/O, end) of a drain in s since the epoch from its fio result (its last object: time stamp less the
    longest job runtime and the ramp, and the time stamp); None when the file does not say."""
    try:
        last = parse_fio_bytes(raw.read_bytes())[-1]
        end = float(last["timestamp_ms"]) / 1000.0
        took = max(float(j["job_runtime"]) for j in last["jobs"]) / 1000.0 + ramp_s
    except (OSError, KeyError, TypeError, ValueError):  # FioParseError is a ValueError
        return None
    return end - took, end


def seen_rest_s(ctx, before: Point, after: Point) -> float | None:
    """The idle time between two drains as the device saw it (module text); None when either file does not say."""
    a, b = io_span_s(ctx.raw(before), before.ramp_s), io_span_s(ctx.raw(after), after.ramp_s)
    return None if a is None or b is None else round(b[0] - a[1], 3)


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
        rests, seen, prev = [], [], first
        # a rest gives back at most the whole bucket, which the first drain spent in its settled_after_s: a drain
        # after a rest lasts at most that long, and half again (a drain whose burst is too short for the drop
        # check to see, a window or two, would otherwise run to the profile's time limit)
        took = entry.get("settled_after_s")
        limit = min(p0.runtime_s, round(1.5 * took + p0.ramp_s, 1)) if took else p0.runtime_s
        for d in (replace(d, runtime_s=limit) for d in after):
            if ctx.done(d):
                emptied = False
                ctx.run_point(d, {"burst": {"series": p0.point_id, "rest_s": d.rest_s}})
                rests.append(d.rest_s)
                seen.append((ctx.manifest.get("burst", {}).get(p0.point_id, {}).get("rests_seen_s") or {}).get(
                    f"{d.rest_s:g}"))
                prev = d
                continue
            if not emptied:
                prev = replace(p0, group=REDRAIN_GROUP)
                ctx.raw(prev).unlink(missing_ok=True)  # it must run now, not be taken as done
                ctx.manifest["points"].pop(prev.point_id, None)
                ctx.run_point(prev, {"burst": {"series": p0.point_id, "redrain_before_rest_s": d.rest_s}})
            ctx.tracker.write(label=f"resting {d.rest_s:g} s before the next drain of {p0.point_id}",
                              seconds=d.rest_s)
            if ctx.stop.wait(d.rest_s):
                raise KeyboardInterrupt
            ctx.run_point(d, {"burst": {"series": p0.point_id, "rest_s": d.rest_s}})
            emptied = True
            rests.append(d.rest_s)
            seen.append(seen_rest_s(ctx, prev, d))
            prev = d
        summary[p0.point_id] = {"drains": [first.point_id, *(d.point_id for d in after)], "rests_s": rests,
                                "rests_seen_s": {f"{r:g}": s for r, s in zip(rests, seen) if s is not None},
                                "low_windows": p0.drop_windows, "drop_ratio": p0.drop_ratio}
