import pandas as pd
import pytest

from figdata import bs_sweep, rows
from helpers import analysis, figures


def card_rows():
    qd = [{"point_id": f"q{q}", "iodepth": q, "iops": i, "lat_mean_us": 80.0 * q}
          for q, i in ((1, 10000.0), (2, 19000.0), (4, 30000.0), (8, 31000.0), (16, 31500.0), (32, 31600.0))]
    qd1w = [{"point_id": "w1", "rw": "randwrite", "direction": "write", "lat_mean_us": 160.0, "iops": 6000.0}]
    return pd.concat([rows(qd + qd1w), bs_sweep("read")], ignore_index=True)


def test_card_metrics_and_findings_carry_numbers():
    card = analysis.device_card(card_rows())
    assert card.metric("QD1 4k random read latency").value == pytest.approx(80.0)
    assert card.metric("QD1 4k random write latency").value == pytest.approx(160.0)
    assert card.metric("Peak 4k random read IOPS").value == pytest.approx(31600.0)
    assert card.metric("Peak sequential read bandwidth").value == pytest.approx(410.0)
    assert card.knee_qd is not None
    text = " ".join(card.findings)
    assert "80 µs" in text and "2.0× the read latency" in text and "31,600 IOPS" in text
    assert "410 MB/s" in text and "64k blocks" in text
    assert all(any(ch.isdigit() for ch in f) for f in card.findings)


def test_card_figure_tiles_and_missing_metric_sentence():
    card = analysis.device_card(rows([{}]))
    fig = figures.card_figure(card)
    assert any(t.type == "indicator" and t.value == pytest.approx(100.0) for t in fig.data)
    assert any("not measured" in a.text for a in fig.layout.annotations)


def test_a_better_number_at_a_flagged_point_is_named_not_used():
    cpu = "fio used 100 % of a CPU (CPU-bound)"
    qd = [{"point_id": f"q{q}", "iodepth": q, "iops": i, "flag_cpu_bound": q >= 8, "flag_reasons": cpu if q >= 8 else ""}
          for q, i in ((1, 10000.0), (2, 19000.0), (4, 30000.0), (8, 52000.0), (16, 90000.0))]
    card = analysis.device_card(rows(qd))
    peak = card.metric("Peak 4k random read IOPS")
    assert peak.value == pytest.approx(30000.0) and peak.detail == "randread 4k QD4" and not peak.flag_reasons
    assert peak.left_out == f"higher 90,000 IOPS at randread 4k QD16, flagged: {cpu}"
    text = " ".join(card.findings)
    assert f"peak at 30,000 IOPS (randread 4k QD4); not counted: a higher 90,000 IOPS at randread 4k QD16, flagged: {cpu}" \
        in text
    assert "the series includes flagged points at QD 8, 16: fio CPU-bound" in text
    assert card.table().loc["Peak 4k random read IOPS", "flagged value left out"] == peak.left_out
    tiles = [t for t in figures.card_figure(card).data if t.type == "indicator" and t.value == pytest.approx(30000.0)]
    # (wrapped to stay inside its tile: plotly does not wrap annotation text)
    assert "a flagged higher 90,000 IOPS at randread 4k QD16 not counted" in tiles[0].title.text.replace("<br>", " ")
    assert all(len(line) <= 52 for line in tiles[0].title.text.split("<span style='font-size:11px;color:#555'>")[1]
               .removesuffix("</span>").split("<br>"))
    # no flagged point beats the headline: nothing is named
    assert analysis.device_card(rows(qd[:3])).metric("Peak 4k random read IOPS").left_out == ""
