from helpers.analysis import adaptive_steps


def test_adaptive_steps_one_row_per_step_with_the_stop_reason():
    manifest = {"adaptive": {
        "randread 4k": {"steps": [{"qd": 1, "iops": 10.0, "lat_mean_us": 100.0, "kind": "ladder"},
                                  {"qd": 2, "iops": 19.0, "lat_mean_us": 105.0, "kind": "ladder"}],
                        "stop_reason": "2 doublings in a row added less than 5 % IOPS (up to QD 2)"},
        "randwrite 4k": {"error": "point x failed; search stopped"}}}
    t = adaptive_steps(manifest)
    assert list(t["series"]) == ["randread 4k", "randread 4k", "randwrite 4k"]
    assert list(t["qd"][:2]) == [1, 2] and list(t["clat_mean_us"][:2]) == [100.0, 105.0]
    assert t["stop_reason"].iloc[0].startswith("2 doublings") and t["stop_reason"].iloc[2].endswith("stopped")
    assert adaptive_steps({}).empty and adaptive_steps({"adaptive": {}}).empty


def test_adaptive_steps_say_how_long_each_step_ran_and_whether_it_settled():
    manifest = {"adaptive": {"randread 4k": {"steps": [
        {"qd": 1, "iops": 10.0, "lat_mean_us": 100.0, "kind": "ladder", "runtime_s": 2.0, "device_s": 1.04,
         "settled_s": 1.0},
        {"qd": 2, "iops": 19.0, "lat_mean_us": 105.0, "kind": "ladder", "runtime_s": 2.0, "device_s": 2.25,
         "settled_s": None},
        {"qd": 4, "iops": 20.0, "lat_mean_us": 200.0, "kind": "ladder"}],  # recorded before these fields
        "stop_reason": "reached the largest queue depth 4"}}}
    t = adaptive_steps(manifest)
    assert list(t["device_s"][:2]) == [1.04, 2.25] and t["settled_after_s"].iloc[0] == 1.0
    assert t["settled_after_s"][1:].isna().all() and t["device_s"].isna().iloc[2]


def test_adaptive_steps_mark_the_plateau_and_its_median_level():
    manifest = {"adaptive": {"randread 4k": {"steps": [
        {"qd": 1, "iops": 10.0, "lat_mean_us": 100.0, "kind": "ladder"},
        {"qd": 2, "iops": 30.0, "lat_mean_us": 60.0, "kind": "ladder"},
        {"qd": 4, "iops": 31.0, "lat_mean_us": 120.0, "kind": "ladder"},
        {"qd": 8, "iops": 29.0, "lat_mean_us": 250.0, "kind": "ladder"},
        {"qd": 3, "iops": 30.5, "lat_mean_us": 90.0, "kind": "refine"}],
        "plateau_qds": [2, 4, 8, 3], "plateau_iops": 30.25, "stop_reason": "2 doublings in a row ..."}}}
    t = adaptive_steps(manifest)
    assert list(t["on_plateau"]) == [False, True, True, True, True]
    assert (t["plateau_iops"] == 30.25).all()
    old = adaptive_steps({"adaptive": {"s": {"steps": [{"qd": 1, "iops": 1.0, "kind": "ladder"}]}}})
    assert not old["on_plateau"].any() and old["plateau_iops"].isna().all()  # recorded before the plateau


def test_adaptive_steps_show_a_reprobe_as_a_step_of_its_own():
    """A ladder depth measured again (its probe dipped below a shallower depth) has a row per reading, kind
    "reprobe"; on the plateau each reading is a plateau probe."""
    manifest = {"adaptive": {"randread 4k": {"steps": [
        {"qd": 1, "iops": 10.0, "lat_mean_us": 100.0, "kind": "ladder"},
        {"qd": 2, "iops": 30.0, "lat_mean_us": 60.0, "kind": "ladder"},
        {"qd": 4, "iops": 20.0, "lat_mean_us": 200.0, "kind": "ladder"},
        {"qd": 4, "iops": 31.0, "lat_mean_us": 130.0, "kind": "reprobe"},
        {"qd": 4, "iops": 30.0, "lat_mean_us": 133.0, "kind": "reprobe"},
        {"qd": 8, "iops": 29.0, "lat_mean_us": 250.0, "kind": "ladder"}],
        "plateau_qds": [2, 4, 4, 4, 8], "plateau_iops": 30.0, "stop_reason": "2 doublings in a row ..."}}}
    t = adaptive_steps(manifest)
    assert list(t["kind"]) == ["ladder", "ladder", "ladder", "reprobe", "reprobe", "ladder"]
    assert list(t["on_plateau"]) == [False, True, True, True, True, True]
