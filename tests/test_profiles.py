import pytest
import yaml

from helpers.errors import LabError
from helpers.profiles import available_profiles, load_profile, parse_profile


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
