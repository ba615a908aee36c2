"""Small hand-made result tables for the figure and analysis view tests (no fio, no files)."""

from __future__ import annotations

import pandas as pd

from helpers.processed import schema


def rows(points: list[dict]) -> pd.DataFrame:
    """Result rows with every schema column; each dict overrides the defaults of one row."""
    base = {"run_id": "r1", "host": "h", "fio_version": "fio-3.33", "source_file": "x.json", "group": "g",
            "job_index": 0, "rw": "randread", "direction": "read", "bs_bytes": 4096, "iodepth": 1, "numjobs": 1,
            "rwmixread_pct": float("nan"), "ioengine": "libaio", "direct": 1, "group_reporting": True,
            "runtime_s": 5.0, "io_bytes": 1, "total_ios": 1, "iops": 1000.0, "bw_bytes_per_s": 4.096e6,
            "lat_mean_us": 100.0, "lat_stddev_us": 1.0, "lat_min_us": 50.0, "lat_max_us": 500.0,
            "clat_mean_us": 99.0, "slat_mean_us": 1.0, "clat_p50_us": 90.0, "clat_p90_us": 120.0,
            "clat_p95_us": 130.0, "clat_p99_us": 200.0, "clat_p99_9_us": 300.0, "clat_p99_99_us": 400.0,
            "usr_cpu_pct": 1.0, "sys_cpu_pct": 1.0, "timestamp_s": 0, "flag_reasons": ""}
    out = []
    for i, p in enumerate(points):
        r = {**base, **p}
        r.setdefault("point_id", f"p{i}")
        r["job_name"] = r["point_id"]
        if "bw_bytes_per_s" not in p:
            r["bw_bytes_per_s"] = r["iops"] * r["bs_bytes"]
        out.append(r)
    df = pd.DataFrame(out)
    for c, t, _ in schema.RESULT_COLUMNS:
        if c not in df:
            df[c] = False if t == "bool" else pd.NA
    return df


def bs_sweep(rw="read", qds=(1, 16), sizes=(4096, 65536, 1048576)) -> pd.DataFrame:
    """Bandwidth 100, 400, 410 MB/s at each QD (x QD/16 scale), so it stops growing at 64k."""
    mb = {4096: 100e6, 65536: 400e6, 1048576: 410e6}
    pts = []
    for q in qds:
        for b in sizes:
            bw = mb[b] * (q / 16)
            pts.append({"point_id": f"{rw}-{b}-{q}", "rw": rw, "direction": "read" if "read" in rw else "write",
                        "bs_bytes": b, "iodepth": q, "bw_bytes_per_s": bw, "iops": bw / b,
                        "lat_mean_us": 10.0 * q * b / 4096, "clat_p99_us": 20.0 * q * b / 4096})
    return rows(pts)
