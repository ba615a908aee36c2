"""Device card: the headline numbers people share, and findings written from the data."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from helpers.analysis.adaptive import search_plateaus
from helpers.analysis.blocksize import bandwidth_plateau, blocksize_series
from helpers.analysis.burst import burst_card_metrics
from helpers.analysis.burst_flags import burst_drain_rows, burst_flags
from helpers.analysis.cliff import preconditioning_note, sustained_write_cliffs, write_cliff_sentence
from helpers.analysis.flags import few_ios_rows, flagged_rows, implausible_sentence
from helpers.analysis.health import health_summary
from helpers.analysis.knee import find_knee
from helpers.analysis.points import (
    latency_columns,
    operations,
    percentile_latency,
    percentile_suffix,
    with_units,
)
from helpers.analysis.pts import card_results, pts_run
from helpers.analysis.slo import slo_card_sentence
from helpers.analysis.timeseries import point_series
from helpers.fio.units import format_bytes
from helpers.processed.validity import TAIL_SAMPLES, settled_text, too_few_ios
from helpers.run import demand
from helpers.run.adaptive import PROBE_KINDS
from helpers.run.refdev import describe as describe_reference

KB4 = 4096
FLAG_LABELS = {"flag_page_cache": "page cache suspected", "flag_cpu_bound": "fio CPU-bound",
               "flag_short_run": "run too short", "flag_repeat_spread": "repeats spread widely",
               "flag_implausible": "writes faster than the device sustains",
               "flag_throttled": "thermal throttling"}


@dataclass
class Metric:
    """One headline number with the point it came from."""

    name: str
    value: float | None
    unit: str
    detail: str = ""
    flag_reasons: str = ""
    # a better value measured at a flagged point, named but not used as the headline
    better_flagged: str = ""  # e.g. "higher 90,000 IOPS at randread 4k QD16"
    better_flagged_reasons: str = ""
    # what the page calls it: "Peak ..." only for a series that varied QD/numjobs, else the one setting
    # measured ("4k random write IOPS at QD1"); ``name`` stays the stable key
    title: str = ""
    # a percentile with too few I/Os behind it (processed.validity's rule): what is unreliable and why
    few_ios: str = ""
    # the one setting named by ``title`` is the only unflagged one among several measured (e.g. a characterize
    # run's 5 s QD1 point beside its short, flagged probes): still not a peak
    only_unflagged_setting: bool = False
    # the range the level is a level of (its plateau probes', or its repeated runs'), in the metric's unit; the
    # value itself when it is one measurement
    spread: tuple[float, float] | None = None
    n_measured: int = 0
    # the levels the value was chosen from (:func:`levels`): the title counts their settings
    levels: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    level: pd.Series | None = field(default=None, repr=False, compare=False)  # the chosen one of them

    @property
    def label(self) -> str:
        return self.title or self.name

    @property
    def left_out(self) -> str:
        return f"{self.better_flagged}, flagged: {self.better_flagged_reasons}" if self.better_flagged else ""

    @property
    def available(self) -> bool:
        return self.value is not None and pd.notna(self.value)


@dataclass
class DeviceCard:
    metrics: list[Metric]
    knee_qd: float | None
    knee_reason: str
    findings: list[str] = field(default_factory=list)
    identity: dict[str, str] = field(default_factory=dict)  # what was measured (from the run's manifest)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([{"metric": m.label, "value": m.value, "unit": m.unit, "measured at": m.detail,
                              "flags": "; ".join(f for f in (m.flag_reasons, m.few_ios) if f),
                              "flagged value left out": m.left_out}
                             for m in self.metrics]).set_index("metric")

    def identity_table(self) -> pd.DataFrame:
        """The device, target, host, kernel, fio version, profile and date as a two-column table."""
        return pd.DataFrame({"what": list(self.identity), "value": list(self.identity.values())})

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)


def _where(r: pd.Series) -> str:
    """The point's setting, and how it was measured when it was a settle-early probe (its runtime alone would
    read as too short)."""
    settled = r.get("settled_after_s")
    return f"{r['rw']} {format_bytes(r['bs_bytes'])} QD{int(r['iodepth'])}" + (
        "" if r["numjobs"] == 1 else f" x{int(r['numjobs'])} jobs") + (
        f", {settled_text(settled)}" if settled is not None and pd.notna(settled) else "")


def _extreme(rows: pd.DataFrame, col: str, how: str) -> pd.Series:
    return rows.loc[rows[col].idxmax() if how == "max" else rows[col].idxmin()]


def _metric(name: str, rows: pd.DataFrame, col: str, unit: str, how: str = "max", scale: float = 1.0,
            manifest: dict | None = None) -> Metric:
    """The best concluded level (:func:`levels`) among unflagged ones (flagged ones only when nothing else was
    measured, and then marked); a better level at a flagged point is named in ``better_flagged``.  The level is
    what the run concluded, never its luckiest short probe: a searched series' plateau (the median of its plateau
    probes, with their range), a setting measured more than once by the mean of its runs (with their range), else
    the one measurement."""
    rows = rows[rows[col].notna()]
    if not rows.empty and burst_drain_rows(rows).all():  # a burst run's drains are no level (issue 33)
        return Metric(name, None, unit, "measured only by burst drains: see the burst rate and the baseline after it")
    if rows.empty:
        return Metric(name, None, unit, "not measured in this run")
    lv = levels(rows, col, manifest)
    clean = lv[~lv["flagged"]]
    r = _extreme(clean if not clean.empty else lv, "value", how)
    best = _extreme(lv, "value", how)
    digits = 1 if unit == "µs" else 0
    m = Metric(name, float(r["value"]) * scale, unit, _spread_text(r, scale, unit), r["flag_reasons"],
               spread=(float(r["low"]) * scale, float(r["high"]) * scale), n_measured=int(r["n"]), levels=lv,
               level=r)
    if bool(best["flagged"]) and not bool(r["flagged"]) and best["value"] != r["value"]:
        m.better_flagged = (f"{'higher' if how == 'max' else 'lower'} "
                            f"{float(best['value']) * scale:,.{digits}f} {unit} at {best['where']}")
        m.better_flagged_reasons = best["flag_reasons"]
    return m


LEVEL_COLUMNS = ["value", "low", "high", "n", "flagged", "flag_reasons", "where", "kind", "iodepth", "numjobs",
                 "ioengine", "cpu_bound"]


def _spread_text(r: pd.Series, scale: float, unit: str) -> str:
    """Where a level was measured, and over what it is a level: '..., median of 5 plateau probes: 86,100-95,300
    IOPS'; nothing more for one measurement."""
    if int(r["n"]) < 2:
        return str(r["where"])
    digits = 1 if unit == "µs" else 0
    what = {"plateau": "plateau probes", "top": "best probes"}.get(r["kind"], "runs")
    stat = "mean" if r["kind"] == "point" else "median"
    return (f"{r['where']}; {stat} of {int(r['n'])} {what}: {float(r['low']) * scale:,.{digits}f}–"
            f"{float(r['high']) * scale:,.{digits}f} {unit}")


TOP_PROBES = 3  # a search that ended on no plateau: its level is the median of its three best probes


def _series_plateaus(manifest: dict | None) -> list[dict]:
    """Per searched QD series of the run's manifest: its point ids, the probes its level is the median of and the
    depths they measured, and the level.  A series that ended on a plateau: its plateau probes (the ladder's,
    re-probes' and refine's readings at the plateau's depths) and the search's own level (their median); one that
    ended on none (it reached the ladder's end still rising, or noise hid the plateau): its :data:`TOP_PROBES` best
    probes, and their median -- never the best probe alone."""
    m = manifest or {}
    points = m.get("points") or {}
    out = []
    for sid, info in (m.get("adaptive") or {}).items():
        steps = [s for s in info.get("steps") or [] if s.get("kind") in PROBE_KINDS and s.get("iops") is not None]
        # a demand probe (more jobs, another engine: helpers.run.demand) is a setting of its own, not the plateau's
        ids = {pid for pid, e in points.items() if (e.get("adaptive") or {}).get("series") == sid
               and (e.get("adaptive") or {}).get("kind") != "demand"}
        if not steps or not ids:
            continue
        qds = set(info.get("plateau_qds") or ())
        if info.get("plateau_iops") is not None and qds:
            probes, kind = [s for s in steps if s.get("qd") in qds], "plateau"
        else:
            probes, kind = sorted(steps, key=lambda s: -float(s["iops"]))[:TOP_PROBES], "top"
        iops = [float(s["iops"]) for s in probes]
        level = float(info["plateau_iops"]) if kind == "plateau" else float(pd.Series(iops).median())
        out.append({"series": sid, "ids": ids, "qds": sorted({int(s["qd"]) for s in probes}), "level": level,
                    "iops": iops, "kind": kind})
    return out


def _flag_summary(rows: pd.DataFrame) -> str:
    """The flags of the measurements behind one level: one measurement's own sentences; of several, each kind of
    flag once with how many of them carry it ("fio CPU-bound (3 of 5)"; the flag table has every sentence)."""
    reasons = [str(x) for x in rows["flag_reasons"].fillna("") if str(x)]
    if len(rows) == 1 or not reasons:
        return reasons[0] if reasons else ""
    kinds = [(label, int(rows[c].fillna(False).astype(bool).sum())) for c, label in FLAG_LABELS.items() if c in rows]
    text = "; ".join(f"{label} ({k} of {len(rows)})" for label, k in kinds if k)
    return text or "; ".join(dict.fromkeys(reasons))


def _all_cpu_bound(rows: pd.DataFrame) -> bool:
    """Every measurement behind a level was CPU-bound (the validity flag's rule): the level is fio's, a lower bound."""
    return "flag_cpu_bound" in rows and len(rows) > 0 and bool(rows["flag_cpu_bound"].fillna(False).astype(bool).all())


def levels(rows: pd.DataFrame, col: str, manifest: dict | None = None) -> pd.DataFrame:
    """The levels the run concluded from ``rows`` (with_units frames, one direction) for ``col``: one per searched
    QD series of the manifest (kind ``plateau``: its ``plateau_iops``, the median of its plateau probes; kind
    ``top``, a search that ended on no plateau: the median of its three best probes; scaled to ``col`` by the
    probes' own ratio for bandwidth; ``low``/``high`` the probes' range; flagged when one of those probes is), and
    one per other setting (operation, block size, QD, jobs, engine, mix; kind ``point``): the mean of its runs and their
    range (its flagged runs a level apart from its clean ones).  Columns :data:`LEVEL_COLUMNS`; ``where`` names the
    setting."""
    rows = rows[~burst_drain_rows(rows)]  # drains on a bucket each one empties: neither repeats nor levels
    used = pd.Series(False, index=rows.index)
    out = []
    for p in _series_plateaus(manifest):
        mine = rows["point_id"].isin(p["ids"]) if "point_id" in rows else used
        if not mine.any():
            continue
        used |= mine
        on = rows[mine & rows["iodepth"].isin(p["qds"])]
        if on.empty:
            continue
        # bandwidth: the probes' IOPS in the column's unit (bytes per I/O of this direction, from its own rows)
        per_io = 1.0 if col == "iops" else float((on[col] / on["iops"]).median())
        vals = [v * per_io for v in p["iops"]]
        r = on.iloc[0]
        depths = f"QD {min(p['qds'])}–{max(p['qds'])}" if len(p["qds"]) > 1 else f"QD {p['qds'][0]}"
        what = "plateau at" if p["kind"] == "plateau" else "search (no plateau), best probes at"
        out.append({"value": p["level"] * per_io, "low": min(vals), "high": max(vals), "n": len(vals),
                    "flagged": bool(on["flagged"].any()), "flag_reasons": _flag_summary(on),
                    "where": f"{r['rw']} {format_bytes(r['bs_bytes'])} {what} {depths}"
                             + ("" if r["numjobs"] == 1 else f" x{int(r['numjobs'])} jobs"),
                    "kind": p["kind"], "iodepth": float(min(p["qds"])), "numjobs": float(r["numjobs"]),
                    "ioengine": r.get("ioengine"), "cpu_bound": _all_cpu_bound(on)})
    rest = rows[~used]
    # flagged runs of a setting are a level of their own: a clean run is never averaged with a flagged one
    keys = [k for k in ("rw", "bs_bytes", "iodepth", "numjobs", "ioengine", "rwmixread_pct", "flagged") if k in rest]
    for _, g in rest.groupby(keys, dropna=False, sort=False):
        r = g.iloc[0]
        out.append({"value": float(g[col].mean()), "low": float(g[col].min()), "high": float(g[col].max()),
                    "n": len(g), "flagged": bool(g["flagged"].any()), "flag_reasons": _flag_summary(g),
                    "where": _where(r) if len(g) == 1 else _where(r.drop(labels="settled_after_s", errors="ignore")),
                    "kind": "point", "iodepth": r["iodepth"], "numjobs": r["numjobs"], "ioengine": r.get("ioengine"),
                    "cpu_bound": _all_cpu_bound(g)})
    return pd.DataFrame(out, columns=LEVEL_COLUMNS)


best_metric = _metric  # public name (the spec comparison picks its measured value the same way)


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


def _settings(rows: pd.DataFrame) -> list[tuple[int, int]]:
    """The (QD, jobs) settings of ``rows`` (measurement rows or :func:`levels`); a searched series' level spans the
    depths of its probes, so it counts as two settings (enough to make it a peak, never 'at QD n')."""
    r = rows.dropna(subset=["iodepth"])
    out = {(int(q), int(n)) for q, n in zip(r["iodepth"], r["numjobs"].fillna(1))}
    if "kind" in r:
        out |= {(-1 - i, 0) for i, k in enumerate(r["kind"]) if k != "point"}
    return sorted(out)


def _setting(qd: int, jobs: int) -> str:
    return f"QD{qd}" + ("" if jobs == 1 else f" x{jobs} jobs")


def _title(m: Metric, rows: pd.DataFrame, what: str) -> None:
    """'Peak <what>' when the levels the value was chosen from (the unflagged ones when there are any,
    :func:`_metric`) varied QD/numjobs or include a searched series' level; '<what> at QD1' for one setting."""
    lv = m.levels if m.levels is not None else rows.iloc[:0]
    clean = lv[~lv["flagged"].astype(bool)] if "flagged" in lv else lv
    s = _settings(clean if len(clean) else lv)
    m.only_unflagged_setting = len(s) == 1 and len(clean) > 0 and len(_settings(lv)) > 1
    if len(s) == 1:
        m.title = f"{what} at {_setting(*s[0])}"
    elif len(s) > 1:
        m.title = f"Peak {what[0].lower() + what[1:]}" if not what.startswith("4k") else f"Peak {what}"
    else:  # not measured: no setting to name, and no peak
        m.title = what


def m_col(m: Metric) -> str:
    return "iops" if m.unit == "IOPS" else "mb_per_s"


VIRTUAL_DISKS = ("vd", "xvd")  # virtio and Xen block devices: a virtual disk
VIRTUAL_MODELS = ("qemu", "virtual", "vmware", "vbox", "elastic block", "persistent disk")


def is_virtual_disk(manifest: dict) -> bool:
    """True when the target's disk is a virtual one (virtio/Xen name or a hypervisor's model string)."""
    t = manifest.get("target") or {}
    disk, model = str(t.get("disk") or ""), str(t.get("model") or "").lower()
    return disk.startswith(VIRTUAL_DISKS) or any(v in model for v in VIRTUAL_MODELS)


def target_kind(manifest: dict) -> str | None:
    t = manifest.get("target") or {}
    if t.get("kind"):
        return str(t["kind"])
    path = str(t.get("path") or "")
    return None if not path else "block device" if path.startswith("/dev/") else "file"


def device_identity(manifest: dict | None, health: pd.DataFrame | None = None) -> dict[str, str]:
    """What a run measured, from its manifest: device model, capacity, kernel device, its health during the
    run (with the run's ``health`` captures: the temperature range; :func:`helpers.analysis.health_summary`),
    target (file or device, filesystem), host, kernel, fio version, profile and date.  Unknown facts say so."""
    if not manifest:
        return {"run": "no manifest found for this run: device, target and host are unknown"}
    t = manifest.get("target") or {}
    mount = t.get("mount") or {}
    virtual = is_virtual_disk(manifest)
    model = t.get("model") or ("not reported by the kernel" + (" (a virtual disk)" if virtual else ""))
    cap = t.get("capacity_bytes")
    disk, dev = t.get("disk"), t.get("device")
    kdev = "unknown" if not disk else f"/dev/{disk}" + (f" (partition /dev/{dev})" if dev and dev != disk else "")
    if virtual and disk:
        kdev += ", a virtual disk"
    kind = target_kind(manifest) or "unknown"
    where = (f" on {mount.get('fstype')} ({mount.get('source')} mounted at {mount.get('mountpoint')})"
             if kind == "file" and mount else "")
    size = manifest.get("target_size_bytes")
    size_text = f", {format_bytes(int(size))} used" if size else ""
    started, finished = manifest.get("started"), manifest.get("finished")
    return {
        "device model": str(model),
        "capacity": f"{cap / 1e9:,.1f} GB ({cap / 2**30:,.1f} GiB)" if cap else "unknown",
        "kernel device": kdev,
        "device health": health_summary(manifest, health),
        "target": f"{kind} {t.get('path', '?')}{where}{size_text}",
        "host": str(manifest.get("host") or "unknown"),
        "kernel": str(manifest.get("kernel") or "unknown"),
        "fio version": str(manifest.get("fio_version") or "unknown"),
        "profile": str(manifest.get("profile") or "unknown"),
        "date": f"{started or '?'} to {finished or 'not finished'}",
    }


def device_card(df: pd.DataFrame, S: float = 1.0, manifest: dict | None = None,
                slo_us: float | None = None, timeseries: pd.DataFrame | None = None,
                health: pd.DataFrame | None = None, histograms: pd.DataFrame | None = None) -> DeviceCard:
    """Headline metrics of one run (prefers unflagged points) and its findings; ``manifest`` (the run's
    sweep manifest) names the device, target, host and software the numbers were measured on (and, with the
    run's ``health`` captures, the device temperature during the run); with ``slo_us`` the findings end with
    the 4k random-read SLO capacity (most IOPS with p99 <= slo_us); with the run's ``timeseries``, a
    sustained-write point adds its write-cliff sentence.  On a PTS run (its manifest has PTS tests) every number is
    the PTS test's own result over its measurement window (:func:`helpers.analysis.pts.card_results`, its
    ``histograms`` for LAT's 99.999 %), labelled as such: never a single round or WSAT's fresh-target average."""
    if timeseries is not None and len(timeseries) and len(df):  # points that ran inside a burst bucket (issue 33)
        df = burst_flags(df, point_series(timeseries), {str(r): manifest for r in df["run_id"].unique()})
    d = with_units(df)
    pts = _pts_card(d, manifest, histograms)
    if pts is not None:
        return pts
    rr = d[(d["rw"] == "randread") & (d["bs_bytes"] == KB4) & (d["direction"] == "read")]
    rw = d[(d["rw"] == "randwrite") & (d["bs_bytes"] == KB4) & (d["direction"] == "write")]
    metrics = [
        _metric("QD1 4k random read latency", _longest(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("QD1 4k random write latency", _longest(rw[(rw["iodepth"] == 1) & (rw["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("Peak 4k random read IOPS", rr, "iops", "IOPS", manifest=manifest),
        _metric("Peak 4k random write IOPS", rw, "iops", "IOPS", manifest=manifest),
        _metric("Peak sequential read bandwidth", d[(d["rw"] == "read") & (d["direction"] == "read")],
                "mb_per_s", "MB/s", manifest=manifest),
        _metric("Peak sequential write bandwidth", d[(d["rw"] == "write") & (d["direction"] == "write")],
                "mb_per_s", "MB/s", manifest=manifest),
    ]
    for m in metrics[:2]:  # the QD1 latencies are means of total latency (submission + completion)
        m.title = m.name.replace(" latency", " mean total latency")
    seq_r, seq_w = d[(d["rw"] == "read") & (d["direction"] == "read")], d[(d["rw"] == "write") & (d["direction"] == "write")]
    for m, rows, what in ((metrics[2], rr, "4k random read IOPS"), (metrics[3], rw, "4k random write IOPS"),
                          (metrics[4], seq_r, "Sequential read bandwidth"),
                          (metrics[5], seq_w, "Sequential write bandwidth")):
        _title(m, rows, what)
    metrics[1:1] = qd1_tail_metrics(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)])
    at = next(i for i, m in enumerate(metrics) if m.name == "QD1 4k random write latency") + 1
    metrics[at:at] = qd1_tail_metrics(rw[(rw["iodepth"] == 1) & (rw["numjobs"] == 1)], "write")
    series = rand4k_qd_series(df)
    knee_qd, reason = None, "no 4k random-read queue-depth sweep in this run"
    knee = None
    if series["iodepth"].nunique() >= 2:

        knee = find_knee(series["iodepth"], series["iops"], S=S)
        knee_qd, reason = knee.knee_qd, knee.reason
    metrics.append(knee_p99_metric(d, series, knee))
    metrics.append(Metric("Throughput stops growing beyond", knee_qd, "QD",
                          f"4k random read, Kneedle on IOPS vs log2 QD over QD {series['iodepth'].min():g}–"
                          f"{series['iodepth'].max():g}, {knee_source(d)}" if knee_qd is not None else reason))
    card = DeviceCard(metrics, knee_qd, reason,
                      identity=device_identity(manifest, health) if manifest is not None else {})
    card.findings = findings(d, card, knee)
    if slo_us is not None and len(df):
        card.findings.append(slo_card_sentence(df, slo_us))
    cliffs = sustained_write_cliffs(point_series(timeseries), d) if timeseries is not None and len(timeseries) \
        else pd.DataFrame()
    if len(cliffs):  # the write cache in a number: GB written before the cliff, or why there is none
        c = cliffs.iloc[-1]
        card.metrics.append(Metric("Sustained write cliff", None if pd.isna(c["cliff_gb"]) else float(c["cliff_gb"]),
                                   "GB", str(c["reason"]), title="Data written before the write cliff"))
    if manifest is not None and (ref := describe_reference((manifest.get("target") or {}).get("path") or "")):
        card.findings.append(ref)  # zram or a tmpfs loop device: memory, not an SSD
    cliff = write_cliff_sentence(point_series(timeseries), d) if timeseries is not None and len(timeseries) else None
    if cliff:
        card.findings.append(cliff)
        note = preconditioning_note(point_series(timeseries), d, manifest)
        if note:
            card.findings.append(note)
    for m in burst_card_metrics(point_series(timeseries), manifest) if timeseries is not None and len(timeseries) else []:
        card.metrics.append(Metric(**m))  # a burst that runs out: its burst and baseline side by side (issue 33)
    return card


# a PTS run's tiles: (metric name, title, unit, the PTS test that measures it)
PTS_TILES = [("QD1 4k random read latency", "QD1 4k random read mean total latency (PTS LAT)", "µs", "lat"),
             ("QD1 4k random read 99.999% latency", "QD1 4k random read 99.999 % latency (PTS LAT)", "µs", "lat"),
             ("QD1 4k random write latency", "QD1 4k random write mean total latency (PTS LAT)", "µs", "lat"),
             ("Peak 4k random read IOPS", "4k random read IOPS (PTS IOPS)", "IOPS", "iops"),
             ("Peak 4k random write IOPS", "4k random write IOPS (PTS IOPS)", "IOPS", "iops"),
             ("Peak sequential read bandwidth", "Sequential read bandwidth (PTS TP)", "MB/s", "tp"),
             ("Peak sequential write bandwidth", "Sequential write bandwidth (PTS TP)", "MB/s", "tp")]


def _tests_run(run) -> set[str]:
    """The PTS tests a run ran ("tp-128k" counts as "tp")."""
    return {t.split("-")[0] for t in run.tests}


def _pts_card(d: pd.DataFrame, manifest: dict | None, histograms: pd.DataFrame | None) -> DeviceCard | None:
    """The card of a PTS run (None for any other run): the PTS tests' window results, one tile each, and one
    finding each saying which test and window it is (and when that test never reached steady state)."""
    run_id = str(d["run_id"].iloc[0]) if len(d) and "run_id" in d else "run"
    run = pts_run({run_id: manifest or {}})
    if not run.run_id:
        return None
    res = card_results(d, run, histograms)
    got = {r.metric: Metric(r.metric, r.value, r.unit, r.detail, r.not_steady, title=r.title,
                            spread=None if pd.isna(r.low) else (r.low, r.high), n_measured=int(r.rounds))
           for r in res.itertuples()}
    metrics = [got.get(name) or Metric(name, None, unit, f"not measured: this PTS run's {test} test has no such "
                                       "point (see its matrix on the PTS page)", title=title)
               for name, title, unit, test in PTS_TILES if name in got or test in _tests_run(run)]
    metrics += [m for name, m in got.items() if name not in {t[0] for t in PTS_TILES}]
    card = DeviceCard(metrics, None, "a PTS run has no queue-depth sweep", identity=device_identity(manifest))
    digits = {"µs": 1, "IOPS": 0, "MB/s": 0}
    card.findings = [f"{m.label}: {m.value:,.{digits.get(m.unit, 0)}f} {m.unit} ({m.detail})"
                     + (f"; ⚠ {m.flag_reasons}" if m.flag_reasons else "") + "." for m in metrics if m.available]
    if not any(m.available for m in metrics):
        card.findings.append("This PTS run has no IOPS, TP or LAT results over a measurement window yet.")
    if implausible_sentence(d):
        card.findings.append(implausible_sentence(d))
    return card


def _too_few(rows: pd.DataFrame, p: float) -> pd.Series:
    """True for the rows (with_units frames) whose I/O count cannot support percentile ``p`` (processed.validity's
    rule on ``total_ios``; or, without a count, ``unreliable_percentiles`` listing it for either latency)."""
    total = pd.to_numeric(rows["total_ios"], errors="coerce") if "total_ios" in rows else pd.Series(
        float("nan"), index=rows.index)
    few = pd.Series(too_few_ios(total.astype("float64"), p / 100), index=rows.index).fillna(False).astype(bool)
    if "unreliable_percentiles" in rows:
        cols = {f"{kind}_{percentile_suffix(p)}" for kind in ("lat", "clat")}
        listed = rows["unreliable_percentiles"].fillna("").astype(str).str.split(",").map(
            lambda cs: bool(cols & set(cs))).astype(bool)
        few = few | (listed & total.isna())
    return few


def _few_ios(rows: pd.DataFrame, p: float) -> str:
    """'too few I/Os for a reliable p99.9 (it needs 10,000 or more)' when a row of ``rows`` (with_units frames)
    cannot support the percentile (:func:`_too_few`), else ''."""
    if not _too_few(rows, p).any():
        return ""
    return f"too few I/Os for a reliable p{p:g} (it needs {TAIL_SAMPLES / (1 - p / 100):,.0f} or more)"


def _reliable(rows: pd.DataFrame, p: float) -> pd.DataFrame:
    """The rows (with_units frames) with enough I/Os for percentile ``p`` (processed.validity's rule), when one
    of them measured it; else all: a short probe's lucky p99.9 never beats a point that can support one."""
    ok = ~_too_few(rows, p) & rows[percentile_suffix(p)].notna()
    return rows[ok] if ok.any() else rows


def _longest(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows (with_units frames) that hold at least half as many I/Os as the one holding the most (all rows when
    no count is known): the QD1 tiles come from the long measurements, so a settle-early probe of a searched series
    (0.85 s) never stands in for a run's 5 s QD1 point -- the lower of a short and a long reading is the luckier
    one, not the better measured (on this lab's disk a 0.75 s QD1 probe read 2-19 % off a 5 s run, 2026-11-26)."""
    total = pd.to_numeric(rows["total_ios"], errors="coerce") if "total_ios" in rows else None
    if total is None or total.isna().all():
        return rows
    return rows[total.fillna(0) >= total.max() / 2]


def qd1_tail_metrics(rows: pd.DataFrame, direction: str = "read") -> list[Metric]:
    """QD1 4k random-``direction`` p99 and p99.9 (of total latency when fio measured it, else of completion latency:
    the title says which), from the points with enough I/Os for the percentile when there are any, else marked
    as such (too few I/Os)."""
    out = []
    lname = latency_columns(rows).name
    for p in (99.0, 99.9):
        col = percentile_suffix(p)
        m = _metric(f"QD1 4k random {direction} p{p:g} latency", _longest(_reliable(rows, p)), col, "µs", "min")
        m.title = f"QD1 4k random {direction} p{p:g} {lname}"
        if m.available:
            m.few_ios = _few_ios(rows[rows[col] == m.value], p)
        out.append(m)
    return out


def knee_p99_metric(d: pd.DataFrame, series: pd.DataFrame, knee) -> Metric:
    """The 4k random-read p99 at the throughput knee's queue depth (what the knee costs in tail latency)."""
    lname = percentile_latency(series) if len(series) else "latency"
    name = "p99 latency at the knee"
    if knee is None or knee.knee_qd is None:
        return Metric(name, None, "µs", "not measured in this run" if knee is None else f"no knee: {knee.reason}",
                      title=f"p99 {lname} at the knee")
    at = series[series["iodepth"] == knee.knee_qd]
    value = float(at["p99_us"].iloc[0]) if len(at) and pd.notna(at["p99_us"].iloc[0]) else None
    rows = _knee_rows(d)[0]
    rows = rows[rows["iodepth"] == knee.knee_qd]
    m = Metric(name, value, "µs", f"4k random read at QD {knee.knee_qd:g}" if value is not None
               else "no p99 at the knee's queue depth", title=f"p99 {lname} at the knee (QD {knee.knee_qd:g})")
    m.few_ios = _few_ios(rows, 99.0) if value is not None else ""
    return m


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


SERIES_COLUMNS = ["series", "target state", "IOPS", "MB/s", "range (IOPS)", "how", "saturates from QD", "flags"]


def series_summary(df: pd.DataFrame, manifest: dict | None = None) -> pd.DataFrame:
    """The drive summary behind the card: one row per searched QD series (every operation and block size a
    characterize or adaptive run searched) with the level it concluded (:func:`levels`: its plateau, or the median
    of its best probes), the range of the probes behind it, the depth its plateau starts at and the state of the
    target it measured; then the mixed workloads measured as listed points (e.g. a 70/30 mix), each setting by the
    mean of its runs.  Mixed series count reads and writes together.  Empty when the run searched nothing and
    measured no mix, and for a PTS run (its numbers are its tests' measurement windows: the PTS page)."""
    ops = operations(df)
    if ops.empty or pts_run({"run": manifest or {}}).run_id:  # a PTS run's results are its tests' windows
        return pd.DataFrame(columns=SERIES_COLUMNS)
    out = []
    plateaus = search_plateaus(manifest or {})
    searched = _series_plateaus(manifest)
    points = (manifest or {}).get("points") or {}
    used = pd.Series(False, index=ops.index)
    for p in searched:
        mine = ops["point_id"].isin(p["ids"])
        used |= mine
        if not mine.any():
            continue
        first = ops[mine].iloc[0]
        bs = float(first["bs_bytes"])
        # the series' own row: operation, block size and read share (two mixes of one operation are two series)
        mix = pd.to_numeric(plateaus["rwmixread_pct"], errors="coerce")
        same_mix = mix.isna() if pd.isna(first.get("rwmixread_pct")) else mix == float(first["rwmixread_pct"])
        row = plateaus[(plateaus["rw"] == first["rw"]) & (plateaus["bs_bytes"] == bs) & same_mix]
        state = next((str((points[i].get("characterize") or {}).get("target_state") or "") for i in p["ids"]
                      if i in points), "")
        lv = levels(ops[mine], "iops", manifest)
        lv = lv[lv["kind"] != "point"]
        if lv.empty:
            continue
        r = lv.iloc[0]
        out.append({"series": _label(first), "target state": state, "IOPS": r["value"], "MB/s": r["value"] * bs / 1e6,
                    "range (IOPS)": f"{r['low']:,.0f}–{r['high']:,.0f} ({int(r['n'])} probes)",
                    "how": "plateau (median of its probes)" if r["kind"] == "plateau" else
                           "no plateau: median of its 3 best probes",
                    "saturates from QD": int(row["plateau_from_qd"].iloc[0]) if len(row) and
                    pd.notna(row["plateau_from_qd"].iloc[0]) else None,
                    "flags": r["flag_reasons"]})
    mixes = ops[~used & ops["rwmixread_pct"].notna() & ops["rw"].isin(["randrw", "rw"])]
    for _, g in mixes.groupby(["rw", "bs_bytes", "rwmixread_pct", "iodepth", "numjobs"], sort=False):
        r = levels(g, "iops").iloc[0]
        first = g.iloc[0]
        out.append({"series": f"{_label(first)} at {_setting(int(first['iodepth']), int(first['numjobs']))}",
                    "target state": "", "IOPS": r["value"], "MB/s": r["value"] * float(first["bs_bytes"]) / 1e6,
                    "range (IOPS)": f"{r['low']:,.0f}–{r['high']:,.0f} ({int(r['n'])} runs)" if r["n"] > 1 else "",
                    "how": "a listed point" + (" (mean of its runs)" if r["n"] > 1 else ""),
                    "saturates from QD": None, "flags": r["flag_reasons"]})
    return pd.DataFrame(out, columns=SERIES_COLUMNS).astype({"saturates from QD": "Int64"})


def _label(r: pd.Series) -> str:
    """'randread 4k', 'randrw 70% read 4k'."""
    mix = r.get("rwmixread_pct")
    return (f"{r['rw']}" + (f" {mix:g}% read" if r["rw"] in ("randrw", "rw") and pd.notna(mix) else "")
            + f" {format_bytes(r['bs_bytes'])}")
