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
    assert figures.ratio_figure(t).layout.yaxis.type == "log"


def test_runs_side_by_side_and_single_run_message():
    fig = figures.run_metrics_figure(analysis.run_metrics(two_runs()))
    bars = [t for t in fig.data if t.type == "bar"]
    assert list(bars[0].x) == ["a", "b"]
    one = figures.run_metrics_figure(analysis.run_metrics(rows([{}])))  # one run: its own numbers
    assert [list(t.x) for t in one.data if t.type == "bar"][0] == [rows([{}])["run_id"].iloc[0]]
    none = figures.run_metrics_figure(analysis.run_metrics(rows([{}]).iloc[:0]))
    assert not none.data and none.layout.annotations[0].text == "No run has a headline number to show."


def forest_runs(gap_s: int) -> pd.DataFrame:
    """Runs a and b of QD1 and QD4 (b 20 % slower at QD4), three repeats each; b's repeats end ``gap_s``
    after a's (1: interleaved in time, 10: back to back)."""
    return rows([{"run_id": run, "source_file": f"{run}{i}.json", "iodepth": qd, "iops": x * (1 + 0.01 * i),
                  "lat_mean_us": 1e6 / x, "timestamp_s": 1_795_000_000 + 2 * i + (gap_s if run == "b" else 0)}
                 for run, scale in (("a", 1.0), ("b", 0.8)) for qd in (1, 4) for i in range(3)
                 for x in [1000.0 * qd * (scale if qd == 4 else 1.0)]])


def test_forest_figure_one_row_per_point_and_a_panel_per_metric():
    res = forest_runs(gap_s=1)
    c = analysis.compare_runs(analysis.repeat_samples(res), "a", "b", metrics=["iops", "lat_mean"])
    fig = figures.forest_figure(c.table, c.summary)
    assert [a.text for a in fig.layout.annotations] == ["IOPS", "mean total latency"]
    slower = [t for t in fig.data if t.name == "slower"]
    assert slower and set(slower[0].y) == {"4k randread QD4"} and slower[0].x[0] == pytest.approx(-20.0)
    assert "change, new vs base (%)" in fig.layout.xaxis.title.text
    assert set(fig.layout.yaxis.categoryarray) == {"4k randread QD1", "4k randread QD4"}
    assert fig.layout.shapes and fig.layout.shapes[0].x0 == 0  # the no-change line
    empty = figures.forest_figure(analysis.run_comparison(res, None, ["a"]).table, "needs a second run")
    assert not empty.data and empty.layout.annotations[0].text == "needs a second run"


def test_forest_figure_marks_changes_that_drift_may_explain():
    res = forest_runs(gap_s=10)  # back to back, no history: the -20 % is not called slower
    c = analysis.compare_runs(analysis.repeat_samples(res), "a", "b", metrics=["iops"])
    fig = figures.forest_figure(c.table, c.summary)
    assert not [t for t in fig.data if t.name == "slower"]
    unproven = [t for t in fig.data if t.name == "drift not measured"]
    assert unproven and set(unproven[0].y) == {"4k randread QD4"} and unproven[0].marker.symbol == "diamond-open"
    assert "run-to-run drift was not measured" in c.summary


def test_a_headline_no_run_measured_says_why_in_its_panel():
    """Issue 22.8: on a smoke run's compare page 'Sequential write bandwidth', 'p99 at the knee' and 'Throughput
    stops growing beyond' were empty axes; now the panel says why (the card's own sentence) and draws no axis."""
    one = rows([{"rw": "randread", "iodepth": q, "iops": 1000.0 * q} for q in (1, 4)])
    fig = figures.run_metrics_figure(analysis.run_metrics(one))
    empty = analysis.run_metrics(one).groupby("metric", sort=False)["value"].apply(lambda v: v.isna().all())
    assert empty.any() and not empty.all()
    notes = [a.text for a in fig.layout.annotations if "domain" in str(a.xref)]
    assert len(notes) == int(empty.sum()) and all(notes) and "not measured" in " ".join(notes)
