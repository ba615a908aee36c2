import pandas as pd
import pytest

from figdata import rows
from helpers import analysis, figures
from helpers.processed.specs import load_drive_specs


def two_runs():
    return pd.concat([rows([{"run_id": r, "rw": "randwrite", "direction": "write", "iops": i}])
                      for r, i in (("a", 65000.0), ("b", 13000.0))], ignore_index=True)


def test_spec_file_has_the_course_p5600_with_a_source():
    specs = load_drive_specs()
    p = specs[(specs["model"] == "D7-P5600") & (specs["capacity"] == "1.6 TB")].iloc[0]
    assert p["rand_write_4k_iops"] == 130000 and "course brief" in p["source"]
    assert specs["source"].notna().all()


def test_measured_over_spec_ratio(tmp_path):
    path = tmp_path / "drives.csv"  # the P5600 course figure with the queue depth it was measured at
    path.write_text("vendor,model,capacity,rand_write_4k_iops,rand_qd,source\n"
                    "Intel,D7-P5600,1.6 TB,130000,1,course brief\n")
    t = analysis.spec_comparison(two_runs(), load_drive_specs(path))
    row = t[(t["drive"] == "Intel D7-P5600 1.6 TB") & (t["run_id"] == "a")].iloc[0]
    assert row["metric"] == "4k random write IOPS" and row["ratio"] == pytest.approx(0.5)
    fig = figures.spec_table_figure(t)
    assert fig.data[0].type == "table" and "0.50×" in fig.data[0].cells.values[5]
    assert figures.ratio_figure(t).layout.yaxis.type == "log"


def test_runs_side_by_side_and_single_run_message():
    fig = figures.run_metrics_figure(analysis.run_metrics(two_runs()))
    bars = [t for t in fig.data if t.type == "bar"]
    assert list(bars[0].x) == ["a", "b"]
    one = figures.run_metrics_figure(analysis.run_metrics(rows([{}])))
    assert not one.data and "two or more runs" in one.layout.annotations[0].text
