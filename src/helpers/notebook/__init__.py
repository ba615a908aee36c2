"""The notebook layer: what only notebooks need.

``runs`` (which processed runs a notebook analyses, their manifests, the bundled sample), ``page`` (renderer
set-up, the one table formatter's HTML, Markdown findings and warnings) and ``explorer`` (ipywidgets
sliders driving a plotly FigureWidget, JupyterLab only).  Notebooks import ``analysis`` and ``figures`` for
the views and this package for everything else.
"""

from helpers.notebook import explorer, page, runs

__all__ = ["explorer", "page", "runs"]
