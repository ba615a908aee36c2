"""Figure builders: pure functions, DataFrame in, ``plotly.graph_objects.Figure`` out.

They never read files.  :func:`setup_notebook` selects the renderer that works both in
JupyterLab and in offline HTML exports.
"""

from .common import message_figure, setup_notebook
from .qd import qd_figure
from .queueing import knee_figure, linear_region_figure, littles_figure, usl_figure

__all__ = ["message_figure", "qd_figure", "setup_notebook"]
__all__ += ["knee_figure", "linear_region_figure", "littles_figure", "usl_figure"]
