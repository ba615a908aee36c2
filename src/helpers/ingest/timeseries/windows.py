"""Window widths: the time each fio log entry covers (fio's calls, stalls, late ticks; :func:`tick_starts`), and the row sets of averaged, per-I/O and histogram logs."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from helpers.fio import logs as fio_logs
from helpers.fio.histogram import percentile_rows

PER_IO_WINDOW_MS = 1000  # logs written per I/O (no log_avg_msec) are aggregated into 1 s windows
HIST_PERCENTILES = {50.0: "clat_p50_us", 99.0: "clat_p99_us", 99.9: "clat_p99_9_us"}
HIST_TAIL = {99.999: "clat_p99_999_us", 100.0: "clat_max_us"}  # PTS WSAT's per-window tail (no few-I/O flag)
VALUE_COLUMNS = {"iops": "iops", "bw": "bytes_per_s", "lat": "lat_mean_us", "clat": "clat_mean_us",
                 "slat": "slat_mean_us"}
CALL_MS = 2.0  # one fio call's entries: time stamps taken apart by up to LOG_MSEC_SLACK (1-2 ms)
PAIR_MS = 0  # entries of logs written together share a row only when fio gave them the same time stamps
FAMILIES = {"iops": "rate", "bw": "rate", "lat": "lat", "clat": "lat", "slat": "lat"}
_NUMERIC = ["iops", "bytes_per_s", "lat_mean_us", "clat_mean_us", "slat_mean_us", "hist_ios",
            *HIST_PERCENTILES.values(), *HIST_TAIL.values()]


def _quiet_ms(done: np.ndarray, interval_ms: float, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How long, within each (lo, hi), no I/O completed by the lat log's own evidence: fio writes an averaged
    lat entry at the first completion at least a window after the previous entry's window (``avg_last``, the
    previous entry's time rounded down to the interval), so between entries w and w' nothing completed in
    (floor(w / interval) interval + interval, w')."""
    w = np.unique(done)
    b = np.floor(w[:-1] / interval_ms) * interval_ms + interval_ms + CALL_MS
    e = w[1:] - CALL_MS
    keep = e > b
    b, e = b[keep], e[keep]  # disjoint and in order (each b is past the entry that ends the interval before)
    if not len(b):
        return np.zeros(len(lo))
    upto = np.r_[0.0, np.cumsum(e - b)]

    def quiet_before(x: np.ndarray) -> np.ndarray:  # quiet time in (-inf, x)
        k = np.searchsorted(b, x, side="right")  # intervals starting before x
        return upto[k] - np.clip(e[np.maximum(k - 1, 0)] - x, 0.0, None) * (k > 0)

    return quiet_before(np.asarray(hi, dtype=np.float64)) - quiet_before(np.asarray(lo, dtype=np.float64))


def tick_starts(t: np.ndarray, interval_ms: float, values: np.ndarray | None = None,
                completions: np.ndarray | None = None, calls: np.ndarray | None = None,
                guesses: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Window starts (ms) of one bw/iops log's entries ``t`` (ms, ascending; ``values``: their rates).

    fio (>= 3.18, ``stat.c`` ``__add_samples``) computes an entry's rate over the time since its previous
    *call* (``*parent_tv = *t``), and a call logs nothing for a direction in which no I/O completed.  Known
    calls: this log's entries and ``calls``, the same job's entries in its other directions (one call logs
    every direction that moved).  An entry whose last known call q is less than 1.5 ticks back (c: the
    median spacing) starts at q.  After a longer gap it depends on calls fio made without logging, decided
    by the same job and direction's lat/clat/slat entries (``completions``, each written at a completion):

    - I/O completed in (q, t - c) (an entry there): any call after it would have logged, so there was none:
      the start is q (fio's helper thread was stopped or starved: seen with SIGSTOP), or the last tick on the
      rhythm before that completion when the lat log shows nothing completed from q till that tick;
    - otherwise a stall (fio called every tick, nothing completed, the entry covers its last tick, t - c) or a
      helper thread that did not call (q).  The lat log also tells where nothing completed
      (:func:`_quiet_ms`): the entry's bytes must have completed in the rest of the window, and the
      hypothesis that needs more than 1.5 x the log's 90th-percentile rate for that is dropped (a 0.6 s
      thinktime: the whole gap would need 68 MB/s from a job limited to 32 MiB/s);
    - with no lat evidence either way: a gap of k ticks within k x max(3 ms, 2 %) is a stall, any other
      length a helper thread that did not call.  These are guesses (a starved helper thread also calls
      exactly a tick or two late); ``guesses=True`` returns ``(start, other)`` with the other hypothesis's
      start for each of them (NaN elsewhere), for :func:`_reconcile` to decide by the JSON's totals."""
    t = np.asarray(t, dtype=np.float64)
    prev = np.r_[0.0, t[:-1]]
    gap = t - prev
    steady = np.sort(gap[(gap > 0.5 * interval_ms) & (gap < 1.5 * interval_ms)])
    m = len(steady)
    c = float(steady[m // 2] + steady[(m - 1) // 2]) / 2.0 if m else float(interval_ms)  # the median
    start = prev.copy()
    other = np.full(len(t), np.nan)
    wide = np.flatnonzero(gap > 1.5 * c)  # a shorter gap cannot hold a call (each is >= a tick after the last)
    if not len(wide):
        return (start, other) if guesses else start
    tw, qw = t[wide], prev[wide]
    if calls is not None and len(calls):  # the latest call another direction logged, inside the gap
        known = np.sort(np.asarray(calls, dtype=np.float64))
        i = np.searchsorted(known, tw - CALL_MS, side="left") - 1
        y = np.where(i >= 0, known[np.maximum(i, 0)], -np.inf)
        qw = np.where(y > qw + CALL_MS, y, qw)
    k = np.rint((tw - qw) / c)
    stall = np.abs(tw - qw - k * c) <= k * max(3.0, 0.02 * c)  # on the rhythm: the default without evidence
    guessed = np.ones(len(wide), dtype=bool)
    ticks = np.zeros(len(wide))
    if completions is not None and len(completions):
        done = np.sort(np.asarray(completions, dtype=np.float64))
        j = np.searchsorted(done, qw + CALL_MS, side="right")
        first = np.where(j < len(done), done[np.minimum(j, len(done) - 1)], np.inf)
        before = first < tw - c - CALL_MS  # I/O completed before the last tick: no call after it
        ticks = np.where(before, np.floor((first - qw + CALL_MS) / c), 0.0)
        if (ticks >= 1).any():  # fio ticked on before that completion only if nothing completed till then
            quiet = _quiet_ms(done, interval_ms, qw, qw + ticks * c)
            ticks = np.where(quiet >= ticks * c - 4 * CALL_MS, ticks, 0.0)
        stall &= ~before
        guessed &= ~before
        if values is not None and len(values) and (~before).any():
            v = np.asarray(values, dtype=np.float64)
            ceiling = 1.5 * float(np.percentile(v, 90))
            vw = v[wide]
            busy_whole = np.maximum((tw - qw) - _quiet_ms(done, interval_ms, qw, tw), 1.0)
            busy_tick = np.maximum(c - _quiet_ms(done, interval_ms, tw - c, tw), 1.0)
            whole_ok = vw * (tw - qw) / busy_whole <= ceiling
            tick_ok = vw * c / busy_tick <= ceiling
            stall = np.where(~before & (whole_ok != tick_ok), tick_ok, stall)
            guessed &= whole_ok == tick_ok
    still = tw - qw > 1.5 * c
    start[wide] = np.where(still & stall, tw - c, np.where(still & (ticks >= 1), qw + ticks * c, qw))
    if not guesses:
        return start
    other[wide] = np.where(still & guessed, np.where(stall, qw, tw - c), np.nan)
    return start, other


def _directions(d: np.ndarray) -> list[int]:
    if len(d) and d[0] == d[-1] and (d == d[0]).all():  # the common case: one direction
        return [int(d[0])] if 0 <= d[0] <= 2 else []
    return sorted(int(x) for x in np.unique(d) if 0 <= x <= 2)


_KINDS = ("iops", "bw", "lat", "clat", "slat")
_FAMILY = np.array([0, 0, 1, 1, 1])  # rate (helper-thread ticks), lat (completions)


def _averaged_batch(items: list[tuple[dict, int, float]]) -> list[list[dict]]:
    """Row sets ({'dir', 'family', 'log', 't', 'start', 'interval', column: values}) of many jobs' averaged value
    logs at once (each item: one job's value logs, log_avg_msec, latency factor), in whole-batch array
    operations.  Per job and direction, the first log of a family (iops of
    bw+iops, lat of lat+clat+slat) anchors it and another log of the family shares its rows when it has the
    same time stamps, entry for entry."""
    out: list[list[dict]] = [[] for _ in items]
    ts_, vs_, ds_, meta = [], [], [], []
    for ii, (logs, _, _) in enumerate(items):
        for ki, kind in enumerate(_KINDS):
            log = logs.get(kind)
            if log is not None and len(log["time_ms"]):
                ts_.append(log["time_ms"])
                vs_.append(log["value"])
                ds_.append(log["direction"])
                meta.append((ii, ki))
    if not meta:
        return out
    lens = np.fromiter((len(t) for t in ts_), dtype=np.int64, count=len(ts_))
    T = np.concatenate(ts_).astype(np.int64)
    V = np.concatenate(vs_).astype(np.float64)
    D = np.concatenate(ds_).astype(np.int64)
    F = np.repeat(np.arange(len(meta)), lens)
    keep = (D >= 0) & (D <= 2)
    if not keep.all():
        T, V, D, F = T[keep], V[keep], D[keep], F[keep]
    S = F * 3 + D  # one series per file and direction
    key = S * (1 << 40) + (T - T.min())
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():
        order = np.argsort(key, kind="stable")
        T, V, D, F, S = T[order], V[order], D[order], F[order], S[order]
    meta_a = np.array(meta, dtype=np.int64)
    item_of, kind_of = meta_a[F, 0], meta_a[F, 1]
    lat_f = np.array([it[2] for it in items], dtype=np.float64)
    V = V * np.where(kind_of == 1, 1024.0, np.where(kind_of >= 2, lat_f[item_of], 1.0))  # bw KiB/s; lat ns/µs
    starts = np.flatnonzero(np.r_[True, S[1:] != S[:-1]])
    ends = np.r_[starts[1:], len(S)]
    s_item, s_kind, s_dir = item_of[starts], kind_of[starts], D[starts]
    n_series = len(starts)
    # anchors and the series that join them (same length, then the same time stamps, checked below)
    group = (s_item * 3 + s_dir) * 2 + _FAMILY[s_kind]
    _, first, inverse = np.unique(group, return_index=True, return_inverse=True)
    anchor = first[inverse]  # the first series of its job, direction and family
    leader = np.arange(n_series)
    cj = np.flatnonzero((anchor != leader) & (ends - starts == (ends - starts)[anchor]))
    if len(cj):
        ca = anchor[cj]
        ln = ends[cj] - starts[cj]
        pair = np.repeat(np.arange(len(cj)), ln)
        pos = np.arange(int(ln.sum())) - np.repeat(np.cumsum(ln) - ln, ln)
        differ = np.abs(T[starts[cj][pair] + pos] - T[starts[ca][pair] + pos]) > PAIR_MS
        same = np.bincount(pair, weights=differ, minlength=len(cj)) == 0
        leader[cj[same]] = ca[same]
    # window starts: the previous entry of the series (0 for the first); bw/iops gaps of whole ticks: tick_starts
    prev = np.r_[0, T[:-1]].astype(np.float64)
    prev[starts] = 0.0
    avg = np.array([it[1] for it in items], dtype=np.float64)
    row_series = np.repeat(np.arange(n_series), ends - starts)
    is_rate_lead = (leader == np.arange(n_series)) & (_FAMILY[s_kind] == 0)
    wide = (T - prev > 1.4 * avg[item_of]) & is_rate_lead[row_series]
    start = prev
    other = np.full(len(T), np.nan)
    late = np.unique(row_series[wide])
    by_job: dict[tuple[int, int], list[int]] = defaultdict(list)  # (job, family) -> its series
    if len(late):
        for j in range(n_series):
            by_job[(int(s_item[j]), int(_FAMILY[s_kind[j]]))].append(j)
    for i in late.tolist():
        done = [T[starts[j]:ends[j]] for j in by_job[(int(s_item[i]), 1)] if s_dir[j] == s_dir[i]]
        calls = [T[starts[j]:ends[j]] for j in by_job[(int(s_item[i]), 0)] if s_dir[j] != s_dir[i]]
        start[starts[i]:ends[i]], other[starts[i]:ends[i]] = tick_starts(
            T[starts[i]:ends[i]], avg[s_item[i]], V[starts[i]:ends[i]], np.concatenate(done) if done else None,
            np.concatenate(calls) if calls else None, guesses=True)
    sets: dict[int, dict] = {}
    for i, lo, hi, it, kd, dr, ld in zip(range(n_series), starts.tolist(), ends.tolist(), s_item.tolist(),
                                         s_kind.tolist(), s_dir.tolist(), leader.tolist()):
        kind = _KINDS[kd]
        if ld == i:
            sets[i] = st = {"dir": dr, "family": "rate" if kd < 2 else "lat", "log": [kind], "t": T[lo:hi],
                            "start": start[lo:hi], "interval": float(avg[it])}
            if kd < 2 and not np.isnan(other[lo:hi]).all():
                st["other_start"] = other[lo:hi]
            out[it].append(st)
        else:
            st = sets[ld]
            st["log"].append(kind)
        st[VALUE_COLUMNS[kind]] = V[lo:hi]
    return out


def _per_io_sets(logs: dict[str, dict], lat_factor: float, end_ms: dict[int, float]) -> list[dict]:
    """Logs written per I/O -> one row set per direction of PER_IO_WINDOW_MS windows (the last ends at the
    JSON's runtime, or at the last I/O)."""
    sets: dict[int, dict] = {}
    w = PER_IO_WINDOW_MS
    for kind in ("iops", "bw", "lat", "clat", "slat"):
        log = logs.get(kind)
        if log is None or not len(log["time_ms"]):
            continue
        for d in _directions(log["direction"]):
            sel = log["direction"] == d
            t = log["time_ms"][sel]
            key = t // w
            last = max(float(t.max()), end_ms.get(d, 0.0))
            s = sets.get(d)
            if s is None:  # windows up to the one holding the last I/O; it ends at the JSON's runtime at most
                s = sets[d] = {"dir": d, "family": "per-I/O", "log": [], "nwin": int(key.max()) + 1, "last": last}
            n = max(s["nwin"], int(key.max()) + 1)
            if kind == "iops":
                vals = np.bincount(key, minlength=n).astype(np.float64)
            elif kind == "bw":
                vals = np.bincount(key, weights=log["bs_bytes"][sel].astype(np.float64), minlength=n)
            else:
                cnt = np.bincount(key, minlength=n)
                vals = np.bincount(key, weights=log["value"][sel] * lat_factor, minlength=n) / np.where(cnt, cnt, 1)
                vals[cnt == 0] = np.nan
            s["log"].append(kind)
            s[VALUE_COLUMNS[kind]] = (kind, vals)
    out = []
    for d, s in sets.items():
        n = max(len(v[1]) for k, v in s.items() if k in VALUE_COLUMNS.values())
        end = np.minimum((np.arange(n) + 1.0) * w, max(s["last"], (n - 1) * w + 1.0))  # >= 1 ms wide
        start = np.arange(n) * float(w)
        width_s = (end - start) / 1000.0
        row = {"dir": d, "family": "per-I/O", "log": s["log"], "t": end.astype(np.int64), "start": start,
               "end": end, "interval": float(w)}
        for col in VALUE_COLUMNS.values():
            if col in s:
                kind, vals = s[col]
                vals = np.r_[vals, np.zeros(n - len(vals)) if kind in ("iops", "bw") else np.full(n - len(vals), np.nan)]
                row[col] = vals / width_s if kind in ("iops", "bw") else vals
        out.append(row)
    return out


def _hist_sets(h: fio_logs.HistLog, hist_ms: int) -> list[dict]:
    """A histogram log -> one row set per direction: I/O count and percentiles (µs) of each entry."""
    out = []
    for d in _directions(h.direction):
        sel = np.flatnonzero(h.direction == d)
        sel = sel[np.argsort(h.time_ms[sel], kind="stable")]
        t = h.time_ms[sel]
        counts = h.counts[sel]
        pct = percentile_rows(h.bin_ns, counts, [*HIST_PERCENTILES, *HIST_TAIL]) / 1000.0
        s = {"dir": d, "family": "hist", "log": ["clat_hist"], "t": t, "start": np.r_[0.0, t[:-1].astype(np.float64)],
             "interval": float(hist_ms if hist_ms > 0 else PER_IO_WINDOW_MS),
             "hist_ios": counts.sum(axis=1).astype(np.float64)}
        for j, col in enumerate([*HIST_PERCENTILES.values(), *HIST_TAIL.values()]):
            s[col] = pct[:, j]
        out.append(s)
    return out


