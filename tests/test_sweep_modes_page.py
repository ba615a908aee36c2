"""The sweep-modes page (17-sweep-modes) on four small real runs -- open loop, two fio servers on loopback,
steady state, SLO search (tests/conftest.py's modes_reports) -- as the notebook shows it and as the exported page
draws it offline in a real browser (headless Debian Chromium, networking off).  These runs are independent of
the session's executed notebooks, so this module runs beside them (in another xdist worker)."""

from __future__ import annotations

import pytest

from notebook_outputs import figure_traces, outputs_text

pytestmark = pytest.mark.notebooks


def test_sweep_modes_page_shows_open_loop_hosts_and_steady_state_from_real_runs(modes_reports):
    text = outputs_text(modes_reports["executed"])
    assert '"ename"' not in text
    assert "No open-loop points" not in text and "No multi-host points" not in text
    assert "No steady-state rounds" not in text
    searches, openloop, slo, hosts, steady = figure_traces(modes_reports["executed"])
    assert searches == [] and "No adaptive queue-depth search in this run" in text  # none of these runs searched
    # one line per percentile and series: the open-loop run's loads and the SLO search's steps (also offered
    # rates) each on their own line, never joined
    ol, slo_steps = "modes-openloop: randread 4k QD32", "modes-slo: randread 4k QD16"
    assert {f"{p} {s}" for p in ("p50", "p99", "p99.9") for s in (ol, slo_steps)} <= set(openloop)
    assert "achieved < 95 % of offered" in openloop
    assert sorted(hosts[:-1]) == sorted(modes_reports["manifests"]["hosts"]["hosts"]) and hosts[-1] == "all hosts"
    assert steady[:2] == ["iops", "window average"]
    # the SLO search and fio's latency_target result, with the verdict sentence built from the manifest's numbers
    cc = next(iter(modes_reports["manifests"]["slo"]["slo"].values()))["cross_check"]
    assert slo == ["slo-randread-bs4k-qd16-nj1: SLO search steps",
                   f"slo-randread-bs4k-qd16-nj1: fio latency_target (QD {cc['depth']})"]
    assert "No SLO search in this run" not in text and f"{cc['iops']:,.0f} IOPS at QD {cc['depth']} of at most 16" in text


@pytest.mark.browser
def test_sweep_modes_report_renders_offline(browser, modes_reports):
    """The open-loop / SLO search / multi-host / steady-state page of real runs draws its four plots (and the adaptive
    section's one sentence) offline."""
    from browser_helpers import SCREENS, offline_page  # skips this test only when chromium is missing

    ctx, page, errors, blocked = offline_page(browser)
    page.goto(modes_reports["page"].as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4",
                           timeout=30_000)
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "sweep-modes-real-runs.png"), full_page=True)
    assert not errors, errors
    assert not [u for u in blocked if u.endswith(".js")], blocked
    ctx.close()
