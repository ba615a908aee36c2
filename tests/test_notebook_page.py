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


def _csv_of(html_text: str) -> str:
    import re
    import urllib.parse

    (href,) = re.findall(r"href='data:text/csv;charset=utf-8,([^']*)'", html_text)
    return urllib.parse.unquote(href)


def test_every_table_carries_its_full_precision_csv_with_units_in_the_headers():
    """Issue 22.10: the page's table is rounded text; its link holds the same rows at full precision."""
    import io

    import pandas as pd

    df = pd.DataFrame({"bs_bytes": [4096, 131072], "iops": [12345.678901, 987.654321],
                       "bw_bytes_per_s": [50567012.3, 129453000.0], "lat_p99_us": [101.23456, 2003.5],
                       "flag_reasons": ["", "page cache suspected"]})
    t = page.table(df, caption="Block size numbers")
    html_text = t._repr_html_()
    assert "12,346" in html_text and "12345.678901" not in html_text.split("href=")[0]  # the cells are rounded
    assert "download='block-size-numbers.csv'" in html_text
    back = pd.read_csv(io.StringIO(_csv_of(html_text)), keep_default_na=False)
    assert list(back.columns) == ["block size (bytes)", "IOPS", "bandwidth (bytes/s)", "p99 total latency (µs)",
                                  "flags"]
    assert back["IOPS"].tolist() == [12345.678901, 987.654321]
    assert back["bandwidth (bytes/s)"].tolist() == [50567012.3, 129453000.0]
    assert back["block size (bytes)"].tolist() == [4096, 131072] and back["flags"].tolist()[1] == "page cache suspected"
    assert "CSV (2 rows, full precision)" in html_text
    assert "CSV (1 row, full precision)" in page.table(df.head(1))._repr_html_()  # not '1 rows'


def test_a_column_named_as_a_value_reads_as_its_header():
    """Issue 22.7: no raw column names in cells (the USL table's 'N is' said 'outstanding_io')."""
    import pandas as pd

    t = page.table(pd.DataFrame({"x": ["outstanding_io", "numjobs"], "r2": [0.99, 0.5]}))
    assert t.cells.iloc[:, 0].tolist() == ["outstanding I/O (QD × jobs)", "jobs"]
    assert t.data.iloc[:, 0].tolist() == ["outstanding I/O (QD × jobs)", "jobs"]  # and in its CSV


def test_a_long_table_scrolls_in_its_box_with_every_row_and_the_whole_csv():
    """Issue 34.6: a table of 26,000 px made the queue-depth page 61,000 px tall: a table longer than SCROLL_ROWS
    scrolls inside a box (header kept in view), every row still in the page and in its CSV; a short one does not."""
    import pandas as pd

    from helpers.notebook import page

    long = page.table(pd.DataFrame({"qd": range(1, 101), "iops": [1000.0 * q for q in range(1, 101)]}))
    html = long._repr_html_()
    assert "max-height:36em;overflow-y:auto" in html and "position:sticky" in html
    assert html.count("<tr>") == 101 and len(long.csv().splitlines()) == 101
    short = page.table(pd.DataFrame({"qd": [1, 2], "iops": [1.0, 2.0]}))._repr_html_()
    assert "max-height" not in short and "position:sticky" not in short
