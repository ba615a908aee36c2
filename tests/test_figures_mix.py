import pytest

from figdata import rows
from helpers import analysis, figures


def mix_rows():
    pts = []
    for m in (0, 50, 100):
        for d in ("read", "write"):
            share = m / 100 if d == "read" else 1 - m / 100
            if share:
                pts.append({"point_id": f"mix{m}", "rw": "randrw", "rwmixread_pct": float(m), "direction": d,
                            "iops": 1000.0 * share, "lat_mean_us": 100.0 if d == "read" else 300.0})
    return rows(pts)


def test_totals_sum_iops_and_weight_latency():
    s = analysis.mix_series(mix_rows())
    t = s[(s["direction"] == "total") & (s["rwmixread_pct"] == 50)].iloc[0]
    assert t["iops"] == pytest.approx(1000.0) and t["lat_mean_us"] == pytest.approx(200.0)
    assert set(s["direction"]) == {"read", "write", "total"}


def test_mix_figure_read_write_and_total_against_read_share():
    fig = figures.mix_figure(analysis.mix_series(mix_rows()))
    iops = {t.name: t for t in fig.data if t.xaxis == "x"}
    assert set(iops) == {"read", "write", "total"}
    assert list(iops["read"].x) == [50, 100] and list(iops["read"].y) == pytest.approx([500, 1000])
    assert list(iops["total"].y) == pytest.approx([1000, 1000, 1000])
    assert "Read share" in fig.layout.xaxis.title.text and "MB/s" in fig.layout.yaxis2.title.text
    assert fig.layout.yaxis3.type == "log"


def test_no_mix_sweep_says_so():
    fig = figures.mix_figure(analysis.mix_series(rows([{}])))
    assert not fig.data and "no read/write-mix sweep" in fig.layout.annotations[0].text


def test_each_workloads_latency_axis_has_its_own_ticks():
    """Issue 34.6: a workload at 200-400 µs beside one at 20-80 ms got ticks at powers of ten only (one of them in
    its range): each slider step now sets the latency ticks of its own workload (1, 2, 5 x 10^k)."""
    from figdata import rows
    from helpers import analysis, figures

    df = rows([{"point_id": f"{bs}-{m}", "rw": "randrw", "bs_bytes": bs, "iodepth": 16, "rwmixread_pct": float(m),
                "iops": 1000.0, "lat_mean_us": lat * (1 + m / 100)} for bs, lat in ((4096, 200.0), (1 << 20, 2e4))
               for m in (0, 50, 100)])
    fig = figures.mix_figure(analysis.mix_series(df))
    steps = fig.layout.sliders[0].steps
    assert len(steps) == 2
    for step, (lo, hi) in zip(steps, ((200.0, 400.0), (2e4, 4e4))):
        layout = step.args[1]
        ticks = [t for t in layout["yaxis3.tickvals"] if lo <= t <= hi]
        assert len(ticks) >= 2, (layout["yaxis3.tickvals"], lo, hi)
    assert list(fig.layout.yaxis3.tickvals) == list(steps[fig.layout.sliders[0].active].args[1]["yaxis3.tickvals"])
