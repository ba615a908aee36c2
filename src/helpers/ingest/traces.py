"""Block I/O traces -> the ``traces`` dataset (one row per I/O; columns in ``processed.schema.TRACE_COLUMNS``).

Formats are recognised by content (:func:`sniff`), like fio results are: blkparse's default text output,
blktrace binary (turned into that text by ``blkparse`` from the blktrace package), the kernel's block
tracepoints as text (``block_rq_issue`` / ``block_rq_complete`` from tracefs ``trace``/``trace_pipe`` or
``perf script``), fio iologs v2 and v3, MSR Cambridge CSV, Alibaba block-trace CSV and a plain CSV with
named columns (``time_s``/``time_ms``/``time_us``/``time_ns``, ``op``, ``offset_bytes``, ``size_bytes``,
optional ``latency_us`` and ``stream``).

Text is read in chunks of lines and parsed with vectorised regular expressions; the CSV formats stream
through ``pyarrow.csv``.  Lines the lab cannot use (a truncated line, an unknown operation, an offset
beyond the target, time going backwards) are counted by reason, named in one summary sentence
(:attr:`TraceImport.summary`) and the rest imported.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from helpers import config
from helpers.errors import LabError
from helpers.processed import schema, store

SECTOR = 512
CHUNK_LINES = 1 << 18
FILETIME_TICK_S = 1e-7  # Windows filetime: 100 ns ticks
# fio iolog v3 time stamps: µs since the run began as fio 3.33 writes them (its man page gives no unit; a 2 s
# job's log ends near 2,000,000: tests/data/traces/known-fio.iolog)
IOLOG3_TICK_S = 1e-6

FORMATS = ("blkparse", "blktrace", "tracepoints", "iolog2", "iolog3", "msr", "alibaba", "csv")

# blkparse default: "  8,0    0        1     0.000000000  3421  D   W 123456 + 8 [java]"
_BLKPARSE = re.compile(r"^\s*(?P<dev>\d+,\d+)\s+\d+\s+\d+\s+(?P<t>\d+\.\d+)\s+\d+\s+(?P<ev>[A-Za-z]{1,2})\s+"
                       r"(?P<rwbs>[A-Z]+)\s*(?P<rest>.*)$")
_BLKPARSE_IO = re.compile(r"^(?P<sector>\d+) \+ (?P<nsec>\d+)")
# tracefs / perf script: "... 5246.313454: block_rq_issue: 7,0 WS 65536 () 0 + 128 be,0,4 [fio]"
_TRACEPOINT = re.compile(r"\s(?P<t>\d+\.\d+):\s+(?:block:)?block_rq_(?P<ev>issue|complete):\s+(?P<dev>\d+,\d+)\s+"
                         r"(?P<rwbs>[A-Z]+)\s+(?P<rest>.*)$")
_TP_IO = re.compile(r"(?:^|\s)(?P<sector>\d+) \+ (?P<nsec>\d+)(?:\s|$)")
_IOLOG3 = re.compile(r"^(?P<t>\d+)\s+(?P<stream>\S+)\s+(?P<action>\w+)(?:\s+(?P<offset>\d+)\s+(?P<size>\d+))?\s*$")
_IOLOG2 = re.compile(r"^(?P<stream>\S+)\s+(?P<action>\w+)(?:\s+(?P<offset>\d+)\s+(?P<size>\d+))?\s*$")

_IOLOG_DATA = {"read": "read", "write": "write", "trim": "trim"}
_IOLOG_OTHER = {"add", "open", "close", "sync", "datasync", "wait"}
_MSR_HEADER = ["Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"]
_ALIBABA_HEADER = ["device_id", "opcode", "offset", "length", "timestamp"]
_CSV_TIMES = {"time_s": 1.0, "time_ms": 1e-3, "time_us": 1e-6, "time_ns": 1e-9}


class TraceError(LabError):
    """A file the lab cannot import as a trace (one sentence)."""


@dataclass
class TraceImport:
    """One imported trace: its I/Os (the traces dataset's columns) and what was left out, by reason."""

    trace_id: str
    source_file: str
    source_format: str
    ios: pd.DataFrame
    skipped: Counter = field(default_factory=Counter)

    @property
    def summary(self) -> str:
        """One sentence: how many I/Os were imported and every reason lines were left out, with counts."""
        return _sentence(f"{self.source_file} ({self.source_format}): {len(self.ios):,} I/Os imported",
                         self.skipped)


def _sentence(head: str, skipped: Counter) -> str:
    if not skipped:
        return head + "."
    parts = [f"{n:,} {reason}" for reason, n in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))]
    return head + "; left out: " + ", ".join(parts) + "."


# ---------------------------------------------------------------- recognising a format by content

def _is_blktrace_binary(head: bytes) -> bool:
    # struct blk_io_trace starts with magic 0x65617400 | version (little- or big-endian u32)
    if len(head) < 48:
        return False
    le, be = int.from_bytes(head[:4], "little"), int.from_bytes(head[:4], "big")
    return (le & 0xFFFFFF00) == 0x65617400 or (be & 0xFFFFFF00) == 0x65617400


def sniff(path: Path) -> str | None:
    """The trace format of ``path`` judged by its content, or None when it is not a trace."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if _is_blktrace_binary(head):
        return "blktrace"
    if b"\0" in head:
        return None
    text = head.decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines()[:200] if ln.strip()]
    if not lines:
        return None
    first = lines[0].strip()
    if first.startswith("fio version 2 iolog"):
        return "iolog2"
    if first.startswith("fio version 3 iolog"):
        return "iolog3"
    if any(_TRACEPOINT.search(ln) for ln in lines):
        return "tracepoints"
    if sum(bool(_BLKPARSE.match(ln)) for ln in lines) >= max(1, len(lines) // 2):
        return "blkparse"
    fields = [c.strip() for c in first.split(",")]
    if fields == _MSR_HEADER:
        return "msr"
    if fields == _ALIBABA_HEADER:
        return "alibaba"
    if {"op", "offset_bytes", "size_bytes"} <= set(fields) and set(fields) & set(_CSV_TIMES):
        return "csv"
    if len(fields) == 7 and fields[3] in ("Read", "Write") and fields[0].isdigit():
        return "msr"
    if len(fields) == 5 and fields[1] in ("R", "W") and fields[0].isdigit():
        return "alibaba"
    return None


# ---------------------------------------------------------------- text formats, streamed in chunks of lines

def _chunks(source) -> Iterator[pa.Array]:
    """The lines of a text file (a path or a file-like of bytes) in blocks, as Arrow string arrays: pyarrow's
    CSV reader with a delimiter that never occurs and no quoting splits lines in C++ (empty lines skipped)."""
    read = pacsv.ReadOptions(autogenerate_column_names=True, block_size=1 << 24)
    parse = pacsv.ParseOptions(delimiter="\x01", quote_char=False, escape_char=False)
    conv = pacsv.ConvertOptions(column_types={"f0": pa.string()}, strings_can_be_null=False)
    for batch in pacsv.open_csv(source, read_options=read, parse_options=parse, convert_options=conv):
        yield batch.column(0)


def _extract(lines: pa.Array | pd.Series, rx: re.Pattern) -> pd.DataFrame:
    """Named groups of ``rx`` (searched, as re.search does) in every line, vectorised in C++ (RE2): one
    column per group, <NA> where the line does not match or the group took no part."""
    arr = pa.array(lines, type=pa.string()) if isinstance(lines, pd.Series) else lines
    st = pc.extract_regex(arr, rx.pattern)
    ok = st.is_valid()
    out = {}
    for i, name in enumerate(rx.groupindex):
        f = pc.struct_field(st, [i])
        f = pc.if_else(pc.and_(ok, pc.not_equal(f, "")), f, pa.scalar(None, pa.string()))
        out[name] = pd.Series(f.to_pandas(), dtype="string")
    return pd.DataFrame(out, index=range(len(arr)))


_NUMBER = {"int64": r"^\s*\d+\s*$", "float64": r"^\s*\d+(\.\d*)?\s*$"}


def _number(values: pd.Series | pa.Array, dtype: str = "float64") -> pd.Series:
    """Text -> numbers, vectorised in Arrow (pandas.to_numeric on strings goes value by value): NaN / <NA>
    where the text is not a plain non-negative number (a truncated or garbled field)."""
    arr = pa.array(values, type=pa.string()) if isinstance(values, pd.Series) else values
    ok = pc.fill_null(pc.match_substring_regex(arr, _NUMBER[dtype]), False)
    clean = pc.if_else(ok, pc.utf8_trim_whitespace(arr), pa.scalar(None, pa.string()))
    out = pc.cast(clean, pa.int64() if dtype == "int64" else pa.float64())
    index = values.index if isinstance(values, pd.Series) else None
    if dtype == "int64":
        return pd.Series(pd.array(out.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get), dtype="Int64"),
                         index=index)
    return pd.Series(out.to_numpy(zero_copy_only=False), dtype="float64", index=index)


def _op_from_rwbs(rwbs: pd.Series) -> pd.Series:
    """blkparse / tracepoint RWBS flags -> read, write, trim (discard), or <NA> (flush, no data, unknown)."""
    op = pd.Series(pd.NA, index=rwbs.index, dtype="string")
    op = op.mask(rwbs.str.contains("R", regex=False), "read")
    op = op.mask(rwbs.str.contains("W", regex=False), "write")
    op = op.mask(rwbs.str.contains("D", regex=False), "trim")
    return op


def _pair(issue: pd.DataFrame, complete: pd.DataFrame, skipped: Counter) -> pd.DataFrame:
    """Issue rows with the latency of their completion: the n-th completion of (stream, offset, size) ends
    the n-th issue of it."""
    key = ["stream", "offset_bytes", "size_bytes"]
    issue = issue.assign(_n=issue.groupby(key, sort=False).cumcount())
    complete = complete.assign(_n=complete.groupby(key, sort=False).cumcount())
    m = issue.merge(complete[[*key, "_n", "t_done"]], on=[*key, "_n"], how="left")
    late = len(complete) - int(m["t_done"].notna().sum())
    if late:
        skipped["completions without an issue in the trace"] += late
    lat = (m["t_done"] - m["t_s"]) * 1e6
    m["latency_us"] = lat.where(lat >= 0).round(3)
    return m.drop(columns=["_n", "t_done"])


def _read_block_text(lines, kind: str, skipped: Counter) -> pd.DataFrame:
    """blkparse text or tracepoint text -> issue rows with latency."""
    issues, completes = [], []
    for arr in lines:
        s = pd.Series(arr.to_pandas(), dtype="string")
        if kind == "tracepoints":
            m = _extract(arr, _TRACEPOINT)
            ok = m["t"].notna()
            event = m["ev"].map({"issue": "D", "complete": "C"})
            io_part = _extract(m["rest"], _TP_IO)
            is_event = ok
            noise = s.str.strip().eq("") | s.str.startswith("#")
        else:
            m = _extract(arr, _BLKPARSE)
            ok = m["t"].notna()
            event = m["ev"]
            io_part = _extract(m["rest"], _BLKPARSE_IO)
            is_event = ok & event.isin(["D", "C", "Q"])
            # blkparse's closing statistics ("CPU0 (8,0):", "Total (...)", "Reads Queued: ...") are not I/O
            noise = s.str.strip().eq("") | ~s.str.match(r"^\s*\d+,\d+\s")
        bad = ~ok & ~noise
        if bad.any():
            skipped["truncated or unreadable lines"] += int(bad.sum())
        frame = pd.DataFrame({
            "stream": m["dev"], "t": _number(m["t"]), "ev": event, "rwbs": m["rwbs"],
            "sector": _number(io_part["sector"]), "nsec": _number(io_part["nsec"])})[is_event]
        frame["op"] = _op_from_rwbs(frame["rwbs"])
        issue_like = frame["ev"].ne("C")
        # a flush (F) or no-data (N) request without "sector + n" carries no I/O to replay
        frame["_why"] = pd.Series(pd.NA, index=frame.index, dtype="string")
        no_io = frame["sector"].isna()
        frame["_why"] = frame["_why"].mask(issue_like & no_io & frame["rwbs"].str.contains("[FN]"),
                                           "flush or no-data requests (no I/O to replay)")
        frame["_why"] = frame["_why"].mask(issue_like & frame["_why"].isna() & frame["op"].isna(),
                                           "requests of an unknown operation")
        frame["_why"] = frame["_why"].mask(issue_like & frame["_why"].isna() & no_io, "truncated or unreadable lines")
        frame = frame[frame["_why"].notna() | frame["sector"].notna()]
        issues.append(frame[frame["ev"].ne("C")])
        completes.append(frame[frame["ev"].eq("C")])
    cols = ["stream", "t", "ev", "op", "sector", "nsec", "_why"]
    issue = pd.concat(issues, ignore_index=True)[cols] if issues else pd.DataFrame(columns=cols)
    complete = pd.concat(completes, ignore_index=True)[cols] if completes else pd.DataFrame(columns=cols)
    if kind == "blkparse" and len(issue):
        # the request as dispatched to the driver (D) where the trace has it, else as queued (Q)
        issue = issue[issue["ev"].eq("D")] if issue["ev"].eq("D").any() else issue
    for why, n in issue["_why"].value_counts().items():
        skipped[why] += int(n)
    issue, complete = (x[x["_why"].isna()] for x in (issue, complete))
    issue, complete = (x.assign(offset_bytes=x["sector"].astype("int64") * SECTOR,
                                size_bytes=x["nsec"].astype("int64") * SECTOR) for x in (issue, complete))
    issue = issue.rename(columns={"t": "t_s"}).drop(columns="ev")
    complete = complete.rename(columns={"t": "t_done"})[["stream", "offset_bytes", "size_bytes", "t_done"]]
    return _pair(issue.reset_index(drop=True), complete, skipped)


def _read_iolog(lines, version: int, skipped: Counter) -> pd.DataFrame:
    frames = []
    first = True
    for arr in lines:
        if first:
            arr, first = arr.slice(1), False  # the "fio version N iolog" header
        s = pd.Series(arr.to_pandas(), dtype="string")
        m = _extract(arr, _IOLOG3 if version == 3 else _IOLOG2)
        if version == 2:
            m["t"] = np.nan
        blank = s.str.strip().eq("")
        bad = m["action"].isna() & ~blank
        if bad.any():
            skipped["truncated or unreadable lines"] += int(bad.sum())
        m = m[m["action"].notna()]
        data = m["action"].isin(list(_IOLOG_DATA))
        other = m["action"].isin(list(_IOLOG_OTHER))
        unknown = ~data & ~other
        if unknown.any():
            skipped["lines of an unknown operation"] += int(unknown.sum())
        trunc = data & m["offset"].isna()
        if trunc.any():
            skipped["truncated or unreadable lines"] += int(trunc.sum())
        m = m[data & m["offset"].notna()]
        frames.append(pd.DataFrame({
            "stream": m["stream"], "t_s": _number(m["t"]).to_numpy() * IOLOG3_TICK_S, "op": m["action"],
            "offset_bytes": _number(m["offset"], "int64").astype("int64"),
            "size_bytes": _number(m["size"], "int64").astype("int64"), "latency_us": np.nan}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ---------------------------------------------------------------- CSV formats, streamed through pyarrow.csv

def _csv_batches(path: Path, names: list[str] | None, types: dict, skipped: Counter, has_header: bool):
    def bad_row(row) -> str:
        skipped["truncated or unreadable lines"] += 1
        return "skip"

    read = pacsv.ReadOptions(column_names=None if has_header else names, block_size=1 << 24,
                             skip_rows=0, autogenerate_column_names=False)
    conv = pacsv.ConvertOptions(column_types=types, strings_can_be_null=False)
    parse = pacsv.ParseOptions(invalid_row_handler=bad_row)
    reader = pacsv.open_csv(path, read_options=read, parse_options=parse, convert_options=conv)
    for batch in reader:
        yield batch.to_pandas()


def _has_header(path: Path, header: list[str]) -> bool:
    with open(path, encoding="utf-8", errors="replace") as f:
        return [c.strip() for c in f.readline().split(",")] == header


def _numeric(df: pd.DataFrame, cols: list[str], skipped: Counter, ints: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows whose numeric columns parse (a truncated CSV line leaves text or nothing there); ``ints`` are
    parsed as integers (time stamps too large for float64's 53 bits)."""
    out = {c: _number(df[c], "int64" if c in ints else "float64") for c in cols}
    bad = pd.concat([v.isna() for v in out.values()], axis=1).any(axis=1)
    if bad.any():
        skipped["truncated or unreadable lines"] += int(bad.sum())
    return df.assign(**out)[~bad]


def _read_msr(path: Path, skipped: Counter) -> pd.DataFrame:
    frames = []
    str_types = {c: pa.string() for c in _MSR_HEADER}
    for df in _csv_batches(path, _MSR_HEADER, str_types, skipped, _has_header(path, _MSR_HEADER)):
        df = _numeric(df, ["Timestamp", "Offset", "Size", "ResponseTime"], skipped, ints=("Timestamp", "Offset", "Size"))
        op = df["Type"].str.lower().map({"read": "read", "write": "write"})
        if op.isna().any():
            skipped["lines of an unknown operation"] += int(op.isna().sum())
        keep = op.notna()
        frames.append(pd.DataFrame({
            "stream": (df["Hostname"] + "/" + df["DiskNumber"])[keep],
            # integers: filetimes near 1.3e17 lose ticks as float64; the subtraction happens on int64 below
            "t_ticks": df["Timestamp"][keep].astype("int64"), "op": op[keep],
            "offset_bytes": df["Offset"][keep].astype("int64"), "size_bytes": df["Size"][keep].astype("int64"),
            "latency_us": df["ResponseTime"][keep].astype("float64") * FILETIME_TICK_S * 1e6}))
    return _ticks_to_seconds(frames, FILETIME_TICK_S)


def _ticks_to_seconds(frames: list[pd.DataFrame], tick_s: float) -> pd.DataFrame:
    """Integer time stamps (column t_ticks) -> t_s from the first one: subtracted as integers, since large
    absolute stamps (filetimes near 1.3e17, Unix µs near 1.6e15) lose their last digits as float64 seconds."""
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(out):
        ticks = out.pop("t_ticks")
        out.insert(1, "t_s", (ticks - int(ticks.iloc[0])) * tick_s)
    return out


def _read_alibaba(path: Path, skipped: Counter) -> pd.DataFrame:
    frames = []
    str_types = {c: pa.string() for c in _ALIBABA_HEADER}
    for df in _csv_batches(path, _ALIBABA_HEADER, str_types, skipped, _has_header(path, _ALIBABA_HEADER)):
        df = _numeric(df, ["offset", "length", "timestamp"], skipped, ints=("offset", "length", "timestamp"))
        op = df["opcode"].str.upper().map({"R": "read", "W": "write"})
        if op.isna().any():
            skipped["lines of an unknown operation"] += int(op.isna().sum())
        keep = op.notna()
        frames.append(pd.DataFrame({
            "stream": df["device_id"][keep], "t_ticks": df["timestamp"][keep].astype("int64"),
            "op": op[keep], "offset_bytes": df["offset"][keep].astype("int64"),
            "size_bytes": df["length"][keep].astype("int64"), "latency_us": np.nan}))
    return _ticks_to_seconds(frames, 1e-6)


def _read_plain_csv(path: Path, skipped: Counter) -> pd.DataFrame:
    with open(path, encoding="utf-8", errors="replace") as f:
        header = [c.strip() for c in f.readline().split(",")]
    tcol = next(c for c in header if c in _CSV_TIMES)
    frames = []
    for df in _csv_batches(path, header, {c: pa.string() for c in header}, skipped, True):
        num = [tcol, "offset_bytes", "size_bytes"]
        df = _numeric(df, num, skipped)
        op = df["op"].str.lower().map({"read": "read", "write": "write", "trim": "trim", "r": "read",
                                       "w": "write"})
        if op.isna().any():
            skipped["lines of an unknown operation"] += int(op.isna().sum())
        keep = op.notna()
        lat = _number(df["latency_us"]) if "latency_us" in df else np.nan
        frames.append(pd.DataFrame({
            "stream": df["stream"][keep] if "stream" in df else "0",
            "t_s": df[tcol][keep].astype("float64") * _CSV_TIMES[tcol], "op": op[keep],
            "offset_bytes": df["offset_bytes"][keep].astype("int64"),
            "size_bytes": df["size_bytes"][keep].astype("int64"),
            "latency_us": lat[keep] if isinstance(lat, pd.Series) else lat}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ---------------------------------------------------------------- one file -> one trace

def _blkparse_text(path: Path) -> pa.BufferReader:
    exe = shutil.which("blkparse")
    if exe is None:
        raise TraceError(f"{path.name} is blktrace binary output and blkparse is not installed "
                         "(apt-get install blktrace), so it cannot be read.")
    with path.open("rb") as f:  # "-i -": any file name (blkparse's own -i wants <name>.blktrace.<cpu> files)
        out = subprocess.run([exe, "-i", "-"], stdin=f, capture_output=True, check=False)  # text to stdout
    if out.returncode != 0:
        why = (out.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        raise TraceError(f"blkparse could not read {path.name}: {why}.")
    return pa.BufferReader(out.stdout)


def read_trace(path: Path, trace_id: str | None = None, fmt: str | None = None,
               target_size_bytes: int | None = None) -> TraceImport:
    """Read one trace file into its I/Os (in issue order, times from the first I/O); lines left out are
    counted by reason in the result's ``skipped``.  ``target_size_bytes``: I/Os ending beyond it are left
    out and counted."""
    path = Path(path)
    fmt = fmt or sniff(path)
    if fmt is None:
        raise TraceError(f"{path.name} is not a trace the lab reads (blkparse, blktrace, block tracepoints, "
                         "fio iolog v2/v3, MSR, Alibaba or a CSV with time, op, offset_bytes and size_bytes).")
    skipped: Counter = Counter()
    if fmt in ("blkparse", "tracepoints", "blktrace"):
        src = _blkparse_text(path) if fmt == "blktrace" else path
        ios = _read_block_text(_chunks(src), "tracepoints" if fmt == "tracepoints" else "blkparse", skipped)
    elif fmt in ("iolog2", "iolog3"):
        ios = _read_iolog(_chunks(path), int(fmt[-1]), skipped)
    else:
        ios = {"msr": _read_msr, "alibaba": _read_alibaba, "csv": _read_plain_csv}[fmt](path, skipped)
    ios = _finish(ios, skipped, target_size_bytes)
    tid = trace_id or path.name.split(".")[0]
    n = len(ios)
    ios.insert(0, "source_format", pd.Series([fmt] * n, dtype="string"))
    ios.insert(0, "source_file", pd.Series([path.name] * n, dtype="string"))
    ios.insert(0, "trace_id", pd.Series([tid] * n, dtype="string"))
    cols = [c for c in schema.column_names(schema.TRACE_COLUMNS) if c != "run_id"]
    return TraceImport(tid, path.name, fmt, ios[cols].astype(
        {c: t for c, t, _ in schema.TRACE_COLUMNS if c != "run_id"}), skipped)


def _finish(ios: pd.DataFrame, skipped: Counter, target_size_bytes: int | None) -> pd.DataFrame:
    """Issue order, times from the first I/O; drop sizes <= 0, I/Os beyond the target and time going back."""
    cols = ["stream", "t_s", "op", "offset_bytes", "size_bytes", "latency_us"]
    if not len(ios):
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.TRACE_COLUMNS if c in cols + ["seq"]})
    ios = ios[cols].reset_index(drop=True)
    empty = ios["size_bytes"] <= 0
    if empty.any():
        skipped["I/Os of no length"] += int(empty.sum())
        ios = ios[~empty]
    if target_size_bytes is not None:
        beyond = (ios["offset_bytes"] + ios["size_bytes"]) > target_size_bytes
        if beyond.any():
            skipped[f"I/Os beyond the target's {target_size_bytes:,} bytes"] += int(beyond.sum())
            ios = ios[~beyond]
    t = ios["t_s"].to_numpy(dtype="float64")
    if len(t) and not np.isnan(t).all():
        back = t < np.fmax.accumulate(np.nan_to_num(t, nan=-np.inf))
        if back.any():
            skipped["I/Os whose time goes backwards"] += int(back.sum())
            ios = ios[~back]
        ios = ios.assign(t_s=ios["t_s"] - ios["t_s"].min())
    ios = ios.reset_index(drop=True)
    ios.insert(0, "seq", np.arange(len(ios), dtype="int64"))
    return ios


def import_traces(paths: list[Path], run_id: str, processed_dir: Path = config.PROCESSED_DIR,
                  target_size_bytes: int | None = None) -> tuple[list[TraceImport], str]:
    """Import trace files (or every file of a folder) into the run's ``traces`` partition; returns the
    imports and one summary sentence naming what was left out (files that are not traces included)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    done, refused = [], []
    for f in files:
        try:
            done.append(read_trace(f, target_size_bytes=target_size_bytes))
        except TraceError as e:
            refused.append(str(e))
    w = store.RunWriter(processed_dir, config.TRACES_DATASET, run_id)
    try:
        for t in done:
            w.write(t.ios)
    except BaseException:
        w.abort()
        raise
    w.close(empty=pd.DataFrame({c: pd.Series(dtype=t) for c, t, _ in schema.TRACE_COLUMNS if c != "run_id"}))
    return done, summary(done, len(refused))


def summary(imports: list[TraceImport], not_traces: int = 0) -> str:
    """One sentence over several imports: I/Os imported and the reasons lines or files were left out."""
    total: Counter = Counter()
    for t in imports:
        total.update(t.skipped)
    if not_traces:
        total["files that are not traces"] += not_traces
    n = sum(len(t.ios) for t in imports)
    return _sentence(f"{n:,} I/Os imported from {len(imports)} trace{'s' if len(imports) != 1 else ''}", total)


def main(argv: list[str] | None = None) -> int:
    """``python -m helpers.ingest.traces FILE|DIR ... --run RUN [--out DIR] [--target-size BYTES]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m helpers.ingest.traces", description=main.__doc__)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--run", required=True, help="run id the traces are imported into")
    ap.add_argument("--out", type=Path, default=config.PROCESSED_DIR, help="processed dataset folder")
    ap.add_argument("--target-size", type=int, default=None, help="leave out I/Os ending beyond this many bytes")
    a = ap.parse_args(argv)
    _, sentence = import_traces(a.paths, a.run, a.out, a.target_size)
    print(sentence)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def trace_ios(path: Path) -> pd.DataFrame:
    """The I/Os of one trace file (:func:`read_trace`): the reader a replay sweep is given
    (``helpers.run.sweep.plan_sweep(trace_reader=...)``)."""
    return read_trace(Path(path)).ios
