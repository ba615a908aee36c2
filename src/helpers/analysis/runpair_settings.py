"""What else a run comparison must say about its runs: points a validity check flagged, and
settings that differ between the base and the new run(s)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analysis.flags import few_ios_rows, flag_sentences, flagged_rows
from helpers.analysis.points import point_label
from helpers.analysis.runpair_samples import MATCH_KEYS, _hashable
from helpers.fio.units import format_bytes


def flagged_points(results: pd.DataFrame, table: pd.DataFrame, base: list[str], new: list[str],
                   keys: list[str] | None = None) -> pd.DataFrame:
    """The compared points (rows of ``table``) that a validity check flagged in either run: one row per point
    and side with the flags' sentences (``side``, ``run_id``, ``point``, ``flags``; empty when none).  A gate
    that compares such points compares what fio measured, maybe not the device (too short, page cache,
    CPU-bound)."""
    cols = ["point", "side", "run_id", "flags"]
    if results is None or results.empty or table.empty:
        return pd.DataFrame(columns=cols)
    keys = [k for k in (keys or MATCH_KEYS) if k in table.columns and k in results.columns]
    r = results[results["run_id"].isin([*base, *new])]
    r = r[flagged_rows(r) | few_ios_rows(r)]  # a compared p99 needs its percentile marks too
    if r.empty:
        return pd.DataFrame(columns=cols)
    compared = {_hashable(k) for k in table[keys].itertuples(index=False, name=None)}
    r = r[[_hashable(k) in compared for k in r[keys].itertuples(index=False, name=None)]]
    if r.empty:
        return pd.DataFrame(columns=cols)
    r = r.assign(_flags=flag_sentences(r).to_numpy(), side=np.where(r["run_id"].isin(base), "base", "new"),
                 point=[point_label(x) for _, x in r[keys].iterrows()])
    rows = []
    for (point, side), g in r.groupby(["point", "side"], sort=True):
        texts = list(dict.fromkeys(t for x in g["_flags"] for t in str(x).split("; ") if t))
        rows.append({"point": point, "side": side, "run_id": ", ".join(dict.fromkeys(g["run_id"].astype(str))),
                     "flags": "; ".join(texts)})
    return pd.DataFrame(rows, columns=cols)


RUNTIME_DIFFERS = 1.25  # measured runtimes whose medians differ by more than 25 % are different settings


def setting_differences(results: pd.DataFrame, base: list[str], new: list[str],
                        manifests: dict[str, dict] | None = None) -> list[str]:
    """Settings that differ between the base and the new run(s), one sentence each ([] when none): the
    measured runtime per point (medians differ by more than 25 %), the host and fio version (from the
    results), and, from the runs' manifests, the target, its size and the profile (for runs without a manifest,
    e.g. raw fio folders, the target and size fio's own options state: results ``target_file``,
    ``target_size_bytes``).  A fact unknown on a side is not compared."""
    out = []
    manifests = manifests or {}

    def side_values(ids: list[str], get) -> list[str]:
        return sorted({str(v) for v in (get(i) for i in ids) if v not in (None, "")})

    def column(ids, col):
        if results is None or col not in results.columns:
            return []
        v = results.loc[results["run_id"].isin(ids), col].dropna()
        return sorted({str(x) for x in v if str(x) not in ("", "<NA>")})

    if results is not None and "runtime_s" in results.columns:
        rt = {sd: pd.to_numeric(results.loc[results["run_id"].isin(ids), "runtime_s"], errors="coerce").median()
              for sd, ids in (("base", base), ("new", new))}
        if all(pd.notna(v) and v > 0 for v in rt.values()) and max(rt.values()) > RUNTIME_DIFFERS * min(rt.values()):
            out.append(f"measured runtime per point: base {rt['base']:.3g} s, new {rt['new']:.3g} s (median)")
    facts = [("host", lambda ids: column(ids, "host")), ("fio version", lambda ids: column(ids, "fio_version"))]
    def sizes(ids):
        return [format_bytes(x) for x in sorted({int(float(v)) for v in column(ids, "target_size_bytes")})]

    for what, key, fallback in (
            ("target", lambda m: (m.get("target") or {}).get("path"), lambda ids: column(ids, "target_file")),
            ("target size", lambda m: format_bytes(int(m["target_size_bytes"])) if m.get("target_size_bytes") else None,
             sizes),
            ("profile", lambda m: m.get("profile"), lambda ids: [])):
        def get(ids, key=key, fallback=fallback):
            return side_values(ids, lambda i: key(manifests.get(i) or {})) or fallback(ids)
        facts.append((what, get))
    for what, get in facts:
        b, n = get(base), get(new)
        if b and n and b != n:
            out.append(f"{what}: base {', '.join(b)}, new {', '.join(n)}")
    return out
