import plotly.io as pio

from figdata import rows
from helpers import analysis
from helpers.notebook import display


def test_setup_notebook_sets_renderer_and_template():
    renderer, template = pio.renderers.default, pio.templates.default
    try:
        display.setup_notebook()
        assert pio.renderers.default == "plotly_mimetype+notebook"
        assert pio.templates.default == "plotly_white"
    finally:
        pio.renderers.default, pio.templates.default = renderer, template


def test_findings_markdown_lists_the_card_findings_or_says_there_are_none():
    card = analysis.device_card(rows([{}]))
    assert "100 µs" in display.findings_markdown(card.findings).data
    assert display.findings_markdown([]).data == "_This run has no data to write findings from._"
