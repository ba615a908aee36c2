"""make export (issue 22.11): one workbook per run -- every result column, the per-view tables and the run's
summary, numbers as numbers, units in the headers, the flag sentences in a column -- or a folder of CSVs."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.notebook import runs
from helpers.report import workbook


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("workbook")
    run = runs.ensure_sample(tmp / "processed", "sample-quick-vm")
    return tmp, run


def test_xlsx_has_a_sheet_per_table_with_numbers_as_numbers_and_units_in_headers(sample):
    import openpyxl

    tmp, run = sample
    out = workbook.export_run(run, "xlsx", tmp / "processed", reports_dir=tmp / "reports", raw_dirs=[tmp])
    assert out == tmp / "reports" / run / f"{run}-data.xlsx"
    sheets = pd.read_excel(out, sheet_name=None)
    assert {"run", "results", "device card", "queue depth", "knee", "validity flags"} <= set(sheets)
    # the other pages' tables where the run has data for them (a quick run: the queue-depth page's SLO capacity
    # and linear region; not the sweep-modes, sustained-write or PTS pages', which say so in one sentence)
    assert {"slo capacity", "linear region"} <= set(sheets) and not {"searches", "pts iops", "write cliff"} & set(sheets)
    assert len(sheets["slo capacity"]) == len(workbook.analysis.slo_table(runs.load_results(run, tmp / "processed").results))
    data = runs.load_results(run, tmp / "processed")
    res = sheets["results"]
    assert len(res) == len(data.results) and res.shape[1] == data.results.shape[1]  # every column
    assert {"IOPS", "p99 total latency (µs)", "bandwidth (bytes/s)", "block size (bytes)", "flags"} <= set(res.columns)
    assert res["IOPS"].tolist() == pytest.approx(data.results["iops"].astype(float).tolist(), rel=1e-12)
    ws = openpyxl.load_workbook(out)["results"]
    iops_col = [c.value for c in ws[1]].index("IOPS") + 1
    assert ws.cell(row=2, column=iops_col).data_type == "n"  # a number Excel can sum, not text
    flags = res["flags"].dropna()
    assert len(flags) and flags.str.len().max() > 10  # the flag sentences, in their column
    summary = dict(zip(sheets["run"]["what"], sheets["run"]["value"]))
    assert summary["run"] == run and "fio version" in summary
    index = (tmp / "reports" / "index.html").read_text()
    assert f'href="{run}/{run}-data.xlsx">⤓ workbook (Excel)</a>' in index


def test_csv_format_is_a_folder_of_tables(sample):
    tmp, run = sample
    out = workbook.export_run(run, "csv", tmp / "processed", reports_dir=tmp / "csvreports", raw_dirs=[tmp])
    assert out.is_dir() and (out / "results.csv").exists() and (out / "device-card.csv").exists()
    res = pd.read_csv(out / "results.csv")
    assert "IOPS" in res.columns and pd.api.types.is_float_dtype(res["IOPS"])


def test_unknown_format_is_one_sentence(sample, capsys):
    tmp, run = sample
    assert workbook.main(["--run", run, "--format", "ods", "--processed-dir", str(tmp / "processed")]) == 2
    assert "FORMAT must be one of xlsx, csv" in capsys.readouterr().err
