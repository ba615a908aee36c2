"""Benchmark (a script, not a test): ingest and plot cost of fio time-series logs (issue 12, point 6).

    .venv/bin/python benchmarks/bench_timeseries.py [--hours 1] [--points 1000]

Generates, under build/bench-timeseries/, (a) one point of ``--hours`` with 1 s logs for both
directions (bw, iops, lat, clat, slat and a 1,856-bin clat histogram log), and (b) a run of
``--points`` 5 s points with the same six logs each, then times ``timeseries_frame`` on each (CPU
seconds and wall seconds: the VM is shared) and measures the plotly JSON the time-series figure of the
long point ships to the browser, reduced for display and not.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import time

import numpy as np

from helpers import config
from helpers.analysis import consistency, point_series
from helpers.figures.timeseries import timeseries_figure
from helpers.ingest import timeseries as ts

JSON = ('{"fio version": "fio-3.33", "jobs": [{"jobname": "NAME", "error": 0, "job options": '
        '{"log_avg_msec": "1000", "log_hist_msec": "1000", "ramp_time": "1"}}]}')


def write_point(folder, name: str, seconds: int, rng) -> None:
    (folder / f"{name}.json").write_text(JSON.replace("NAME", name))
    t = np.repeat(np.arange(1, seconds + 1) * 1000, 2)
    d = np.tile([0, 1], seconds)
    for kind in ("iops", "bw", "lat", "clat", "slat"):
        v = rng.integers(1000, 100000, len(t))
        (folder / f"{name}_{kind}.1.log").write_text("".join(f"{a}, {b}, {c}, 0, 0\n" for a, b, c in zip(t, v, d)))
    counts = np.zeros((len(t), 1856), dtype=np.int64)
    counts[:, 600:700] = rng.integers(0, 50, (len(t), 100))
    (folder / f"{name}_clat_hist.1.log").write_text(
        "".join(f"{a}, {c}, 4096, " + ", ".join(map(str, row)) + "\n" for a, c, row in zip(t, d, counts)))


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--points", type=int, default=1000)
    args = ap.parse_args(argv)
    base = config.ROOT / "build" / "bench-timeseries"
    shutil.rmtree(base, ignore_errors=True)
    rng = np.random.default_rng(1)
    long_dir, many_dir = base / "long", base / "many"
    long_dir.mkdir(parents=True)
    many_dir.mkdir()
    write_point(long_dir, "long", int(args.hours * 3600), rng)
    for i in range(args.points):
        write_point(many_dir, f"p{i:04d}", 5, rng)
    size = sum(f.stat().st_size for f in long_dir.iterdir()) / 1e6
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    df, cpu, wall = timed(lambda: ts.timeseries_frame([long_dir], "long"))
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.hours:g} h point: {len(df):,} windows, {size:.0f} MB of logs: {cpu:.2f} s CPU, {wall:.2f} s wall, "
          f"peak RSS {rss1:.0f} MiB (+{rss1 - rss0:.0f} MiB over the {rss0:.0f} MiB before)")
    (s, summ), cpu2, wall2 = timed(lambda: (point_series(df), consistency(df)))
    print(f"  analysis (point_series + consistency): {cpu2:.2f} s CPU")
    for max_windows, label in ((1500, "reduced for display"), (10**9, "every window")):
        fig, cpu3, _ = timed(lambda m=max_windows: timeseries_figure(s, summ, max_windows=m))
        print(f"  figure {label}: {len(fig.to_json()) / 1e6:.2f} MB of plotly JSON ({cpu3:.2f} s CPU)")
    df2, cpu, wall = timed(lambda: ts.timeseries_frame([many_dir], "many"))
    print(f"{args.points} points x 6 logs: {len(df2):,} windows: {cpu:.2f} s CPU, {wall:.2f} s wall "
          f"({1000 * cpu / args.points:.1f} ms CPU per point)")
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
