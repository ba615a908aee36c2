"""The JSON reconciliation: guesses decided by the JSON's totals and the final partial windows fio does not log (module text of :mod:`helpers.ingest.timeseries`)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from helpers.ingest.timeseries.windows import VALUE_COLUMNS

GUESS_SHARE = 0.6  # a guess is turned when it explains at least this share of the bytes still missing


def _reconcile(sets_by_job: dict[int, list[dict]], job_entry: dict[int, int], totals: list[dict], epoch: bool,
               shared: bool) -> None:
    """Decide :func:`tick_starts`'s guesses (a stall fio called through, or a call fio made late) by the JSON's
    totals: bytes (or I/Os) the logs miss beyond the expected final partial windows were written in guessed
    stalls that were late calls (and the other way round).  Shortest gaps first (a starved helper thread is
    late by a tick or two far more often than a device stalls that long); a guess is turned only when that
    explains >= GUESS_SHARE of its bytes.  ``shared`` (per_job_logs=0): every job writes the one stream;
    ``epoch``: no runtime to place the final windows at, so half a tick of each job at the stream's median."""
    if shared:
        groups = [(list(sets_by_job), list(range(len(totals))))]
    else:
        by_entry: dict[int, list[int]] = defaultdict(list)
        for job, e in job_entry.items():
            by_entry[e].append(job)
        groups = [(jobs, [e]) for e, jobs in by_entry.items()]
    for jobs, entries in groups:
        for d in sorted({d for e in entries for d in totals[e]}):
            rate = [s for j in jobs for s in sets_by_job.get(j, [])
                    if s["dir"] == d and s["family"] == "rate" and len(s["t"])]
            for col, k in (("bytes_per_s", 0), ("iops", 1)):  # a bw+iops row set is decided by its bytes
                sets = [s for s in rate if col in s and (col == "bytes_per_s" or "bytes_per_s" not in s)]
                if any("other_start" in s for s in sets):
                    _turn_guesses(sets, col, sum(totals[e][d][k] for e in entries if d in totals[e]), epoch,
                                  len(entries), max(totals[e][d][2] for e in entries if d in totals[e]))
    for sets in sets_by_job.values():
        for s in sets:
            s.pop("other_start", None)


def _turn_guesses(sets: list[dict], col: str, total: float, epoch: bool, n_jobs: int, runtime: float) -> None:
    """:func:`_reconcile` for one column of one direction's row sets (``total``: the JSON's, over ``n_jobs``
    jobs that ran ``runtime`` ms)."""
    if np.isnan(total):
        return
    missing = total - sum(float(np.sum(s[col] * (s["end"] - s["start"]))) / 1000.0 for s in sets)
    if epoch:
        v = np.concatenate([s[col] for s in sets])
        missing -= 0.5 * float(np.median(v)) * sets[0]["interval"] / 1000.0 * n_jobs
    else:
        missing -= sum(float(s[col][-1]) * max(runtime - float(s["t"][-1]), 0.0) / 1000.0 for s in sets)
    cand = [(float(s["t"][i] - min(s["start"][i], s["other_start"][i])), n, int(i))
            for n, s in enumerate(sets) if "other_start" in s
            for i in np.flatnonzero(~np.isnan(s["other_start"]))]
    for _, n, i in sorted(cand):
        s = sets[n]
        delta = float(s[col][i]) * (s["start"][i] - s["other_start"][i]) / 1000.0
        if delta != 0 and missing / delta >= GUESS_SHARE and abs(missing - delta) < abs(missing):
            s["start"][i] = s["other_start"][i]
            missing -= delta


def _final_windows(sets_by_job: dict[int, list[dict]], job_entry: dict[int, int], totals: list[dict],
                   rate_logs: dict[int, list[str]] | None = None, interval_ms: float = 0.0) -> None:
    """Append each job's final partial bw/iops window (fio does not log it): the JSON's totals minus what the
    logs hold, from the last entry to the JSON's runtime (clones of one entry share it; module text).  An entry
    none of whose jobs logged a bw/iops entry at all (a point shorter than fio's first tick) gets one window
    [0, runtime] per job and direction, the JSON's totals shared equally by its jobs, in the logs each job has
    (``rate_logs``: job -> its 'iops'/'bw' logs; ``interval_ms``: their log_avg_msec)."""
    for entry, tot in enumerate(totals):
        jobs = [j for j, e in job_entry.items() if e == entry]
        if not any(s["family"] == "rate" and len(s["t"]) for j in jobs for s in sets_by_job.get(j, [])):
            for j in jobs:
                kinds = (rate_logs or {}).get(j) or []
                for d, (io_bytes, ios, runtime) in tot.items() if kinds else ():
                    if runtime <= 0:
                        continue
                    s = {"dir": d, "family": "rate", "log": kinds, "t": np.array([runtime], dtype=np.int64),
                         "start": np.zeros(1), "end": np.array([runtime], dtype=np.float64),
                         "interval": float(interval_ms), "from_json": np.ones(1, dtype=bool)}
                    for kind, total in (("iops", ios), ("bw", io_bytes)):
                        if kind in kinds:
                            s[VALUE_COLUMNS[kind]] = np.array([total / len(jobs) / (runtime / 1000.0)])
                    sets_by_job.setdefault(j, []).append(s)
            continue
        for d, (io_bytes, ios, runtime) in tot.items():
            rate_sets = [(j, s) for j in jobs for s in sets_by_job.get(j, [])
                         if s["dir"] == d and s["family"] == "rate" and len(s["t"])]
            if not rate_sets:
                continue
            for col, total in (("bytes_per_s", io_bytes), ("iops", ios)):
                have = [(j, s) for j, s in rate_sets if col in s]
                if not have or np.isnan(total):
                    continue
                logged = sum(float(np.sum(s[col] * (s["end"] - s["start"]))) / 1000.0 for _, s in have)
                rest = total - logged
                gaps = np.array([runtime - float(s["t"][-1]) for _, s in have])
                if rest <= 0 or not np.any(gaps > 0):
                    continue
                est = np.array([float(s[col][-1]) for _, s in have]) * np.maximum(gaps, 0.0)
                share = est / est.sum() if est.sum() > 0 else (gaps > 0) / np.sum(gaps > 0)
                for (_, s), gap, part in zip(have, gaps, share):
                    if gap <= 0 or part <= 0:
                        continue
                    s.setdefault("tail", {})[col] = (rest * part) / (gap / 1000.0)
                    s["tail_end"] = runtime
    for sets in sets_by_job.values():
        for s in sets:
            tail = s.pop("tail", None)
            if not tail:
                continue
            end = s.pop("tail_end")
            n = len(s["t"])
            s["t"] = np.r_[s["t"], np.int64(end)]
            s["start"] = np.r_[s["start"], float(s["t"][n - 1])]
            s["end"] = np.r_[s["end"], float(end)]
            for col in ("iops", "bytes_per_s"):
                if col in s:
                    s[col] = np.r_[s[col], tail.get(col, np.nan)]
            s["from_json"] = np.r_[np.zeros(n, dtype=bool), True]


