"""Headless Debian Chromium via playwright for the browser tests (never `playwright install`): importing this
module skips the importing test module when chromium or python playwright is missing."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]
SCREENS = ROOT / "build" / "screens"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed (make browser-deps installs it): browser tests skipped",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="python playwright is not installed (pip install playwright)")


def launch_browser():
    """Generator for a fixture: one headless chromium with a throw-away HOME, closed afterwards."""
    home = tempfile.mkdtemp(prefix="pw-home-")
    env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "XDG_CACHE_HOME": f"{home}/.cache"}
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=env, headless=True)
        yield b
        b.close()
    shutil.rmtree(home, ignore_errors=True)


def offline_page(browser, allow_localhost: bool = False):
    """A page in its own context where every request that is not file:// (or localhost) is aborted."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    blocked: list[str] = []

    def route(r):
        url = r.request.url
        local = url.startswith(("file://", "data:", "blob:")) or (
            allow_localhost and url.startswith(("http://localhost", "http://127.0.0.1", "ws://localhost",
                                                "ws://127.0.0.1")))
        if local:
            r.continue_()
        else:
            blocked.append(url)
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors, blocked
