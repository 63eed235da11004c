"""The writer side of JSON partial updates: the rows of a ``Transaction.partial_update``
statement as MySQL 8.0 logs them with ``binlog_row_value_options=PARTIAL_JSON`` in a
PARTIAL_UPDATE_ROWS_EVENT (type 39) — docs/format.md §14, values/json_diff.py.

The server writes diffs only under ``binlog_row_image`` MINIMAL or NOBLOB (with FULL the
after image holds whole documents) and only MySQL has the event (MariaDB writes none):
anything else is refused here, before a byte is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from binlogwriter import images
from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import PARTIAL_UPDATE_ROWS_EVENT
from binlogwriter.values.json_diff import JSON_TYPE, JsonPartial, encode_partial_image
from binlogwriter.values.row import encode_row_image

if TYPE_CHECKING:
    from binlogwriter.write.writer import BinlogWriter

__all__ = ["partial_update_groups", "PARTIAL_UPDATE_ROWS_EVENT"]


def partial_update_groups(writer: BinlogWriter, stmt: Any) -> list[tuple[tuple, tuple, list[bytes]]]:
    """[(before bits, after bits, [row bytes…])] of an UPDATE whose after values may hold
    :class:`~binlogwriter.values.json_diff.JsonPartial` diffs (same grouping as
    ``transaction.statement_rows``)."""
    from binlogwriter.write.row_input import as_full_row, check_present, update_pair

    table = stmt.table
    where = f"{table.database}.{table.name}"
    fmt = writer.fmt
    image = writer.settings.row_image.upper()
    if fmt.is_mariadb:
        raise ValueEncodeError("JSON partial updates (PARTIAL_UPDATE_ROWS_EVENT) exist only in MySQL 8.0+",
                               table=where)
    if image == "FULL":
        raise ValueEncodeError("JSON partial updates need binlog_row_image MINIMAL or NOBLOB "
                               "(with FULL MySQL logs whole documents)", table=where)
    cols = writer.column_descs(table)
    ncols = len(table.columns)
    groups: list[tuple[tuple, tuple, list[bytes]]] = []
    for i, row in enumerate(stmt.rows):
        before, after = update_pair(row, where, i)
        bvals, bgiven = as_full_row(table, before, where, i)
        if len(bgiven) != ncols:
            missing = next(c.name for j, c in enumerate(table.columns) if j not in bgiven)
            raise ValueEncodeError("the before image of an UPDATE needs the full current row",
                                   table=where, column=missing, row=i)
        avals, agiven = as_full_row(table, after, where, i)
        for j in agiven:
            if isinstance(avals[j], JsonPartial) and cols[j].type_code != JSON_TYPE:
                raise ValueEncodeError("JSON diffs need a JSON column", table=where,
                                       column=table.columns[j].name, row=i)
        merged = tuple(a if j in agiven else b for j, (a, b) in enumerate(zip(avals, bvals, strict=True)))
        bbits, abits = images.update_columns(table, image, agiven, fmt.flavor)
        check_present(table, where, bvals, bbits, i, image, "update", "before")
        check_present(table, where, merged, abits, i, image, "update", "after")
        for j, keep in enumerate(abits):  # a diff is only for a column this UPDATE assigns
            if keep and j not in agiven and isinstance(merged[j], JsonPartial):
                raise ValueEncodeError("JSON diffs in the before row", table=where,
                                       column=table.columns[j].name, row=i)
        try:
            data = encode_row_image(cols, bbits, bvals, 0) + encode_partial_image(cols, abits, merged, 0)
        except ValueEncodeError as exc:
            raise ValueEncodeError(exc.reason, table=where, column=exc.column, row=i) from None
        if groups and groups[-1][0] == bbits and groups[-1][1] == abits:
            groups[-1][2].append(data)
        else:
            groups.append((bbits, abits, [data]))
    return groups
