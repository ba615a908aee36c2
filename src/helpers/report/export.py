"""Static HTML reports: executed notebooks -> ``reports/<RUN>/<name>.html`` and ``reports/index.html``.

Exports hide code (``--no-input``).  Notebooks store figures as plotly JSON only; the export draws each
one with ``Plotly.newPlot`` and every page loads plotly.js from ONE shared file,
``reports/assets/plotly.min.js``, by a relative path (``../assets/plotly.min.js``), so a copied or zipped
reports folder still opens offline and a page carries only its own figures (not 5 MB of plotly.js).
Widgets cannot work on such a page: their outputs show the static copy they carry, or one sentence.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import plotly.io as pio
import plotly.offline

from helpers import config
from helpers.run.manifest import read_manifest

TEMPLATES_DIR = config.TEMPLATES_DIR
# plotly's notebook renderer hard-codes a MathJax <script src> on a CDN in every figure; reports use no
# LaTeX, and an offline page must not try the network, so external script tags are removed.
_EXTERNAL_SCRIPT = re.compile(r'<script[^>]*\ssrc="(?:https?:)?//[^"]*"[^>]*>\s*</script>', re.IGNORECASE)


def strip_external_scripts(page: str) -> str:
    return _EXTERNAL_SCRIPT.sub("", page)


ASSETS = "assets"
PLOTLY_JS = "plotly.min.js"
PLOTLY_MIME = "application/vnd.plotly.v1+json"


def write_plotly_js(reports_dir: Path) -> Path:
    """``reports_dir/assets/plotly.min.js`` (the plotly.js of the installed plotly), written once."""
    path = Path(reports_dir) / ASSETS / PLOTLY_JS
    js = plotly.offline.get_plotlyjs()
    if not path.exists() or path.stat().st_size != len(js.encode("utf-8")):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(js, encoding="utf-8")
        os.replace(tmp, path)
    return path


def _figure_html(fig: dict) -> str:
    """One plotly figure (the notebook's JSON) as a div drawn by the page's shared plotly.js."""
    height = (fig.get("layout") or {}).get("height") or 450
    return pio.to_html(fig, include_plotlyjs=False, full_html=False, default_height=f"{height}px",
                       config={"displaylogo": False}, validate=False)


def plotly_outputs_to_html(nb) -> int:
    """Give every plotly JSON output (of an nbformat notebook ``nb``) an HTML rendering (no plotly.js in it); returns how many."""
    n = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data") or {}
            if PLOTLY_MIME in data:
                data["text/html"] = _figure_html(data[PLOTLY_MIME])
                for k in [k for k in data if k not in ("text/html", "text/plain")]:
                    del data[k]
                n += 1
    return n


WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "<p><em>An interactive widget: it works in JupyterLab, with a running kernel.</em></p>"


def static_outputs(nb) -> int:
    """A report page has no kernel and no widget manager (its script is on a CDN, which offline pages do not
    load): every widget view gives way to the static representation its output carries (the run-comparison
    explorer's forest plot and table), or to one sentence; the saved widget state (megabytes) is dropped.
    Returns how many widget views were replaced."""
    nb.metadata.pop("widgets", None)
    n = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data") or {}
            if data.pop(WIDGET_MIME, None) is not None:
                n += 1
                if all(k == "text/plain" for k in data):
                    data["text/html"] = WIDGET_NOTE
    return n


def export_html(executed: Path, out_html: Path, reports_dir: Path | None = None) -> Path:
    """Export an executed notebook without code cells, using the offline template (no CDN scripts); the
    page loads the shared ``assets/plotly.min.js`` of ``reports_dir`` (default: two folders up from the
    page, ``reports/<run>/page.html``) by a relative path."""
    config.skip_slow_optional_imports()
    import nbformat  # nbconvert/nbformat load when a page is exported, not with the command line
    from nbconvert import HTMLExporter

    reports_dir = Path(reports_dir) if reports_dir is not None else Path(out_html).parent.parent
    js = write_plotly_js(reports_dir)
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True,
                            template_name="offline", extra_template_basedirs=[str(TEMPLATES_DIR)])
    nb = nbformat.read(executed, as_version=4)
    static_outputs(nb)
    plotly_outputs_to_html(nb)
    body, _ = exporter.from_notebook_node(nb)
    body = strip_external_scripts(body)
    src = Path(os.path.relpath(js, Path(out_html).parent)).as_posix()
    body = body.replace("</head>", f'<script src="{html.escape(src)}"></script>\n</head>', 1)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_html.with_name(f".{out_html.name}.tmp")
    tmp.write_text(body, encoding="utf-8")
    os.replace(tmp, out_html)
    return out_html


def _manifest_for(run_id: str, raw_dirs: list[Path]) -> dict:
    for d in raw_dirs:
        m = read_manifest(d / run_id)
        if m:
            return m
    return {}


def _summary(m: dict) -> str:
    if not m:
        return "no manifest found"
    t = m.get("target") or {}
    dev = t.get("model") or t.get("disk") or "unknown device"
    n = len(m.get("points", {}))
    return (f"{m.get('host', '?')} · {m.get('fio_version', '?')} · profile {m.get('profile', '?')} ({n} points) · "
            f"target {t.get('path', '?')} on {dev} · {m.get('started', '?')} → {m.get('finished', '?')} · "
            f"status {m.get('status', '?')}")


def build_index(reports_dir: Path = config.REPORTS_DIR, raw_dirs: list[Path] | None = None) -> Path:
    """Write ``reports/index.html`` linking every run's reports with its manifest summary."""
    raw_dirs = raw_dirs or [config.RAW_DIR, config.SAMPLE_RAW_DIR]
    reports_dir = Path(reports_dir)
    runs = sorted((p for p in reports_dir.iterdir() if p.is_dir() and any(p.glob("*.html"))),
                  key=lambda p: p.name, reverse=True) if reports_dir.exists() else []
    items = []
    for run in runs:
        links = " · ".join(f'<a href="{html.escape(run.name)}/{html.escape(f.name)}">{html.escape(f.stem)}</a>'
                           for f in sorted(run.glob("*.html")))
        summary = html.escape(_summary(_manifest_for(run.name, raw_dirs)))
        items.append(f"<li><h2>{html.escape(run.name)}</h2><p class=meta>{summary}</p><p>{links}</p></li>")
    body = "\n".join(items) or "<li>No reports yet: run <code>make run-all</code>.</li>"
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SSD Performance Lab reports</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
ul{{list-style:none;padding:0}} li{{border-bottom:1px solid #ddd;padding:.5rem 0}} h2{{margin:.2rem 0;font-size:1.1rem}}
.meta{{color:#555;font-size:.9rem}}</style></head>
<body><h1>SSD Performance Lab reports</h1><ul>
{body}
</ul></body></html>
"""
    reports_dir.mkdir(parents=True, exist_ok=True)
    out = reports_dir / "index.html"
    out.write_text(page, encoding="utf-8")
    return out
