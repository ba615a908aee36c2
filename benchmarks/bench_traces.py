"""Trace import benchmark (a script, not a test):
``.venv/bin/python benchmarks/bench_traces.py [--ios 1000000] [--repeat 2]``.

Two traces of ``--ios`` I/Os each are written to a temp folder (/dev/shm when there is one): the kernel's
block tracepoints as tracefs prints them (an issue and a completion line per I/O, 2 x N lines) and an
Alibaba block-trace CSV (N lines).  On each, in turns (ours, baseline, floor, ours, ...: this VM's CPU speed
drifts over minutes) and the best of ``--repeat``:

* ours: ``helpers.ingest.traces.read_trace`` (chunked vectorised regexes, or pyarrow.csv), issue order,
  completions paired, bad lines counted;
* the naive baseline: a per-line Python parser (split each line, dicts per I/O, pandas.DataFrame at the end)
  doing the same pairing;
* the floor: ``pyarrow.csv.read_csv`` of the same bytes (the CSV; for the tracepoint text, the file read as
  one space-delimited column), nothing else.

Prints seconds, I/Os per second, ours / naive speed-up and ours against the floor.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow.csv as pacsv

from helpers.ingest import traces as T


def write_tracepoints(path: Path, n: int, seed: int = 1) -> None:
    rnd = random.Random(seed)
    t = 5000.0
    with open(path, "w") as f:
        f.write("# tracer: nop\n#\n")
        for _ in range(n):
            t += rnd.expovariate(1 / 20e-6)
            sector = rnd.randrange(0, 1 << 27) * 8
            nsec = rnd.choice((8, 8, 8, 32, 128))
            rw = "RS" if rnd.random() < 0.7 else "WS"
            f.write(f"             fio-1234    [001] .....  {t:.6f}: block_rq_issue: 7,0 {rw} {nsec * 512} () "
                    f"{sector} + {nsec} be,0,4 [fio]\n")
            f.write(f"     ksoftirqd/1-22      [001] ..s..  {t + 15e-6:.6f}: block_rq_complete: 7,0 {rw} () "
                    f"{sector} + {nsec} be,0,4 [0]\n")


def write_alibaba(path: Path, n: int, seed: int = 2) -> None:
    rnd = random.Random(seed)
    ts = 1577808144911312
    with open(path, "w") as f:
        for _ in range(n):
            ts += rnd.randrange(1, 40)
            f.write(f"{rnd.randrange(0, 8)},{'R' if rnd.random() < 0.7 else 'W'},{rnd.randrange(0, 1 << 30) * 4096},"
                    f"{rnd.choice((4096, 8192, 16384, 65536))},{ts}\n")


def naive_tracepoints(path: Path) -> pd.DataFrame:
    issues, pending = [], {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or "block_rq_" not in line:
                continue
            head, _, rest = line.partition(": block_rq_")
            t = float(head.split()[-1].rstrip(":"))
            ev, _, body = rest.partition(": ")
            parts = body.split()
            dev, rwbs = parts[0], parts[1]
            plus = parts.index("+")
            key = (dev, int(parts[plus - 1]), int(parts[plus + 1]))
            if ev == "issue":
                row = {"t_s": t, "op": "read" if "R" in rwbs else "write", "stream": dev,
                       "offset_bytes": key[1] * 512, "size_bytes": key[2] * 512, "latency_us": float("nan")}
                issues.append(row)
                pending.setdefault(key, []).append(row)
            elif pending.get(key):
                row = pending[key].pop(0)
                row["latency_us"] = (t - row["t_s"]) * 1e6
    return pd.DataFrame(issues)


def naive_alibaba(path: Path) -> pd.DataFrame:
    rows = []
    with open(path) as f:
        for line in f:
            dev, op, off, size, ts = line.rstrip("\n").split(",")
            rows.append({"stream": dev, "op": "read" if op == "R" else "write", "offset_bytes": int(off),
                         "size_bytes": int(size), "t_us": int(ts)})
    return pd.DataFrame(rows)


def floor(path: Path) -> int:
    if path.suffix == ".csv":
        return pacsv.read_csv(path, read_options=pacsv.ReadOptions(autogenerate_column_names=True)).num_rows
    # one column per line: pyarrow's fastest pass over the bytes of a text file
    return pacsv.read_csv(path, read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                          parse_options=pacsv.ParseOptions(delimiter="\x01", quote_char=False)).num_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ios", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=base) as d:
        tp, ali = Path(d) / "trace.txt", Path(d) / "ali.csv"
        write_tracepoints(tp, a.ios)
        write_alibaba(ali, a.ios)
        print(f"{a.ios:,} I/Os per trace; tracepoints {tp.stat().st_size / 1e6:.0f} MB, "
              f"alibaba {ali.stat().st_size / 1e6:.0f} MB; load average {os.getloadavg()[0]:.2f}")
        for name, path, naive in (("tracepoints", tp, naive_tracepoints), ("alibaba", ali, naive_alibaba)):
            best = {"ours": float("inf"), "naive": float("inf"), "floor": float("inf")}
            for _ in range(a.repeat):
                sides = (("ours", lambda p=path: len(T.read_trace(p).ios)), ("naive", lambda p=path, f=naive: len(f(p))),
                         ("floor", lambda p=path: floor(p)))
                for side, fn in sides:
                    t0 = time.perf_counter()
                    n = fn()
                    best[side] = min(best[side], time.perf_counter() - t0)
                    assert side == "floor" or n == a.ios, (side, n)
            print(f"{name}: ours {best['ours']:.2f} s ({a.ios / best['ours'] / 1e6:.2f} M I/Os/s), naive "
                  f"{best['naive']:.2f} s, pyarrow.csv floor {best['floor']:.2f} s; ours {best['naive'] / best['ours']:.1f}x "
                  f"the naive parser, {best['floor'] / best['ours']:.2f} of the floor's speed")


if __name__ == "__main__":
    main()
