"""Validity flags: results that should not be trusted are marked, never silently averaged in.

Each flag is a boolean column; ``flag_reasons`` joins one sentence per raised point-level flag (views
mark such points), and ``unreliable_percentiles`` names the percentile columns with too few I/Os behind
them (views mark those percentiles only: IOPS and mean latency of such a point are still sound).
Computed at ingest time (:func:`add_flags` on the results frame) so the processed data carries
them into every view.  The thresholds are module constants, documented where defined.  Every flag is read
from the rows' own fields except ``flag_throttled``: the device's thermal throttling during a point comes from
the point's SMART/health captures, whose verdicts ingest passes in (:mod:`helpers.ingest.health`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from helpers.run.demand import CPU_BOUND_PCT  # one CPU-bound rule: flag and search
from helpers.run.demand import cpu_per_job as _cpu_rule

MIN_DEVICE_LATENCY_US = 5.0  # no SSD completes a read in under ~5 µs end to end; faster means memory
DISK_IO_RATIO = 2.0  # fio counted > 2x the I/Os the block device saw (ios + merges): served from memory
TAIL_SAMPLES = 10  # a percentile p needs >= 10 I/Os beyond it: N * (1 - p) >= 10 (p99.99 -> 10^5 I/Os)
MIN_RUNTIME_S = 3.0  # below this the start-up transient dominates (real SSD steady state needs minutes)
# ... unless the point ended early because its IOPS had settled (settled_after_s, a settle-early probe of the
# adaptive/characterize search): the lab's settle rule measured its level (probes read -3.2..+5.4 % of 3 s runs
# at QD 4-64 on the bench's disk, 2026-11-26); one that ran its whole runtime without settling stays flagged
REPEAT_CV = 0.10  # repeated points whose IOPS coefficient of variation exceeds 10 %
# Writes at >= 1.3x the bandwidth of reads cannot be a flash device's sustained rate: an SSD programs flash far
# slower than it reads it, so writes outrun reads only while a write-back cache (page cache, hypervisor, the
# drive's DRAM/SLC) absorbs them.  Checked from 4 outstanding I/Os up: at QD 1-2 a drive's own write buffer
# acknowledges a write before a flash read could complete, which is the device's normal behaviour.
WRITE_READ_RATIO = 1.3
PLAUSIBLE_MIN_OUTSTANDING = 4
READ_OF_WRITE = {"write": "read", "randwrite": "randread"}  # the read workload at the same setting
PLAUSIBLE_KEYS = ["run_id", "host", "bs_bytes", "iodepth", "numjobs", "ioengine", "direct"]
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice", "e4defrag", "falloc",
                          "ftruncate", "filecreate", "filestat", "filedelete", "dirstat", "exec"})

PERCENTILE_LEVELS: dict[str, float] = {  # column -> percentile (fraction)
    "clat_p50_us": 0.50, "clat_p90_us": 0.90, "clat_p95_us": 0.95, "clat_p99_us": 0.99,
    "clat_p99_9_us": 0.999, "clat_p99_99_us": 0.9999,
}
# open-loop points at different offered loads are not repeats; nor are points of different sweep groups (a
# characterize run's 1 s QD1 probe and its 5 s QD1 latency point: the probe's spread flagged the 5 s point)
# a burst run's drains (helpers.run.burst: the first, those after rests, the redrains) run one setting again on a
# bucket each drain empties: neither repeats (their spread is the bucket's) nor points the in-burst flag raises on
BURST_DRAIN_GROUPS = ("burst", "redrain")
REPEAT_KEYS = ["run_id", "host", "group", "rw", "bs_bytes", "direction", "iodepth", "numjobs", "rwmixread_pct",
               "ioengine", "direct", "rate_iops"]

# (column, dtype, description) in schema format
FLAG_COLUMNS: list[tuple[str, str, str]] = [
    ("flag_page_cache", "bool",
     "Page cache suspected: direct=0, or mean read latency below 5 µs, or fio counted more than 2x the I/Os "
     "the block device did (disk_util, when present)."),
    ("flag_cpu_bound", "bool", "fio itself near 100 % of a CPU per job: the number may measure the CPU, not the device."),
    ("flag_few_ios", "bool",
     "Too few I/Os for at least one reported percentile (percentile p needs total_ios x (1 - p) >= 10; "
     "p99.99 needs 10^5 I/Os): see unreliable_percentiles."),
    ("unreliable_percentiles", "string",
     "Comma-separated percentile columns with too few I/Os behind them (empty when all are reliable)."),
    ("flag_short_run", "bool", "Measured runtime below 3 s: too short for steady state. Not raised for a "
     "settle-early probe that ended because its IOPS had settled (settled_after_s): the settle rule measured "
     "its level; one that ran its whole runtime without settling is flagged."),
    ("flag_repeat_spread", "bool",
     "A repeated point (same configuration measured more than once in one sweep group: a profile's repeat, an "
     "adaptive search's re-probes) whose IOPS vary by more than 10 % (CV). A burst run's drains are no repeats."),
    ("flag_implausible", "bool",
     "Writes faster than the device could sustain: bandwidth at least 1.3x that of reads at the same setting "
     "(same run, operation family, block size, queue depth, jobs; with no read at that depth, the reads of the same "
     "block size at the nearest depth measured), or of any read in the run, from 4 outstanding I/Os up. A "
     "write-back cache absorbed them; measure with a larger SIZE or the sustained-write profile."),
    ("flag_throttled", "bool",
     "The target's device reported thermal throttling during the point: its thermal-management counters "
     "(transitions, seconds) or its minutes above the warning/critical temperature grew, or its temperature "
     "reached the threshold the device itself reports (id-ctrl, smartctl, SCT status: see the health dataset's "
     "threshold_source), between the SMART/health captures taken before, during and after the point; the "
     "reason says which. False when the run has no health data (the manifest's health.note says why)."),
    ("flag_reasons", "string",
     "One sentence per raised point-level flag (page cache, CPU-bound, short run, repeat spread, implausibly "
     "fast writes, thermal throttling), joined with '; ' "
     "(empty when the point is trustworthy). Too few I/Os affects only the percentiles named in "
     "unreliable_percentiles, not the point's throughput, so it is not listed here."),
]


def settled_text(settled_after_s: float) -> str:
    """How a settle-early probe was measured, where its short runtime would otherwise raise flag_short_run."""
    return f"ended once its IOPS settled after {round(float(settled_after_s), 2):g} s"


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series(np.nan, index=df.index, dtype="float64")
    return pd.to_numeric(df[col], errors="coerce").astype("float64")


def cpu_per_job(df: pd.DataFrame) -> pd.Series:
    """fio's CPU per job in % of one CPU, the one figure the CPU-bound rule reads: the larger of fio's own usr + sys
    (each job thread's) and the whole fio process's CPU over its jobs (``process_cpu_pct``: every thread, io_uring's
    kernel workers included, sampled by the lab; NaN for others' files, then fio's own figure alone)."""
    own = _num(df, "usr_cpu_pct") + _num(df, "sys_cpu_pct")
    jobs = _num(df, "numjobs").fillna(1).to_numpy()
    return pd.Series(_cpu_rule(own.to_numpy(), _num(df, "process_cpu_pct").to_numpy(), jobs), index=df.index,
                     dtype="float64")


def too_few_ios(total_ios, p: float, min_tail: int = TAIL_SAMPLES):
    """True where ``total_ios`` I/Os cannot support percentile ``p`` (a fraction: fewer than ``min_tail`` I/Os
    beyond it); False where the count is unknown (NaN).  Scalars or arrays alike."""
    return total_ios * (1.0 - p) < min_tail


def unreliable_percentiles(total_ios: float, min_tail: int = TAIL_SAMPLES) -> list[str]:
    """Percentile columns that ``total_ios`` I/Os cannot support (fewer than ``min_tail`` beyond)."""
    if total_ios is None or pd.isna(total_ios):
        return []
    return [c for c, p in PERCENTILE_LEVELS.items() if too_few_ios(total_ios, p, min_tail)]


def disk_ios_for(df: pd.DataFrame) -> pd.Series:
    """I/Os the block device counted for each row's direction (disk_util; NaN when absent)."""
    out = pd.Series(np.nan, index=df.index, dtype="float64")
    for direction in ("read", "write"):
        ios = _num(df, f"disk_{direction}_ios")
        merges = _num(df, f"disk_{direction}_merges").fillna(0.0)
        m = df["direction"] == direction if "direction" in df.columns else pd.Series(False, index=df.index)
        out[m] = (ios + merges)[m]
    return out


def repeat_cv(df: pd.DataFrame) -> pd.Series:
    """IOPS coefficient of variation among rows with the same configuration (NaN when not repeated)."""
    keys = [k for k in REPEAT_KEYS if k in df.columns]
    if df.empty or not keys:
        return pd.Series(np.nan, index=df.index, dtype="float64")
    iops = _num(df, "iops")
    g = iops.groupby([df[k] for k in keys], dropna=False)
    mean, std, count = g.transform("mean"), g.transform("std"), g.transform("count")
    drains = df["group"].isin(BURST_DRAIN_GROUPS).fillna(False).astype(bool) if "group" in df.columns else False
    return (std / mean).where((count > 1) & ~drains)


def write_read_ratio(df: pd.DataFrame) -> tuple[pd.Series, pd.Series, pd.Series, pd.Series]:
    """Per row, for closed-loop pure writes (write / randwrite, no offered rate) from
    :data:`PLAUSIBLE_MIN_OUTSTANDING` outstanding I/Os up: (write bandwidth / the mean bandwidth of the reads at
    the same setting -- or, when no read ran at the write's depth, of the reads of the same block size at the
    nearest depth (log2) --, write bandwidth / the run's fastest read bandwidth, that read bandwidth in bytes/s, the
    nearest read depth used when it was not the write's own); NaN where there is no such read or the row is not such
    a write."""
    nan = pd.Series(np.nan, index=df.index, dtype="float64")
    need = {"rw", "direction", "bw_bytes_per_s", "iodepth"}
    if df.empty or not need <= set(df.columns):
        return nan, nan.copy(), nan.copy(), nan.copy()
    bw = _num(df, "bw_bytes_per_s")
    rw = df["rw"].astype("object")
    direction = df["direction"].astype("object")
    open_loop = _num(df, "rate_iops").notna()
    outstanding = _num(df, "iodepth") * _num(df, "numjobs").fillna(1.0)
    reads = df[rw.isin(list(READ_OF_WRITE.values())) & (direction == "read") & ~open_loop & (bw > 0)]
    writes = rw.isin(list(READ_OF_WRITE)) & (direction == "write") & ~open_loop & (outstanding >= PLAUSIBLE_MIN_OUTSTANDING)
    if reads.empty or not writes.any():
        return nan, nan.copy(), nan.copy(), nan.copy()
    keys = [k for k in PLAUSIBLE_KEYS if k in df.columns]
    r = reads.assign(_rw=reads["rw"].map({v: k for k, v in READ_OF_WRITE.items()}), _bw=_num(reads, "bw_bytes_per_s"))
    same = r.groupby([*keys, "_rw"], dropna=False)["_bw"].mean().rename("_read_bw").reset_index()
    w = df.loc[writes, keys].assign(_rw=rw[writes].to_numpy())
    w["_i"] = np.flatnonzero(writes.to_numpy())
    w = w.merge(same, on=[*keys, "_rw"], how="left")
    # no read at the write's own depth: the read of the same block size (jobs, engine, ...) at the nearest measured
    # depth (log2), never only the run's fastest read (a deep write was once shown clean beside a lucky read probe
    # while the same write at shallower depths was flagged; issue 34.1)
    if "iodepth" in keys and w["_read_bw"].isna().any():
        near_keys = [k for k in keys if k != "iodepth"] + ["_rw"]
        missing = w[w["_read_bw"].isna()].reset_index()
        cand = missing.merge(same.rename(columns={"iodepth": "_read_qd"}), on=near_keys, how="inner",
                             suffixes=("", "_near"))
        if len(cand):
            cand["_dist"] = (np.log2(cand["iodepth"].astype(float)) - np.log2(cand["_read_qd"].astype(float))).abs()
            best = cand.sort_values(["_dist", "_read_qd"]).drop_duplicates("index").set_index("index")
            w.loc[best.index, "_read_bw"] = best["_read_bw_near"]
            w.loc[best.index, "_near_qd"] = best["_read_qd"].astype(float)
    run = "run_id" if "run_id" in df.columns else None
    best = r.groupby(run)["_bw"].max() if run else pd.Series({None: r["_bw"].max()})
    same_ratio, any_ratio, read_bw, near_qd = nan.copy(), nan.copy(), nan.copy(), nan.copy()
    if "_near_qd" in w:
        near_qd.iloc[w["_i"].to_numpy()] = w["_near_qd"].to_numpy(dtype=float)
    wbw = bw.to_numpy()[w["_i"].to_numpy()]
    same_ratio.iloc[w["_i"].to_numpy()] = wbw / w["_read_bw"].to_numpy(dtype=float)
    top = (w[run].map(best) if run else pd.Series(best.iloc[0], index=w.index)).to_numpy(dtype=float)
    any_ratio.iloc[w["_i"].to_numpy()] = wbw / top
    read_bw.iloc[w["_i"].to_numpy()] = np.where(np.isfinite(w["_read_bw"].to_numpy(dtype=float)),
                                                w["_read_bw"].to_numpy(dtype=float), top)
    return same_ratio, any_ratio, read_bw, near_qd


def _implausible_text(same: float, any_: float, read_bw: float, written: float, near_qd: float = np.nan) -> str:
    vol = f" after {written / 2**20:,.0f} MiB written" if np.isfinite(written) and written > 0 else ""
    if np.isfinite(same) and same >= WRITE_READ_RATIO and np.isfinite(near_qd):
        what = (f"writes at {same:.1f}x the bandwidth of reads of the same block size at QD{near_qd:g}, the nearest "
                f"depth reads were measured at ({read_bw / 1e6:,.0f} MB/s)")
    elif np.isfinite(same) and same >= WRITE_READ_RATIO:
        what = f"writes at {same:.1f}x the bandwidth of reads at the same setting ({read_bw / 1e6:,.0f} MB/s)"
    else:
        what = f"writes at {any_:.1f}x the bandwidth of the fastest read in this run ({read_bw / 1e6:,.0f} MB/s)"
    return (f"{what}{vol}: more than a flash device sustains, a write-back cache absorbed them (measure with a "
            "larger SIZE or the sustained-write profile)")


def _texts(mask: pd.Series, make, *values: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Reason texts of the rows where ``mask`` holds: (their positions, the index of each one's text,
    the distinct texts).  ``make`` is a fixed sentence or a function of one row's ``values`` (numpy
    scalars) returning its sentence, called once per distinct set of values (told apart by their bits:
    -0.0 is not 0.0) -- the rows of a run share few runtimes and spreads."""
    pos = np.flatnonzero(mask.to_numpy(dtype=bool, na_value=False))
    if isinstance(make, str):
        return pos, np.zeros(len(pos), np.int64), [make]
    cols = [np.ascontiguousarray(v[pos], dtype=np.float64) for v in values]
    bits = cols[0].view(np.int64) if len(cols) == 1 else np.stack([c.view(np.int64) for c in cols], axis=1)
    first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)[1:]
    return pos, inverse.reshape(-1), [make(*(c[i] for c in cols)) for i in first]


def _joined(n: int, parts: list[tuple[np.ndarray, np.ndarray, list[str]]], sep: str = "; ") -> np.ndarray:
    """Per row, the texts of ``parts`` (see :func:`_texts`) that reach it, in order, joined by ``sep`` ('' when
    none): joined once per distinct combination of texts."""
    codes = np.zeros((n, len(parts)), np.int64)  # 1 + the index of the row's text in each part; 0: none
    key = np.zeros(n, np.int64)  # one number per combination (mixed radix, renumbered before it could overflow)
    for j, (pos, inverse, texts) in enumerate(parts):
        codes[pos, j] = inverse + 1
        if n and int(key.max()) >= 2**62 // (len(texts) + 1):
            key = np.unique(key, return_inverse=True)[1].reshape(-1)
        key = key * (len(texts) + 1) + codes[:, j]
    first, inverse = np.unique(key, return_index=True, return_inverse=True)[1:]
    joined = [sep.join(parts[j][2][c - 1] for j, c in enumerate(codes[i]) if c) for i in first]
    return np.array(joined, dtype=object)[inverse.reshape(-1)]


def add_flags(df: pd.DataFrame, throttled: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Return ``df`` with the flag columns of :data:`FLAG_COLUMNS` added (from the rows' own fields;
    the repeat flag compares rows with the same configuration; ``throttled`` maps the point ids whose device
    throttled to the sentence saying so).  Column-wise: no per-row pandas access."""
    out = df.copy()
    lat = _num(out, "lat_mean_us")
    total = _num(out, "total_ios")
    buffered = _num(out, "direct") == 0  # unknown direct (<NA>, e.g. multi-client output) is not assumed buffered
    is_read = (out["direction"] == "read") if "direction" in out.columns else pd.Series(False, index=out.index)
    too_fast = is_read.fillna(False).astype(bool) & (lat < MIN_DEVICE_LATENCY_US)
    disk = disk_ios_for(out)
    not_on_disk = (disk > 0) & (total > DISK_IO_RATIO * disk) & ~buffered & ~too_fast
    cpu = cpu_per_job(out)
    cpu_bound = cpu >= CPU_BOUND_PCT
    names = list(PERCENTILE_LEVELS)
    few = np.zeros((len(out), len(names)), dtype=bool)
    for j, (col, p) in enumerate(PERCENTILE_LEVELS.items()):
        few[:, j] = (_num(out, col).notna() & too_few_ios(total, p)).to_numpy()
    lists = [",".join(n for j, n in enumerate(names) if code >> j & 1) for code in range(1 << len(names))]
    unreliable = np.array(lists, dtype=object)[few.astype(np.int64) @ (1 << np.arange(len(names)))]
    few_ios = pd.Series(few.any(axis=1), index=out.index, dtype=bool)
    runtime = _num(out, "runtime_s")
    short = (runtime < MIN_RUNTIME_S) & _num(out, "settled_after_s").isna()
    cv = repeat_cv(out)
    spread = cv > REPEAT_CV
    same_ratio, any_ratio, read_bw, near_qd = write_read_ratio(out)
    implausible = (same_ratio >= WRITE_READ_RATIO) | (any_ratio >= WRITE_READ_RATIO)
    written = _num(out, "io_bytes")
    lat_a, total_a, disk_a, cpu_a, run_a, cv_a = (x.to_numpy() for x in (lat, total, disk, cpu, runtime, cv))
    throttled = dict(throttled or {})
    points = out["point_id"].astype("object").to_numpy() if "point_id" in out.columns else np.full(len(out), None)
    hot = pd.Series([p in throttled for p in points], index=out.index, dtype=bool)

    reasons = [
        _texts(buffered, "buffered I/O (direct=0): the page cache may serve it"),
        _texts(too_fast, lambda v: f"mean read latency {v:.2f} µs is faster than any SSD (cache?)", lat_a),
        _texts(not_on_disk, lambda t, d: f"fio counted {t:,.0f} I/Os but the device only {d:,.0f} "
                                         "(served from memory?)", total_a, disk_a),
        _texts(cpu_bound, lambda v: f"fio used {v:.0f} % of a CPU (CPU-bound)", cpu_a),
        _texts(short, lambda v: f"ran {v:.1f} s: too short for steady state (< {MIN_RUNTIME_S:g} s)", run_a),
        _texts(spread, lambda v: f"repeats of this point vary by {100 * v:.0f} % (CV) in IOPS", cv_a),
        _texts(implausible, _implausible_text,
               *(x.to_numpy() for x in (same_ratio, any_ratio, read_bw, written, near_qd))),
        _texts(hot, lambda i: throttled[points[int(i)]], np.arange(len(out), dtype=np.float64)),
    ]
    out["flag_page_cache"] = (buffered | too_fast | not_on_disk).astype(bool)
    out["flag_cpu_bound"] = cpu_bound.astype(bool)
    out["unreliable_percentiles"] = pd.Series(unreliable, index=out.index, dtype="string")
    out["flag_few_ios"] = few_ios
    out["flag_short_run"] = short.astype(bool)
    out["flag_repeat_spread"] = spread.astype(bool)
    out["flag_implausible"] = implausible.astype(bool)
    out["flag_throttled"] = hot
    out["flag_reasons"] = pd.Series(_joined(len(out), reasons), index=out.index, dtype="string")
    return out


# A point that ran inside a burst bucket (issue 33): on a target whose burst drains (``mode: burst``) found a
# bucket, a point of the same run and I/O direction whose rate is more than 1.3x the baseline the drain settled at
# (three times this VM's ~9 % CV of one point between rounds) ran on the bucket's credit, which the drain (another
# point) empties and the points and pauses before it spend and refill: a burst's number, not what the device
# sustains.  The bucket comes from the per-window series (helpers.analysis.burst.burst_flags), so the flag is
# raised where those are read (device card, 21-sustained-write page), not in the stored results.
IN_BURST_FLAG = "flag_in_burst"
IN_BURST_RATIO = 1.3


def _in_burst_text(rate: float, unit: str, b: Mapping) -> str:
    def fmt(x: float) -> str:
        return f"{x / 1e6:,.0f} MB/s" if unit == "bytes/s" else f"{x:,.0f} IOPS"
    return (f"ran at {fmt(rate)}, above the {fmt(b['baseline_rate'])} baseline that burst drain {b['point_id']} "
            f"of this run settled at once it emptied its bucket (bursts at {fmt(b['burst_rate'])}): a burst's number, "
            "which depends on what the points and pauses before it spent and refilled")


def add_burst_flag(df: pd.DataFrame, buckets: list[Mapping]) -> pd.DataFrame:
    """``df`` with ``flag_in_burst`` (see :data:`IN_BURST_FLAG`) and its sentence added to ``flag_reasons``.
    ``buckets``: one mapping per burst drain that found a bucket (run_id, point_id, direction, unit 'IOPS' or
    'bytes/s', burst_rate, baseline_rate)."""
    out = df.copy()
    raised = pd.Series(False, index=out.index)
    texts = pd.Series("", index=out.index, dtype="object")
    group = out["group"].astype("object").fillna("") if "group" in out else pd.Series("", index=out.index)
    pid = out["point_id"].astype("object").fillna("").astype(str) if "point_id" in out else group
    drains = pid.str.startswith(tuple(f"{g}-" for g in BURST_DRAIN_GROUPS)) | group.isin(BURST_DRAIN_GROUPS)
    for b in buckets:
        col = "iops" if b["unit"] == "IOPS" else "bw_bytes_per_s"
        rate = _num(out, col)
        hit = ((out["run_id"].astype(str) == str(b["run_id"])) & (out["direction"] == b["direction"]) & ~drains
               & (rate > IN_BURST_RATIO * b["baseline_rate"]) & ~raised).fillna(False).astype(bool)
        for i in out.index[hit]:
            texts[i] = _in_burst_text(float(rate[i]), b["unit"], b)
        raised |= hit
    out[IN_BURST_FLAG] = raised
    if "flag_reasons" not in out:
        out["flag_reasons"] = ""
    old = out["flag_reasons"].astype("object").fillna("").astype(str)
    out["flag_reasons"] = pd.Series([f"{o}; {t}" if o and t else (o or t) for o, t in zip(old, texts)],
                                    index=out.index, dtype="string")
    return out
