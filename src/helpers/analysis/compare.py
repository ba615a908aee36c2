"""Compare runs (devices, settings) and a run against reference spec sheets."""

from __future__ import annotations

import pandas as pd

from helpers.analysis.card import device_card

# card metric -> spec column of helpers/specs/drives.csv
SPEC_FOR_METRIC: dict[str, str] = {
    "Peak 4k random read IOPS": "rand_read_4k_iops",
    "Peak 4k random write IOPS": "rand_write_4k_iops",
    "Peak sequential read bandwidth": "seq_read_mb_per_s",
    "Peak sequential write bandwidth": "seq_write_mb_per_s",
}


def run_metrics(df: pd.DataFrame) -> pd.DataFrame:
    """The device-card metrics of every run side by side: one row per (run, metric)."""
    rows = []
    for run in list(dict.fromkeys(df["run_id"])):
        card = device_card(df[df["run_id"] == run])
        for m in card.metrics:
            rows.append({"run_id": run, "metric": m.name, "value": m.value, "unit": m.unit,
                         "measured_at": m.detail, "flag_reasons": m.flag_reasons})
    return pd.DataFrame(rows, columns=["run_id", "metric", "value", "unit", "measured_at", "flag_reasons"])


def spec_comparison(df: pd.DataFrame, specs: pd.DataFrame) -> pd.DataFrame:
    """Measured peak of each run against every reference drive: one row per (run, drive, metric)
    where the spec gives a figure, with ``ratio`` = measured / spec and the spec's ``source``."""
    cols = ["run_id", "drive", "metric", "measured", "spec", "unit", "ratio", "measured_at", "source", "note"]
    if df.empty or specs.empty:
        return pd.DataFrame(columns=cols)
    measured = run_metrics(df)
    rows = []
    for _, d in specs.iterrows():
        drive = " ".join(str(d[k]).strip() for k in ("vendor", "model", "capacity")
                         if k in d.index and pd.notna(d[k]) and str(d[k]).strip())
        for metric, col in SPEC_FOR_METRIC.items():
            spec = d.get(col)
            if spec is None or pd.isna(spec):
                continue
            for _, m in measured[measured["metric"] == metric].iterrows():
                value = m["value"]
                ratio = value / spec if value is not None and pd.notna(value) and spec else float("nan")
                rows.append({"run_id": m["run_id"], "drive": drive, "metric": metric,
                             "measured": value, "spec": float(spec), "unit": m["unit"], "ratio": ratio,
                             "measured_at": m["measured_at"], "source": d.get("source", ""),
                             "note": "" if pd.isna(d.get("note", "")) else d.get("note", "")})
    return pd.DataFrame(rows, columns=cols)


def common_points(df: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """Rows whose workload (rw, direction, bs, QD, jobs, mix) was measured in every run of ``df``."""
    keys = keys or ["rw", "direction", "bs_bytes", "iodepth", "numjobs", "rwmixread_pct"]
    runs = df["run_id"].nunique()
    n = df.groupby(keys, dropna=False)["run_id"].transform("nunique")
    return df[n == runs].reset_index(drop=True)
