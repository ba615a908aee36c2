"""fio option semantics (helpers.fio.options): the 'r,w,t' rule, sizes, defaults, mixed modes."""

from __future__ import annotations

import math

import pytest

from helpers.fio import options as fo


@pytest.mark.parametrize("value,expected", [("4k", 4096), ("1m", 1048576), ("4096", 4096), ("64k,,4k", None)])
def test_size_strings(value, expected):
    if expected is None:  # fio: an empty part is the default, a missing trailing part repeats the last
        assert [fo.bs({"bs": value}, d) for d in fo.DIRECTIONS] == [65536, 4096, 4096]
    else:
        assert fo.bs({"bs": value}, "read") == expected
    assert fo.bs({"bs": "4k,16k"}, "trim") == 16384
    assert fo.option({"iodepth": "64"}, ("iodepth",), 1, fo.int_option, "") == 64


@pytest.mark.parametrize("value,expected", [
    ("500", [500.0, 500.0, 500.0]),  # one value caps every direction
    ("500,200", [500.0, 200.0, 200.0]),  # a missing trailing part repeats the last (as for bs)
    (",200", [None, 200.0, 200.0]),  # an empty part: that direction is not capped
    ("1k,0", [1024.0, None, None]),  # fio int suffixes are binary (1k = 1024); 0 is "no cap"
])
def test_rate_iops_per_direction(value, expected):
    got = [fo.rate_iops({"rate_iops": value}, d) for d in fo.DIRECTIONS]
    assert [None if math.isnan(g) else g for g in got] == expected
    assert math.isnan(fo.rate_iops({}, "read"))  # absent: not rate-limited


def test_rwmixread_defaults_and_pure_modes():
    assert fo.rwmixread({}, "randrw") == 50.0  # fio default
    assert fo.rwmixread({"rwmixwrite": "30"}, "rw") == 70.0
    assert math.isnan(fo.rwmixread({"rwmixread": "70"}, "randread"))
    assert fo.rwmixread({}, None) is None
    assert fo.MIXED_MODES == ("rw", "readwrite", "randrw") and fo.ALL_CLIENTS == "All clients"


def test_an_unknown_option_is_none_not_a_default():
    opts = {"iodepth": fo.Unknown("not attributable")}
    assert fo.option(opts, ("iodepth",), 1, fo.int_option, "a queue depth") is None
    assert fo.option({}, ("iodepth",), 1, fo.int_option, "a queue depth") == 1
    with pytest.raises(fo.OptionError, match="iodepth='deep' cannot be read as a queue depth"):
        fo.option({"iodepth": "deep"}, ("iodepth",), 1, fo.int_option, "a queue depth")
