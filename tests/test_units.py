import pytest

from helpers.errors import LabError
from helpers.fio.units import format_bytes, parse_size


@pytest.mark.parametrize("text, expected", [
    (4096, 4096), ("4096", 4096), ("4k", 4096), ("4K", 4096), ("16k", 16384), ("1m", 1048576),
    ("1g", 1073741824), ("4KiB", 4096), ("2MiB", 2 * 1048576), (" 64m ", 64 * 1048576),
])
def test_parse_size_accepts_fio_binary_sizes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["4kb", "4 kb", "four", "", "4x", "-4k", "0", 0, -1, True, "4.5k", "4b"])
def test_parse_size_rejects_ambiguous_or_invalid(bad):
    with pytest.raises(LabError) as exc:
        parse_size(bad, what="bs")
    msg = str(exc.value)
    assert msg.startswith("bs ") and msg.endswith(".") and "\n" not in msg


@pytest.mark.parametrize("n, text", [(4096, "4k"), (1048576, "1m"), (131072, "128k"), (1073741824, "1g"),
                                     (1000, "1000"), (6144, "6k")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text
    assert parse_size(text) == n
