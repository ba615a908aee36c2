"""What an ingest read, in words: the summary line and the quarantine lines."""

from __future__ import annotations

import pandas as pd


def _count(n: int) -> str:
    return f"{n / 1e6:.1f} M" if n >= 1_000_000 else f"{n:,}"


def _plural(n: int, word: str) -> str:
    return f"{_count(n)} {word}{'' if n == 1 else 's'}"


def summary_line(files: int, results: int, rows: int, multi_run: dict[str, int], log_files: int, windows: int,
                 quarantined: int) -> str:
    """``3,455 files: 3,450 results (3,666 rows), 106,610 fio logs (6.2 M windows), 5 quarantined``; files
    that held several fio runs (appended to one file) are named with their count of runs."""
    several = ""
    if multi_run:
        held = sum(multi_run.values())
        several = (f"; {_plural(len(multi_run), 'file')} held {held} separate fio runs" if len(multi_run) > 1 else
                   f"; {next(iter(multi_run))} held {held} separate fio runs")
    return (f"{_plural(files, 'file')}: {_plural(results, 'result')} ({_plural(rows, 'row')}{several}), "
            f"{_plural(log_files, 'fio log')} ({_plural(windows, 'window')}), {_count(quarantined)} quarantined")


def quarantine_report(q: pd.DataFrame, limit: int = 50, multi_run: dict[str, int] | None = None) -> list[str]:
    """One line per quarantined file or job (the first ``limit``); a job of a file that held several fio
    runs (``multi_run``: {source_file: runs}) says which run it is from."""
    multi_run = multi_run or {}

    def where(r) -> str:
        job = "" if pd.isna(r.job_name) else r.job_name
        n = multi_run.get(r.source_file)
        run = getattr(r, "run_index", None)
        if n and run is not None and not pd.isna(run):
            job = f"{job}, run {int(run) + 1} of {n}" if job else f"run {int(run) + 1} of {n}"
        return job

    lines = [f"  quarantined {r.source_file} [{where(r)}]: {r.reason}" for r in q.head(limit).itertuples()]
    if len(q) > limit:
        lines.append(f"  ... and {len(q) - limit} more (see the quarantine dataset)")
    return lines


