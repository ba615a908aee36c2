"""The notebook layer: what only notebooks need.

``runs`` (which processed runs a notebook analyses, the bundled sample), ``display`` (renderer set-up,
Markdown findings) and ``explorer`` (ipywidgets sliders driving a plotly FigureWidget, JupyterLab only).
Notebooks import ``analysis`` and ``figures`` for the views and this package for everything else.
"""

from helpers.notebook.display import findings_markdown, setup_notebook
from helpers.notebook.explorer import Explorer, explorer
from helpers.notebook.runs import RunData, load_results

__all__ = ["Explorer", "RunData", "explorer", "findings_markdown", "load_results", "setup_notebook"]
