"""Device card: the headline numbers people share, and findings written from the data."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from helpers.analysis.blocksize import bandwidth_plateau, blocksize_series
from helpers.analysis.cliff import write_cliff_sentence
from helpers.analysis.flags import flagged_rows, implausible_sentence
from helpers.analysis.health import health_summary
from helpers.analysis.knee import find_knee
from helpers.analysis.points import latency_columns, percentile_latency, percentile_suffix, with_units
from helpers.analysis.slo import slo_card_sentence
from helpers.analysis.timeseries import point_series
from helpers.fio.units import format_bytes
from helpers.processed.validity import TAIL_SAMPLES, settled_text, too_few_ios
from helpers.run import demand
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


def _metric(name: str, rows: pd.DataFrame, col: str, unit: str, how: str = "max", scale: float = 1.0) -> Metric:
    """The best value among unflagged points (flagged ones only when nothing else was measured, and
    then marked); a better value at a flagged point is named in ``better_flagged``."""
    rows = rows[rows[col].notna()]
    if rows.empty:
        return Metric(name, None, unit, "not measured in this run")
    clean = rows[~rows["flagged"]]
    r = _extreme(clean if not clean.empty else rows, col, how)
    best = _extreme(rows, col, how)
    m = Metric(name, float(r[col]) * scale, unit, _where(r), r["flag_reasons"])
    if bool(best["flagged"]) and not bool(r["flagged"]) and best[col] != r[col]:
        m.better_flagged = (f"{'higher' if how == 'max' else 'lower'} "
                            f"{float(best[col]) * scale:,.{1 if unit == 'µs' else 0}f} {unit} at {_where(best)}")
        m.better_flagged_reasons = best["flag_reasons"]
    return m


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
    r = rows.dropna(subset=["iodepth"])
    return sorted({(int(q), int(n)) for q, n in zip(r["iodepth"], r["numjobs"].fillna(1))})


def _setting(qd: int, jobs: int) -> str:
    return f"QD{qd}" + ("" if jobs == 1 else f" x{jobs} jobs")


def _title(m: Metric, rows: pd.DataFrame, what: str) -> None:
    """'Peak <what>' when the candidates the value was chosen from (the unflagged ones when there are any,
    :func:`_metric`) varied QD/numjobs; '<what> at QD1' for one setting."""
    measured = rows[rows[m_col(m)].notna()] if m_col(m) in rows else rows.iloc[:0]
    clean = measured[~measured["flagged"].astype(bool)] if "flagged" in measured else measured
    s = _settings(clean if len(clean) else measured)
    m.only_unflagged_setting = len(s) == 1 and len(clean) > 0 and len(_settings(measured)) > 1
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
                health: pd.DataFrame | None = None) -> DeviceCard:
    """Headline metrics of one run (prefers unflagged points) and its findings; ``manifest`` (the run's
    sweep manifest) names the device, target, host and software the numbers were measured on (and, with the
    run's ``health`` captures, the device temperature during the run); with ``slo_us`` the findings end with
    the 4k random-read SLO capacity (most IOPS with p99 <= slo_us); with the run's ``timeseries``, a
    sustained-write point adds its write-cliff sentence."""
    d = with_units(df)
    rr = d[(d["rw"] == "randread") & (d["bs_bytes"] == KB4) & (d["direction"] == "read")]
    rw = d[(d["rw"] == "randwrite") & (d["bs_bytes"] == KB4) & (d["direction"] == "write")]
    metrics = [
        _metric("QD1 4k random read latency", _longest(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("QD1 4k random write latency", _longest(rw[(rw["iodepth"] == 1) & (rw["numjobs"] == 1)]), "lat_mean_us",
                "µs", "min"),
        _metric("Peak 4k random read IOPS", rr, "iops", "IOPS"),
        _metric("Peak 4k random write IOPS", rw, "iops", "IOPS"),
        _metric("Peak sequential read bandwidth", d[(d["rw"] == "read") & (d["direction"] == "read")],
                "mb_per_s", "MB/s"),
        _metric("Peak sequential write bandwidth", d[(d["rw"] == "write") & (d["direction"] == "write")],
                "mb_per_s", "MB/s"),
    ]
    for m in metrics[:2]:  # the QD1 latencies are means of total latency (submission + completion)
        m.title = m.name.replace(" latency", " mean total latency")
    seq_r, seq_w = d[(d["rw"] == "read") & (d["direction"] == "read")], d[(d["rw"] == "write") & (d["direction"] == "write")]
    for m, rows, what in ((metrics[2], rr, "4k random read IOPS"), (metrics[3], rw, "4k random write IOPS"),
                          (metrics[4], seq_r, "Sequential read bandwidth"),
                          (metrics[5], seq_w, "Sequential write bandwidth")):
        _title(m, rows, what)
    metrics[1:1] = qd1_tail_metrics(rr[(rr["iodepth"] == 1) & (rr["numjobs"] == 1)])
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
    if manifest is not None and (ref := describe_reference((manifest.get("target") or {}).get("path") or "")):
        card.findings.append(ref)  # zram or a tmpfs loop device: memory, not an SSD
    cliff = write_cliff_sentence(point_series(timeseries), d) if timeseries is not None and len(timeseries) else None
    if cliff:
        card.findings.append(cliff)
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


def qd1_tail_metrics(rows: pd.DataFrame) -> list[Metric]:
    """QD1 4k random-read p99 and p99.9 (of total latency when fio measured it, else of completion latency:
    the title says which), from the points with enough I/Os for the percentile when there are any, else marked
    as such (too few I/Os)."""
    out = []
    lname = latency_columns(rows).name
    for p in (99.0, 99.9):
        col = percentile_suffix(p)
        m = _metric(f"QD1 4k random read p{p:g} latency", _longest(_reliable(rows, p)), col, "µs", "min")
        m.title = f"QD1 4k random read p{p:g} {lname}"
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


def _peak_row(d: pd.DataFrame, m: Metric, what: str) -> pd.DataFrame:
    """The 4k random rows of ``what`` ('reads'/'writes') that measured the headline value ``m``."""
    rw, direction = ("randread", "read") if what == "reads" else ("randwrite", "write")
    rows = d[(d["rw"] == rw) & (d["bs_bytes"] == KB4) & (d["direction"] == direction)]
    return rows[rows["iops"] == m.value]


def _demand(d: pd.DataFrame, m: Metric, what: str) -> str:
    """' at 2 jobs × QD 16, io_uring': how the peak was reached (its point's jobs, depth and engine), when the run
    measured more than one job count or engine for it (a demand search, helpers.run.demand; '' otherwise: the
    detail's QD names the setting)."""
    r = _peak_row(d, m, what)
    if r.empty or "ioengine" not in r or pd.isna(r["ioengine"].iloc[0]):
        return ""
    rows = d[(d["rw"] == r["rw"].iloc[0]) & (d["bs_bytes"] == KB4)]
    if rows["numjobs"].nunique() < 2 and rows["ioengine"].nunique() < 2:
        return ""
    r = r.iloc[0]
    jobs = 1 if pd.isna(r["numjobs"]) else int(r["numjobs"])
    return f" at {demand.Config(jobs, int(r['iodepth']), str(r['ioengine'])).phrase()}"


def _cpu_bound_at(d: pd.DataFrame, m: Metric, what: str) -> bool:
    """The headline's point was CPU-bound (the validity flag's rule): the number is a lower bound."""
    r = _peak_row(d, m, what)
    return "flag_cpu_bound" in r and len(r) > 0 and bool(r["flag_cpu_bound"].fillna(False).astype(bool).all())


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
            frac = f", {knee.fraction_of_peak:.0%} of the peak" if knee.fraction_of_peak is not None else ""
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
    if n_flag:
        point = int((d["flagged"] & flagged_rows(d)).sum())
        parts = []
        if point:
            parts.append(f"{point} of them may not measure the device alone")
        if n_flag - point:
            parts.append(f"{n_flag - point} only have too few I/Os for their deepest percentiles")
        out.append(f"{n_flag} of {n} measurements carry a validity flag (see the flag table): {'; '.join(parts)}.")
    return out
