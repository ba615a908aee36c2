import pytest
import yaml

from helpers.errors import LabError
from helpers.run.profiles import available_profiles, load_profile, parse_profile


def _profile(points, settings=None):
    doc = {"points": points}
    if settings:
        doc["settings"] = settings
    return parse_profile(doc, name="t")


def test_shipped_profiles_load_and_fit_their_budgets():
    assert {"smoke", "quick"} <= set(available_profiles())
    smoke, quick = load_profile("smoke"), load_profile("quick")
    assert smoke.estimated_seconds <= 30
    assert quick.estimated_seconds <= 5 * 60
    groups = {p.group for p in quick.points}
    assert {"blocksize", "mix", "qd"} <= groups
    qd = sorted(p.iodepth for p in quick.points if p.group == "qd" and p.rw == "randread" and p.bs_bytes == 4096)
    assert qd == [1, 2, 4, 8, 16, 32, 64, 128]


def test_lists_expand_to_cartesian_product_with_defaults():
    prof = _profile([{"rw": ["read", "write"], "bs": ["4k", "1m"], "iodepth": [1, 32]}], {"runtime_s": 2})
    assert len(prof.points) == 8
    p = prof.points[0]
    assert (p.rw, p.bs_bytes, p.iodepth, p.numjobs, p.ioengine, p.runtime_s, p.direct) == \
        ("read", 4096, 1, 1, "libaio", 2.0, 1)
    assert len({p.point_id for p in prof.points}) == 8


def test_mixed_workload_gets_fio_default_mix_and_pure_modes_have_none():
    prof = _profile([{"rw": "randrw", "bs": "4k"}, {"rw": "randread", "bs": "4k"}])
    assert prof.points[0].rwmixread == 50
    assert prof.points[1].rwmixread is None


def test_runtime_override_replaces_every_point():
    prof = load_profile("smoke").with_runtime(3)
    assert {p.runtime_s for p in prof.points} == {3.0}


@pytest.mark.parametrize("points, fragment", [
    ([{"rw": "randread", "bs": "4kb"}], "bs '4kb' is not a size"),
    ([{"rw": "randomread", "bs": "4k"}], "rw 'randomread' is not a fio workload"),
    ([{"rw": "read", "bs": "4k", "iodepth": 0}], "iodepth 0 must be a whole number"),
    ([{"rw": "read", "bs": "4k", "blocksize": "4k"}], "unknown key 'blocksize'"),
    ([{"rw": "read", "bs": "4k", "rwmixread": 70}], "rwmixread applies only to mixed"),
    ([{"rw": "randrw", "bs": "4k", "rwmixread": 170}], "rwmixread 170"),
    ([{"rw": "read", "bs": "4k", "ioengine": "spdk"}], "ioengine 'spdk' is not supported"),
    ([{"rw": "read"}], "needs at least 'rw' and 'bs'"),
    ([{"rw": "read", "bs": "4k"}, {"rw": "read", "bs": "4k"}], "listed twice"),
])
def test_profile_typos_give_one_sentence(points, fragment):
    with pytest.raises(LabError) as exc:
        _profile(points)
    msg = str(exc.value)
    assert fragment in msg
    assert "\n" not in msg


def test_profile_file_typo_is_caught_on_load(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text(yaml.safe_dump({"points": [{"rw": "randread", "bs": "4kb", "iodepth": 1}]}))
    with pytest.raises(LabError, match=r"profile mine, point 1: bs '4kb' is not a size"):
        load_profile(f)


def test_unknown_profile_names_the_available_ones():
    with pytest.raises(LabError, match="profile 'nope' not found: use one of .*quick.*smoke"):
        load_profile("nope")


def test_invalid_yaml_is_one_sentence(tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text("points: [ {rw: read\n")
    with pytest.raises(LabError, match="is not valid YAML"):
        load_profile(f)


def test_course_profile_is_the_full_grid():
    p = load_profile("course")
    assert len(p.points) == 4 * 6 * 5
    assert {x.bs_bytes for x in p.points} == {4096, 16384, 32768, 131072}
    assert {x.rw for x in p.points} == {"read", "write", "randread", "randwrite", "rw", "randrw"}
    assert {x.iodepth for x in p.points} == {1, 16, 64, 256, 1024}


def test_battery_profile_has_every_part():
    p = load_profile("battery")
    by = {}
    for x in p.points:
        by.setdefault(x.group, []).append(x)
    assert {(x.rw, x.bs_bytes, x.iodepth) for x in by["qd1"]} == {
        ("randread", 4096, 1), ("randwrite", 4096, 1), ("read", 131072, 1), ("write", 131072, 1)}
    sizes = [4096 * 2**i for i in range(7)]
    assert sorted(x.bs_bytes for x in by["bs-random"]) == sizes and {x.rw for x in by["bs-random"]} == {"randread"}
    assert sorted(x.bs_bytes for x in by["bs-sequential"]) == sizes and {x.rw for x in by["bs-sequential"]} == {"read"}
    assert sorted(x.rwmixread for x in by["mix"]) == [0, 50, 70, 100]
    assert sorted(x.iodepth for x in by["qd"]) == [1, 2, 4, 8, 16, 32, 64, 128]
    assert sorted(x.iodepth for x in by["tail"]) == [16, 64] and min(x.runtime_s for x in by["tail"]) >= 20


def test_every_profile_states_its_duration():
    for name in available_profiles():
        p = load_profile(name)
        text = p.estimate_text(64 << 20)
        assert text.startswith("about ") and p.estimated_seconds > 0


def test_rate_points_get_ids_and_defaults():
    prof = _profile([{"rw": "randread", "bs": "4k", "iodepth": 32, "rate_iops": [100, 200]}])
    assert [p.point_id for p in prof.points] == ["points-randread-bs4k-qd32-nj1-rate100",
                                                 "points-randread-bs4k-qd32-nj1-rate200"]
    assert {p.rate_process for p in prof.points} == {"poisson"}


@pytest.mark.parametrize("doc, fragment", [
    ({"points": [{"rw": "read", "bs": "4k", "rate_process": "poisson"}]}, "rate_process needs rate_iops"),
    ({"points": [{"rw": "read", "bs": "4k", "rate_iops": 10, "rate_process": "burst"}]}, "rate_process 'burst'"),
    ({"mode": "fast", "points": [{"rw": "read", "bs": "4k"}]}, "mode 'fast' is not known"),
    ({"mode": "adaptive", "adaptive": {"gain": 5}, "points": [{"rw": "read", "bs": "4k"}]}, "unknown key 'gain'"),
    ({"adaptive": {"gain_pct": 5}, "points": [{"rw": "read", "bs": "4k"}]}, "needs mode: adaptive"),
    ({"mode": "steady-state", "steady_state": {"window": 5, "max_rounds": 3},
      "points": [{"rw": "randwrite", "bs": "4k"}]}, "max_rounds >= window"),
    ({"mode": "adaptive", "adaptive": {"refine": "yes"}, "points": [{"rw": "read", "bs": "4k"}]},
     "must be true or false"),
])
def test_mode_sections_are_validated(doc, fragment):
    with pytest.raises(LabError) as exc:
        parse_profile(doc, name="t")
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_a_profile_with_several_typos_reports_every_one_with_its_line(tmp_path):
    f = tmp_path / "typos.yaml"
    f.write_text("description: typos\n"
                 "settings: {runtime_s: 1}\n"
                 "points:\n"
                 "  - {group: qd, rw: randred, bs: 4kb, iodpeth: [1, 4]}\n"
                 "  - {group: bs, rw: read, bs: 16k, iodepth: 0}\n")
    with pytest.raises(LabError) as exc:
        load_profile(f)
    msg = str(exc.value)
    assert msg.startswith("profile typos has 4 problems: (1) point 1: unknown key 'iodpeth' (did you mean 'iodepth'?)")
    assert "(2) point 1: rw 'randred' is not a fio workload" in msg and "(line 4)" in msg
    assert "(3) point 1: bs '4kb' is not a size" in msg
    assert "(4) point 2: iodepth 0 must be a whole number from 1 to 65536 (line 5)." in msg
    assert "\n" not in msg


def test_yaml_errors_carry_the_line_number(tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text("points:\n  - {rw: read, bs: 4k\n  - {rw: write, bs: 4k}\n")
    with pytest.raises(LabError, match=r"profile broken.yaml is not valid YAML at line 3, column 5: ") as exc:
        load_profile(f)
    assert "\n" not in str(exc.value)


def test_log_windows_are_a_profile_setting():
    from helpers.run.profiles import parse_profile

    prof = parse_profile({"settings": {"log_avg_msec": 250}, "points": [
        {"rw": "read", "bs": "4k"}, {"rw": "write", "bs": "4k", "log_hist_msec": 0}]})
    assert [(p.log_avg_msec, p.log_hist_msec) for p in prof.points] == [(250, 1000), (250, 0)]
    with pytest.raises(LabError, match="log_avg_msec"):
        parse_profile({"points": [{"rw": "read", "bs": "4k", "log_avg_msec": -1}]})


def test_adaptive_probes_settle_by_default_and_the_profile_can_turn_it_off():
    """Adaptive profiles end each probe once settled (three 250 ms windows within the search's gain_pct);
    grid profiles do not unless asked; settle_windows: 0 turns it off, and explicit keys win."""
    adaptive = {"mode": "adaptive", "adaptive": {"gain_pct": 15}, "points": [{"rw": "randread", "bs": "4k"}]}
    p = parse_profile(adaptive).points[0]
    assert (p.settle_windows, p.settle_window_ms, p.settle_pct) == (3, 250, 15.0)
    assert parse_profile({**adaptive, "adaptive": {}}).points[0].settle_pct == 10.0  # gain_pct's default
    off = parse_profile({**adaptive, "settings": {"settle_windows": 0}}).points[0]
    assert off.settle_windows == 0
    own = parse_profile({**adaptive, "settings": {"settle_pct": 4, "settle_window_ms": 500}}).points[0]
    assert (own.settle_windows, own.settle_window_ms, own.settle_pct) == (3, 500, 4.0)
    grid = parse_profile({"points": [{"rw": "randread", "bs": "4k"}]}).points[0]
    assert (grid.settle_windows, grid.settle_window_ms, grid.settle_pct) == (0, 1000, 5.0)
    assert parse_profile({"points": [{"rw": "read", "bs": "4k", "settle_windows": 2}]}).points[0].settle_windows == 2
    with pytest.raises(LabError, match="settle_window_ms"):
        parse_profile({"points": [{"rw": "read", "bs": "4k", "settle_window_ms": 10}]})
    # a probe that settles is expected to end early: the estimate counts that, the worst case does not
    prof, slow = parse_profile(adaptive), parse_profile({**adaptive, "settings": {"settle_windows": 0}})
    assert prof.estimated_seconds < slow.estimated_seconds and prof.max_seconds == slow.max_seconds


def test_a_typo_in_settings_is_reported_once_at_its_own_line(tmp_path):
    """Issue 22.12: a typo in settings was merged into every point and reported at each point's line."""
    f = tmp_path / "s.yaml"
    f.write_text("description: settings typo\n"
                 "settings:\n"
                 "  ioengine: libaio\n"
                 "  runtme_s: 5\n"
                 "points:\n"
                 "  - {rw: randread, bs: 4k}\n"
                 "  - {rw: read, bs: 128k}\n")
    with pytest.raises(LabError) as exc:
        load_profile(f)
    msg = str(exc.value)
    assert msg == "profile s, settings: unknown key 'runtme_s' (did you mean 'runtime_s'?) (line 4)."
    assert "point" not in msg
