"""Demand intensity (helpers.run.demand): known-answer tests of the configuration search, and real fio on the
reference device (helpers.run.refdev): a short search that adds a job, and the lower bound when jobs cannot help."""

from __future__ import annotations

import os

import pytest

from helpers.errors import LabError
from helpers.ingest.core import ingest_run
from helpers.run import demand, sweep
from helpers.run.demand import Config, Probe
from helpers.run.profiles import load_profile
from helpers.run.refdev import describe, reference_device
from quiet_helpers import idle_cpus, wait_until_idle


def P(jobs, qd, engine, iops, cpu):
    return Probe(Config(jobs, qd, engine), iops, 10.0, cpu)


def test_cpu_bound_probe_is_followed_by_more_jobs_at_the_same_outstanding_io():
    probes = [P(1, 16, "libaio", 250e3, 100)]
    assert demand.next_config(probes, 4, engine_auto=True, jobs_auto=True) == Config(2, 8, "libaio")
    probes.append(P(2, 8, "libaio", 490e3, 99))  # paid off: the best now, still CPU-bound
    assert demand.next_config(probes, 4, True, True) == Config(4, 4, "libaio")
    probes.append(P(4, 4, "libaio", 495e3, 99))  # 4 jobs on 2 real CPUs: no gain, the best stays 2 x 8
    assert demand.best(probes).config == Config(2, 8, "libaio")
    assert demand.next_config(probes, 4, True, True) == Config(2, 8, "io_uring")
    probes.append(P(2, 8, "io_uring", 700e3, 95))
    assert demand.next_config(probes, 4, True, True) == Config(4, 4, "io_uring")
    probes.append(P(4, 4, "io_uring", 690e3, 95))
    assert demand.next_config(probes, 4, True, True) == Config(2, 16, "io_uring")  # deeper demand
    probes.append(P(2, 16, "io_uring", 720e3, 95))  # < 5 % more: not a new best, one flat doubling of io_uring
    assert demand.next_config(probes, 4, True, True) == Config(2, 32, "io_uring")
    probes.append(P(2, 32, "io_uring", 715e3, 95))  # a second flat doubling: the line ends
    assert demand.next_config(probes, 4, True, True) is None
    s = demand.summary(probes)
    assert s["setting"] == "2 jobs × QD 8, io_uring" and s["lower_bound"] is True
    assert s["sentence"].startswith("At least 700k IOPS at 2 jobs × QD 8, io_uring: fio used a whole CPU")


def test_io_uring_is_deepened_on_its_own_line_when_it_ties_libaio_at_the_switch():
    """zram, 2 CPUs, measured on a quiet machine: io_uring read the same as libaio at 2 jobs x QD 8 but 895k at
    QD 32; the search must not stop at the tie (the bench-peak ratio was 0.81 when it did)."""
    probes = [P(1, 16, "libaio", 354e3, 99.7), P(2, 8, "libaio", 725e3, 99.2), P(2, 8, "io_uring", 721e3, 51.6)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 16, "libaio")  # the best's engine first
    probes.append(P(2, 16, "libaio", 675e3, 99.3))  # libaio deeper: no gain, its line ends
    assert demand.next_config(probes, 2, True, True) == Config(2, 16, "io_uring")
    probes.append(P(2, 16, "io_uring", 820e3, 52))
    assert demand.next_config(probes, 2, True, True) == Config(2, 32, "io_uring")
    probes.append(P(2, 32, "io_uring", 895e3, 52.6))
    assert demand.next_config(probes, 2, True, True) == Config(2, 64, "io_uring")
    probes.append(P(2, 64, "io_uring", 880e3, 50))
    assert demand.next_config(probes, 2, True, True) == Config(2, 128, "io_uring")  # one flat doubling
    probes.append(P(2, 128, "io_uring", 870e3, 50))
    assert demand.next_config(probes, 2, True, True) is None
    assert demand.best(probes).config == Config(2, 32, "io_uring") and not demand.lower_bound(probes)
    # a losing engine's line is not deepened (libaio 2 x 8 far below io_uring's best)
    lost = [P(1, 16, "libaio", 250e3, 100), P(2, 8, "libaio", 400e3, 99), P(2, 8, "io_uring", 700e3, 60),
            P(2, 16, "io_uring", 710e3, 60), P(2, 32, "io_uring", 705e3, 60)]
    assert demand.next_config(lost, 2, True, True) is None
    assert demand.next_config(lost[:-1], 2, True, True, max_qd=16) is None


def test_a_move_off_a_cpu_bound_start_keeps_the_engine_switch_open():
    """bench-peak 2026-11-29 01:16, zram, adaptive: one job flat and CPU-bound from QD 1 (start at QD 4); 2 jobs x QD 2
    read 479k at 75 % CPU each, so io_uring was never tried and the search ended at 501k (0.65 of hand-tuned fio).
    The host was the limit at the start: the engine switch and its deeper line stay open."""
    probes = [P(1, 4, "libaio", 314e3, 97.2), P(2, 2, "libaio", 479e3, 74.8)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 2, "io_uring")
    probes += [P(2, 2, "io_uring", 490e3, 45), P(2, 4, "libaio", 501e3, 75.5)]  # libaio deeper: < 5 %
    assert demand.next_config(probes, 2, True, True) == Config(2, 4, "io_uring")
    # a start that was not CPU-bound still adds nothing, whatever follows
    assert demand.next_config([P(1, 32, "libaio", 80e3, 20)], 8, True, True) is None


def test_io_uring_below_libaio_at_a_shallow_depth_is_still_deepened():
    """make run-all PROFILE=adaptive on zram, 2026-11-29 01:27: one job flat from QD 1, the search started at QD 6;
    io_uring at 2 jobs x QD 3 read 441k against libaio's 506k and was not deepened (the peak stayed at 506k, fio does
    895k at 2 x QD 32)."""
    probes = [P(1, 6, "libaio", 296e3, 98.9), P(2, 3, "libaio", 506e3, 87.7), P(2, 3, "io_uring", 441e3, 50.7),
              P(2, 6, "libaio", 451e3, 77.8)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 6, "io_uring")
    probes.append(P(2, 6, "io_uring", 600e3, 51))
    assert demand.next_config(probes, 2, True, True) == Config(2, 12, "io_uring")


def test_io_uring_far_below_libaio_at_the_switch_is_deepened_until_two_doublings_are_flat():
    """bench-peak 2026-11-29 04:10, zram, adaptive: one job flat from QD 1 (start QD 4); 2 jobs x QD 2 libaio 701k,
    io_uring there 464k (66 %, below the 25 % line rule) and never deepened: the peak stayed at 0.85 of hand-tuned
    fio's 830k (characterize's io_uring line in the same run: 708k at x QD 8, 800k at 16, 873k at 64)."""
    probes = [P(1, 4, "libaio", 337e3, 101.6), P(2, 2, "libaio", 701e3, 97.9), P(2, 2, "io_uring", 464e3, 100.2),
              P(2, 4, "libaio", 700e3, 98.2)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 4, "io_uring")
    probes.append(P(2, 4, "io_uring", 480e3, 100))  # twice as deep, < 5 % more: one flat doubling
    assert demand.next_config(probes, 2, True, True) == Config(2, 8, "io_uring")
    probes.append(P(2, 8, "io_uring", 470e3, 100))  # a second one, far below the best: its line ends there
    assert demand.next_config(probes, 2, True, True) is None
    probes[-1] = P(2, 8, "io_uring", 640e3, 100)  # paid off: deepened on
    assert demand.next_config(probes, 2, True, True) == Config(2, 16, "io_uring")


def test_io_uring_is_deepened_while_its_own_line_gains():
    """bench-peak 2026-11-29 06:02, zram, adaptive: the ladder dipped (QD 1 362k, QD 2 270k) so the demand search
    started at QD 1; io_uring read 276k at 2 jobs x QD 1 and 348k at x QD 2 against libaio's 615k, was deepened once
    and the search ended at 0.84 of hand-tuned fio.  A line that keeps gaining on itself (+26 %) is deepened on."""
    probes = [P(1, 1, "libaio", 362e3, 102), P(2, 1, "libaio", 544e3, 98.8), P(2, 1, "io_uring", 276e3, 98.9),
              P(2, 2, "libaio", 615e3, 98.9), P(2, 2, "io_uring", 348e3, 97), P(2, 4, "libaio", 526e3, 99.2)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 4, "io_uring")
    probes.append(P(2, 4, "io_uring", 470e3, 99))
    assert demand.next_config(probes, 2, True, True) == Config(2, 8, "io_uring")
    probes.append(P(2, 8, "io_uring", 600e3, 99))
    assert demand.next_config(probes, 2, True, True) == Config(2, 16, "io_uring")
    probes.append(P(2, 16, "io_uring", 610e3, 99))  # +2 %: one flat doubling, deepened on
    assert demand.next_config(probes, 2, True, True) == Config(2, 32, "io_uring")
    probes.append(P(2, 32, "io_uring", 700e3, 99))  # +17 % over the line's best: the new best of the line
    assert demand.next_config(probes, 2, True, True) == Config(2, 64, "io_uring")


def test_one_flat_io_uring_doubling_does_not_end_its_line():
    """bench-peak 2026-11-29 06:10, zram, adaptive: io_uring at 2 jobs read 711k at x QD 8 and 719k at x QD 16 (+1 %)
    and the search stopped there at 0.88 of hand-tuned fio's 817k (2 x QD 128, io_uring); earlier runs read 838k at
    x QD 32.  The line goes on until a second doubling in a row does not pay off."""
    probes = [P(1, 4, "libaio", 355e3, 100), P(2, 2, "libaio", 711e3, 99), P(2, 2, "io_uring", 448e3, 99),
              P(2, 4, "libaio", 690e3, 99), P(2, 4, "io_uring", 593e3, 99), P(2, 8, "io_uring", 711e3, 99),
              P(2, 16, "io_uring", 719e3, 99)]
    assert demand.next_config(probes, 2, True, True) == Config(2, 32, "io_uring")
    probes.append(P(2, 32, "io_uring", 838e3, 99))
    assert demand.best(probes).config == Config(2, 32, "io_uring")
    assert demand.next_config(probes, 2, True, True) == Config(2, 64, "io_uring")
    probes += [P(2, 64, "io_uring", 850e3, 99), P(2, 128, "io_uring", 845e3, 99)]  # two flat doublings: done
    assert demand.next_config(probes, 2, True, True) is None
    assert len(probes) < demand.MAX_PROBES and demand.summary(probes)["setting"] == "2 jobs × QD 32, io_uring"
    # the budget holds a line that keeps gaining: at most MAX_PROBES configurations per series
    long = probes[:7] + [P(2, 2 ** k, "io_uring", 719e3 * 1.06 ** (k - 4), 99) for k in range(5, 11)]
    assert len(long) > demand.MAX_PROBES and demand.next_config(long, 2, True, True, max_qd=4096) is None


def test_the_search_starts_at_the_deepest_depth_on_the_peak():
    assert demand.start_depth([(1, 250e3), (2, 262e3), (4, 255e3), (8, 240e3), (16, 200e3)]) == 8
    assert demand.start_depth([(1, 10e3), (2, 20e3), (4, 40e3)]) == 4


def test_a_probe_that_is_not_cpu_bound_changes_nothing_and_fixed_values_are_obeyed():
    assert demand.next_config([P(1, 32, "libaio", 80e3, 20)], 8, True, True) is None  # the device's limit
    assert demand.next_config([P(1, 16, "libaio", 250e3, 100)], 8, engine_auto=False, jobs_auto=False) is None
    assert demand.next_config([P(1, 16, "libaio", 250e3, 100)], 1, engine_auto=False, jobs_auto=True) is None
    assert demand.next_config([P(1, 16, "libaio", 250e3, 100)], 8, True, False, uring=False) is None
    assert not demand.lower_bound([P(1, 16, "libaio", 250e3, 100), P(2, 8, "libaio", 300e3, 40)])


def test_engine_options_pin_and_register():
    assert demand.engine_options(Config(2, 8, "io_uring"), "0,1") == [
        ("registerfiles", "1"), ("fixedbufs", "1"), ("cpus_allowed", "0,1"), ("cpus_allowed_policy", "split")]
    assert demand.engine_options(Config(1, 8, "libaio"), "0,1") == []
    assert ("hipri", "1") in demand.engine_options(Config(1, 8, "io_uring"), None, hipri=True)


def test_profile_auto_values(tmp_path):
    p = tmp_path / "auto.yaml"
    p.write_text("mode: adaptive\nsettings: {runtime_s: 1}\nadaptive: {max_qd: 8}\n"
                 "points:\n  - {rw: randread, bs: 4k, numjobs: auto, ioengine: auto}\n"
                 "  - {rw: randread, bs: 8k, numjobs: 2, ioengine: libaio}\n")
    a, b = load_profile(p).points
    assert (a.numjobs, a.ioengine, a.jobs_auto, a.engine_auto) == (1, "libaio", True, True)
    assert (b.numjobs, b.jobs_auto, b.engine_auto) == (2, False, False)


def test_input_problems_one_sentence_each(monkeypatch):
    monkeypatch.setattr(demand, "usable_cpus", lambda: 2)
    monkeypatch.setattr(demand, "can_pin", lambda: False)
    monkeypatch.setattr(demand, "io_uring_problem", lambda fio: "io_uring is missing from fio (x): stays on libaio.")
    out = demand.input_problems(True, True, 4, "fio", False)
    assert len(out) == 3 and "unpinned" in out[0] and "4 jobs" in out[1] and "io_uring" in out[2]


# ------------------------------------------------------------------------------------------- real fio
@pytest.fixture(scope="module")
def ref_device():
    if os.geteuid() != 0:
        pytest.skip("the reference device needs root")
    try:
        with reference_device(256 << 20) as dev:
            yield dev
    except LabError as exc:
        pytest.skip(str(exc))


def _profile(tmp_path, rw="randread", engine="auto"):
    p = tmp_path / f"demand-{rw}-{engine}.yaml"
    p.write_text("mode: adaptive\nsettings: {runtime_s: 0.6, ramp_s: 0.1}\n"
                 "adaptive: {start_qd: 8, max_qd: 16, refine: false, reprobe: false}\n"
                 f"points:\n  - {{group: demand, rw: {rw}, bs: 4k, numjobs: auto, ioengine: {engine}}}\n")
    return p


def _search(dev, tmp_path, engine="auto"):
    wait_until_idle(demand.usable_cpus() - 0.5)  # the CPUs fio may use are idle, or the check below tells
    name = dev.path.name
    kw = dict(destroy_device=name, ignore_signature=name, progress=False)
    m = sweep.sweep(str(dev.path), _profile(tmp_path, engine=engine), "demand", None, "256m", tmp_path / "raw", **kw)
    (s,) = m["adaptive"].values()
    one = s["demand"]["probes"][0]
    idle = idle_cpus(0.3)
    if not one["cpu_bound"] and idle < demand.usable_cpus() - 0.5:  # other work took the CPU fio would have used
        pytest.skip(f"machine busy ({idle:.1f} CPUs idle, load average {os.getloadavg()[0]:.1f}): one zram job got "
                    f"{one['cpu_pct']:.0f} % of a CPU, so the CPU-bound rule cannot fire")
    return m, s["demand"]


def _two_free_cpus(why: str) -> None:
    """Skip with the reason unless a second job can get a CPU of its own (2 CPUs, both idle now)."""
    if demand.usable_cpus() < 2:
        pytest.skip("one CPU: no job to add")
    idle = wait_until_idle(demand.usable_cpus() - 0.5)
    if idle < demand.usable_cpus() - 0.5:
        pytest.skip(f"machine busy ({idle:.1f} of {demand.usable_cpus()} CPUs idle, load average "
                    f"{os.getloadavg()[0]:.1f}): {why}")


def test_reference_device_is_memory_and_refused_without_the_safety_names(ref_device, tmp_path):
    assert "not an SSD" in describe(ref_device.path) and describe(tmp_path) == ""
    with pytest.raises(LabError, match="DESTROY_DEVICE|destroy_device|IGNORE_SIGNATURE|READ_ONLY"):
        sweep.plan_sweep(str(ref_device.path), _profile(tmp_path, "randwrite"), "x", None, "256m", tmp_path / "raw")


@pytest.mark.quiet
@pytest.mark.parametrize("engine", ["libaio", "io_uring"])
def test_real_lower_bound_when_jobs_cannot_help(ref_device, tmp_path, engine):
    """One CPU: no job can be added, every probe is CPU-bound, the peak is a lower bound.  io_uring too: fio's own
    usr + sys misses the kernel's io_uring workers (threads of its job process), the whole process's CPU
    (helpers.run.cpu) does not."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})  # one CPU: fio (a child) inherits it, no job can be added
    try:
        m, d = _search(ref_device, tmp_path, engine)
    finally:
        os.sched_setaffinity(0, before)
    assert all(p["jobs"] == 1 for p in d["probes"])
    assert d["lower_bound"] and d["sentence"].startswith("At least ") and "device may do more" in d["sentence"]
    for e in m["points"].values():  # every point's whole-process CPU recorded beside fio's own
        assert e["process_cpu_pct"] >= 0


@pytest.mark.quiet
def test_real_io_uring_jobs_are_cpu_bound_by_the_whole_process(ref_device, tmp_path):
    """zram, 2 pinned io_uring jobs: fio reports about half a CPU per job while the process uses both CPUs
    (measured 2026-11-29: fio 51 % per job, the process 198 %); the probe, the validity flag and the demand view
    read the process's share."""
    if demand.io_uring_problem("fio") is not None:
        pytest.skip("needs io_uring")
    _two_free_cpus("fio's jobs cannot have both CPUs")
    p = tmp_path / "uring.yaml"
    p.write_text("settings: {runtime_s: 0.6, ramp_s: 0.1}\npoints:\n"
                 "  - {group: u, rw: randread, bs: 4k, iodepth: 32, numjobs: 2, ioengine: io_uring}\n")
    name = ref_device.path.name
    m = sweep.sweep(str(ref_device.path), p, "uring", None, "256m", tmp_path / "raw", destroy_device=name,
                    ignore_signature=name, progress=False)
    (pid, e), = m["points"].items()
    raw = tmp_path / "raw" / "uring" / e["raw_file"]
    fio_own = demand.probe_of(demand.Config(2, 32, "io_uring"), raw)
    probe = demand.probe_of(demand.Config(2, 32, "io_uring"), raw, e["process_cpu_pct"])
    assert probe.cpu_bound and probe.cpu_pct >= fio_own.cpu_pct, (e["process_cpu_pct"], fio_own.cpu_pct)
    rows = ingest_run(tmp_path / "raw" / "uring").results
    assert rows["process_cpu_pct"].iloc[0] == e["process_cpu_pct"] and rows["flag_cpu_bound"].all()


@pytest.mark.quiet
def test_real_search_adds_a_job_and_reaches_more_than_one_job(ref_device, tmp_path):
    """After the one-CPU and io_uring tests above (the quiet phase runs them in file order): run first in the quiet
    phase, seconds after the parallel one (a make test with the bucket and cliff tests moved out of it), it read
    1.68x although both CPUs had been idle for a quarter of a second -- most likely the parallel phase's writeback
    and the quiet pytest's own start sharing the CPUs with the second job."""
    _two_free_cpus("a second job cannot get a CPU of its own, so 1.7x is out of reach")
    m, d = _search(ref_device, tmp_path, "libaio")  # the jobs move alone: io_uring is the mechanism test's
    one = d["probes"][0]
    assert one["jobs"] == 1 and one["cpu_bound"], d  # zram: one job is CPU-bound
    assert d["best"]["jobs"] >= 2, d
    # issue 31: >= 1.7x one job's IOPS.  The 1.59x of an earlier run was measured at load average 6.5 (the second
    # CPU was not free); on a quiet machine 2 pinned libaio jobs read 2.05x and io_uring deepened on its own
    # line (next_config's move 3) 2.5x
    assert d["best"]["iops"] >= 1.7 * one["iops"], d
    for p in d["probes"]:  # every configuration recorded with engine, jobs, QD and fio's CPU %
        assert {"ioengine", "jobs", "qd", "cpu_pct"} <= p.keys()
    kinds = [v["adaptive"]["kind"] for v in m["points"].values()]
    assert kinds.count("demand") == len(d["probes"]) - 1


def test_plan_warns_before_any_io_and_dry_run_names_the_moves(tmp_path, scratch_dir, fio_path):
    p = tmp_path / "many.yaml"
    n = demand.usable_cpus() + 1
    p.write_text("mode: adaptive\nsettings: {runtime_s: 1}\nadaptive: {max_qd: 8}\n"
                 f"points:\n  - {{rw: randread, bs: 4k, numjobs: {n}}}\n  - {{rw: randread, bs: 8k, numjobs: auto, "
                 "ioengine: auto}\n")
    plan = sweep.plan_sweep(scratch_dir / "demand-plan.bin", p, "dr", None, "16m", tmp_path / "raw", dry_run=True)
    assert any(f"asks for {n} jobs but this process may use {n - 1} CPU(s)" in w for w in plan.warnings)
    cmds = sweep.dry_run_commands(plan)
    moves = [c for c in cmds if "while the peak's probe is CPU-bound" in c]
    assert len(moves) == 1 and "registerfiles" in moves[0] and f"up to {n - 1} CPU(s)" in moves[0]
    assert not (tmp_path / "raw").exists()  # nothing written


def test_real_demand_probes_run_pinned_with_io_uring_and_are_recorded(ref_device, tmp_path, monkeypatch):
    """The mechanism on real fio whatever the machine's load: every probe counts as CPU-bound (threshold 0), so
    the search adds a job (pinned) and tries io_uring with registered files and fixed buffers, and the manifest
    holds each configuration's fio command and record."""
    if demand.usable_cpus() < 2 or demand.io_uring_problem("fio") is not None:
        pytest.skip("needs 2 CPUs and io_uring")
    monkeypatch.setattr(demand, "CPU_BOUND_PCT", 0.0)
    name = ref_device.path.name
    m = sweep.sweep(str(ref_device.path), _profile(tmp_path), "mech", None, "256m", tmp_path / "raw",
                    destroy_device=name, ignore_signature=name, progress=False)
    (s,) = m["adaptive"].values()
    d = s["demand"]
    configs = [(p["jobs"], p["qd"], p["ioengine"]) for p in d["probes"]]
    assert configs[1] == (2, configs[0][1] // 2, "libaio") and d["lower_bound"]
    runs = {e["parameters"]["numjobs"]: e["argv"] for e in m["points"].values()
            if e["adaptive"]["kind"] == "demand" and e["parameters"]["ioengine"] == "io_uring"}
    assert runs and all("--registerfiles=1" in a and "--fixedbufs=1" in a for a in runs.values())
    two = [e["argv"] for e in m["points"].values() if e["parameters"]["numjobs"] == 2]
    assert two and all("--cpus_allowed_policy=split" in a for a in two)


def test_a_grid_series_deepest_auto_point_starts_the_demand_search(tmp_path):
    p = tmp_path / "grid.yaml"
    p.write_text("settings: {runtime_s: 1}\npoints:\n"
                 "  - {group: qd, rw: randread, bs: 4k, iodepth: [1, 4, 16], numjobs: auto, ioengine: auto}\n"
                 "  - {group: qd, rw: randread, bs: 8k, iodepth: [2, 8], numjobs: auto}\n"
                 "  - {group: fixed, rw: randread, bs: 4k, iodepth: [1, 32]}\n")
    deepest = demand.deepest_points(load_profile(p).points)
    assert sorted((q.bs_bytes, q.iodepth) for q in deepest.values()) == [(4096, 16), (8192, 8)]
    cmds = sweep.dry_run_commands(sweep.plan_sweep(tmp_path / "g.bin", p, "g", None, "16m", tmp_path / "raw",
                                                   dry_run=True))
    assert sum("while the peak's probe is CPU-bound" in c for c in cmds) == 2
    assert load_profile("quick").points[1].jobs_auto  # the quick profile's QD sweep ends in a demand search


def test_real_grid_demand_on_the_reference_device(ref_device, tmp_path, monkeypatch):
    """A grid's deepest auto point, CPU-bound, is followed by more jobs (recorded under the manifest's ``demand``,
    its probes tagged ``demand``, not ``adaptive``).  The mechanism whatever the machine's load: every probe counts
    as CPU-bound (threshold 0; the quiet adaptive test measures the real rule and the 1.7x)."""
    if demand.usable_cpus() < 2:
        pytest.skip("one CPU: no job to add")
    monkeypatch.setattr(demand, "CPU_BOUND_PCT", 0.0)
    p = tmp_path / "grid.yaml"
    p.write_text("settings: {runtime_s: 0.6, ramp_s: 0.1}\npoints:\n"
                 "  - {group: qd, rw: randread, bs: 4k, iodepth: [2, 16], numjobs: auto, ioengine: libaio}\n")
    name = ref_device.path.name
    m = sweep.sweep(str(ref_device.path), p, "grid-demand", None, "256m", tmp_path / "raw",
                    destroy_device=name, ignore_signature=name, progress=False)
    (d,) = m["demand"].values()
    start = d["probes"][0]
    assert (start["jobs"], start["qd"]) == (1, 16) and d["probes"][1]["jobs"] == 2, d
    tagged = [e for e in m["points"].values() if (e.get("demand") or {}).get("kind") == "demand"]
    assert len(tagged) == len(d["probes"]) - 1 and not any("adaptive" in e for e in m["points"].values())


@pytest.mark.quiet
def test_real_slo_search_offers_a_load_fio_cannot_issue_again_with_more_jobs(ref_device, tmp_path):
    """The SLO search on zram with numjobs: auto: 400k IOPS offered to one libaio job is more than it can issue
    (it fails at 100 % of a CPU, on the rate or on latency), so the same load is offered again to 2 pinned jobs, and the capacity found is
    beyond what one job achieved; the load that fails at 2 jobs is the host's limit, and the result says so."""
    _two_free_cpus("a second job cannot get a CPU of its own")
    p = tmp_path / "slo.yaml"
    p.write_text("mode: slo\nsettings: {runtime_s: 0.6, ramp_s: 0.1}\n"
                 "slo: {slo_us: 5000, start_rate: 200000, factor: 2, max_rate: 800000, tolerance_pct: 25, "
                 "max_steps: 4, cross_check: false}\n"
                 "points:\n  - {group: slo, rw: randread, bs: 4k, iodepth: 64, numjobs: auto, ioengine: libaio}\n")
    name = ref_device.path.name
    m = sweep.sweep(str(ref_device.path), p, "slo-demand", None, "256m", tmp_path / "raw", destroy_device=name,
                    ignore_signature=name, progress=False)
    (res,) = m["slo"].values()
    steps = res["steps"]
    gone = [s for s in steps if s["superseded"]]
    one = max(s["achieved_iops"] for s in steps if s["jobs"] == 1)
    assert gone and gone[0]["jobs"] == 1 and gone[0]["cpu_pct"] >= demand.CPU_BOUND_PCT, steps
    again = steps[steps.index(gone[0]) + 1]
    assert again["rate"] == gone[0]["rate"] and again["jobs"] == 2, steps  # the same load, twice the jobs
    assert res["capacity_rate_iops"] > one and res["setting"].startswith("2 jobs × QD 32"), res
    offered = sorted((e["parameters"]["numjobs"], e["parameters"]["rate_iops"]) for e in m["points"].values())
    assert offered == sorted((s["jobs"], -(-s["rate"] // s["jobs"])) for s in steps)  # each job: its share
    if res["first_failing_rate_iops"] is not None and res["host_limit"]:
        assert "host's limit" in res["reason"] and "2 jobs × QD 32, libaio" in res["host_sentence"]
