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


def test_explorer_opens_on_the_operation_with_several_queue_depths_and_labels_are_not_clipped():
    """Issue 10 point 8: the first operation of the run has one QD; the explorer opens on the QD sweep."""
    import pandas as pd

    from figdata import rows
    from helpers.notebook.explorer import Explorer, start_operation

    df = pd.concat([rows([{"point_id": "w1", "rw": "randwrite", "direction": "write", "iodepth": 1}]),
                    rows([{"point_id": f"r{q}", "iodepth": q, "iops": 1000.0 * q} for q in (1, 2, 4, 8)]),
                    bs_sweep("read", qds=(16,))], ignore_index=True)
    points = analysis.distribution(df)
    assert list(dict.fromkeys(points["operation"]))[0] == "read"  # the run's order would open on one QD
    assert start_operation(points) == "randread"
    ex = Explorer(points)
    assert ex.op.value == "randread" and list(ex.qd.options) == [1, 2, 4, 8]
    assert list(ex.figure.data[0].x) == [1, 2, 4, 8]  # IOPS against QD: a curve, not one point
    for w in (ex.op, ex.qd, ex.bs):
        assert w.style.description_width == "initial"
    assert ex.figure.layout.margin.b >= 120 and "p99 completion latency (clat)" in ex.info.value


def test_flagged_points_are_crosses_on_the_explorers_curves():
    """Issue 34.8: the explorer marks flagged points as the report pages do (crosses), its title says so."""
    from figdata import rows

    df = rows([{"point_id": f"r{q}", "iodepth": q, "iops": 1000.0 * q,
                **({"flag_cpu_bound": True, "flag_reasons": "fio used 99 % of a CPU (CPU-bound)"} if q == 4 else {})}
               for q in (1, 2, 4)])
    ex = Explorer(analysis.distribution(df))
    assert list(ex.figure.data[0].marker.symbol) == ["circle", "circle", "x"]
    assert "crosses: flagged points" in ex.figure.layout.title.text
