"""Ground truth: the canonical row form of docs/output.md and ``truth/snapshot.sql``.

:func:`canonical_renderer` turns a row of Python values into the canonical JSON values
(docs/output.md "Canonical row form"): integers/YEAR/BIT as integers, DECIMAL as a string with
exactly ``scale`` digits, FLOAT widened from float32, temporals with all fsp digits
(TIMESTAMP in UTC), CHAR without trailing spaces, binary data and geometry as ``0x`` hex
(BINARY(n) padded with 0x00 to n bytes as the server stores it), JSON as MySQL prints it.
:func:`write_sorted_jsonl` writes lines sorted by all column values (null < number <
string) with bounded memory: sorted runs spill to temporary files and are merged.
:func:`generators.columns.sql_literal` writes the same values as SQL for ``snapshot.sql``.
"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from binlogwriter.schema import Column, Table
from binlogwriter.values.families import family_of_type
from binlogwriter.values.json_text import jsonl_safe

__all__ = ["canonical_renderer", "canonical_key", "write_sorted_jsonl", "dumps_line",
           "render_temporal"]

_BYTES_TYPES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
_TEMPORAL_TYPES = ("DATE", "DATETIME", "TIMESTAMP", "TIME")


def render_temporal(col: Column, v: Any) -> str:
    """DATE / DATETIME / TIMESTAMP / TIME as the server prints them (all fsp digits, UTC): the
    type family's ``truth_renderer`` (binlogwriter/values/<family>.py)."""
    if col.type not in _TEMPORAL_TYPES:
        raise ValueError(col.type)
    return column_renderer(col, "")(v)


def column_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """fn(python value) -> canonical JSON value of one column: its type family's
    ``truth_renderer`` (binlogwriter/values/families.py)."""
    fam = family_of_type(col.type)
    if fam is None:
        raise ValueError(f"no canonical form for {col.type}")
    return fam.truth_renderer(col, flavor)


def canonical_renderer(table: Table, flavor: str) -> Callable[[tuple], list]:
    fns = [column_renderer(c, flavor) for c in table.columns]

    def render(row: tuple) -> list:
        return [None if v is None else f(v) for f, v in zip(fns, row, strict=True)]
    return render


def canonical_key(values: Iterable[Any]) -> tuple:
    """docs/output.md ordering: null < number < string; numbers numerically, strings by code point."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, v) for v in values)


def dumps_line(names: list[str], values: list) -> str:
    return jsonl_safe(json.dumps(dict(zip(names, values, strict=True)), ensure_ascii=False, separators=(",", ":")))


def write_sorted_jsonl(path: Path, names: list[str], rows: Iterable[list], *, chunk: int = 20_000) -> int:
    """Write canonical rows to ``path`` sorted by :func:`canonical_key`; bounded memory."""
    runs: list[str] = []
    buf: list[tuple[tuple, str]] = []
    count = 0
    tmpdir = path.parent
    try:
        for vals in rows:
            buf.append((canonical_key(vals), dumps_line(names, vals)))
            count += 1
            if len(buf) >= chunk:
                runs.append(_spill(buf, tmpdir))
                buf = []
        buf.sort(key=lambda x: x[0])
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            if not runs:
                for _, line in buf:
                    out.write(line + "\n")
            else:
                runs.append(_spill(buf, tmpdir))
                files = [open(r, encoding="utf-8") for r in runs]
                try:
                    def keyed(f):
                        for line in f:
                            obj = json.loads(line)
                            yield canonical_key(obj.values()), line
                    for _, line in heapq.merge(*(keyed(f) for f in files), key=lambda x: x[0]):
                        out.write(line)
                finally:
                    for f in files:
                        f.close()
    finally:
        for r in runs:
            try:
                os.unlink(r)
            except FileNotFoundError:
                pass
    return count


def _spill(buf: list[tuple[tuple, str]], tmpdir: Path) -> str:
    buf.sort(key=lambda x: x[0])
    fd, name = tempfile.mkstemp(prefix=".sort-", suffix=".jsonl", dir=tmpdir)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
        for _, line in buf:
            f.write(line + "\n")
    return name
