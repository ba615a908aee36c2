"""The validity flags of a result set as a table: one row per flagged row, one column per flag."""

from __future__ import annotations

import pandas as pd

from helpers.processed.validity import FLAG_COLUMNS

ID_COLUMNS = ["run_id", "point_id", "direction", "rw", "bs_bytes", "iodepth", "numjobs", "ioengine", "direct"]


def flag_table(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``df`` with at least one validity flag raised: identifying columns, every flag
    column present, ``unreliable_percentiles`` and ``flag_reasons``.  Data ingested before a flag
    existed simply lacks that column."""
    flags = [c for c, dtype, _ in FLAG_COLUMNS if dtype == "bool" and c in df.columns]
    cols = [c for c in ID_COLUMNS if c in df.columns] + [c for c, _, _ in FLAG_COLUMNS if c in df.columns]
    if not flags:
        return df.iloc[0:0][cols]
    return df.loc[df[flags].fillna(False).astype(bool).any(axis=1), cols].reset_index(drop=True)
