"""One workbook per run: every result column, the per-view tables and the run's summary, to take elsewhere.

    make export RUN=<run> [FORMAT=xlsx|csv]
    python -m helpers.report.workbook --run <run> [--format xlsx|csv] [--processed-dir D] [--reports-dir R]

``xlsx`` writes ``reports/<run>/<run>-data.xlsx`` (openpyxl through pandas: a sheet per table, numbers as
numbers, headers with their unit, the validity flags' sentences in a column); ``csv`` writes the folder
``reports/<run>/<run>-data/`` with one CSV per table.  Values are as stored and computed (full precision):
bandwidth in bytes/s, block sizes in bytes, latency in µs, each header says which.  The run's index entry
links the export (``reports/index.html`` is rebuilt).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from helpers import analysis, config
from helpers.analysis import pts
from helpers.analysis.blocksize import PAGE_COLUMNS as BS_COLUMNS
from helpers.analysis.card import device_identity
from helpers.analysis.mix import PAGE_COLUMNS as MIX_COLUMNS
from helpers.errors import LabError
from helpers.figures.table import csv_table
from helpers.load import runs
from helpers.report.export import WORKBOOK_SUFFIX, build_index
from helpers.run.options import ArgumentParser

FORMATS = ("xlsx", "csv")
SHEET_CHARS = 31  # Excel's limit on a sheet name


def run_summary(data: runs.RunData) -> pd.DataFrame:
    """The run's manifest summary as (what, value) rows: device, target, host, software, profile, dates, points,
    rows and flagged rows."""
    m = data.manifest
    ident = device_identity(m, data.health) if m else {"run": "no manifest found for this run"}
    s = data.summary.iloc[0] if len(data.summary) else pd.Series(dtype=object)
    points = m.get("points", {}) if m else {}
    extra = {"run": data.run_ids[0], "status": str(m.get("status", "unknown")) if m else "unknown",
             "points (ok / planned)": f"{sum(v.get('status') == 'ok' for v in points.values())} / {len(points)}",
             "result rows": int(s.get("rows", len(data.results))), "flagged rows": int(s.get("flagged_rows", 0)),
             "quarantined files": int(s.get("quarantined", 0))}
    rows = {**extra, **ident}
    return pd.DataFrame({"what": list(rows), "value": [str(v) for v in rows.values()]})


def run_tables(data: runs.RunData) -> dict[str, pd.DataFrame]:
    """Every table of the run's pages, computed as the pages compute them, by sheet name (page order)."""
    r = data.results
    qd_points = analysis.qd_series(r)
    bs = analysis.blocksize_series(r)
    card = analysis.device_card(r, manifest=data.manifest, timeseries=data.timeseries, health=data.health,
                                histograms=data.histograms)
    tables = {
        "run": run_summary(data),
        "results": r,
        "device card": card.table().reset_index(),
        "queue depth": analysis.qd_table(r),
        "knee": analysis.knee_table(qd_points),
        "littles law": analysis.littles_law(r),
        "usl": analysis.usl_table(qd_points),
        "block size": _page_columns(bs, BS_COLUMNS),  # the pages' tables, not every results column
        "bandwidth plateau": analysis.bandwidth_plateau(bs),
        "read-write mix": _page_columns(analysis.mix_series(r), MIX_COLUMNS),
        "percentiles": analysis.percentiles_long(r),
        "consistency": analysis.consistency_table(analysis.consistency(data.timeseries), r),
        "validity flags": analysis.flag_table(r),
    }
    # the tables of the pages of other sweep modes (queue-depth SLO and linear region, sweep modes, sustained
    # write, PTS): a sheet each where the run has data for it (the page then says in one sentence it has none)
    steady = analysis.first_steady_state_run(data.manifests)
    run = pts.pts_run(data.manifests)
    optional = {
        "slo capacity": lambda: analysis.slo_table(r),  # at the queue-depth page's default SLO
        "linear region": lambda: analysis.linear_region_table(qd_points),
        "write cliff": lambda: analysis.sustained_write_cliffs(analysis.point_series(data.timeseries), r),
        "searches": lambda: analysis.search_table(data.manifests),
        "characterize phases": lambda: analysis.characterize_phase_table(data.manifests),
        "open loop": lambda: analysis.openloop_table(r),
        "slo search check": lambda: analysis.slo_cross_check(data.manifests),
        "hosts": lambda: analysis.host_table(analysis.multi_host_rows(analysis.label_hosts(r, data.manifests))),
        "steady-state rounds": lambda: steady.rounds,
        "pts steady state": lambda: pts.steady_table(run),
        "pts iops": lambda: pts.iops_table(r, run),
        "pts throughput": lambda: pts.tp_table(r, run),
        "pts latency": lambda: pts.lat_table(r, data.histograms, run),
    }
    for name, make in optional.items():
        df = make()
        if df is not None and len(df):
            tables[name] = df
    if data.left_out is not None and len(data.left_out):
        tables["rows left out"] = data.left_out
    return tables


def _page_columns(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``df``'s columns the page shows (those present), in its order."""
    return df[[c for c in columns if c in df.columns]]


def _unique(headers: list[str], columns: list[str]) -> list[str]:
    """Headers made unique (a repeated one gets its column name: 'block size (bs_label)')."""
    seen = pd.Series(headers).duplicated(keep=False).tolist()
    return [f"{h} ({c})" if dup else h for h, c, dup in zip(headers, columns, seen)]


def sheet_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` at full precision with unit-bearing headers (:func:`helpers.figures.table.csv_table`), unique."""
    flat = df.reset_index() if any(n is not None for n in df.index.names) else df
    out = csv_table(flat)
    cols = [c for c in flat.columns if c != "percentile_latency"]
    out.columns = _unique([str(c) for c in out.columns], [str(c) for c in cols])
    return out.reset_index(drop=True)


def write_workbook(data: runs.RunData, out_dir: Path, fmt: str = "xlsx") -> Path:
    """Write the run's tables into ``out_dir`` as ``<run>-data.xlsx`` or the folder ``<run>-data/``; the path."""
    if fmt not in FORMATS:
        raise LabError(f"FORMAT must be one of {', '.join(FORMATS)} (got {fmt!r}).")
    run = data.run_ids[0]
    base = Path(out_dir) / f"{run}{WORKBOOK_SUFFIX}"
    frames = {name: sheet_frame(df) for name, df in run_tables(data).items()}
    if fmt == "csv":
        base.mkdir(parents=True, exist_ok=True)
        for name, df in frames.items():
            df.to_csv(base / f"{re.sub(r'[^a-z0-9]+', '-', name)}.csv", index=False)
        return base
    out = base.with_name(base.name + ".xlsx")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with pd.ExcelWriter(tmp, engine="openpyxl") as xl:
        for name, df in frames.items():
            df.to_excel(xl, sheet_name=name[:SHEET_CHARS], index=False)
    tmp.replace(out)
    return out


def export_run(run_id: str, fmt: str = "xlsx", processed_dir: str | Path = "",
               reports_dir: Path = config.REPORTS_DIR, raw_dirs: list[Path] | None = None) -> Path:
    """``make export``: the run's workbook in ``reports_dir/<run>/``, linked from the rebuilt index."""
    data = runs.load_results(run_id or "latest", processed_dir)
    if len(data.run_ids) != 1:
        raise LabError(f"make export takes one run (got {', '.join(data.run_ids)}).")
    out = write_workbook(data, Path(reports_dir) / data.run_ids[0], fmt)
    build_index(reports_dir, raw_dirs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m helpers.report.workbook", description=__doc__.splitlines()[0])
    ap.add_argument("--run", dest="run_id", default="", help="run id (default: the newest processed run)")
    ap.add_argument("--format", default="xlsx", help="xlsx (one workbook, a sheet per table) or csv (a folder)")
    ap.add_argument("--processed-dir", default="", help="processed dataset folder (default data/processed)")
    args = ap.parse_args(argv)
    try:
        out = export_run(args.run_id, (args.format or "xlsx").lower(), args.processed_dir)
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"export: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
