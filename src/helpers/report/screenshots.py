"""The documentation's pictures of report pages: a run's pages shot with headless Chromium (`make screenshots`).

The README shows what the lab makes with the lab's own pages, not with hand-made images: this module opens a run's
exported pages offline (every request that is not a local file is refused) and saves the first figure of each
as a small PNG in docs/img/. It needs Debian's chromium (`make browser-deps`) and python playwright (a dev dependency);
without them it says so in one sentence.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from argparse import ArgumentParser
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from helpers import config
from helpers.errors import LabError

CHROMIUM = Path("/usr/bin/chromium")
# page file in reports/RUN/ -> picture in docs/img/ (the README's order)
PAGES = {"device-card.html": "device-card.png", "queue-depth.html": "queue-depth.png",
         "time-series.html": "time-series.png"}
VIEWPORT = {"width": 1200, "height": 900}
FIGURE = ".js-plotly-plot"  # each picture is the page's first figure (the card's headline tiles, the QD curves, ...)


def newest_report_run(reports_dir: Path) -> str:
    """The run whose reports were written last (the one with the device card)."""
    runs = [p.parent for p in reports_dir.glob("*/device-card.html")]
    if not runs:
        raise LabError(f"{reports_dir} holds no run's reports: make run-all (or make reports RUN=...) first")
    return max(runs, key=lambda p: (p / "device-card.html").stat().st_mtime).name


def shoot(run_id: str = "", reports_dir: Path | None = None, out_dir: Path | None = None,
          settle_ms: int = 1500) -> list[Path]:
    """Shoot PAGES of one run's reports into out_dir (default docs/img), settle_ms after each page has loaded (plotly
    draws after load); returns the PNGs written."""
    reports_dir = Path(reports_dir or config.REPORTS_DIR)
    out_dir = Path(out_dir or config.ROOT / "docs" / "img")
    run_id = run_id or newest_report_run(reports_dir)
    run_dir = reports_dir / run_id
    missing = [p for p in PAGES if not (run_dir / p).exists()]
    if missing:
        raise LabError(f"{run_dir} has no {', '.join(missing)}: make reports RUN={run_id} first")
    if not CHROMIUM.exists():
        raise LabError(f"{CHROMIUM} is not installed (make browser-deps installs it as root)")
    try:
        from playwright.sync_api import sync_playwright  # dev dependency, needed by this command only
    except ImportError as exc:
        raise LabError("python playwright is not installed (pip install -e .[dev])") from exc
    out_dir.mkdir(parents=True, exist_ok=True)
    home = tempfile.mkdtemp(prefix="shots-home-")
    env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "XDG_CACHE_HOME": f"{home}/.cache"}
    written: list[Path] = []

    def shoot_pages() -> None:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), env=env, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            ctx = browser.new_context(viewport=VIEWPORT)
            ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file://", "data:", "blob:"))
                      else r.abort())
            page = ctx.new_page()
            for name, png in PAGES.items():
                page.goto((run_dir / name).resolve().as_uri())
                page.wait_for_load_state("load")
                page.wait_for_timeout(settle_ms)
                page.add_style_tag(content="nav{position:static !important}")  # the sticky bar would cover a figure
                figure = page.locator(FIGURE).first
                if figure.count():
                    figure.screenshot(path=str(out_dir / png))
                else:  # a page without figures (a run without that data): its top, with the sentence saying so
                    page.screenshot(path=str(out_dir / png))
                written.append(out_dir / png)
            browser.close()

    try:
        # playwright's sync API refuses a thread with a running asyncio loop (a notebook's kernel, a test worker
        # that ran one): it gets a thread of its own
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(shoot_pages).result()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m helpers.report.screenshots", description=__doc__.splitlines()[0])
    ap.add_argument("--run", dest="run_id", default="", help="run id (default: the run whose reports are newest)")
    ap.add_argument("--out", default="", help="folder for the PNGs (default docs/img)")
    args = ap.parse_args(argv)
    try:
        written = shoot(args.run_id, out_dir=Path(args.out) if args.out else None)
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in written:
        print(f"screenshot: {p} ({p.stat().st_size / 1024:,.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
