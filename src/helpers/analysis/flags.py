"""The validity flags of a result set: which rows carry a flag, the sentence of every raised flag, and the
flag table.  Every count of flagged rows (run summary, device card, flag table) uses :func:`flagged_rows`,
so they always agree; too few I/Os for a percentile marks the percentile, not the point, and is counted apart
(:func:`few_ios_rows`)."""

from __future__ import annotations

import pandas as pd

from helpers.fio.units import format_bytes
from helpers.processed.validity import FLAG_COLUMNS

ID_COLUMNS = ["run_id", "point_id", "direction", "rw", "bs_bytes", "iodepth", "numjobs", "ioengine", "direct"]
# sentence of a raised flag when the data carries no sentence of its own for it
FLAG_SENTENCES = {"flag_page_cache": "page cache suspected", "flag_cpu_bound": "fio CPU-bound",
                  "flag_short_run": "run too short for steady state",
                  "flag_repeat_spread": "repeats of this point vary widely",
                  "flag_implausible": "writes faster than the device could sustain (a write-back cache)",
                  "flag_throttled": "the device reported thermal throttling"}


def _bool_flags(df: pd.DataFrame) -> list[str]:
    return [c for c, dtype, _ in FLAG_COLUMNS if dtype == "bool" and c in df.columns]


def _raised(df: pd.DataFrame, col: str) -> pd.Series:
    return df[col].astype("object").where(df[col].notna(), False).astype(bool)


PERCENTILE_FLAG = "flag_few_ios"  # too few I/Os behind a percentile: the percentile's mark, not the point's


def flagged_rows(df: pd.DataFrame) -> pd.Series:
    """True for every row with at least one point-level validity flag raised (the point may not measure the device
    alone): the one definition behind every count of flagged rows.  Too few I/Os behind a deep percentile is not
    one: it marks those percentiles only (``unreliable_percentiles``; :func:`few_ios_rows` counts them)."""
    flags = [c for c in _bool_flags(df) if c != PERCENTILE_FLAG]
    if not flags:
        return pd.Series(False, index=df.index)
    return pd.concat([_raised(df, c) for c in flags], axis=1).any(axis=1)


def few_ios_rows(df: pd.DataFrame) -> pd.Series:
    """True for the rows with too few I/Os behind at least one of their percentiles (whatever else is flagged)."""
    if PERCENTILE_FLAG not in df.columns:
        return pd.Series(False, index=df.index)
    return _raised(df, PERCENTILE_FLAG)


def _few_ios_sentence(r) -> str:
    cols = [c for c in str(r.get("unreliable_percentiles") or "").split(",") if c and c != "<NA>"]
    which = ", ".join("p" + c.split("_p", 1)[-1].removesuffix("_us").replace("_", ".") for c in cols)
    n = r.get("total_ios")
    ios = f"{n:,.0f} I/Os" if n is not None and pd.notna(n) else "too few I/Os"
    return (f"{ios}: too few for {which or 'the deepest percentiles'} (those percentiles only; throughput and "
            "mean latency are sound)")


def flag_sentences(df: pd.DataFrame) -> pd.Series:
    """One string per row joining a sentence for every raised flag ('' when none): the stored
    ``flag_reasons`` (point-level flags), a sentence for too few I/Os for a percentile, and a generic sentence
    for a raised flag whose data carries no sentence."""
    out = []
    reasons = df["flag_reasons"] if "flag_reasons" in df.columns else pd.Series("", index=df.index)
    raised = {c: _raised(df, c) for c in _bool_flags(df)}
    for i, (idx, r) in enumerate(df.iterrows()):
        text = "" if pd.isna(reasons.iloc[i]) else str(reasons.iloc[i])
        parts = [s for s in text.split("; ") if s]
        if not parts:
            parts = [FLAG_SENTENCES[c] for c, m in raised.items() if c in FLAG_SENTENCES and m.loc[idx]]
        if "flag_few_ios" in raised and raised["flag_few_ios"].loc[idx]:
            parts.append(_few_ios_sentence(r))
        out.append("; ".join(parts))
    return pd.Series(out, index=df.index, dtype="string")


def flag_table(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``df`` with at least one validity flag raised (:func:`flagged_rows`) or a percentile with too few I/Os
    behind it (:func:`few_ios_rows`, listed so its sentence is there, counted apart): identifying columns,
    every flag column present, ``unreliable_percentiles`` and ``flag_reasons`` holding a sentence for every
    raised flag (:func:`flag_sentences`).  Data ingested before a flag existed simply lacks that column."""
    flags = _bool_flags(df)
    cols = [c for c in ID_COLUMNS if c in df.columns] + [c for c, _, _ in FLAG_COLUMNS if c in df.columns]
    if not flags:
        return df.iloc[0:0][cols]
    out = df.loc[flagged_rows(df) | few_ios_rows(df), cols].copy()
    if "flag_reasons" in out.columns or len(out):
        out["flag_reasons"] = flag_sentences(df.loc[out.index])
    if "unreliable_percentiles" in out.columns and "lat_p99_us" in df.columns:
        # validity checks the I/O count against clat's names; where fio wrote total-latency percentiles
        # (lat_percentiles=1) those are the ones shown, so name them (the same count of I/Os stands behind both)
        total = df.loc[out.index, "lat_p99_us"].notna() & out["unreliable_percentiles"].notna()
        out.loc[total, "unreliable_percentiles"] = out.loc[total, "unreliable_percentiles"].str.replace(
            "clat_", "lat_", regex=False)
    return out.reset_index(drop=True)


def implausible_sentence(df: pd.DataFrame) -> str:
    """One sentence for the device card when writes ran faster than the device could sustain ('' when none):
    the fastest such point, its ratio (from its flag sentence), and what to do."""
    if "flag_implausible" not in df.columns:
        return ""
    bad = df[_raised(df, "flag_implausible")]
    if bad.empty:
        return ""
    bw = pd.to_numeric(bad["bw_bytes_per_s"], errors="coerce")
    r = bad.loc[bw.idxmax()] if bw.notna().any() else bad.iloc[0]
    why = next((s for s in str(r.get("flag_reasons") or "").split("; ") if s.startswith("writes at ")), "")
    ratio = why.split(":")[0] if why else "writes faster than reads"
    where = f"{r['rw']} {format_bytes(int(r['bs_bytes']))} QD{int(r['iodepth'])}"
    n = len(bad)
    return (f"Not the device: {n} write measurement(s) ran faster than a flash device sustains, e.g. {where} at "
            f"{float(r['bw_bytes_per_s']) / 1e6:,.0f} MB/s ({ratio}): a write-back cache (page cache, hypervisor or "
            "the drive's DRAM/SLC) absorbed them, so they are flagged (the headline numbers prefer unflagged points). Measure "
            "writes with a larger SIZE (several times any cache) or the sustained-write profile "
            "(make run-all PROFILE=sustained-write).")
