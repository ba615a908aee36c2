from figdata import bs_sweep
from helpers import analysis
from helpers.notebook.explorer import Explorer


def test_explorer_widgets_drive_the_figure():
    ex = Explorer(analysis.distribution(bs_sweep("read", qds=(1, 16))))
    assert ex.op.value == "read" and list(ex.qd.options) == [1, 16]
    ex.select(qd=1, bs=65536)
    assert "64k blocks at QD 1" in ex.figure.layout.title.text
    assert list(ex.figure.data[0].x) == [1, 16] and list(ex.figure.data[3].x) == [65536]
    ex.select(qd=16)
    assert "QD 16" in ex.figure.layout.title.text and "IOPS" in ex.info.value
