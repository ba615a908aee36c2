"""Static HTML reports: executed notebooks -> ``reports/<RUN>/<name>.html`` and ``reports/index.html``.

Exports hide code (``--no-input``).  Notebooks store figures as plotly JSON only; the export draws each
one with ``Plotly.newPlot`` and every page loads plotly.js from ONE shared file,
``reports/assets/plotly.min.js``, by a relative path (``../assets/plotly.min.js``), so a copied or zipped
reports folder still opens offline and a page carries only its own figures (not 5 MB of plotly.js).
Widgets cannot work on such a page: their outputs show the static copy they carry, or one sentence.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import plotly.io as pio
import plotly.offline

from helpers import config
from helpers.figures.common import NO_DATA
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
SITE = "SSD Performance Lab"
COMPARE_DIR = "compare"  # reports/compare/: run comparisons (the gate's and the compare page's), not a run
WORKBOOK_SUFFIX = "-data"  # reports/<run>/<run>-data.xlsx (or the folder <run>-data/ of CSVs): make export
# what an exported page says about itself, read back by the index (name: content)
PAGE_META = ("lab-page", "lab-has-data")


def analysis_notebooks(notebooks_dir: Path = config.NOTEBOOKS_DIR) -> list[Path]:
    """The notebooks exported as a run's report pages (``10``-``89``), in page order."""
    return sorted(p for p in Path(notebooks_dir).glob("[1-8][0-9]-*.ipynb"))


def report_name(notebook: Path) -> str:
    """``12-block-size.ipynb`` -> ``block-size``."""
    return Path(notebook).stem.split("-", 1)[1]


def notebook_heading(nb) -> str:
    """The first Markdown heading of an nbformat notebook ('Queue depth'), '' when it has none."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            for line in ("".join(source) if isinstance(source, list) else str(source)).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def page_headings(notebooks_dir: Path = config.NOTEBOOKS_DIR) -> list[tuple[str, str]]:
    """(file name, heading) of every report page of a run, in page order: the navigation bar's links."""
    out = []
    for nb in analysis_notebooks(notebooks_dir):
        heading = notebook_heading(json.loads(nb.read_text(encoding="utf-8")))
        out.append((f"{report_name(nb)}.html", heading or report_name(nb)))
    return out


def page_title(run: str, heading: str) -> str:
    """'20261126-091303-vm · Queue depth · SSD Performance Lab': a browser tab or bookmark names the run."""
    return " · ".join(x for x in (run, heading, SITE) if x)


def nav_bar(index_href: str, pages: list[tuple[str, str]], here: str) -> str:
    """The pages' navigation bar: the index ('All runs') and ``pages`` (href, label), ``here`` in bold."""
    links = [f'<a href="{html.escape(index_href)}">All runs</a>']
    for href, label in pages:
        links.append(f"<b>{html.escape(label)}</b>" if href == here else
                     f'<a href="{html.escape(href)}">{html.escape(label)}</a>')
    return ("<nav class='lab-nav' style='font:13px system-ui,sans-serif;padding:6px 12px;border-bottom:1px solid "
            "#ddd;background:#fafafa;position:sticky;top:0;z-index:10'>" + " · ".join(links) + "</nav>")


def no_data_messages(nb) -> list[str] | None:
    """The sentences of a notebook's no-data figures, or None when at least one figure shows data (a page
    with no figure at all counts as having data)."""
    messages, figures = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            fig = (out.get("data") or {}).get(PLOTLY_MIME)
            if fig is None:
                continue
            figures += 1
            meta = (fig.get("layout") or {}).get("meta")
            if not (isinstance(meta, dict) and NO_DATA in meta):
                return None
            messages.append(str(meta[NO_DATA]))
    return messages if figures else None


def one_sentence_page(nb, heading: str, messages: list[str]) -> None:
    """Make ``nb`` the page of a run without data for it: its heading and one sentence (the notebook's own
    ``lab_no_data`` metadata sentence when it has one, else its first no-data message)."""
    import nbformat

    sentence = nb.metadata.get("lab_no_data") or (messages[0] if messages else "This run has no data for this page.")
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {heading}\n\n{sentence}")]


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


def export_html(executed: Path, out_html: Path, reports_dir: Path | None = None, run: str = "",
                pages: list[tuple[str, str]] | None = None) -> Path:
    """Export an executed notebook without code cells, using the offline template (no CDN scripts); the
    page loads the shared ``assets/plotly.min.js`` of ``reports_dir`` (default: two folders up from the
    page, ``reports/<run>/page.html``) by a relative path.  Its ``<title>`` names ``run`` (default: the
    page's folder) and the page; a navigation bar links the index and ``pages`` (file name, label; default
    the run's report pages, :func:`page_headings`).  A page whose every figure says the run has no data
    for it becomes that one sentence, and says so to the index (``lab-has-data``)."""
    config.skip_slow_optional_imports()
    import nbformat  # nbconvert/nbformat load when a page is exported, not with the command line
    from nbconvert import HTMLExporter

    reports_dir = Path(reports_dir) if reports_dir is not None else Path(out_html).parent.parent
    js = write_plotly_js(reports_dir)
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True,
                            template_name="offline", extra_template_basedirs=[str(TEMPLATES_DIR)])
    nb = nbformat.read(executed, as_version=4)
    heading = notebook_heading(nb) or Path(out_html).stem
    run = run or Path(out_html).parent.name
    nb.metadata["title"] = page_title(run, heading)
    empty = no_data_messages(nb)
    if empty is not None:
        one_sentence_page(nb, heading, empty)
    static_outputs(nb)
    plotly_outputs_to_html(nb)
    body, _ = exporter.from_notebook_node(nb)
    body = strip_external_scripts(body)
    src = Path(os.path.relpath(js, Path(out_html).parent)).as_posix()
    meta = "".join(f'<meta name="{n}" content="{html.escape(v)}">'
                   for n, v in zip(PAGE_META, (heading, "no" if empty is not None else "yes")))
    body = re.sub(r"<head>", lambda m: "<head>\n" + meta, body, count=1)
    body = body.replace("</head>", f'<script src="{html.escape(src)}"></script>\n</head>', 1)
    index = Path(os.path.relpath(reports_dir / "index.html", Path(out_html).parent)).as_posix()
    body = body.replace("<main>", "<main>" + nav_bar(index, page_headings() if pages is None else pages,
                                                  Path(out_html).name), 1)
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


def page_meta(page: Path) -> dict[str, str]:
    """What an exported page says about itself (``PAGE_META``, in its head), {} for other pages."""
    try:
        with open(page, encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return {}
    return dict(re.findall(r'<meta name="(lab-[a-z-]+)" content="([^"]*)">', head))


def workbook_paths(run_dir: Path) -> list[Path]:
    """The run's exported workbook (``<run>-data.xlsx``) and/or folder of CSVs (``<run>-data/``), if made."""
    base = Path(run_dir) / f"{Path(run_dir).name}{WORKBOOK_SUFFIX}"
    return [p for p in (base.with_name(base.name + ".xlsx"), base) if p.exists()]


def _page_link(run: Path, f: Path) -> str:
    meta = page_meta(f)
    label = html.escape(html.unescape(meta.get("lab-page", "")) or f.stem)
    href = f"{html.escape(run.name)}/{html.escape(f.name)}"
    if meta.get("lab-has-data") == "no":
        return f'<a class=nodata href="{href}" title="no data for this page in this run">{label}</a>'
    return f'<a href="{href}">{label}</a>'


def build_index(reports_dir: Path = config.REPORTS_DIR, raw_dirs: list[Path] | None = None) -> Path:
    """Write ``reports/index.html`` linking every run's reports with its manifest summary (pages without data
    for the run greyed and marked, the run's workbook when exported), then the run comparisons."""
    raw_dirs = raw_dirs or [config.RAW_DIR, config.SAMPLE_RAW_DIR]
    reports_dir = Path(reports_dir)
    runs = sorted((p for p in reports_dir.iterdir() if p.is_dir() and p.name not in (COMPARE_DIR, ASSETS)
                   and (any(p.glob("*.html")) or workbook_paths(p))), key=lambda p: p.name, reverse=True) \
        if reports_dir.exists() else []
    items = []
    for run in runs:
        pages = sorted(run.glob("*.html"))
        links = " · ".join(_page_link(run, f) for f in pages) or \
            f"no report pages yet: <code>make reports RUN={html.escape(run.name)}</code>"
        empty = sum(page_meta(f).get("lab-has-data") == "no" for f in pages)
        note = f" <span class=meta>(greyed: {empty} page(s) with no data for this run)</span>" if empty else ""
        books = " · ".join(f'<a href="{html.escape(run.name)}/{html.escape(b.name)}{"/" if b.is_dir() else ""}">'
                           f'⤓ {"workbook (Excel)" if b.suffix == ".xlsx" else "tables (CSV folder)"}</a>'
                           for b in workbook_paths(run))
        books = f"<p>{books}</p>" if books else ""
        summary = html.escape(_summary(_manifest_for(run.name, raw_dirs)))
        items.append(f"<li><h2>{html.escape(run.name)}</h2><p class=meta>{summary}</p><p>{links}{note}</p>{books}</li>")
    body = "\n".join(items) or "<li>No reports yet: run <code>make run-all</code>.</li>"
    compares = sorted((reports_dir / COMPARE_DIR).glob("*.html")) if (reports_dir / COMPARE_DIR).is_dir() else []
    cmp_items = "".join(f'<li><a href="{COMPARE_DIR}/{html.escape(c.name)}">{html.escape(c.stem)}</a></li>'
                        for c in compares)
    cmp_html = f"<h1>Run comparisons</h1><ul>{cmp_items}</ul>" if compares else ""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Reports · {SITE}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
ul{{list-style:none;padding:0}} li{{border-bottom:1px solid #ddd;padding:.5rem 0}} h2{{margin:.2rem 0;font-size:1.1rem}}
.meta{{color:#555;font-size:.9rem}} a.nodata{{color:#999}} a.nodata::after{{content:" (no data)";font-size:.8em}}</style></head>
<body><h1>SSD Performance Lab reports</h1><ul>
{body}
</ul>{cmp_html}</body></html>
"""
    reports_dir.mkdir(parents=True, exist_ok=True)
    out = reports_dir / "index.html"
    out.write_text(page, encoding="utf-8")
    return out
