"""Compare runs (devices, settings) and a run against reference spec sheets."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.card import best_metric, device_card, is_virtual_disk, target_kind
from helpers.analysis.points import with_units
from helpers.analysis.runpair import MATCH_KEYS
from helpers.fio.units import format_bytes, parse_size

# spec column -> (workload, rw, direction, measured column, unit, block size: bytes or the spec column giving it,
# spec column giving the queue depth (outstanding I/Os) the vendor measured at)
SPEC_WORKLOADS: dict[str, tuple[str, str, str, str, str, int | str, str]] = {
    "rand_read_4k_iops": ("4k random read IOPS", "randread", "read", "iops", "IOPS", 4096, "rand_qd"),
    "rand_write_4k_iops": ("4k random write IOPS", "randwrite", "write", "iops", "IOPS", 4096, "rand_qd"),
    "seq_read_mb_per_s": ("sequential read bandwidth", "read", "read", "mb_per_s", "MB/s", "seq_bs", "seq_qd"),
    "seq_write_mb_per_s": ("sequential write bandwidth", "write", "write", "mb_per_s", "MB/s", "seq_bs", "seq_qd"),
}
SPEC_FOR_METRIC: dict[str, str] = {w[0]: col for col, w in SPEC_WORKLOADS.items()}  # workload -> spec column
COMPARISON_COLUMNS = ["run_id", "drive", "metric", "measured", "spec", "unit", "ratio", "measured_at",
                      "spec_workload", "comparison", "source", "note"]


def run_metrics(df: pd.DataFrame) -> pd.DataFrame:
    """The device-card metrics of every run side by side: one row per (run, metric).  ``metric`` is what the
    card calls the number ("Peak ..." only where every run varied the queue depth; the one setting when all
    runs measured the same one; else the best measured, its setting in ``measured_at``); ``comparable`` is True when
    every run measured it, the same way (one title): only those are drawn side by side."""
    rows = []
    for run in list(dict.fromkeys(df["run_id"])):
        card = device_card(df[df["run_id"] == run])
        for m in card.metrics:
            rows.append({"run_id": run, "key": m.name, "title": m.label, "value": m.value, "unit": m.unit,
                         "measured_at": m.detail, "flag_reasons": m.flag_reasons, "available": m.available})
    out = pd.DataFrame(rows, columns=["run_id", "key", "title", "value", "unit", "measured_at", "flag_reasons",
                                      "available"])
    names = {}
    for key, g in out.groupby("key", sort=False):
        titles = set(g.loc[g["available"].astype(bool), "title"])
        names[key] = (titles.pop() if len(titles) == 1 else g["title"].iloc[0] if not titles
                      else f"{key.removeprefix('Peak ')} (best measured)")
    out["metric"] = out["key"].map(names)
    # side by side only what every run measured the same way: the same title (a peak over varied depths in each, or
    # the one same setting); a number measured at other settings, or by another procedure (a PTS window), is not
    g = out.assign(available=out["available"].astype(bool)).groupby("key", sort=False)
    same = g["available"].all() & (g["title"].nunique() == 1)
    out["comparable"] = out["key"].map(same).fillna(False).astype(bool)
    return out[["run_id", "metric", "value", "unit", "measured_at", "flag_reasons", "comparable"]]


def _number(v) -> float | None:
    if v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA or str(v).strip() == "":
        return None
    try:
        return float(v)
    except ValueError:
        return float(parse_size(str(v)))


def spec_comparison(df: pd.DataFrame, specs: pd.DataFrame) -> pd.DataFrame:
    """Each run against every reference drive, like for like only: one row per (run, drive, spec figure).

    A spec figure is compared with the best unflagged point of the same operation and block size measured
    at a queue depth (iodepth x numjobs) at least the spec's (``rand_qd`` / ``seq_qd``, ``seq_bs`` columns
    of drives.csv).  ``ratio`` = measured / spec only then; otherwise ``measured`` and ``ratio`` are NaN and
    ``comparison`` says why in one sentence (the spec row states no queue depth or block size, or the run
    did not measure that workload deep enough).  ``spec_workload`` names what the vendor measured."""
    if df.empty or specs.empty:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    d = with_units(df)
    rows = []
    for _, sp in specs.iterrows():
        drive = " ".join(str(sp[k]).strip() for k in ("vendor", "model", "capacity")
                         if k in sp.index and pd.notna(sp[k]) and str(sp[k]).strip())
        for col, (metric, rw, direction, value_col, unit, bs_spec, qd_col) in SPEC_WORKLOADS.items():
            spec = _number(sp.get(col))
            if spec is None:
                continue
            bs = bs_spec if isinstance(bs_spec, int) else _number(sp.get(bs_spec))
            qd = _number(sp.get(qd_col))
            what = f"{rw} {format_bytes(int(bs)) if bs else '(block size not stated)'}" + (
                f" at QD {qd:g}" if qd else " (queue depth not stated)")
            for run in list(dict.fromkeys(d["run_id"])):
                r = d[(d["run_id"] == run) & (d["rw"] == rw) & (d["direction"] == direction)]
                value, where, why = float("nan"), "", ""
                if bs is None or qd is None:
                    missing = " and ".join(x for x, v in (("block size", bs), ("queue depth", qd)) if v is None)
                    why = f"no like-for-like ratio: the spec sheet row does not state its {missing}"
                else:
                    r = r[(r["bs_bytes"] == bs) & (r["iodepth"] * r["numjobs"].fillna(1) >= qd)]
                    if r.empty:
                        why = f"not measured like for like: this run has no {rw} {format_bytes(int(bs))} point at QD {qd:g} or deeper"
                    else:
                        m = best_metric(metric, r, value_col, unit)
                        value, where = m.value, m.detail
                ratio = value / spec if pd.notna(value) and spec else float("nan")
                rows.append({"run_id": run, "drive": drive, "metric": metric, "measured": value, "spec": spec,
                             "unit": unit, "ratio": ratio, "measured_at": where, "spec_workload": what,
                             "comparison": why, "source": sp.get("source", ""),
                             "note": "" if pd.isna(sp.get("note", "")) else sp.get("note", "")})
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def _normal(text) -> str:
    return "".join(ch for ch in str(text or "").lower() if ch.isalnum())


def spec_warning(manifests: dict[str, dict], specs: pd.DataFrame) -> str:
    """One warning ('' when none applies) when a run measured a file or a virtual disk, or its device model
    matches no spec-sheet row: the ratios then compare different things."""
    models = [_normal(m) for m in (specs["model"] if "model" in specs.columns else []) if _normal(m)]
    parts = []
    for run, m in manifests.items():
        if not m:
            parts.append(f"run {run} has no manifest, so its device is unknown")
            continue
        t = m.get("target") or {}
        what = []
        kind = target_kind(m)
        if kind == "file":
            fs = (t.get("mount") or {}).get("fstype")
            what.append(f"measured a file{' on ' + fs if fs else ''}, not the raw device")
        if is_virtual_disk(m):
            what.append(f"ran on a virtual disk (/dev/{t.get('disk')})")
        model = _normal(t.get("model"))
        if not model or not any(s in model or model in s for s in models):
            what.append(f"its device model ({t.get('model') or 'not reported'}) matches no spec-sheet row")
        if what:
            parts.append(f"run {run} " + ", ".join(what))
    if not parts:
        return ""
    return ("These are not like-for-like drive comparisons: " + "; ".join(parts) + ". The spec sheets describe "
            "the drives themselves, so a ratio here says how this setup compares, not how the drive does.")


def common_points(df: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """Rows whose configuration (the regression gate's: :data:`helpers.analysis.runpair.MATCH_KEYS`) was measured in
    every run of ``df``."""
    keys = [k for k in (keys or MATCH_KEYS) if k in df.columns]
    runs = df["run_id"].nunique()
    n = df.groupby(keys, dropna=False)["run_id"].transform("nunique")
    return df[n == runs].reset_index(drop=True)
