"""Figure builders: pure functions, DataFrame in, ``plotly.graph_objects.Figure`` out.

They never read files and never import the notebook layer.  Static figures step through queue
depth and block size with plotly's own sliders and dropdowns (they work in exported HTML without a
kernel); ``helpers.notebook.explorer`` is the ipywidgets version for JupyterLab.
"""

from helpers.figures.adaptive import search_figure
from helpers.figures.blocksize import blocksize_figure
from helpers.figures.burst import burst_figure
from helpers.figures.card import card_figure
from helpers.figures.common import message_figure
from helpers.figures.compare import forest_figure, ratio_figure, run_metrics_figure
from helpers.figures.demand import demand_figure
from helpers.figures.hosts import hosts_figure
from helpers.figures.mix import mix_figure
from helpers.figures.openloop import openloop_figure
from helpers.figures.overview import box_figure, heatmap_figure, held_constant_figure
from helpers.figures.qd import qd_figure, qd_tradeoff_figure
from helpers.figures.queueing import knee_figure, linear_region_figure, littles_figure, usl_figure
from helpers.figures.slo import slo_figure, slo_search_figure
from helpers.figures.steady_state import steady_state_figure
from helpers.figures.tail import latency_distribution_figure, percentiles_figure
from helpers.figures.timeseries import timeseries_figure, write_cliff_figure

__all__ = [
    "blocksize_figure", "box_figure", "card_figure", "heatmap_figure",
    "held_constant_figure", "latency_distribution_figure", "message_figure", "mix_figure", "percentiles_figure",
    "qd_figure", "qd_tradeoff_figure", "ratio_figure", "run_metrics_figure",
]
__all__ += ["knee_figure", "linear_region_figure", "littles_figure", "usl_figure"]
__all__ += ["hosts_figure", "openloop_figure", "steady_state_figure"]  # sweep engine (issue 6)
__all__ += ["forest_figure"]  # run comparison (issue 13)
__all__ += ["slo_figure", "slo_search_figure"]  # SLO capacity, SLO search vs fio's latency_target (issue 13)
__all__ += ["timeseries_figure", "write_cliff_figure"]  # time inside a point (issue 12)
__all__ += ["search_figure"]  # adaptive QD searches, characterize runs (issue 25)
__all__ += ["demand_figure"]  # demand intensity (issue 31)
__all__ += ["burst_figure"]  # bursts that run out (issue 33)
