"""A statement's rows, checked and encoded before anything is written (part of
binlogwriter/write/transaction.py): rows given as tuples or mappings become full rows, an update's
(before, after) pair its two images; the values present in each image (row image
FULL/MINIMAL/NOBLOB, docs/images) are encoded column by column — vectorised for many rows —
and a value that does not fit raises ``ValueEncodeError`` naming table.column and row."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from binlogwriter import images
from binlogwriter.errors import ValueEncodeError
from binlogwriter.layouts.primitives import BitmapValue
from binlogwriter.values._common import describe
from binlogwriter.write.row_input import as_full_row, check_present, update_pair

if TYPE_CHECKING:
    from binlogwriter.write.writer import BinlogWriter

__all__ = ["normalise_rows", "statement_rows"]


@dataclass
class Statement:
    kind: str  # insert | update | delete | query
    table: Any = None
    rows: list = field(default_factory=list)
    sql: str | None = None
    db: str | None = None
    event_rows: list[int] = field(default_factory=list)
    """Rows in each rows event the statement was split into, in order (filled when its
    transaction is built; generators/changes_truth.py places each row change with it)."""


def normalise_rows(rows: Any, where: str | None = None) -> list[Any]:
    """Rows as a list; a columnar batch (mapping column -> sequence or numpy array) becomes
    one mapping per row. Anything else that is not an iterable of rows is a
    ValueEncodeError naming the table (``where``)."""
    if isinstance(rows, str | bytes | bytearray) or not isinstance(rows, Iterable | Mapping):
        raise ValueEncodeError(f"rows are an iterable of rows or a columnar batch (mapping column -> "
                               f"sequence), got {describe(rows)}", table=where)
    if isinstance(rows, Mapping):
        cols = list(rows)
        if not cols:
            return []
        seqs = [rows[c] for c in cols]
        for c, col_values in zip(cols, seqs, strict=True):
            if isinstance(col_values, str | bytes | bytearray) or not hasattr(col_values, "__len__"):
                raise ValueEncodeError(f"a columnar batch maps each column to a sequence of values, "
                                       f"got {describe(col_values)}", table=where, column=str(c))
        n = len(seqs[0])
        if any(len(s) != n for s in seqs):
            raise ValueEncodeError("columnar batch has columns of different lengths", table=where)
        out = []
        for i in range(n):
            out.append({c: _py(s[i]) for c, s in zip(cols, seqs, strict=True)})
        return out
    return list(rows)


def _py(v: Any) -> Any:
    item = getattr(v, "item", None)  # numpy scalar -> Python scalar
    if item is not None and type(v).__module__ == "numpy":
        return item()
    return v


def where(table: Any) -> str | None:
    """``db.table`` of a Table for messages (None when it is not one)."""
    name = getattr(table, "name", None)
    return f"{getattr(table, 'database', '')}.{name}" if name is not None else None


def present_bitmap(bits: tuple[bool, ...], fmt) -> BitmapValue:
    # MySQL's full-image column bitmaps have padding 1; MariaDB's 0 (format.md §13, mariadb.md)
    pad = -1 if (not fmt.is_mariadb and all(bits)) else 0
    return BitmapValue(bits, pad)


VECTOR_MIN_ROWS = 8  # statements with this many rows encode their images column by column


def statement_rows(writer: BinlogWriter, stmt: Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    """Encode every row of a statement: [(before_bits, after_bits, [row bytes…])] grouped by
    image bitmaps (one rows event never mixes bitmaps). Raises before anything is written.

    A statement of at least ``VECTOR_MIN_ROWS`` rows has its images encoded column by column
    (:func:`binlogwriter.values.row.encode_row_images`, same bytes); on any error it is
    encoded again row by row, which raises the error of the first bad row."""
    if stmt.kind == "partial_update":  # JSON diffs: PARTIAL_UPDATE_ROWS_EVENT
        from binlogwriter.write.partial_json import partial_update_groups

        return partial_update_groups(writer, stmt)
    if len(stmt.rows) < VECTOR_MIN_ROWS:
        return _statement_rows_one_by_one(writer, stmt)
    try:
        return _statement_rows_vectorised(writer, stmt)
    except ValueEncodeError:
        return _statement_rows_one_by_one(writer, stmt)


def _row_values(table: Any, image: Any, flavor: str, where: str, kind: str, row: Any,
                i: int) -> tuple[tuple, tuple | None, tuple, tuple | None]:
    """Row ``i`` of a statement as (before bits, after bits, before values, after values):
    the columns present in each image (docs/images) and their values, an update's after image
    merged over its before image; a value missing from an image that needs it is a
    ValueEncodeError naming table.column and row. After bits and values are None unless
    ``kind`` is an update."""
    if kind == "update":
        before, after = update_pair(row, where, i)
        bvals, _ = as_full_row(table, before, where, i)
        avals, agiven = as_full_row(table, after, where, i)
        merged = tuple(a if j in agiven else b for j, (a, b) in enumerate(zip(avals, bvals, strict=True)))
        bbits, abits = images.update_columns(table, image, agiven, flavor)
        check_present(table, where, bvals, bbits, i, image, "update", "before")
        check_present(table, where, merged, abits, i, image, "update", "after")
        return bbits, abits, bvals, merged
    vals, given = as_full_row(table, row, where, i)
    if kind == "insert":
        bits = images.insert_columns(table, image, given, flavor)
    else:
        bits = images.delete_columns(table, image, flavor)
    check_present(table, where, vals, bits, i, image, kind)
    return bits, None, vals, None


def _statement_rows_vectorised(writer: BinlogWriter, stmt: Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    from binlogwriter.values.row import encode_row_images

    table = stmt.table
    fmt = writer.fmt
    flavor = fmt.flavor
    image = writer.settings.row_image
    where = f"{table.database}.{table.name}"
    cols = writer.column_descs(table)
    pad = -1 if fmt.is_mariadb else 0
    # (before bits, after bits, before values, after values) per row, in runs of equal bits
    runs: list[tuple[tuple, tuple | None, list, list]] = []
    for i, row in enumerate(stmt.rows):
        bbits, abits, vals, merged = _row_values(table, image, flavor, where, stmt.kind, row, i)
        if runs and runs[-1][0] == bbits and runs[-1][1] == abits:
            runs[-1][2].append(vals)
            runs[-1][3].append(merged)
        else:
            runs.append((bbits, abits, [vals], [merged]))
    groups: list[tuple[tuple, tuple | None, list[bytes]]] = []
    for bbits, abits, bv, av in runs:
        buf, lens = encode_row_images(cols, bbits, bv, pad)
        ends = lens.cumsum().tolist()
        starts = [0, *ends[:-1]]
        if abits is None:
            data = [buf[s:e] for s, e in zip(starts, ends, strict=True)]
        else:
            abuf, alens = encode_row_images(cols, abits, av, pad)
            aends = alens.cumsum().tolist()
            astarts = [0, *aends[:-1]]
            data = [buf[s:e] + abuf[x:y] for s, e, x, y in zip(starts, ends, astarts, aends, strict=True)]
        if groups and groups[-1][0] == bbits and groups[-1][1] == abits:
            groups[-1][2].extend(data)
        else:
            groups.append((bbits, abits, data))
    return groups


def _statement_rows_one_by_one(writer: BinlogWriter, stmt: Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    """:func:`statement_rows` row by row (the reference; it raises the first error in row order)."""
    from binlogwriter.values.row import encode_row_image

    table = stmt.table
    fmt = writer.fmt
    flavor = fmt.flavor
    image = writer.settings.row_image
    where = f"{table.database}.{table.name}"
    cols = writer.column_descs(table)
    pad = -1 if fmt.is_mariadb else 0
    groups: list[tuple[tuple, tuple | None, list[bytes]]] = []

    def add(bbits, abits, data):
        if groups and groups[-1][0] == bbits and groups[-1][1] == abits:
            groups[-1][2].append(data)
        else:
            groups.append((bbits, abits, [data]))

    for i, row in enumerate(stmt.rows):
        try:
            bbits, abits, vals, merged = _row_values(table, image, flavor, where, stmt.kind, row, i)
            data = encode_row_image(cols, bbits, vals, pad)
            add(bbits, abits, data if abits is None else data + encode_row_image(cols, abits, merged, pad))
        except ValueEncodeError as exc:
            # name the place as db.table.column, row N (docs/design.md principle 6)
            raise ValueEncodeError(exc.reason, table=where, column=exc.column, row=i) from None
    return groups
