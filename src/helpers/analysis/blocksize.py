"""Block-size sweeps: series of points that differ only in block size, and where bandwidth stops growing."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.points import engine_suffixes, with_units
from helpers.fio.units import format_bytes

SERIES_KEYS = ["run_id", "host", "rw", "direction", "iodepth", "numjobs", "rwmixread_pct", "ioengine", "direct"]
PLATEAU_FRACTION = 0.9  # a series has "stopped growing" once it reaches 90 % of its peak bandwidth
FALL_FRACTION = 0.10  # bandwidth "falls past its best block size" when a larger block is >= 10 % below the peak


def _label(r: pd.Series, with_run: bool, engine: str = "") -> str:
    mix = "" if pd.isna(r["rwmixread_pct"]) else f" {r['rwmixread_pct']:.0f}% read"
    nj = "" if r["numjobs"] == 1 else f" x{r['numjobs']} jobs"
    direction = "" if r["rw"] in ("read", "write", "randread", "randwrite") else f" ({r['direction']})"
    label = f"{r['rw']}{mix}{direction} QD{r['iodepth']}{nj}{engine}"
    return f"{r['run_id']}: {label}" if with_run else label


# the block-size page's table (and the workbook's sheet): the series' values, not every results column
PAGE_COLUMNS = ["series", "bs_label", "iops", "mb_per_s", "mib_per_s", "lat_mean_us", "p99_us", "percentile_latency",
                "flag_reasons"]


def blocksize_series(df: pd.DataFrame, min_points: int = 2) -> pd.DataFrame:
    """Rows of block-size series (≥ ``min_points`` block sizes, everything else equal), with units,
    ``series`` labels (operation, direction, QD), sorted by series and block size."""
    if df.empty:
        return with_units(df).assign(series=pd.Series(dtype="string"))
    keys = [k for k in SERIES_KEYS if k in df.columns]
    n = df.groupby(keys, dropna=False)["bs_bytes"].transform("nunique")
    out = with_units(df[n >= min_points])
    multi_run = out["run_id"].nunique() > 1
    out["series"] = pd.Series([_label(r, multi_run, e) for (_, r), e in zip(out.iterrows(), engine_suffixes(out, keys))],
                              index=out.index, dtype="string")
    return out.sort_values(["iodepth", "series", "bs_bytes"]).reset_index(drop=True)


def bandwidth_plateau(series: pd.DataFrame, fraction: float = PLATEAU_FRACTION) -> pd.DataFrame:
    """Per series: the smallest block size reaching ``fraction`` of the series' peak bandwidth.

    ``plateau_bs_bytes`` is <NA> when that block size is the largest measured one (bandwidth was
    still growing at the end of the sweep); ``fall_bs_bytes`` / ``fall_pct``: the larger block size whose
    bandwidth lies furthest below the peak, when it is at least 10 % below (bandwidth falls past its best
    block size; <NA> / NaN otherwise); ``note`` says all of it in one sentence.
    """
    cols = ["series", "rw", "direction", "iodepth", "peak_mb_per_s", "peak_bs_bytes", "plateau_bs_bytes",
            "plateau_mb_per_s", "fall_bs_bytes", "fall_pct", "note"]
    rows = []
    for name, s in series.groupby("series", sort=False):
        first = s.iloc[0]
        # repeats of a block size are averaged first, so one lucky repeat cannot move the plateau
        s = s[s["mb_per_s"].notna()].groupby("bs_bytes", as_index=False)["mb_per_s"].mean().sort_values("bs_bytes")
        if s.empty:
            rows.append({"series": name, "rw": first["rw"], "direction": first["direction"],
                         "iodepth": int(first["iodepth"]), "peak_mb_per_s": float("nan"), "peak_bs_bytes": pd.NA,
                         "plateau_bs_bytes": pd.NA, "plateau_mb_per_s": float("nan"), "fall_bs_bytes": pd.NA,
                         "fall_pct": float("nan"), "note": "no bandwidth was measured in this series."})
            continue
        peak = s["mb_per_s"].max()
        peak_row = s.loc[s["mb_per_s"].idxmax()]
        reached = s[s["mb_per_s"] >= fraction * peak].iloc[0]
        largest = s["bs_bytes"].max()
        if reached["bs_bytes"] == largest:
            plateau, plateau_mb = pd.NA, float("nan")
            note = f"bandwidth was still growing at the largest block size ({format_bytes(largest)})."
        else:
            plateau, plateau_mb = int(reached["bs_bytes"]), float(reached["mb_per_s"])
            note = (f"bandwidth reaches {fraction:.0%} of its peak ({peak:,.0f} MB/s) at "
                    f"{format_bytes(plateau)} blocks")
        # past the best block size: the lowest bandwidth of a larger block, when it falls >= 10 % below the peak
        after = s[s["bs_bytes"] > peak_row["bs_bytes"]]
        fall_bs, fall_pct = pd.NA, float("nan")
        if len(after):
            low = after.loc[after["mb_per_s"].idxmin()]
            if low["mb_per_s"] <= (1 - FALL_FRACTION) * peak:
                fall_bs, fall_pct = int(low["bs_bytes"]), float(100 * (1 - low["mb_per_s"] / peak))
        if pd.notna(plateau):
            if pd.notna(fall_bs):
                best = format_bytes(int(peak_row["bs_bytes"]))
                if plateau == int(peak_row["bs_bytes"]):
                    note = f"bandwidth peaks at {best} blocks ({peak:,.0f} MB/s) and falls past it"
                else:
                    note += f", and falls past its best block size ({best})"
                note += (f": {format_bytes(fall_bs)} blocks are {fall_pct:.0f} % below the peak "
                         f"({float(low['mb_per_s']):,.0f} MB/s).")
            else:
                note += f"; larger blocks add at most {1 / fraction - 1:.0%}."
        rows.append({"series": name, "rw": first["rw"], "direction": first["direction"],
                     "iodepth": int(first["iodepth"]), "peak_mb_per_s": float(peak),
                     "peak_bs_bytes": int(peak_row["bs_bytes"]), "plateau_bs_bytes": plateau,
                     "plateau_mb_per_s": plateau_mb, "fall_bs_bytes": fall_bs, "fall_pct": fall_pct, "note": note})
    out = pd.DataFrame(rows, columns=cols)
    out["fall_bs_bytes"] = out["fall_bs_bytes"].astype("Int64")
    out["plateau_bs_bytes"] = out["plateau_bs_bytes"].astype("Int64")
    out["peak_bs_bytes"] = out["peak_bs_bytes"].astype("Int64")
    return out
