"""The sustained-write cliff (helpers.analysis.cliff): known answers on synthetic series with a known cliff,
no cliff on flat noisy series, recovery phases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analysis import find_write_cliff, write_cliff_sentence
from timeseries_helpers import frame


def series(phases, window_gb=0.1, cv=0.09, seed=0):
    """(gb_written, bytes/s): phases of (GB, bytes/s), one window per window_gb, CV-noise on each window."""
    rng = np.random.default_rng(seed)
    rates = np.concatenate([np.full(int(round(gb / window_gb)), r) for gb, r in phases])
    noisy = rates * (1 + cv * rng.standard_normal(len(rates)))
    return np.arange(1, len(rates) + 1) * window_gb, noisy


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("cliff_at,total,before,after", [(37.3, 100.0, 3.0e9, 0.8e9), (12.0, 200.0, 1.5e9, 0.5e9),
                                                         (180.0, 250.0, 2.0e9, 1.2e9)])
def test_cliff_found_within_two_percent_of_volume(seed, cliff_at, total, before, after):
    x, y = series([(cliff_at, before), (total - cliff_at, after)], seed=seed)
    c = find_write_cliff(x, y)
    assert c.cliff_gb is not None and abs(c.cliff_gb - cliff_at) <= 0.02 * total
    assert c.before_bytes_per_s == pytest.approx(before, rel=0.05)
    assert c.after_bytes_per_s == pytest.approx(after, rel=0.05)
    # the sentence states the detected numbers
    assert c.reason == (f"≈ {c.cliff_gb:.3g} GB at {c.before_bytes_per_s / 1e6:,.0f} MB/s before the write cache ran "
                        f"out, then {c.after_bytes_per_s / 1e6:,.0f} MB/s ({c.slowdown:.1f}× slower).")


def test_reason_sentence_exact():
    x, y = series([(40.0, 3.0e9), (60.0, 0.75e9)], cv=0.0)
    c = find_write_cliff(x, y)
    assert c.reason == "≈ 40 GB at 3,000 MB/s before the write cache ran out, then 750 MB/s (4.0× slower)."
    assert c.slowdown == pytest.approx(4.0)


@pytest.mark.parametrize("seed", range(10))
def test_flat_noisy_series_has_no_cliff(seed):
    x, y = series([(100.0, 2.0e9)], cv=0.09, seed=seed)
    c = find_write_cliff(x, y)
    assert c.cliff_gb is None and c.before_bytes_per_s is None and c.after_bytes_per_s is None
    assert c.reason.startswith("no write cliff detected over 100 GB")


def test_single_slow_windows_are_not_a_cliff():
    x, y = series([(100.0, 2.0e9)], cv=0.05, seed=3)
    y[[100, 400, 700]] = 0.2e9  # three GC stalls of one window each
    assert find_write_cliff(x, y).cliff_gb is None


def test_recovery_is_reported():
    x, y = series([(30.0, 3.0e9), (40.0, 0.6e9), (30.0, 2.4e9)], cv=0.05)
    c = find_write_cliff(x, y)
    assert abs(c.cliff_gb - 30) <= 2 and len(c.recoveries) == 1
    assert "recovered to" in c.reason and "≈ 70 GB" in c.reason


def test_input_checks():
    with pytest.raises(ValueError):
        find_write_cliff([1, 2], [1])
    assert "too few windows" in find_write_cliff([1, 2, 3], [1e9, 1e9, 1e9]).reason


def test_card_sentence_from_a_sustained_point():
    ts = frame(np.r_[np.full(50, 2000.0), np.full(50, 500.0)], point="sustained-write-bs128k-qd32-nj1",
               direction="write")
    ts["bytes_per_s"] = ts["iops"] * 1e6  # 2 GB/s then 0.5 GB/s, 1 s windows: cliff at 100 GB
    sentence = write_cliff_sentence(ts)
    assert sentence == ("Sustained write: ≈ 100 GB at 2,000 MB/s before the write cache ran out, then 500 MB/s "
                        "(4.0× slower).")
    assert write_cliff_sentence(frame([1.0] * 10)) is None
    assert write_cliff_sentence(pd.DataFrame()) is None
