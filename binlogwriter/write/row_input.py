"""Rows as a caller gives them, checked (part of binlogwriter/write/statement_rows.py; shared with
binlogwriter/write/partial_json.py): a mapping or a full-width sequence, an UPDATE's (before, after)
pair, and every column an image logs given a value (binlogwriter/images.py decides which)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from binlogwriter import images
from binlogwriter.errors import BinlogError, ValueEncodeError
from binlogwriter.values._common import describe
from binlogwriter.values.base import ABSENT


def as_full_row(table, row: Any, where: str, index: int) -> tuple[tuple, set[int]]:
    """A row given as a mapping (column -> value) or a full-width sequence -> (full-width
    tuple with ABSENT for columns not given, indexes of the given columns)."""
    n = len(table.columns)
    if isinstance(row, Mapping):
        vals = [ABSENT] * n
        given = set()
        for k, v in row.items():
            try:
                i = k if isinstance(k, int) else table.index_of(k)
            except BinlogError:
                raise ValueEncodeError(f"unknown column {k!r}", table=where, row=index) from None
            vals[i] = v
            given.add(i)
        return tuple(vals), given
    if isinstance(row, str | bytes | bytearray) or not isinstance(row, Iterable):
        raise ValueEncodeError(f"a row is a mapping (column -> value) or a sequence of {n} values, "
                               f"got {describe(row)}", table=where, row=index)
    vals = tuple(row)
    if len(vals) != n:
        raise ValueEncodeError(f"row has {len(vals)} values, table has {n} columns", table=where, row=index)
    return vals, set(range(n))


def update_pair(row: Any, where: str, index: int) -> tuple[Any, Any]:
    """An UPDATE's (before, after) pair, or a ValueEncodeError naming the table and row."""
    if isinstance(row, tuple | list) and len(row) == 2:
        return row[0], row[1]
    raise ValueEncodeError(f"an UPDATE row is a (before, after) pair, got {describe(row)}",
                           table=where, row=index)


def check_present(table, where: str, vals: tuple, present: tuple[bool, ...], row: int, image: str,
                  kind: str, side: str | None = None) -> None:
    """Every column the image logs has a value: a column left out that the image needs is a
    ValueEncodeError naming db.table.column and the row (images.py decides which columns an
    image needs; an UPDATE's after image takes unassigned columns from its before row)."""
    for i, (p, v) in enumerate(zip(present, vals, strict=True)):
        if p and v is ABSENT:
            img = {"insert": "after", "delete": "before"}.get(kind, side)
            why = _needs(table, image, i)
            raise ValueEncodeError(f"no value given, but the {img} image of this {kind.upper()} under "
                                   f"binlog_row_image={image} logs this column ({why})",
                                   table=where, column=table.columns[i].name, row=row)


def _needs(table, image: str, index: int) -> str:
    """Why an image logs column ``index``, for error messages."""
    pke = images.pke_columns(table)
    if image.upper() == "FULL":
        return "FULL logs the full current row"
    if pke is None:
        return "the table has no primary key or UNIQUE NOT NULL key, so the full row is logged"
    if index in pke:
        return "it is part of the primary key equivalent"
    if table.columns[index].auto_increment:
        return "the AUTO_INCREMENT value is logged"
    return "NOBLOB logs every non-BLOB column" if image.upper() == "NOBLOB" else "it is assigned"
