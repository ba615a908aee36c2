"""Interactive explorer for JupyterLab: ipywidgets sliders (queue depth, block size) and an operation
dropdown driving a plotly FigureWidget live; the time inside a point; two runs (or groups of runs)
compared point by point.  Widgets need a kernel: static reports use plotly sliders, and the comparison
carries its figure and table as static outputs too (an exported page shows those, not the widgets)."""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from helpers.analysis.runpair import (
    METRICS,
    RunComparison,
    compare_runs,
    comparison_samples,
    history_samples,
    needs_runs_message,
)
from helpers.analysis.timeseries import consistency, point_series
from helpers.figures.common import (
    IOPS_AXIS,
    MB_AXIS,
    TEMPLATE,
    bs_axis,
    flag_symbols,
    log2_axis,
    message_figure,
)
from helpers.figures.compare import forest_figure
from helpers.figures.timeseries import NO_LOGS, timeseries_figure
from helpers.fio.units import format_bytes
from helpers.notebook import page


def _figure_class():
    try:
        go.FigureWidget()
        return go.FigureWidget
    except ImportError:  # plotly >= 6 needs anywidget for FigureWidget
        return None


class Explorer:
    """Widgets + figure; ``select(operation, qd, bs)`` is what the widgets call (and tests)."""

    def __init__(self, points: pd.DataFrame):
        import ipywidgets as w

        self.points = points
        ops = list(dict.fromkeys(points["operation"]))
        first = start_operation(points)
        label = {"style": {"description_width": "initial"}}  # never clip "Queue depth" / "Block size"
        self.op = w.Dropdown(options=ops, value=first, description="Operation", layout=w.Layout(width="auto"),
                             **label)
        self.qd = w.SelectionSlider(options=[1], description="Queue depth", continuous_update=False,
                                    layout=w.Layout(width="330px"), **label)
        self.bs = w.SelectionSlider(options=[("4k", 4096)], description="Block size", continuous_update=False,
                                    layout=w.Layout(width="330px"), **label)
        self.info = w.HTML()
        cls = _figure_class()
        fig = self._empty()
        self.figure = cls(fig) if cls else fig
        self.output = None if cls else w.Output()
        self._busy = False
        self._options(first)
        self.op.observe(self._on_op, names="value")
        self.qd.observe(self._on_change, names="value")
        self.bs.observe(self._on_change, names="value")
        self.widget = w.VBox([w.HBox([self.op, self.qd, self.bs], layout=w.Layout(flex_flow="row wrap")), self.info,
                              self.figure if cls else self.output])
        self.redraw()

    @staticmethod
    def _empty() -> go.Figure:
        fig = make_subplots(rows=1, cols=2, subplot_titles=("IOPS vs queue depth", "MB/s vs block size"),
                            horizontal_spacing=0.14)
        for col in (1, 2):
            fig.add_trace(go.Scatter(mode="lines+markers", name="measured", showlegend=col == 1,
                                     line={"color": "#1f77b4"}), 1, col)
            fig.add_trace(go.Scatter(mode="markers", name="selected point", showlegend=col == 1,
                                     marker={"size": 16, "color": "#d62728", "symbol": "circle-open",
                                             "line": {"width": 3}}), 1, col)
        fig.update_xaxes(title_text="Queue depth (iodepth, log2 axis)", type="log", row=1, col=1)
        fig.update_xaxes(title_text="Block size (binary: 4k = 4096 bytes, log2 axis)", type="log", row=1, col=2)
        fig.update_yaxes(title_text=IOPS_AXIS, rangemode="tozero", row=1, col=1)
        fig.update_yaxes(title_text=MB_AXIS, rangemode="tozero", row=1, col=2)
        fig.update_layout(template=TEMPLATE, height=500, legend={"orientation": "h", "y": -0.3},
                          margin={"l": 80, "r": 30, "t": 80, "b": 130})
        return fig

    def _options(self, op: str) -> None:
        d = self.points[self.points["operation"] == op]
        self._busy = True
        qds = sorted(int(q) for q in d["iodepth"].unique())
        sizes = sorted(int(b) for b in d["bs_bytes"].unique())
        self.qd.options = qds
        self.bs.options = [(format_bytes(b), b) for b in sizes]
        self.qd.value = qds[len(qds) // 2]
        # the block size with the most queue depths, so the IOPS-vs-QD plot opens on a curve
        per_bs = d.groupby("bs_bytes")["iodepth"].nunique()
        self.bs.value = int(per_bs[per_bs == per_bs.max()].index.min())
        self._busy = False

    def _on_op(self, change) -> None:
        self._options(change["new"])
        self.redraw()

    def _on_change(self, _change) -> None:
        if not self._busy:
            self.redraw()

    def select(self, operation: str | None = None, qd: int | None = None, bs: int | None = None) -> None:
        if operation is not None and operation != self.op.value:
            self.op.value = operation
        if qd is not None:
            self.qd.value = qd
        if bs is not None:
            self.bs.value = bs

    def redraw(self) -> None:
        op, qd, bs = self.op.value, self.qd.value, self.bs.value
        d = self.points[self.points["operation"] == op]
        agg = {"iops": ("iops", "mean"), "mb_per_s": ("mb_per_s", "mean"), "flagged": ("flagged", "any")}
        by_qd = d[d["bs_bytes"] == bs].groupby("iodepth", as_index=False).agg(**agg)
        by_bs = d[d["iodepth"] == qd].groupby("bs_bytes", as_index=False).agg(**agg)
        here = d[(d["iodepth"] == qd) & (d["bs_bytes"] == bs)]
        fig = self.figure
        with fig.batch_update() if hasattr(fig, "batch_update") else _nullcontext():
            fig.data[0].x, fig.data[0].y = by_qd["iodepth"].tolist(), by_qd["iops"].tolist()
            fig.data[2].x, fig.data[2].y = by_bs["bs_bytes"].tolist(), by_bs["mb_per_s"].tolist()
            # flagged points are crosses, as on the report pages (issue 34.8)
            fig.data[0].marker.symbol = flag_symbols(by_qd["flagged"])
            fig.data[2].marker.symbol = flag_symbols(by_bs["flagged"])
            fig.data[1].x, fig.data[1].y = ([qd], [here["iops"].mean()]) if len(here) else ([], [])
            fig.data[3].x, fig.data[3].y = ([bs], [here["mb_per_s"].mean()]) if len(here) else ([], [])
            if len(by_qd):
                fig.update_xaxes(**log2_axis(by_qd["iodepth"]), row=1, col=1)
            if len(by_bs):
                fig.update_xaxes(**bs_axis(by_bs["bs_bytes"]), row=1, col=2)
            fig.update_layout(title=f"{op}: {format_bytes(bs)} blocks at QD {qd} (crosses: flagged points)")
        if len(here):
            r = here.iloc[0]
            flag = f" <b>⚠ flagged:</b> {r['flag_reasons']}" if r["flag_reasons"] else ""
            p99 = r.get("p99_us")
            tail = (f", p99 {r.get('percentile_latency') or 'latency'} {p99:,.1f} µs"
                    if p99 is not None and pd.notna(p99) else "")
            self.info.value = (f"<b>{op} {format_bytes(bs)} QD {qd}</b>: {r['iops']:,.0f} IOPS, "
                               f"{r['mb_per_s']:,.1f} MB/s ({r['mib_per_s']:,.1f} MiB/s), mean total latency "
                               f"{r['lat_mean_us']:,.1f} µs{tail}{flag}")
        else:
            self.info.value = f"{op} was not measured with {format_bytes(bs)} blocks at QD {qd} in this run."
        if self.output is not None:
            self.output.clear_output(wait=True)
            with self.output:
                fig.show()


class _FigureArea:
    """A figure that each selection redraws with a NEW figure from a figure builder: a box holding a plotly
    FigureWidget of the figure, replaced by a new one each time (JupyterLab draws a new widget from its full
    state; replacing the traces and layout of one FigureWidget left the title out after Plotly.relayout), or,
    without anywidget, an Output widget the figure is shown in.  Not an Output widget when avoidable:
    executing the notebook headless (papermill/nbclient), a cell capturing into an Output widget after a cell
    showing a FigureWidget hung in 3 of 8 runs here; FigureWidget after FigureWidget in none of 8."""

    def __init__(self):
        import ipywidgets as w

        self._cls = _figure_class()
        self.widget = w.Box() if self._cls else w.Output()
        self.figure: go.Figure | None = None

    def show(self, fig: go.Figure) -> None:
        if self._cls:
            old = self.widget.children
            self.figure = self._cls(fig)
            self.widget.children = (self.figure,)
            for child in old:
                child.close()
            return
        self.figure = fig
        self.widget.clear_output(wait=True)
        with self.widget:
            fig.show()


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def start_operation(points: pd.DataFrame) -> str:
    """The operation the explorer opens on: the one measured at the most queue depths (at one block size),
    first in the run's order on a tie."""
    ops = list(dict.fromkeys(points["operation"]))
    depth = points.groupby(["operation", "bs_bytes"])["iodepth"].nunique().groupby(level=0).max()
    return max(ops, key=lambda op: (int(depth.get(op, 0)), -ops.index(op)))


def explorer(points: pd.DataFrame):
    """The explorer widget for ``points`` (output of :func:`helpers.analysis.distribution`), or a
    one-sentence figure when there is nothing to explore."""
    if points.empty:
        return message_figure("This run has no data points to explore.")
    return Explorer(points).widget


class TimeseriesExplorer:
    """Time inside a point: a point dropdown and a stall-threshold slider; the figure shows the point's IOPS
    and latency over time (and the device temperature with the runs' ``health`` rows, else ``health_note``)
    and the text its consistency summary (recomputed for the threshold)."""

    def __init__(self, ts: pd.DataFrame, health: pd.DataFrame | None = None, health_note: str = ""):
        import ipywidgets as w

        self.ts, self.health, self.health_note = ts, health, health_note
        self.series = point_series(ts)
        keys = self.series[["run_id", "point_id", "source_file"]].drop_duplicates()
        multi = keys["run_id"].nunique() > 1
        self._keys = {(f"{r.run_id}: {r.point_id}" if multi else str(r.point_id)): (r.run_id, r.source_file)
                      for r in keys.itertuples()}
        labels = list(self._keys)
        # open on a point that has IOPS windows to draw, not simply the first one
        with_iops = self.series[self.series["iops"].notna()][["run_id", "source_file"]].drop_duplicates()
        drawable = {(r.run_id, r.source_file) for r in with_iops.itertuples()}
        first = next((k for k, v in self._keys.items() if v in drawable), labels[0])
        self.point = w.Dropdown(options=labels, value=first, description="Point")
        self.stall = w.FloatSlider(value=0.5, min=0.1, max=0.9, step=0.05, description="Stall below",
                                   readout_format=".0%", continuous_update=False)
        self.info = w.HTML()
        self.area = _FigureArea()
        self.point.observe(lambda _c: self.redraw(), names="value")
        self.stall.observe(lambda _c: self.redraw(), names="value")
        self.widget = w.VBox([w.HBox([self.point, self.stall]), self.info, self.area.widget])
        self.redraw()

    @property
    def figure(self) -> go.Figure | None:
        return self.area.figure

    def select(self, label: str | None = None, stall_fraction: float | None = None) -> None:
        if label is not None:
            self.point.value = label
        if stall_fraction is not None:
            self.stall.value = stall_fraction

    def redraw(self) -> None:
        run, source = self._keys[self.point.value]
        pick = (self.ts["run_id"] == run) & (self.ts["source_file"] == source)
        ts = self.ts[pick]
        summary = consistency(ts, stall_fraction=self.stall.value)
        self.area.show(timeseries_figure(point_series(ts), summary, health=self.health, health_note=self.health_note))
        self.info.value = "<br>".join(f"<b>{r.direction}</b>: {r.summary}" for r in summary.itertuples()) or (
            f"{self.point.value} logged no IOPS windows (its logs hold latency only, or it ran shorter than one log "
            "window): pick another point.")


def timeseries_explorer(ts: pd.DataFrame, health: pd.DataFrame | None = None, health_note: str = ""):
    """The time-series explorer for a ``timeseries`` table (with the runs' health captures and the sentence
    saying why there are none), or one sentence when the runs have no logs."""
    if ts is None or ts.empty:
        return message_figure(NO_LOGS)
    return TimeseriesExplorer(ts, health, health_note).widget


COMPARE_COLUMNS = ["point", "metric_label", "unit", "base_mean", "new_mean", "change_pct", "low_pct", "high_pct",
                   "verdict", "effect_size", "method", "n_base", "n_new"]  # the 16-compare page's table


class CompareExplorer:
    """Two runs (or groups of runs) compared point by point: base and new run pickers (several runs per
    side make a group) and a metric dropdown drive the forest plot (:func:`helpers.figures.forest_figure`)
    and the table of :func:`helpers.analysis.compare_runs`; the one-line summary sits above them.
    ``history``: samples of other runs of the same points (:func:`helpers.analysis.repeat_samples`), which
    measure the run-to-run drift as on the 16-compare page; ``history_note`` says where they came from.
    ``select(base, new, metric)`` is what the widgets call (and tests)."""

    def __init__(self, samples: pd.DataFrame, run_ids: list[str], history: pd.DataFrame | None = None,
                 history_note: str = ""):
        import ipywidgets as w

        self.samples = samples
        self.history = history
        self.history_note = history_note
        present = set(samples["metric"]) if len(samples) else set()
        metrics = [m for m in METRICS if m in present] or list(METRICS)
        label = {"style": {"description_width": "initial"}}
        rows = min(max(len(run_ids), 2), 6)
        self.base = w.SelectMultiple(options=run_ids, value=run_ids[:1], rows=rows, description="Base run(s)", **label)
        self.new = w.SelectMultiple(options=run_ids, value=run_ids[1:2], rows=rows, description="New run(s)", **label)
        self.metric = w.Dropdown(options=[(METRICS[m].label, m) for m in metrics], value=metrics[0],
                                 description="Metric", layout=w.Layout(width="auto"), **label)
        self.info = w.HTML()
        self.area = _FigureArea()
        self.table = w.HTML()
        self.comparison: RunComparison | None = None
        for widget in (self.base, self.new, self.metric):
            widget.observe(lambda _c: self.redraw(), names="value")
        self.widget = w.VBox([w.HBox([self.base, self.new, self.metric], layout=w.Layout(flex_flow="row wrap")),
                              self.info, self.area.widget])
        self.redraw()

    @property
    def figure(self) -> go.Figure | None:
        return self.area.figure

    def select(self, base: list[str] | str | None = None, new: list[str] | str | None = None,
               metric: str | None = None) -> None:
        if base is not None:
            self.base.value = tuple([base] if isinstance(base, str) else base)
        if new is not None:
            self.new.value = tuple([new] if isinstance(new, str) else new)
        if metric is not None:
            self.metric.value = metric

    def redraw(self) -> None:
        base, new, metric = list(self.base.value), list(self.new.value), self.metric.value
        if not base or not new or set(base) & set(new):
            self.comparison = None
            summary = "Pick at least one base run and one new run, none on both sides."
            figure = message_figure(summary)
            table = pd.DataFrame(columns=COMPARE_COLUMNS)
        else:
            self.comparison = compare_runs(self.samples, base, new, metrics=[metric], history=self.history)
            summary = self.comparison.summary
            figure = forest_figure(self.comparison.table, summary,
                                   title=f"{METRICS[metric].label}: {', '.join(new)} (new) vs {', '.join(base)} (base)")
            table = self.comparison.table
        drift = " ".join(x for x in (self.comparison.drift_summary if self.comparison else "", self.history_note) if x)
        self.info.value = f"<b>{'; '.join(base) or '—'} → {'; '.join(new) or '—'}</b>: {summary}" + \
            (f"<br>{html.escape(drift)}" if drift else "")
        self.table.value = page.table(table, columns=COMPARE_COLUMNS,
                                      empty="No point was measured with the same configuration on both sides."
                                      )._repr_html_()
        self.area.show(figure)

    def _ipython_display_(self) -> None:
        """Two outputs, each a live widget in JupyterLab with a static copy for an exported page: the
        controls and the forest plot (plotly JSON, which the report export draws), then the table (HTML)."""
        from IPython.display import display

        figure = pio.renderers["plotly_mimetype"].to_mimebundle(self.figure.to_dict())
        display({**figure, **self.widget._repr_mimebundle_()}, raw=True)
        display({"text/html": self.table.value, **self.table._repr_mimebundle_()}, raw=True)


def compare_explorer(results: pd.DataFrame, histograms: pd.DataFrame | None, run_ids: list[str],
                     timeseries: pd.DataFrame | None = None, history_results: pd.DataFrame | None = None,
                     history_histograms: pd.DataFrame | None = None, history_note: str = ""):
    """The run-comparison explorer over the loaded runs ``run_ids`` (samples from repeats, json+ histograms
    and per-window logs, as the 16-compare page; ``history_results`` + ``history_histograms``: other runs of
    the same points, which measure the drift between runs, as there), or one sentence when fewer than two
    runs are loaded."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        return message_figure(needs_runs_message(run_ids))
    return CompareExplorer(comparison_samples(results, histograms, timeseries), run_ids,
                           history_samples(history_results, history_histograms), history_note)
