"""Figure builders: pure functions, DataFrame in, ``plotly.graph_objects.Figure`` out.

They never read files.  :func:`setup_notebook` selects the renderer that works both in
JupyterLab and in offline HTML exports.  Static figures step through queue depth and block size
with plotly's own sliders and dropdowns (they work in exported HTML without a kernel);
:func:`explorer` is the ipywidgets version for JupyterLab.
"""

from .blocksize import blocksize_figure
from .card import card_figure, findings_markdown
from .common import message_figure, setup_notebook
from .compare import ratio_figure, run_metrics_figure, spec_table_figure
from .explorer import Explorer, explorer
from .hosts import hosts_figure
from .mix import mix_figure
from .openloop import openloop_figure
from .overview import box_figure, heatmap_figure, held_constant_figure
from .qd import qd_figure, qd_tradeoff_figure
from .queueing import knee_figure, linear_region_figure, littles_figure, usl_figure
from .steady_state import steady_state_figure
from .tail import latency_distribution_figure, percentiles_figure

__all__ = [
    "Explorer", "blocksize_figure", "box_figure", "card_figure", "explorer", "findings_markdown", "heatmap_figure",
    "held_constant_figure", "latency_distribution_figure", "message_figure", "mix_figure", "percentiles_figure",
    "qd_figure", "qd_tradeoff_figure", "ratio_figure", "run_metrics_figure", "setup_notebook", "spec_table_figure",
]
__all__ += ["knee_figure", "linear_region_figure", "littles_figure", "usl_figure"]
__all__ += ["hosts_figure", "openloop_figure", "steady_state_figure"]  # sweep engine (issue 6)
