"""Adaptive QD search (pure decisions on synthetic curves + one real fio run with resume) and the
SNIA steady-state rule (known answers + a real preconditioned run with its convergence figure)."""

from __future__ import annotations

import pytest

from helpers.figures.steady_state import steady_state_figure
from helpers.run import sweep
from helpers.run.adaptive import (
    Seed,
    Step,
    concluded_curve,
    next_depth,
    peak,
    plateau_iops,
    refine_bracket,
    seed_from,
    summary,
)
from helpers.run.profiles import AdaptiveSettings, load_profile
from realfio import still_target
from sweep_helpers import fio_recorder, write_profile


@pytest.fixture(autouse=True)
def _lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_LOCK_DIR", str(tmp_path / "locks"))


def _search(curve, a: AdaptiveSettings, lat=lambda q: 100.0 * q):
    history: list[Step] = []
    while (nxt := next_depth(history, a)) is not None:
        qd, kind = nxt
        history.append(Step(qd, curve(qd), lat(qd), kind))
        assert len(history) < 30
    return history


def test_doubles_until_two_flat_steps_then_refines_between_last_two_depths():
    h = _search(lambda q: min(q * 10_000, 50_000), AdaptiveSettings())
    assert [(s.qd, s.kind) for s in h] == [(1, "ladder"), (2, "ladder"), (4, "ladder"), (8, "ladder"),
                                           (16, "ladder"), (32, "ladder"), (11, "refine")]


def test_noise_dip_counts_as_flat_against_the_best_so_far():
    vals = {1: 10, 2: 20, 4: 40, 8: 60, 16: 55, 32: 80, 64: 81, 128: 79}
    h = _search(lambda q: vals.get(q, 80), AdaptiveSettings())
    assert [s.qd for s in h if s.kind == "ladder"] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert refine_bracket([s for s in h if s.kind == "ladder"], AdaptiveSettings()) == (32, 64)


def test_latency_limit_stops_the_search():
    a = AdaptiveSettings(lat_limit_us=1000)
    h = _search(lambda q: q * 1000.0, a)  # never flat
    assert [s.qd for s in h] == [1, 2, 4, 8, 16, 11]


def test_still_rising_at_max_qd_is_not_refined_and_confirm_remeasures_the_peak():
    h = _search(lambda q: q * 1000.0, AdaptiveSettings(max_qd=8, confirm_runtime_s=3))
    assert [(s.qd, s.kind) for s in h] == [(1, "ladder"), (2, "ladder"), (4, "ladder"), (8, "ladder"), (8, "confirm")]


def test_shipped_adaptive_profile_and_estimate():
    p = load_profile("adaptive")
    assert p.mode == "adaptive" and {(x.rw, x.bs_bytes) for x in p.points} == {
        ("randread", 4096), ("randwrite", 4096), ("read", 131072)}
    assert "at most" in p.estimate_text()


def test_real_adaptive_sweep_and_resume_takes_the_same_path(tmp_path, scratch_dir, fio_path, monkeypatch):
    prof = write_profile(tmp_path, "ad", [{"group": "ad", "rw": "randread", "bs": "4k"}], mode="adaptive",
                         adaptive={"max_qd": 8, "gain_pct": 10},
                         settings={"ioengine": "libaio", "runtime_s": 0.5, "ramp_s": 0})
    raw = tmp_path / "raw"
    m = sweep.sweep(scratch_dir / "adaptive.bin", prof, "ad", None, "16m", raw, progress=False)
    assert m["status"] == "complete" and m["profile_mode"] == "adaptive"
    summary = m["adaptive"]["ad-randread-bs4k-qd1-nj1"]
    qds = [s["qd"] for s in summary["steps"]]
    assert qds[:2] == [1, 2] and set(qds) <= {1, 2, 3, 4, 6, 8} and summary["peak_iops"] > 0
    assert all(m["points"][f"ad-randread-bs4k-qd{q}-nj1"]["status"] == "ok" for q in qds)
    # probes after QD 1 may settle within their 0.5 s (three 150 ms windows once IOPS fill them): at most 0.5 s each
    assert m["device_seconds"] == pytest.approx(sum(s["device_s"] for s in summary["steps"]), abs=0.01)
    assert m["device_seconds"] <= 0.5 * len(qds) + 0.01
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    m2 = sweep.sweep(scratch_dir / "adaptive.bin", prof, "ad", None, "16m", raw, progress=False)
    assert m2["adaptive"]["ad-randread-bs4k-qd1-nj1"]["steps"] == summary["steps"]
    assert "--name=ad-" not in (log.read_text() if log.exists() else "")  # nothing measured twice


def test_shipped_snia_lite_profile():
    p = load_profile("snia-lite")
    assert p.mode == "steady-state" and p.precondition.passes == 2
    ss = p.steady_state
    assert (ss.window, ss.range_pct, ss.slope_pct) == (5, 20.0, 10.0)
    assert "2 fill passes" in p.estimate_text(1 << 30)


def test_real_steady_state_run_with_preconditioning(tmp_path, scratch_dir, fio_path, monkeypatch):
    wrapper, log = fio_recorder(tmp_path, fio_path)
    monkeypatch.setenv("FIO", str(wrapper))
    common = {"mode": "steady-state", "precondition": {"passes": 2, "bs": "1m", "iodepth": 8},
              "settings": {"ioengine": "libaio", "runtime_s": 0.5, "ramp_s": 0}}
    pts = [{"group": "ss", "rw": "randwrite", "bs": "4k", "iodepth": 8}]
    loose = write_profile(tmp_path, "loose", pts, steady_state={"window": 3, "max_rounds": 5, "range_pct": 1000,
                                                                "slope_pct": 1000}, **common)
    raw = tmp_path / "raw"
    m = sweep.sweep(scratch_dir / "ss.bin", loose, "ss", None, "16m", raw, progress=False)
    calls = log.read_text().splitlines()
    assert [c.split()[0] for c in calls if "precondition" in c] == ["--name=precondition-1", "--name=precondition-2"]
    assert all("--rw=write" in c and "--bs=1048576" in c for c in calls if "precondition" in c)
    state = m["steady_state"]
    assert [r["round"] for r in state["rounds"]] == [1, 2, 3] and state["result"]["steady"]
    assert m["precondition"]["passes_done"] == 2
    fig = steady_state_figure(state["rounds"], state["result"])
    assert [t.name for t in fig.data] == ["iops", "window average", "least-squares fit"]
    strict = write_profile(tmp_path, "strict", pts, steady_state={"window": 2, "max_rounds": 3, "range_pct": 0,
                                                                  "slope_pct": 0}, **common)
    m = sweep.sweep(scratch_dir / "ss.bin", strict, "ss2", None, "16m", raw, progress=False)
    assert len(m["steady_state"]["rounds"]) == 3 and not m["steady_state"]["result"]["steady"]
    assert "not steady" in steady_state_figure(m["steady_state"]["rounds"], m["steady_state"]["result"]
                                               ).layout.annotations[0].text


def test_point_metrics_reads_fio_2_microsecond_keys(tmp_path):
    """The adaptive search reads its points through the one fio reader: a fio 2.x file (latency in µs
    under 'clat', io_bytes in KiB, no total_ios) gives its IOPS and its mean completion latency in µs."""
    import json
    from pathlib import Path

    from helpers.run.adaptive import point_metrics

    src = Path(__file__).parent / "data" / "fio" / "legacy" / "fio-2.1.3.out"
    obj = json.loads(src.read_text())
    m = point_metrics(src)
    jobs = [j for j in obj["jobs"]]
    per = [(j[d]["iops"], j[d]["clat"]["mean"]) for j in jobs for d in ("read", "write") if j[d]["iops"]]
    assert m["iops"] == sum(i for i, _ in per) == 4096 + 409
    assert m["lat_mean_us"] == pytest.approx(sum(i * c for i, c in per) / m["iops"], rel=1e-12)
    assert 80 < m["lat_mean_us"] < 2432  # µs, not ns (a 3.x-only reader saw 0 here)
    # the same numbers from a fio 3.x file: clat_ns / 1000
    f3 = Path(__file__).parent / "data" / "fio" / "json" / "randread-qd4.json"
    x = json.loads(f3.read_text())["jobs"][0]["read"]
    assert point_metrics(f3) == {"iops": x["iops"], "lat_mean_us": pytest.approx(x["clat_ns"]["mean"] / 1000)}


def test_steps_record_device_time_and_how_settled_they_were(tmp_path):
    """step_of takes the numbers from the raw file and the device/settle times from the manifest entry; the
    series summary names the peak's step and how settled it was; device_seconds prefers the recorded device_s."""
    from pathlib import Path

    from helpers.run.adaptive import device_seconds, settle_text, step_of, summary

    raw = Path(__file__).parent / "data" / "fio" / "json" / "randread-qd4.json"
    settled = {"parameters": {"runtime_s": 3.0, "ramp_s": 0.25}, "status": "ok", "device_s": 1.05,
               "settled_after_s": 1.0}
    full = {"parameters": {"runtime_s": 3.0, "ramp_s": 0.25}, "status": "ok"}  # a run before device_s existed
    a, b = step_of(4, "ladder", raw, settled), step_of(8, "ladder", raw, full)
    assert (a.device_s, a.settled_s, a.runtime_s) == (1.05, 1.0, 3.0) and (b.device_s, b.settled_s) == (3.25, None)
    assert settle_text(a) == "settled after 1 s" and settle_text(b) == "ran its full 3 s runtime without settling"
    s = summary([Step(1, 10.0, 100.0, "ladder", 3.0, 1.1, 1.0), a, b], AdaptiveSettings())
    assert s["peak_qd"] == 4 and s["peak_how"] == "settled after 1 s" and s["peak_settled_after_s"] == 1.0
    assert s["device_s"] == pytest.approx(1.1 + 1.05 + 3.25) and s["settled_steps"] == 2
    assert [st["device_s"] for st in s["steps"]] == [1.1, 1.05, 3.25]
    assert device_seconds({"a": settled, "b": full, "c": {**settled, "status": "failed"}}) == pytest.approx(1.05 + 3.25)


def test_real_adaptive_probes_end_once_settled_and_find_the_peak(tmp_path, scratch_dir, fio_path):
    """A known shape on a real target (the reference device, else a small file): a 1,000 IOPS offered load is flat
    over QD (1 ms per I/O at QD 1; a loaded machine can fall short of 2,000 at QD 1), so the search stops after two
    flat doublings with its peak at the offered load; each probe may run 3 s but a steady load settles within about
    a second (three 250 ms windows after the ramp), and the manifest says so."""
    from helpers.analysis import adaptive_steps

    prof = write_profile(tmp_path, "settle", [{"group": "st", "rw": "randread", "bs": "4k", "rate_iops": 1000,
                                               "rate_process": "linear"}], mode="adaptive",
                         adaptive={"max_qd": 8, "gain_pct": 10},
                         settings={"ioengine": "libaio", "runtime_s": 3, "ramp_s": 0.25, "log_avg_msec": 0,
                                   "log_hist_msec": 0})
    # on a target that holds still (realfio.still_target): beside make test's workers the shared disk stalled a
    # probe past its 3 s (settled at 3.117 s) or left a doubling unsettled (2026-11-29)
    with still_target(scratch_dir / "adaptive-settle.bin", 16 << 20) as target:
        m = sweep.sweep(target, prof, "settle", None, "16m", tmp_path / "raw", progress=False)
    summary = next(iter(m["adaptive"].values()))
    steps = summary["steps"]
    history = [Step(**s) for s in steps]
    a = load_profile(prof).adaptive
    for i, s in enumerate(history):  # the path taken is the pure search's answer to what was measured ...
        assert next_depth(history[:i], a) == (s.qd, s.kind), steps
    assert next_depth(history, a) is None, steps
    # ... and a quiet machine measures the known flat shape: QD 1 reaches the offered load, every probe settles,
    # two flat doublings end it.  A machine stall can make a probe slow or unsettled; the ladder then rightly
    # goes on (CI, 2026-11-23: QD 1, 2, 4, 8 then refine 3), so the exact path is checked only without one.
    # (a settled probe that a stall left more than gain_pct below a shallower one is re-probed: not quiet either)
    quiet = history[0].iops * 1.1 > 1000 and not any(s.unsettled for s in history[:3]) \
        and not any(s.kind == "reprobe" for s in history)
    assert [s.qd for s in history] == [1, 2, 4] or not quiet, steps
    # (a stall that left a doubling unsettled: the ladder ran on to QD 8, 'reached the largest queue depth 8 (1 of 4
    # doublings did not settle)', make test 2026-11-29)
    assert summary["stop_reason"].startswith("2 doublings") or not quiet, summary["stop_reason"]
    assert summary["peak_iops"] == pytest.approx(1000, rel=0.1)  # the known peak, a measured step
    assert summary["plateau_iops"] == pytest.approx(1000, rel=0.1)  # the plateau is at the offered load
    settled = [s for s in steps if s["settled_s"] is not None]
    assert settled, steps  # a steady load settles: the probe stopped early ...
    for s in settled:  # ... after its ramp and three windows, well before its 3 s
        assert 0.25 + 0.75 <= s["settled_s"] < 3 and s["device_s"] < 0.25 + 3
    seen: dict[int, int] = {}
    for s in steps:  # a re-probe is the depth's point again, its own raw file: -r2, -r3
        n = seen[s["qd"]] = seen.get(s["qd"], 0) + 1
        entry = m["points"][f"st-randread-bs4k-qd{s['qd']}-nj1-rate1000-linear" + (f"-r{n}" if n > 1 else "")]
        assert "--status-interval=250ms" in entry["argv"] and entry["device_s"] == s["device_s"]
        assert entry.get("settled_after_s") == s["settled_s"]
    assert m["device_seconds"] == pytest.approx(sum(s["device_s"] for s in steps), abs=0.01)
    assert m["device_seconds"] < 3 * 3.25  # less than the probes' full runtimes
    table = adaptive_steps(m)
    assert list(table["device_s"]) == [s["device_s"] for s in steps]
    assert table["settled_after_s"].notna().sum() == len(settled)
    assert summary["peak_how"].startswith(("settled after", "ran its full"))


def _probe(qd: int, iops: float, settled: bool, kind: str = "ladder") -> Step:
    """A probe with a settle check (as adaptive profiles run them): settled after 1 s, or ran its full 1 s."""
    return Step(qd, iops, 100.0 * qd, kind, 1.0, 1.02 if settled else 1.25, 1.0 if settled else None, True)


def test_unsettled_flat_looking_probes_do_not_end_the_ladder():
    """Bench round 1 (2026-11-23): a slow phase, none of the probes settled, and QD 4 and QD 8 looked flat, so
    the search called a plateau at QD 8 (a quarter of the grid's peak).  A flat verdict now needs settled
    probes: the same history keeps doubling."""
    a = AdaptiveSettings()
    round1 = [_probe(1, 9791, False), _probe(2, 14897, False), _probe(4, 13088, False), _probe(8, 15891, False)]
    assert next_depth(round1, a) == (16, "ladder")
    settled = [_probe(s.qd, s.iops, True) for s in round1]  # the same numbers, settled: a plateau (as before)
    assert next_depth(settled, a) == (3, "refine")
    # a settle-free probe (settle_windows: 0, or a run before settle checks) still counts as flat
    legacy = [Step(s.qd, s.iops, s.lat_mean_us, "ladder", 1.0, 1.25) for s in round1]
    assert next_depth(legacy, a) == (3, "refine")


def test_flat_verdict_rests_on_settled_probes_only_and_the_search_stays_pure():
    """Through a slow phase (QD 4..16 unsettled and low) the ladder goes on; two settled flat doublings end it and
    the refine bracket starts after the last unsettled step.  Replaying the history (as a resumed sweep does)
    gives the same decisions."""
    curve = {1: 10_000, 2: 20_000, 4: 21_000, 8: 19_000, 16: 22_000, 32: 50_000, 64: 60_000, 128: 61_000,
             256: 60_000, 512: 60_500}
    unsettled = {4, 8, 16}

    def search() -> list[Step]:
        history: list[Step] = []
        while (nxt := next_depth(history, AdaptiveSettings())) is not None:
            qd, kind = nxt
            history.append(_probe(qd, curve.get(qd, 60_000), qd not in unsettled, kind))
        return history

    h = search()
    assert [s.qd for s in h if s.kind == "ladder"] == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert refine_bracket([s for s in h if s.kind == "ladder"], AdaptiveSettings()) == (64, 128)
    assert [(s.qd, s.kind) for s in h if s.kind != "ladder"] == [(91, "refine")]
    assert [next_depth(h[:i], AdaptiveSettings()) for i in range(len(h))] == [(s.qd, s.kind) for s in h]
    assert search() == h
    # an unsettled step between two settled flat ones breaks the run: the ladder needs two settled in a row
    unsettled = {4, 8, 16, 128}
    h = search()
    assert [s.qd for s in h if s.kind == "ladder"] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def test_unsettled_probes_up_to_the_largest_depth_say_so():
    from helpers.run.adaptive import stop_reason
    a = AdaptiveSettings(max_qd=8)
    h = [_probe(1, 10_000, True), _probe(2, 11_000, False), _probe(4, 10_500, False), _probe(8, 10_800, False)]
    assert next_depth(h, a) is None
    assert stop_reason(h, a) == "reached the largest queue depth 8 (3 of 4 doublings did not settle)"


def test_probe_windows_shorten_once_the_previous_step_fills_them_with_enough_ios():
    """The next probe's settle window: the profile's (250 ms) until a measured step's IOPS put WINDOW_IOS I/Os
    into a shorter one, then down to min_window_ms; a pure function of the history."""
    from helpers.run.adaptive import WINDOW_IOS, probe_window_ms

    a = AdaptiveSettings()
    assert WINDOW_IOS == 1000 and a.min_window_ms == 150
    assert probe_window_ms([], a, 250) == 250  # nothing measured yet
    assert probe_window_ms([_probe(1, 2_000, True)], a, 250) == 250  # 500 I/Os in 250 ms: keep it
    assert probe_window_ms([_probe(1, 5_000, True)], a, 250) == 200  # 1,000 I/Os in 200 ms
    assert probe_window_ms([_probe(1, 12_000, True)], a, 250) == 150  # floor: min_window_ms
    assert probe_window_ms([_probe(1, 12_000, True)], AdaptiveSettings(min_window_ms=50), 250) == 90
    assert probe_window_ms([_probe(1, 12_000, True)], a, 100) == 100  # never longer than the profile's


def test_a_curve_creeping_up_just_under_gain_pct_per_doubling_is_still_rising():
    """Bench round 1 (2026-11-23 21:05): QD 32 and QD 64 each added 6-7 % over the step before, so two 'flat'
    doublings ended the ladder at QD 64 with 67k IOPS while the grid went on to 80k at QD 512.  Flat now means
    within gain_pct of the best step before the run began: 64 added 14 % over QD 16, so the ladder goes on."""
    a = AdaptiveSettings()
    probes = [_probe(q, v, True) for q, v in [(1, 12847), (2, 26547), (4, 42647), (8, 43193), (16, 58901),
                                              (32, 62667), (64, 67283)]]
    assert next_depth(probes, a) == (128, "ladder")
    probes += [_probe(128, 73000, True), _probe(256, 76000, True)]  # 256: +4 % over 128, 128: +8.5 % over 64
    assert next_depth(probes, a) == (512, "ladder")
    probes += [_probe(512, 79000, True)]  # 256 and 512 within 10 % of QD 128's 73k: a plateau
    assert next_depth(probes, a) == (181, "refine")


def test_plateau_level_is_the_median_of_the_probes_from_the_last_depth_that_paid_off():
    """Bench run 2 round 1 (2026-11-23 21:12): QD 64 paid off, 128 and 256 were flat, the refine at QD 91 dipped;
    the best probe (QD 128, 84.5k) is the best of four noisy ones, the plateau level their median."""
    from helpers.run.adaptive import plateau, plateau_iops, summary

    a = AdaptiveSettings()
    h = [_probe(q, v, True) for q, v in [(1, 13135), (2, 24062), (4, 30683), (8, 45724), (16, 51071),
                                         (32, 70208), (64, 80487), (128, 84511), (256, 81350)]]
    assert next_depth(h, a) == (91, "refine")
    h.append(_probe(91, 55366, True, "refine"))
    assert next_depth(h, a) is None
    assert [s.qd for s in plateau(h, a)] == [64, 128, 256, 91]
    assert plateau_iops(h, a) == (80487 + 81350) / 2
    s = summary(h, a)
    assert (s["peak_qd"], s["peak_iops"]) == (128, 84511) and s["plateau_qds"] == [64, 128, 256, 91]
    assert s["plateau_iops"] == 80918.5
    rising = _search(lambda q: q * 1000.0, AdaptiveSettings(max_qd=8))
    assert plateau(rising, AdaptiveSettings(max_qd=8)) == [] and summary(rising, AdaptiveSettings(max_qd=8))[
        "plateau_iops"] is None


def test_plateau_starts_at_the_step_the_flat_run_was_measured_against():
    """An unsettled dip (QD 256) between the best step (QD 128) and two settled flat ones: the plateau starts at
    QD 128, the level the flat doublings did not beat."""
    from helpers.run.adaptive import plateau

    a = AdaptiveSettings()
    h = [_probe(q, v, True) for q, v in [(1, 12119), (2, 17371), (4, 31976), (8, 45178), (16, 58453), (32, 66553),
                                         (64, 58770), (128, 69195)]]
    h += [_probe(256, 62919, False), _probe(512, 51169, True), _probe(1024, 63054, True)]
    assert next_depth(h, a) == (362, "refine")
    h.append(_probe(362, 66867, True, "refine"))
    assert [s.qd for s in plateau(h, a)] == [128, 256, 512, 1024, 362]


def test_curve_level_is_the_search_plateau_rule_on_a_grid_curve():
    """A grid's curve read by the search's own plateau rule: from the point its trailing flat run is measured
    against (QD 32, the best before QD 64; QD 256's 84k is more than 10 % above QD 16's 76k, so the run cannot
    start at QD 32) up to QD 1024, their median -- not the maximum (QD 256's 84k, the best of six noisy readings
    of one level).  A curve still rising at its end has no plateau: its best point."""
    from helpers.run.adaptive import curve_level
    a = AdaptiveSettings()
    grid = {1: 10_000, 2: 20_000, 4: 38_000, 8: 60_000, 16: 76_000, 32: 80_000, 64: 79_000, 128: 82_000,
            256: 84_000, 512: 78_000, 1024: 81_000}
    assert curve_level(grid, a) == (80_500, [32, 64, 128, 256, 512, 1024])
    # a late step up of more than gain_pct starts the flat run afresh: the level is that of the last plateau
    stepped = {**grid, 256: 95_000, 512: 95_000, 1024: 96_000}
    assert curve_level(stepped, a) == (95_000, [256, 512, 1024])
    assert curve_level({1: 10.0, 2: 20.0, 4: 40.0}, a) == (40.0, [4])
    with pytest.raises(ValueError):
        curve_level({}, a)


def test_concluded_curve_carries_the_plateau_level_to_max_qd():
    """The search's conclusion on the grid's QD range: probes as measured, then the plateau's level (the median of
    QD 32, 64, 128 and the refine step 45) at every ladder depth past the last probe; without a plateau (still
    rising at max_qd) the probes alone; a confirm run is not a probe."""
    from helpers.run.adaptive import concluded_curve
    a = AdaptiveSettings(max_qd=1024)
    h = _search(lambda q: min(q * 2_500, 80_000) + (q == 64) * 2_000, a)
    assert [s.qd for s in h] == [1, 2, 4, 8, 16, 32, 64, 128, 45]
    qd, iops = concluded_curve(h, a)
    assert qd == [1, 2, 4, 8, 16, 32, 64, 128, 45, 256, 512, 1024]
    assert iops[:9] == [s.iops for s in h] and iops[9:] == [80_000] * 3
    rising = _search(lambda q: q * 1000.0, AdaptiveSettings(max_qd=8, confirm_runtime_s=3))
    assert concluded_curve(rising, AdaptiveSettings(max_qd=8, confirm_runtime_s=3)) == ([1, 2, 4, 8],
                                                                                       [1000.0, 2000.0, 4000.0, 8000.0])


def _noisy_search(readings: dict[tuple[int, int], float], curve, a: AdaptiveSettings) -> list[Step]:
    """A search whose n-th reading (0, 1, 2) at a depth is readings[(qd, n)] when given, else curve(qd); every
    probe settled."""
    history: list[Step] = []
    while (nxt := next_depth(history, a)) is not None:
        qd, kind = nxt
        n = sum(s.qd == qd and s.kind in ("ladder", "reprobe") for s in history) if kind in ("ladder", "reprobe") else 0
        history.append(_probe(qd, readings.get((qd, n), curve(qd)), True, kind))
        assert len(history) < 30
    return history


def _knee_curve(q: int) -> float:  # rises to its knee at QD 32, flat (60k) from there
    return {1: 10_000, 2: 18_000, 4: 30_000, 8: 42_000, 16: 52_000}.get(q, 60_000)


def test_a_noise_dip_below_the_knee_is_reprobed_and_the_knee_found():
    """Bench 2026-11-23 23:41 round 1: QD 16 looked flat over QD 8 and a settled probe at QD 32 read 10 % below
    QD 16 (30 % below the grids), so two doublings looked flat at QD 16 and the knee came out at QD 8 against the
    grids' 32.  Now the dip is measured again; the re-probe reads the curve, the two disagree by more than
    gain_pct, a third reading breaks the tie (median of three), and the ladder goes on to the real plateau: the
    knee on the grid's range is the true curve's, the plateau level the curve's."""
    from helpers.analysis import find_knee
    from helpers.run.adaptive import concluded_curve, ladder_steps, plateau_iops

    low = {(16, 0): 45_000, (32, 0): 40_000}
    grid = [2**k for k in range(11)]
    true_knee = find_knee(grid, [_knee_curve(q) for q in grid], S=1.0).knee_qd
    assert true_knee == 32
    off = AdaptiveSettings(reprobe=False)
    before = _noisy_search(low, _knee_curve, off)
    assert [s.qd for s in before if s.kind == "ladder"][-1] == 32 and plateau_iops(before, off) == 43_500
    assert find_knee(*concluded_curve(before, off), S=1.0).knee_qd < 16
    a = AdaptiveSettings()
    h = _noisy_search(low, _knee_curve, a)
    assert [(s.qd, s.kind) for s in h] == [(1, "ladder"), (2, "ladder"), (4, "ladder"), (8, "ladder"),
                                           (16, "ladder"), (32, "ladder"), (32, "reprobe"), (32, "reprobe"),
                                           (64, "ladder"), (128, "ladder"), (45, "refine")]
    assert ladder_steps(h)[5].iops == 60_000  # median of 40k, 60k, 60k
    assert plateau_iops(h, a) == 60_000  # every reading counts, the dip too: median of QD 32 (x3), 64, 128, 45
    assert find_knee(*concluded_curve(h, a), S=1.0).knee_qd == true_knee
    assert [next_depth(h[:i], a) for i in range(len(h))] == [(s.qd, s.kind) for s in h]  # pure: a resume replays it


def test_a_real_drop_past_overload_that_persists_on_the_reprobe_is_kept():
    """Past the knee the device overloads: QD 256 reads 20 % below QD 128, and so does its re-probe.  The two agree
    within gain_pct, so no third reading: the drop stands (their mean), it is a flat doubling, and the search
    stops as it did without the rule, one probe later."""
    from helpers.run.adaptive import ladder_steps, plateau, stop_reason

    def curve(q: int) -> float:
        return min(q * 1_000.0, 64_000.0) if q <= 128 else 51_000.0

    a = AdaptiveSettings()
    h = _noisy_search({(256, 1): 52_000}, curve, a)
    without = _noisy_search({(256, 1): 52_000}, curve, AdaptiveSettings(reprobe=False))
    assert [(s.qd, s.kind) for s in h if s.kind == "reprobe"] == [(256, "reprobe")]
    assert [s for s in h if s.kind != "reprobe"] == without
    assert ladder_steps(h)[-1].iops == 51_500 and ladder_steps(h)[-1].device_s == pytest.approx(2.04)
    assert stop_reason(h, a) == stop_reason(without, a)
    assert [s.qd for s in plateau(h, a)] == [64, 128, 256, 256, 91]


def test_reprobes_cost_at_most_max_reprobes_probes_and_none_when_off():
    """A device whose every other reading is 30 % low: each dip would be re-probed and its tie broken, but a
    series adds at most max_reprobes runs (the device time it costs is bounded), none with reprobe off; and a
    reading far ABOVE the shallower depths is never re-probed (only a drop is implausible)."""
    count = iter(range(1000))

    def curve(q: int) -> float:
        return min(q * 5_000.0, 60_000.0) * (0.7 if next(count) % 2 else 1.0)

    h = _noisy_search({}, curve, AdaptiveSettings())
    assert sum(s.kind == "reprobe" for s in h) == 2
    assert sum(s.kind == "reprobe" for s in h) <= AdaptiveSettings(max_reprobes=2).max_reprobes
    count = iter(range(1000))
    assert sum(s.kind == "reprobe" for s in _noisy_search({}, curve, AdaptiveSettings(max_reprobes=1))) == 1
    count = iter(range(1000))
    assert not any(s.kind == "reprobe" for s in _noisy_search({}, curve, AdaptiveSettings(reprobe=False)))
    # a dip that did not settle never counts as flat (the ladder goes on anyway): not re-probed
    a = AdaptiveSettings()
    unsettled_dip = [_probe(1, 10_000, True), _probe(2, 20_000, True), _probe(4, 15_000, False)]
    assert next_depth(unsettled_dip, a) == (8, "ladder")
    assert next_depth(unsettled_dip[:2] + [_probe(4, 15_000, True)], a) == (4, "reprobe")
    high = _noisy_search({(16, 0): 200_000}, _knee_curve, AdaptiveSettings())
    assert not any(s.kind == "reprobe" and s.qd == 16 for s in high)  # (QD 32 then dips below it: re-probed)


# ------------------------------------------------------------------------------------ seeding (issue 25)

def _seeded_search(curve, a: AdaptiveSettings, seed):
    history: list[Step] = []
    while (nxt := next_depth(history, a, seed)) is not None:
        qd, kind = nxt
        history.append(Step(qd, curve(qd), 100.0 * qd, kind))
        assert len(history) < 30
    return history


def test_a_series_seeds_the_next_of_its_operation_from_one_step_below_its_plateau():
    """4k saturates at QD 16 (unseeded: QD 1..64 and a refine at 23): its plateau began at QD 16, so it seeds a ladder
    QD 1, 8, 16, ...  A 16k series saturating at QD 8 then measures QD 1, 8, 16, 32 and, its jump to QD 8 being the
    last doubling that paid off, refines in the depths it skipped, at 3 (5 probes instead of 7), reports the same plateau as its unseeded search would, and every number it
    reports is one of its own probes."""
    a = AdaptiveSettings(seed=True)
    h4 = _search(lambda q: min(q, 16) * 5_000.0, a)
    assert [s.qd for s in h4] == [1, 2, 4, 8, 16, 32, 64, 23]
    seed = seed_from(h4, a, "qd-randread-bs4k-qd1-nj1")
    assert seed == Seed("qd-randread-bs4k-qd1-nj1", plateau_qd=16, start_qd=8)
    assert seed.skipped(a) == [2, 4] and seed.depths(a)[:4] == [1, 8, 16, 32]
    assert seed.record(a) == {"seeded_from": "qd-randread-bs4k-qd1-nj1", "expected_plateau_qd": 16, "start_qd": 8,
                              "skipped_qds": [2, 4]}

    def c16(q):
        return min(q, 8) * 2_500.0

    seeded, plain = _seeded_search(c16, a, seed), _search(c16, a)
    assert [(s.qd, s.kind) for s in seeded] == [(1, "ladder"), (8, "ladder"), (16, "ladder"), (32, "ladder"),
                                               (3, "refine")]
    assert [s.qd for s in plain] == [1, 2, 4, 8, 16, 32, 11]
    assert plateau_iops(seeded, a) == plateau_iops(plain, a) == 20_000.0 and peak(seeded).iops == 20_000.0
    assert all(s.iops == c16(s.qd) for s in seeded)  # its own probes only
    qd, iops = concluded_curve(seeded, a)
    assert set(qd) >= {1, 3, 8, 16, 32, 1024} and 2 not in qd and 4 not in qd
    assert all(v == c16(q) for q, v in zip(qd, iops))
    # a seeded search seeds the next in turn, from its own plateau (QD 8 here: one step below it, QD 4)
    assert seed_from(seeded, a, "qd-randread-bs16k-qd1-nj1") == Seed("qd-randread-bs16k-qd1-nj1", 8, 4)
    summary_ = summary(seeded, a, seed)
    assert summary_["seed"]["seeded_from"] == "qd-randread-bs4k-qd1-nj1" and summary(plain, a)["seed"] is None


def test_a_seeded_series_that_rises_past_the_seed_doubles_on_and_confirms_its_own_plateau():
    """The seed is a guess about depths, never a number: a series still rising past the seeding series' plateau
    (here to QD 64) doubles on as any ladder and stops only after flat_steps flat doublings of its own; its refine
    step is the unseeded ladder's (between the last doubling that paid off and the first flat one)."""
    a = AdaptiveSettings(seed=True)
    seed = Seed("s", plateau_qd=16, start_qd=8)
    h = _seeded_search(lambda q: min(q, 64) * 1_000.0, a, seed)
    assert [s.qd for s in h if s.kind == "ladder"] == [1, 8, 16, 32, 64, 128, 256]
    assert [s.qd for s in h if s.kind == "refine"] == [91]
    assert plateau_iops(h, a) == 64_000.0


def test_seed_knee_and_peak_on_noisy_soft_curves_match_the_unseeded_search():
    """Soft saturation (IOPS = P * q / (q + K)), 2 % noise, knees 2..32, for a series seeded by one that plateaued
    at QD 16 or 32: the seeded search's plateau level is within 5 % of the unseeded one's and its knee (find_knee
    on the concluded curve) within one QD doubling of the unseeded knee in >= 90 % of 100 curves, with fewer probes
    on average."""
    import math
    import random

    from helpers.analysis import find_knee

    a = AdaptiveSettings(seed=True)
    rnd = random.Random(7)
    ok_peak = ok_knee = 0
    probes_seeded = probes_plain = 0
    n = 100
    for _ in range(n):
        k = rnd.choice([2, 4, 8, 16, 32])
        top = rnd.choice([16, 32])
        noise = {}

        def curve(q, k=k, noise=noise):
            return 50_000.0 * q / (q + k) * noise.setdefault(q, 1 + rnd.gauss(0, 0.02))

        plain = _search(curve, a)
        seeded = _seeded_search(curve, a, Seed("s", top, top // 2))
        probes_seeded += len(seeded)
        probes_plain += len(plain)
        lp, ls = plateau_iops(plain, a) or peak(plain).iops, plateau_iops(seeded, a) or peak(seeded).iops
        ok_peak += abs(ls - lp) / lp <= 0.05
        kp = find_knee(*concluded_curve(plain, a)).knee_qd
        ks = find_knee(*concluded_curve(seeded, a)).knee_qd
        ok_knee += kp is not None and ks is not None and abs(math.log2(ks) - math.log2(kp)) <= 1
    assert ok_peak >= 0.9 * n and ok_knee >= 0.9 * n, (ok_peak, ok_knee)
    assert probes_seeded < 0.85 * probes_plain, (probes_seeded, probes_plain)


def test_no_seed_without_a_plateau_of_its_own_or_when_it_would_skip_nothing():
    a = AdaptiveSettings(seed=True)
    assert seed_from(_search(lambda q: q * 1000.0, AdaptiveSettings(seed=True, max_qd=64)), a, "s") is None  # rising
    assert seed_from(_search(lambda q: min(q, 4) * 1000.0, a), a, "s") is None  # plateau from QD 4: start 2
    assert seed_from(_search(lambda q: min(q, 16) * 1000.0, AdaptiveSettings()), AdaptiveSettings(), "s") is None
    lat = AdaptiveSettings(seed=True, lat_limit_us=1000)
    assert seed_from(_search(lambda q: q * 1000.0, lat), lat, "s") is None  # stopped by the latency limit


def test_a_plateau_is_checked_two_doublings_deeper_and_the_check_is_one_more_reading_of_it():
    """check_doublings=2: after two flat doublings (QD 32 and 64 against QD 16... here 16 paid off, 32 and 64 did
    not) one probe at 4x the last flat depth confirms the plateau; it is a plateau reading like the others, the stop
    reason names it, and the refine step is the unchecked ladder's."""
    a = AdaptiveSettings(check_doublings=2)
    h = _search(lambda q: min(q * 10_000, 50_000), a)
    assert [(s.qd, s.kind) for s in h] == [(1, "ladder"), (2, "ladder"), (4, "ladder"), (8, "ladder"),
                                           (16, "ladder"), (32, "ladder"), (128, "ladder"), (11, "refine")]
    reason = summary(h, a)["stop_reason"]
    assert "up to QD 32" in reason and "the check deeper, at QD 128, read flat too" in reason
    assert summary(h, a)["plateau_qds"] == [8, 16, 32, 128, 11]
    # no deeper depth left: the ladder stops without a check; a check past max_qd is made at max_qd
    assert [s.qd for s in _search(lambda q: min(q, 2) * 1000.0, AdaptiveSettings(check_doublings=2, max_qd=8))
            if s.kind == "ladder"] == [1, 2, 4, 8]
    assert [s.qd for s in _search(lambda q: min(q, 2) * 1000.0, AdaptiveSettings(check_doublings=2, max_qd=16))
            if s.kind == "ladder"] == [1, 2, 4, 8, 16]


def test_a_slow_rise_that_two_flat_doublings_hid_shows_at_the_check_and_the_ladder_goes_on():
    """Bench behind a 40,000 IOPS ceiling (2026-11-26 17:03), rw 16k seeded from 4k: QD 8, 16 and 32 read 59.9k,
    56.2k and 64.2k IOPS, so 16 and 32 were flat against QD 8 and the ladder stopped with a plateau of 58k, while
    both grids' level was 80k from QD 64 on (their QD 16 read 66-80k: the probes sat in slow phases).  The check at
    QD 128 reads the 80k: the run is broken, the ladder doubles on from 128, finds its plateau there and refines
    inside the jump 32 -> 128 (QD 64), where the curve rose."""
    seed = Seed("bs4k", plateau_qd=8, start_qd=4)
    read = {1: 25492, 4: 49708, 8: 59863, 11: 56532, 16: 56208, 32: 64222, 128: 79800, 256: 80100, 512: 79500, 1024: 79900,
            64: 78000}
    unchecked = _seeded_search(read.__getitem__, AdaptiveSettings(seed=True), seed)
    assert [s.qd for s in unchecked if s.kind == "ladder"] == [1, 4, 8, 16, 32]
    assert plateau_iops(unchecked, AdaptiveSettings(seed=True)) < 0.8 * 80_000  # the miss
    a = AdaptiveSettings(seed=True, check_doublings=2)
    h = _seeded_search(read.__getitem__, a, seed)
    assert [(s.qd, s.kind) for s in h] == [(1, "ladder"), (4, "ladder"), (8, "ladder"), (16, "ladder"),
                                           (32, "ladder"), (128, "ladder"), (256, "ladder"), (512, "ladder"),
                                           (1024, "ladder"), (64, "refine")]
    assert plateau_iops(h, a) == pytest.approx(79_850, rel=0.01)


def test_the_check_finds_two_stage_curves_plateau_in_noise_the_unchecked_ladder_misses():
    """Two-stage curves (a first saturation at knee 2-8 to 70-85 % of the level, the rest rising around 8x that knee),
    3 % probe noise, 200 curves: the checked search's plateau level is within 5 % of the true level in >= 92 % of
    them, at least 3 points more than the unchecked ladder's on the same noisy curves, for about one probe more per
    series.  On plain soft saturation (IOPS = P q / (q + K), 2 % noise, 100 curves) its level is within 5 % of the
    curve's at QD 1024 in >= 80 % (at least 15 more than unchecked) and its knee within one doubling in >= 95 %."""
    import random

    rnd = random.Random(3)
    n, hits, probes = 200, {0: 0, 2: 0}, {0: 0, 2: 0}
    for _ in range(n):
        k1, f = rnd.choice([2, 4, 8]), rnd.uniform(0.7, 0.85)
        noise: dict[int, float] = {}

        def truth(q, k1=k1, f=f):
            x = (q / (k1 * 8)) ** 3
            return 80_000 * (f * q / (q + 0.3 * k1) + (1 - f) * x / (1 + x))

        for cd in (0, 2):
            a = AdaptiveSettings(check_doublings=cd)
            h = _search(lambda q, truth=truth, noise=noise: truth(q) * noise.setdefault(q, 1 + rnd.gauss(0, 0.03)), a)
            level = plateau_iops(h, a) or peak(h).iops
            hits[cd] += abs(level - truth(1024)) / truth(1024) <= 0.05
            probes[cd] += len(h)
    assert hits[2] >= 0.92 * n and hits[2] >= hits[0] + 0.03 * n, hits
    assert probes[2] <= probes[0] + 1.5 * n, probes
    # plain soft saturation keeps rising slowly (89 % of its level at 8 K, 97 % at 32 K): the checked ladder's level
    # is nearer the curve's value at max_qd (what a grid to QD 1024 reads), its knee no worse
    import math

    from helpers.analysis import find_knee

    near = {0: 0, 2: 0}
    knee_ok = 0
    for _ in range(100):
        k = rnd.choice([2, 4, 8, 16, 32])
        noise = {}

        def soft(q, k=k, noise=noise):
            return 50_000.0 * q / (q + k) * noise.setdefault(q, 1 + rnd.gauss(0, 0.02))

        top = 50_000.0 * 1024 / (1024 + k)
        true_knee = find_knee([2 ** i for i in range(11)], [50_000.0 * 2 ** i / (2 ** i + k) for i in range(11)]).knee_qd
        for cd in (0, 2):
            a = AdaptiveSettings(check_doublings=cd)
            h = _search(soft, a)
            near[cd] += abs((plateau_iops(h, a) or peak(h).iops) - top) / top <= 0.05
            if cd:
                kq = find_knee(*concluded_curve(h, a)).knee_qd
                knee_ok += kq is not None and abs(math.log2(kq) - math.log2(true_knee)) <= 1
    assert near[2] >= 80 and near[2] >= near[0] + 15 and knee_ok >= 95, (near, knee_ok)
