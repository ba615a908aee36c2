"""Benchmark (a script, not a test): the cost of fio's per-window logs on a lab point.

    .venv/bin/python benchmarks/bench_logging.py [--rounds 3] [--runtime 3] [--size 256m]

Runs 4k random reads at QD1 and QD32 on a lab scratch FILE under build/bench-logging/ (never a
device), each point once with the lab's logs (bw/iops/lat averaged per ``log_avg_msec`` = 1000 and
the clat histogram log per ``log_hist_msec`` = 1000) and once without, alternating which goes first,
``--rounds`` times.  Prints IOPS medians and the overhead in percent with the no-log rounds' own
spread beside it (the VM disk varies ~9 % between rounds: a difference inside the spread is noise).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from helpers import config
from helpers.fio.units import parse_size
from helpers.run.profiles import Point
from helpers.run.runner import run_point
from helpers.run.sweep import plan_sweep, prefill


def iops_cpu_of(raw: Path) -> tuple[float, float]:
    """IOPS and fio's CPU (usr + sys, % of one core) per I/O second: CPU is steadier than IOPS here."""
    job = json.loads(raw.read_text())["jobs"][0]
    return job["read"]["iops"], job["usr_cpu"] + job["sys_cpu"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=float, default=3.0)
    ap.add_argument("--size", default="256m")
    args = ap.parse_args(argv)
    folder = config.ROOT / "build" / "bench-logging"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "target.bin"
    size = parse_size(args.size)
    plan = plan_sweep(target, "smoke", run_id="bench-logging", size=args.size, raw_dir=folder / "raw")
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    prefill(plan)
    rows = []
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        for r in range(args.rounds):
            for qd in (1, 32):
                base = Point(group="bench", rw="randread", bs_bytes=4096, iodepth=qd, runtime_s=args.runtime,
                             ramp_s=0.5, repeat=r)
                off = replace(base, log_avg_msec=0, log_hist_msec=0)
                order = [("logs", base), ("no logs", off)] if (r + qd) % 2 == 0 else [("no logs", off), ("logs", base)]
                for kind, p in order:
                    d = Path(tmp) / f"{kind.replace(' ', '-')}-{r}-{qd}"
                    d.mkdir()
                    res = run_point(p, target, size, d)
                    if res.status != "ok":
                        print(f"point failed: {res.stderr}", file=sys.stderr)
                        return 1
                    iops, cpu = iops_cpu_of(d / res.raw_file)
                    rows.append((qd, kind, r, iops, cpu, len(res.logs)))
                    print(f"round {r + 1} QD{qd:<2} {kind:8} {iops:10,.0f} IOPS, fio CPU {cpu:5.1f} % "
                          f"({len(res.logs)} log files)", flush=True)
    print()
    print("| QD | IOPS without logs (median) | IOPS with logs (median) | IOPS change with logs | no-log spread "
          "(max-min)/median | fio CPU µs per I/O without / with logs |")
    print("| --- | --- | --- | --- | --- | --- |")
    for qd in (1, 32):
        off = [x[3] for x in rows if x[0] == qd and x[1] == "no logs"]
        on = [x[3] for x in rows if x[0] == qd and x[1] == "logs"]
        m_off, m_on = statistics.median(off), statistics.median(on)
        spread = (max(off) - min(off)) / m_off * 100
        # CPU seconds per I/O: (cpu % / 100) / IOPS, in µs
        c_off = statistics.median(x[4] / 100 / x[3] * 1e6 for x in rows if x[0] == qd and x[1] == "no logs")
        c_on = statistics.median(x[4] / 100 / x[3] * 1e6 for x in rows if x[0] == qd and x[1] == "logs")
        print(f"| {qd} | {m_off:,.0f} | {m_on:,.0f} | {100 * (m_on - m_off) / m_off:+.1f} % | {spread:.1f} % "
              f"| {c_off:.2f} / {c_on:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
