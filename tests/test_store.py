"""Partitioned datasets: streamed batches, atomic replacement, typed empty frames."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers import config
from helpers.processed import store


def test_runwriter_streams_batches_and_replaces_the_partition(tmp_path):
    a = pd.DataFrame({"run_id": ["r", "r"], "x": pd.array([1, None], dtype="Int64"),
                      "s": pd.array([None, None], dtype="string")})
    b = pd.DataFrame({"run_id": ["r"], "x": pd.array([3], dtype="Int64"), "s": pd.array(["z"], dtype="string")})
    with store.RunWriter(tmp_path, "ds", "r") as w:
        w.write(a)
        w.write(b)
    df = store.load(tmp_path, "ds", "r")
    assert list(df.x.fillna(-1)) == [1, -1, 3] and list(df.run_id) == ["r"] * 3
    store.write_run(tmp_path, "ds", "r", b)  # re-ingest replaces, never appends
    assert len(store.load(tmp_path, "ds")) == 1
    assert [p.name for p in (tmp_path / "ds").iterdir()] == ["run_id=r"]


def test_failed_write_leaves_the_old_partition(tmp_path):
    store.write_run(tmp_path, "ds", "r", pd.DataFrame({"x": [1]}))
    with pytest.raises(RuntimeError), store.RunWriter(tmp_path, "ds", "r") as w:
        w.write(pd.DataFrame({"x": [2, 3]}))
        raise RuntimeError("boom")
    assert list(store.load(tmp_path, "ds", "r").x) == [1]
    assert [p.name for p in (tmp_path / "ds").iterdir()] == ["run_id=r"]


def test_dictionary_tables_read_back_as_the_decoded_frame(tmp_path):
    """A table whose strings are dictionary-encoded (how the ingest streams histograms) gives the file
    the decoded frame gives: same key-value metadata (stored Arrow schema: large_string), same values."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = pd.DataFrame({"s": pd.array(["a", None, "b", "a"], dtype="string"), "x": [1, 2, 3, 4]})
    plain = store.arrow_table(df)
    enc = plain.column("s").combine_chunks().dictionary_encode()
    dtable = pa.Table.from_arrays([enc, plain.column("x")], schema=pa.schema(
        [pa.field("s", pa.dictionary(pa.int32(), pa.large_string())), plain.schema.field("x")],
        metadata=plain.schema.metadata))
    store.write_run(tmp_path, "plain", "r", df)
    with store.RunWriter(tmp_path, "dict", "r", statistics=["x"]) as w:
        w.write(dtable.slice(0, 2))
        w.write(dtable.slice(2))
    files = [store.run_partition(tmp_path, ds, "r") / "part-0.parquet" for ds in ("plain", "dict")]
    assert pq.read_metadata(files[0]).metadata == pq.read_metadata(files[1]).metadata
    assert pq.read_table(files[0]).equals(pq.read_table(files[1]))
    pd.testing.assert_frame_equal(pd.read_parquet(files[0]), pd.read_parquet(files[1]))
    pd.testing.assert_frame_equal(store.load(tmp_path, "plain"), store.load(tmp_path, "dict"))
    pd.testing.assert_frame_equal(store.load_where(tmp_path, "dict", {"s": "a"}), store.load(tmp_path, "dict").iloc[[0, 3]]
                                  .reset_index(drop=True))
    stats = pq.ParquetFile(files[1]).metadata.row_group(0)
    assert stats.column(1).statistics is not None and stats.column(0).statistics is None


def test_empty_datasets_are_typed(tmp_path):
    h = store.load(tmp_path, config.HISTOGRAM_DATASET)
    assert list(h.columns)[-2:] == ["bin_ns", "count"] and len(h) == 0


def test_load_where_filters_inside_the_scan(tmp_path):
    from figdata import rows

    for i in range(4):
        df = rows([{"run_id": f"r{i}", "host": f"h{i % 2}", "iodepth": q} for q in (1, 4)])
        store.write_run(tmp_path, "results", f"r{i}", df)
    got = store.load_where(tmp_path, "results", {"host": "h1"})
    assert sorted(got["run_id"].unique()) == ["r1", "r3"] and len(got) == 4
    assert list(got.columns[:1]) == ["run_id"] and str(got["run_id"].dtype) == "string"
    full = store.load(tmp_path, "results")
    assert got.sort_values(["run_id", "iodepth"])["iodepth"].tolist() == \
        full[full["host"] == "h1"].sort_values(["run_id", "iodepth"])["iodepth"].tolist()
    two = store.load_where(tmp_path, "results", {"iodepth": 4}, run_ids=["r0", "r3"], columns=["iops"])
    assert list(two.columns) == ["run_id", "iops"] and sorted(two["run_id"]) == ["r0", "r3"]
    assert store.load_where(tmp_path / "none", "results", {"host": "h1"}).empty


def test_dictionary_pages_for_strings_only_unless_asked(tmp_path):
    """Measured numbers are nearly all distinct: by default only string columns get dictionary pages (a
    dictionary built for distinct floats is dropped again, at a cost); ``dictionary=True`` (the histograms,
    whose bins and counts repeat) gives every column one."""
    import pyarrow.parquet as pq

    df = pd.DataFrame({"s": pd.array(["a", "b"] * 50, dtype="string"), "x": [i * 0.5 for i in range(100)],
                       "n": [7] * 100})

    def encodings(name: str) -> dict[str, set]:
        md = pq.ParquetFile(store.run_partition(tmp_path, name, "r") / "part-0.parquet").metadata.row_group(0)
        return {md.column(i).path_in_schema: {e for e in md.column(i).encodings if "DICT" in e}
                for i in range(md.num_columns)}

    store.write_run(tmp_path, "plain", "r", df)
    with store.RunWriter(tmp_path, "all", "r", dictionary=True) as w:
        w.write(df)
    plain, every = encodings("plain"), encodings("all")
    assert plain["s"] and not plain["x"] and not plain["n"]
    assert every["s"] and every["x"] and every["n"]
    pd.testing.assert_frame_equal(store.load(tmp_path, "plain"), store.load(tmp_path, "all"))
    # the histograms get them by default (store.DICTIONARY_DATASETS): no caller has to remember to ask
    store.write_run(tmp_path, config.HISTOGRAM_DATASET, "r", df)
    assert all(encodings(config.HISTOGRAM_DATASET).values())
