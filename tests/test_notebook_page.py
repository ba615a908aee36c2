import plotly.io as pio

from figdata import rows
from helpers import analysis
from helpers.notebook import page


def test_setup_notebook_sets_renderer_and_template():
    renderer, template = pio.renderers.default, pio.templates.default
    try:
        page.setup()  # figures as plotly JSON only: the report export adds the one shared plotly.js
        assert pio.renderers.default == "plotly_mimetype"
        assert pio.templates.default == "plotly_white"
    finally:
        pio.renderers.default, pio.templates.default = renderer, template


def test_findings_list_the_card_findings_or_say_there_are_none():
    card = analysis.device_card(rows([{}]))
    assert "100 µs" in page.findings(card).data
    card.findings = []
    assert page.findings(card).data == "_This run has no data to write findings from._"
