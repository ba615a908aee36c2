"""The device card's findings, each carrying its number, and the 4k random-read QD series its knee is found on."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.blocksize import bandwidth_plateau, blocksize_series
from helpers.analysis.card_levels import FLAG_LABELS, KB4, DeviceCard, Metric
from helpers.analysis.flags import few_ios_rows, flagged_rows, implausible_sentence
from helpers.analysis.points import (
    percentile_latency,
    with_units,
)
from helpers.fio.units import format_bytes
from helpers.run import demand


def _rand4k_read_rows(d: pd.DataFrame) -> pd.DataFrame:
    """4k random-read rows of one job: the card's queue-depth (knee) series."""
    return d[(d["rw"] == "randread") & (d["bs_bytes"] == KB4) & (d["numjobs"] == 1) & (d["direction"] == "read")]


def _groups(rows: pd.DataFrame) -> pd.Series:
    """Each row's sweep group ('' when unknown: foreign files)."""
    if "group" not in rows:
        return pd.Series("", index=rows.index, dtype="object")
    return rows["group"].astype("object").where(rows["group"].notna(), "")


def _knee_rows(d: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the card's knee series' rows, the other 4k random-read rows of one job, left out of it) of a
    :func:`with_units` frame: the series is the sweep group that measured the most queue depths (a searched
    series' probes, a grid's QD sweep; then the one with the most rows, then by name), never mixed with other
    groups' points at the same depths (a characterize run's 5 s QD1 latency point beside its QD1 probe, tail
    points)."""
    s = _rand4k_read_rows(d).dropna(subset=["iodepth"])
    if s.empty:
        return s, s
    g = _groups(s)
    depths, counts = s.groupby(g)["iodepth"].nunique(), g.value_counts()
    best = max(depths.index, key=lambda k: (depths[k], counts[k], str(k)))
    return s[g == best], s[g != best]


def rand4k_qd_series(df: pd.DataFrame) -> pd.DataFrame:
    """4k random-read points of one job, one measurement per queue depth (the card's knee series): the points of
    one sweep group (:func:`_knee_rows`), a depth it measured more than once by the median of its readings (of
    two, their mean, as the adaptive search judges a re-probed depth); ``p99_us`` is the p99 of total latency
    when fio wrote it, else of completion latency (``percentile_latency`` says)."""
    s = _knee_rows(with_units(df))[0]
    out = s.groupby("iodepth", as_index=False).agg(iops=("iops", "median"), lat_mean_us=("lat_mean_us", "median"),
                                                   p99_us=("p99_us", "median"))
    return out.assign(percentile_latency=percentile_latency(s))


def knee_source(d: pd.DataFrame) -> str:
    """Which points the knee series is (a :func:`with_units` frame): the group, how many of its points ended
    once their IOPS settled, repeated depths, and the 4k random-read points of other groups left out of it."""
    rows, other = _knee_rows(d)
    if rows.empty:
        return ""
    group = _groups(rows).iloc[0]
    parts = [f"on the {group!r} points" if group else "on its points"]
    if "settled_after_s" in rows and rows["settled_after_s"].notna().any():
        parts[0] += f" ({int(rows['settled_after_s'].notna().sum())} of {len(rows)} ended once their IOPS settled)"
    rep = sorted(q for q, n in rows["iodepth"].value_counts().items() if n > 1)
    if rep:
        parts.append(f"QD {', '.join(f'{q:g}' for q in rep)} by the median of its readings")
    if len(other):
        left = [f"{g!r} at QD {', '.join(f'{q:g}' for q in sorted(o['iodepth'].unique()))}" if g else
                f"QD {', '.join(f'{q:g}' for q in sorted(o['iodepth'].unique()))}"
                for g, o in other.groupby(_groups(other), sort=True)]
        parts.append(f"not mixed in: {'; '.join(left)}")
    return "; ".join(parts)


def _flag_note(m: Metric) -> str:
    return " (a flagged point)" if m.flag_reasons else ""


def _left_out(m: Metric) -> str:
    """A better number measured at a flagged point is named, never silently dropped nor used."""
    return f"; not counted: a {m.left_out}" if m.left_out else ""


def _series_flags(d: pd.DataFrame) -> str:
    """Say when the knee's own series contains flagged points (the curve may show fio's limit, not the device's)."""
    s = _knee_rows(d)[0]
    bad = s[s["flagged"]]
    if bad.empty:
        return ""
    qds = ", ".join(f"{q:g}" for q in sorted(bad["iodepth"].unique()))
    kinds = [label for col, label in FLAG_LABELS.items() if col in bad.columns and bad[col].fillna(False).any()]
    return f" (the series includes flagged points at QD {qds}: {', '.join(kinds) or 'see their flag_reasons'})"


def _demand(d: pd.DataFrame, m: Metric, what: str) -> str:
    """' at 2 jobs × QD 16, io_uring': how the peak was reached (its level's jobs, depth and engine), when the run
    measured more than one job count or engine for it (a demand search, helpers.run.demand; '' otherwise: the
    detail's QD names the setting)."""
    r = m.level
    if r is None or pd.isna(r.get("ioengine")) or pd.isna(r.get("iodepth")):
        return ""
    rw = "randread" if what == "reads" else "randwrite"
    rows = d[(d["rw"] == rw) & (d["bs_bytes"] == KB4)]
    if rows["numjobs"].nunique() < 2 and rows["ioengine"].nunique() < 2:
        return ""
    jobs = 1 if pd.isna(r["numjobs"]) else int(r["numjobs"])
    return f" at {demand.Config(jobs, int(r['iodepth']), str(r['ioengine'])).phrase()}"


def _cpu_bound_at(d: pd.DataFrame, m: Metric, what: str) -> bool:
    """Every measurement behind the headline's level was CPU-bound (the validity flag's rule): a lower bound."""
    return m.level is not None and bool(m.level.get("cpu_bound"))


def findings(d: pd.DataFrame, card: DeviceCard, knee=None) -> list[str]:
    """Short sentences, each carrying its number, written only for what the run measured."""
    out: list[str] = []
    r1, w1 = card.metric("QD1 4k random read latency"), card.metric("QD1 4k random write latency")
    if r1.available:
        out.append(f"At queue depth 1 a 4k random read takes {r1.value:,.0f} µs on average{_flag_note(r1)}"
                   f"{_left_out(r1)}.")
    if w1.available:
        extra = f", {w1.value / r1.value:.1f}× the read latency" if r1.available and r1.value else ""
        out.append(f"At queue depth 1 a 4k random write takes {w1.value:,.0f} µs on average{extra}{_flag_note(w1)}"
                   f"{_left_out(w1)}.")
    for key, what in (("Peak 4k random read IOPS", "reads"), ("Peak 4k random write IOPS", "writes")):
        m = card.metric(key)
        if not m.available:
            continue
        if m.label.startswith("Peak"):
            out.append(f"4k random {what} peak at {m.value:,.0f} IOPS{_demand(d, m, what)} ({m.detail}){_flag_note(m)}"
                       f"{_left_out(m)}.")
            if _cpu_bound_at(d, m, what):  # every setting that reached it used a whole CPU per job: the host's limit
                out.append(demand.lower_bound_sentence(m.value))
        else:  # one setting measured (or the only one without a validity flag): its number, not a peak
            only = "the only setting measured without a validity flag" if m.only_unflagged_setting else \
                "the only setting measured"
            out.append(f"{m.label.replace(' IOPS', '')}: {m.value:,.0f} IOPS ({only}, so not a "
                       f"peak){_flag_note(m)}{_left_out(m)}.")
    if knee is not None:
        if knee.knee_qd is not None:
            rr = d[(d["rw"] == "randread") & (d["bs_bytes"] == KB4)]  # a demand search: the knee is one job's
            of = "one job's peak; more jobs read more" if rr["numjobs"].nunique() > 1 else "the peak"
            frac = f", {knee.fraction_of_peak:.0%} of {of}" if knee.fraction_of_peak is not None else ""
            out.append(f"4k random-read throughput stops growing beyond QD {knee.knee_qd:g} "
                       f"({knee.knee_iops:,.0f} IOPS{frac}): deeper queues mostly add latency{_series_flags(d)}.")
        else:
            out.append(f"No queue-depth knee was found for 4k random reads: {knee.reason}{_series_flags(d)}.")
    for name in ("Peak sequential read bandwidth", "Peak sequential write bandwidth"):
        m = card.metric(name)
        if m.available:
            mib = f"{m.value:,.0f} MB/s ({m.value * 1e6 / 2**20:,.0f} MiB/s)"
            if m.label.startswith("Peak"):
                out.append(f"{name.replace('Peak s', 'S')} peaks at {mib} with {m.detail}{_flag_note(m)}"
                           f"{_left_out(m)}.")
            else:
                one = "one queue depth measured without a validity flag" if m.only_unflagged_setting else \
                    "one queue depth measured"
                out.append(f"{m.label}: {mib}, best with {m.detail} ({one}, so not a peak)"
                           f"{_flag_note(m)}{_left_out(m)}.")
    seq = d[d["rw"].isin(["read", "write"])]
    # the plateau is read off unflagged points only, like the headline numbers; left-out points are named
    plateau = bandwidth_plateau(blocksize_series(seq[~seq["flagged"]]))
    plateau = plateau.sort_values("peak_mb_per_s", ascending=False).drop_duplicates("rw")
    for p in plateau.itertuples():
        if pd.notna(p.plateau_bs_bytes):
            gone = seq[seq["flagged"] & (seq["rw"] == p.rw) & (seq["iodepth"] == p.iodepth)]
            note = (f"; flagged points left out: {', '.join(format_bytes(b) for b in sorted(gone['bs_bytes'].unique()))}"
                    if not gone.empty else "")
            fall = (f"; past its best block size ({format_bytes(p.peak_bs_bytes)}) it falls: "
                    f"{format_bytes(p.fall_bs_bytes)} blocks are {p.fall_pct:.0f} % below the peak"
                    if pd.notna(p.fall_bs_bytes) else "")
            out.append(f"Sequential {p.rw} bandwidth at QD {p.iodepth} reaches 90% of its peak at "
                       f"{format_bytes(p.plateau_bs_bytes)} blocks ({p.plateau_mb_per_s:,.0f} of "
                       f"{p.peak_mb_per_s:,.0f} MB/s{note}){fall}.")
    if implausible_sentence(d):  # writes a cache absorbed: said with what to do (issue 22.3)
        out.append(implausible_sentence(d))
    n_flag, n = int(flagged_rows(d).sum()), len(d)  # the count of the run summary and the flag table
    few = int(few_ios_rows(d).sum())
    if n_flag:
        out.append(f"{n_flag} of {n} measurements carry a validity flag: they may not measure the device alone (see "
                   "the flag table).")
    if few:  # a percentile's mark, not the point's: counted apart, never in the flag count
        out.append(f"{few} of {n} measurements have too few I/Os behind their deepest percentiles (p99.9 or p99.99): "
                   "those percentiles are marked ⚠ where shown; their throughput and mean latency are sound.")
    return out
