"""fio's latency names: one function names every latency column, and no module writes a latency's name by
hand (the compare CLI and page used to call fio's total-latency percentiles 'completion latency (clat)')."""

from __future__ import annotations

import ast
from pathlib import Path

import helpers
from helpers.fio.latency import column_label, latency_label, latency_name, parse_column


def test_names_labels_and_columns():
    assert latency_name("lat") == "total latency" and latency_name("clat") == "completion latency (clat)"
    assert latency_name("slat") == "submission latency (slat)"
    assert latency_name(["lat", "clat", "lat"]) == "total latency or completion latency (clat)"
    assert latency_name(None) == "latency" and latency_name("bogus") == "latency"  # never a guess
    assert latency_label("lat", "p99") == "p99 total latency (µs)"
    assert latency_label("clat", "p99.9", "") == "p99.9 completion latency (clat)"
    assert parse_column("clat_p99_9_us") == ("clat", "p99.9", "µs") and parse_column("iops") is None
    assert column_label("lat_mean_us") == "mean total latency (µs)"
    assert column_label("slat_mean_us") == "mean submission latency (slat) (µs)"
    assert column_label("bw_bytes_per_s") == "bw_bytes_per_s"


HAND_WRITTEN = ("completion latency (clat)", "total latency (lat)", "submission latency (slat)")


def _strings(tree: ast.AST):
    """String constants that are not docstrings (labels, sentences, f-string parts)."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            yield n


def test_no_module_names_a_latency_by_hand():
    root = Path(helpers.__file__).parent
    found = []
    for f in sorted(root.rglob("*.py")):
        if f == root / "fio" / "latency.py":
            continue
        for n in _strings(ast.parse(f.read_text(encoding="utf-8"))):
            found += [f"{f.relative_to(root)}:{n.lineno}: {name!r}" for name in HAND_WRITTEN if name in n.value]
    assert not found, "latency names written by hand (use helpers.fio.latency):\n" + "\n".join(found)
