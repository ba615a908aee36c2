"""What an executed notebook shows, read from its saved outputs (the notebook, report and page tests)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat


def outputs_text(nb_path: Path) -> str:
    nb = nbformat.read(nb_path, as_version=4)
    return json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])


def figure_traces(executed: Path) -> list[list[str]]:
    """The trace names of every plotly figure in an executed notebook, in cell order."""
    nb = nbformat.read(executed, as_version=4)
    figs = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            fig = o.get("data", {}).get("application/vnd.plotly.v1+json")
            if fig:
                figs.append([t.get("name") or t.get("type") for t in fig.get("data", [])])
    return figs


def plotly_figures(executed: Path) -> list[dict]:
    nb = nbformat.read(executed, as_version=4)
    return [o["data"]["application/vnd.plotly.v1+json"] for c in nb.cells for o in c.get("outputs", [])
            if "application/vnd.plotly.v1+json" in o.get("data", {})]
