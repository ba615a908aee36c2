"""Run-comparison explorer (helpers.notebook.explorer.CompareExplorer): base / new run pickers and a metric
dropdown drive the forest plot and the table of analysis.compare_runs; one sentence with a single run; the
displayed outputs carry a plotly figure and an HTML table for an exported page, not only widgets."""

from __future__ import annotations

import pandas as pd
import pytest

from figdata import rows
from helpers.analysis import runpair
from helpers.notebook import explorer
from helpers.report.export import PLOTLY_MIME, export_html, plotly_outputs_to_html, static_outputs

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
QD4 = {"rw": "randread", "direction": "read", "bs_bytes": 4096, "iodepth": 4}


T0 = 1_763_900_000  # fio timestamps: the three runs' repeats interleaved in time (A r0, B r0, C r0, A r1, ...),
# so the comparison knows drift hit them alike (analysis.runpair: drift "interleaved")


def repeats(run: str, iops: list[float], lat: list[float], **cfg) -> list[dict]:
    slot = "ABC".index(run) + (0 if cfg["iodepth"] == 4 else 10)
    return [{"run_id": run, "point_id": f"p-r{i}", "source_file": f"{run}-{cfg['iodepth']}-r{i}.json", "iops": x,
             "lat_mean_us": m, "total_ios": int(x), "timestamp_s": T0 + 20 * i + 2 * slot, **cfg}
            for i, (x, m) in enumerate(zip(iops, lat))]


@pytest.fixture
def runs() -> pd.DataFrame:
    """A: base; B: 20 % fewer IOPS at QD 4 (slower), the same at QD 16; C: like A (within noise)."""
    qd16 = {**QD4, "iodepth": 16}
    return rows(repeats("A", [1000, 1010, 990], [100, 99, 101], **QD4) + repeats("A", [3000, 3100, 2900], [300] * 3, **qd16)
                + repeats("B", [800, 808, 792], [125, 124, 126], **QD4) + repeats("B", [3050, 2950, 3000], [300] * 3, **qd16)
                + repeats("C", [1005, 995, 1000], [100, 101, 99], **QD4) + repeats("C", [3000, 3050, 2950], [300] * 3, **qd16))


def test_pickers_and_metric_dropdown_drive_the_forest_plot_and_table(runs):
    view = explorer.compare_explorer(runs, None, ["A", "B", "C"])
    assert isinstance(view, explorer.CompareExplorer)
    assert view.base.value == ("A",) and view.new.value == ("B",) and view.metric.value == "iops"
    assert list(view.metric.options) == [("IOPS", "iops"), ("bandwidth", "bw"), ("mean total latency", "lat_mean")]
    names = {t.name: t for t in view.figure.data}
    assert set(names) == {"slower", "within noise"} and list(names["slower"].y) == ["4k randread QD4"]
    assert names["slower"].x[0] == pytest.approx(-20.0)
    want = runpair.compare_runs(runpair.repeat_samples(runs), "A", "B", metrics=["iops"])
    assert view.comparison.summary == want.summary and view.comparison.summary in view.info.value
    assert "4k randread QD4" in view.table.value and "slower" in view.table.value

    view.select(metric="lat_mean")
    assert "mean total latency" in view.figure.layout.title.text
    assert [t.name for t in view.figure.data] == ["slower", "within noise"]
    assert view.figure.data[0].x[0] == pytest.approx(25.0)  # latency up 25 %: slower

    view.select(new="C", metric="iops")
    assert [t.name for t in view.figure.data] == ["within noise"] and "C (new) vs A (base)" in view.figure.layout.title.text

    view.select(base=["A", "C"], new="B")  # a group against one run: their repeats are pooled (compare_runs)
    assert view.comparison.base == ["A", "C"] and set(view.comparison.table["n_base"]) == {6}
    assert "A; C → B" in view.info.value

    view.select(base=["A", "B"])  # B on both sides
    assert view.comparison is None and "none on both sides" in view.figure.layout.annotations[0].text
    assert "No point was measured" in view.table.value


def test_one_run_is_one_sentence(runs):
    fig = explorer.compare_explorer(runs[runs["run_id"] == "A"], None, ["A"])
    text = fig.layout.annotations[0].text
    assert not fig.data and text.startswith("Comparing needs two or more runs") and "this report has 1 (A)" in text
    assert text.endswith(".") and text.replace("e.g. ", "").count(". ") == 0  # one sentence


def test_displayed_outputs_carry_a_plotly_figure_and_a_table_for_an_exported_page(runs, monkeypatch, tmp_path):
    import nbformat

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append(obj))
    view = explorer.compare_explorer(runs, None, ["A", "B"])
    view._ipython_display_()
    figure, table = shown
    assert WIDGET_MIME in figure and WIDGET_MIME in table  # JupyterLab draws the live widgets
    assert [t["name"] for t in figure[PLOTLY_MIME]["data"]] == [t.name for t in view.figure.data]
    assert table["text/html"] == view.table.value
    # an executed notebook as papermill saves it (widget state in the metadata), then a widget-only output
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")], metadata={"widgets": {"state": "MBs"}})
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data=b) for b in (figure, table)] + [
        nbformat.v4.new_output("display_data", data=view.base._repr_mimebundle_())]
    executed = tmp_path / "90-explorer.ipynb"
    nbformat.write(nb, executed)
    page = export_html(executed, tmp_path / "reports" / "run" / "explorer.html").read_text()
    # the exported page: the forest plot as a plotly div, the table as HTML, a sentence for the widget
    assert page.count("Plotly.newPlot") == 1 and "slower" in page and "4k randread QD4" in page
    assert WIDGET_MIME not in page and "MBs" not in page and "An interactive widget" in page
    # the steps: widget views give way to the static copies, then plotly JSON becomes a plotly div
    again = nbformat.read(executed, as_version=4)
    assert static_outputs(again) == 3 and plotly_outputs_to_html(again) == 1
    assert [set(o["data"]) for o in again.cells[0].outputs] == [{"text/html", "text/plain"}] * 3


def test_history_measures_the_drift_between_runs_back_to_back(runs):
    """Runs one after the other (not interleaved): without other runs of the points the explorer can only say
    "drift not measured"; given a history of runs, as the 16-compare page has, it measures the drift and calls
    the 20 % drop slower, like run_comparison with the same history."""
    back_to_back = runs.copy()
    back_to_back["timestamp_s"] = back_to_back["timestamp_s"] + back_to_back["run_id"].map({"A": 0, "B": 1000, "C": 2000})
    alone = explorer.compare_explorer(back_to_back, None, ["A", "B"])
    assert "drift not measured" in set(alone.comparison.table["verdict"])
    hist = pd.concat([back_to_back[back_to_back["run_id"] == "A"].assign(run_id=h, timestamp_s=lambda d, k=k: d["timestamp_s"] - k)
                      for k, h in ((5000, "H1"), (4000, "H2"), (3000, "H3"))])
    view = explorer.compare_explorer(back_to_back, None, ["A", "B"], history_results=hist, history_note="History: 3 runs.")
    want = runpair.run_comparison(back_to_back, None, ["A", "B"], metrics=["iops"], history_results=hist)
    t = view.comparison.table.set_index("point")
    assert t.loc["4k randread QD4", "verdict"] == "slower" and t.loc["4k randread QD4", "drift"] == "history"
    assert view.comparison.summary == want.summary
    assert "History: 3 runs." in view.info.value and view.comparison.drift_summary.split()[0] in view.info.value
