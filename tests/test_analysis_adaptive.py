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
