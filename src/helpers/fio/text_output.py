"""fio's normal and terse text output (placeholder: the text parser replaces this file at merge)."""

from __future__ import annotations

from helpers.fio.json_output import FioParseError


def parse_fio_text(data: bytes) -> list[dict]:
    """fio-JSON-shaped result objects from fio's normal or terse output; FioParseError when not fio text."""
    raise FioParseError("not fio JSON or text output.")
