"""parse_fio_bytes and final_jobs on the shapes fio files really take."""

from __future__ import annotations

import json

import pytest

from helpers.fio.json_output import FioParseError, final_jobs, parse_fio_bytes

OBJ = {"fio version": "fio-3.33", "jobs": [{"jobname": "a", "groupid": 0}]}


def test_text_around_one_object():
    data = b"note: capped\n" + json.dumps(OBJ).encode() + b"\n\nRun status group 0 (all jobs): {x}\n"
    assert parse_fio_bytes(data) == [OBJ]


def test_concatenated_objects_and_final_jobs():
    objs = [{"jobs": [{"jobname": "a", "groupid": 0, "n": i}, {"jobname": "a", "groupid": 0, "n": 10 + i}]}
            for i in range(3)]
    objs[0]["jobs"].append({"jobname": "early", "groupid": 1})
    data = b"\n".join(json.dumps(o, indent=1).encode() for o in objs)
    parsed = parse_fio_bytes(data)
    assert len(parsed) == 3
    assert [j.get("n") for j in final_jobs(parsed)] == [None, 2, 12]  # clones kept apart, last wins


@pytest.mark.parametrize("data,word", [
    (b"", "empty"), (b"   \n", "empty"), (b"hello", "no JSON"), (b'{"a": 1}', "neither"),
    (b'{"jobs": [', "truncated"), (json.dumps(OBJ).encode() + b"\n{\"jobs\": [", "truncated"),
])
def test_unusable_bytes(data, word):
    with pytest.raises(FioParseError, match=word):
        parse_fio_bytes(data)


def test_jobs_not_a_list():
    with pytest.raises(FioParseError, match="wrong schema"):
        final_jobs([{"jobs": {}}, {"jobs": {}}])
