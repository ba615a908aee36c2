"""The device card's numbers: a Metric (one headline number with where it came from and its range), the card, and the levels a run concluded -- a searched series' plateau, the median of a search's best probes, a repeated setting's mean, never the luckiest probe -- with every searched series summarised."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from helpers.analysis.adaptive import search_plateaus
from helpers.analysis.burst_flags import burst_drain_rows
from helpers.analysis.points import (
    operations,
)
from helpers.analysis.pts import pts_run
from helpers.fio.units import format_bytes
from helpers.processed.validity import settled_text
from helpers.run import demand
from helpers.run.adaptive import PROBE_KINDS

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
        moved = _demand_row(((manifest or {}).get("adaptive") or {}).get(p["series"]) or {}, _label(first), state, bs)
        if moved:  # the demand search went past the ladder's setting: its best is the series' number too
            out[-1]["series"] += f" ({_start_phrase(p['series'], manifest)})"
            out.append(moved)
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


def _start_phrase(series: str, manifest: dict | None) -> str:
    """How a searched series' ladder ran: '1 job, libaio' (from its demand search's start probe)."""
    d = ((((manifest or {}).get("adaptive") or {}).get(series) or {}).get("demand") or {}).get("probes") or [{}]
    jobs, engine = d[0].get("jobs", 1), d[0].get("ioengine")
    return f"{jobs} job{'s' if jobs != 1 else ''}" + (f", {engine}" if engine else "") + ": the QD ladder"


def _demand_row(info: dict, label: str, state: str, bs: float) -> dict | None:
    """The row of a searched series' demand search (helpers.run.demand) when it measured more than its start: the
    most IOPS of its configurations with the one that reached it, and, when every configuration was CPU-bound,
    that the number is at least that (the host's limit).  None without a demand search that moved."""
    d = info.get("demand") or {}
    probes = d.get("probes") or []
    if len(probes) < 2:
        return None
    top = max(probes, key=lambda x: float(x.get("iops") or 0))
    setting = demand.Config(int(top["jobs"]), int(top["qd"]), str(top["ioengine"])).phrase()
    iops = [float(x["iops"]) for x in probes]
    return {"series": f"{label} (demand search: jobs × QD, engine)", "target state": state, "IOPS": float(top["iops"]),
            "MB/s": float(top["iops"]) * bs / 1e6, "range (IOPS)": f"{min(iops):,.0f}–{max(iops):,.0f} "
            f"({len(probes)} configurations)", "how": f"the best configuration: {setting}",
            "saturates from QD": None,
            "flags": "at least: fio used a whole CPU per job in every configuration (the host's limit)"
            if d.get("lower_bound") else ""}


def _label(r: pd.Series) -> str:
    """'randread 4k', 'randrw 70% read 4k'."""
    mix = r.get("rwmixread_pct")
    return (f"{r['rw']}" + (f" {mix:g}% read" if r["rw"] in ("randrw", "rw") and pd.notna(mix) else "")
            + f" {format_bytes(r['bs_bytes'])}")
