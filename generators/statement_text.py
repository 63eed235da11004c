"""The SQL text of a generated statement, with its values, as a server logs it in
Rows_query (MySQL ``binlog_rows_query_log_events``) and Annotate_rows (MariaDB
``binlog_annotate_row_events``) events: the statement the client sent (docs/generate.md).

* INSERT: ``INSERT INTO `db`.`t` (`a`, `b`) VALUES (1, 'x'), (2, 'y')``
* UPDATE of one row: ``UPDATE `db`.`t` SET `k` = 5 WHERE `id` = 123``; of several rows, one
  statement whose assignments pick each row's new value with ``CASE``
  (``SET `k` = CASE WHEN `id` = 1 THEN 5 WHEN `id` = 2 THEN 7 ELSE `k` END WHERE `id` IN (1, 2)``)
* DELETE: ``DELETE FROM `db`.`t` WHERE `id` IN (5, 6)``

Rows are found by their primary key equivalent (format.md §12.1), or by every column when
the table has none (``IS NULL`` for NULLs). Literals come from :func:`generators.columns.sql_literal`
(strings escaped, binary strings as ``X'..'``, temporals quoted), so the text is valid SQL
for every column type and charset; executed on the table state before it, it makes the
change the rows event carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from binlogwriter.schema import Column, Table
from generators.columns import sql_literal

__all__ = ["statement_sql", "literal"]


# the escapes of generators.columns._common.quote as one str.translate table (a character at a time in
# Python is the cost of a statement text); text columns take this path, the property test
# checks it gives sql_literal's text
_QUOTE = str.maketrans({"\\": "\\\\", "'": "\\'", "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"})
_TEXT = frozenset(("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM"))


def literal(col: Column, v: Any, flavor: str) -> str:
    """:func:`generators.columns.sql_literal`, with text values quoted by one translate."""
    if col.type in _TEXT and type(v) is str:
        return "'" + v.translate(_QUOTE) + "'"
    return sql_literal(col, v, flavor)


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _assigned(table: Table, after: Mapping[Any, Any]) -> dict[int, Any]:
    return {(k if isinstance(k, int) else table.index_of(k)): v for k, v in after.items()}


def statement_sql(table: Table, kind: str, rows: Sequence[Any], flavor: str) -> str:
    """The statement text of ``rows`` of one INSERT / UPDATE / DELETE of ``table``.

    ``rows``: INSERT and DELETE full rows (tuples in column order); UPDATE
    ``(before row, {column index or name: new value})`` pairs."""
    cols = table.columns
    lit = [lambda v, c=c: literal(c, v, flavor) for c in cols]
    name = f"{_qi(table.database)}.{_qi(table.name)}"
    if kind == "insert":
        names = ", ".join(_qi(c.name) for c in cols)
        values = ", ".join("(" + ", ".join(lit[i](v) for i, v in enumerate(r)) + ")" for r in rows)
        return f"INSERT INTO {name} ({names}) VALUES {values}"
    key = [i for i, _ in table.effective_primary_key()] or list(range(len(cols)))
    befores = [r[0] for r in rows] if kind == "update" else list(rows)

    def match(row: tuple, on: Sequence[int] = key) -> str:
        return " AND ".join(f"{_qi(cols[i].name)} IS NULL" if row[i] is None
                            else f"{_qi(cols[i].name)} = {lit[i](row[i])}" for i in on)

    if len(key) == 1 and all(b[key[0]] is not None for b in befores):
        c = _qi(cols[key[0]].name)
        vals = list(dict.fromkeys(lit[key[0]](b[key[0]]) for b in befores))
        where = f"{c} = {vals[0]}" if len(vals) == 1 else f"{c} IN ({', '.join(vals)})"
    elif len(befores) == 1:
        where = match(befores[0])
    else:
        where = " OR ".join(dict.fromkeys(f"({match(b)})" for b in befores))
    if kind == "delete":
        return f"DELETE FROM {name} WHERE {where}"
    assigned = [_assigned(table, r[1]) for r in rows]
    if len(rows) == 1:
        sets = ", ".join(f"{_qi(cols[i].name)} = {lit[i](v)}" for i, v in sorted(assigned[0].items()))
    else:
        changed = sorted({i for a in assigned for i in a})
        # assignments run left to right and see the values set before them: pick the rows by
        # columns no assignment changes (the key, which generated UPDATEs never assign)
        on = [i for i in key if i not in changed] or key
        # a key updated twice in one statement: its last assignment wins (CASE takes the first
        # WHEN that holds, so the rows go in reverse)
        parts = []
        for i in changed:
            whens = " ".join(f"WHEN {match(b, on)} THEN {lit[i](a[i])}"
                             for b, a in reversed(list(zip(befores, assigned, strict=True))) if i in a)
            parts.append(f"{_qi(cols[i].name)} = CASE {whens} ELSE {_qi(cols[i].name)} END")
        sets = ", ".join(parts)
    return f"UPDATE {name} SET {sets} WHERE {where}"
