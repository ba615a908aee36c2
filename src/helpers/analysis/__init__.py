"""Analysis: pure functions on DataFrames (never reading files, never plotting)."""

from .qd import qd_series, qd_table

__all__ = ["qd_series", "qd_table"]
