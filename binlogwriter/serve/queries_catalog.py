"""``information_schema`` queries a CDC connector's JDBC session sends (part of
binlogwriter/serve/queries.py).

Debezium's MySQL connector reads ``SELECT schema_name, default_character_set_name,
default_collation_name FROM information_schema.schemata`` while it takes a snapshot
(``BinlogConnectorConnection.readDatabaseCollations``), after ``SHOW DATABASES``. ``serve``
holds binlog files, not databases: ``SHOW DATABASES`` lists none, so a SELECT from an
``information_schema`` table (MySQL reference manual "INFORMATION_SCHEMA Tables") is answered
with the columns it selects and no rows (``SELECT *`` is refused with 1146: its columns would
be the server's own definitions, which serve does not reproduce). A table that ``information_schema`` does not have gets
the server's ER_UNKNOWN_TABLE (1109) "Unknown table 'X' in information_schema".

``information_schema.COLUMNS`` is the exception when the served directory holds the run's table
definitions: its rows are the columns of those tables (columns_catalog.py, evaluated by
queries_columns.py), which ZongJi and other clients read when the binlog carries no column names.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from binlogwriter.serve.protocol import result_set
from binlogwriter.serve.query_errors import QueryError, split_top

__all__ = ["INFORMATION_SCHEMA_TABLES", "information_schema_table", "information_schema_select"]

ER_UNKNOWN_TABLE = 1109

INFORMATION_SCHEMA_TABLES = frozenset({
    "CHARACTER_SETS", "CHECK_CONSTRAINTS", "COLLATIONS", "COLLATION_CHARACTER_SET_APPLICABILITY",
    "COLUMNS", "COLUMN_PRIVILEGES", "COLUMN_STATISTICS", "ENGINES", "EVENTS", "FILES",
    "KEY_COLUMN_USAGE", "KEYWORDS", "PARAMETERS", "PARTITIONS", "PLUGINS", "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS", "ROUTINES", "SCHEMATA", "SCHEMA_PRIVILEGES", "STATISTICS",
    "TABLES", "TABLE_CONSTRAINTS", "TABLE_PRIVILEGES", "TRIGGERS", "USER_PRIVILEGES", "VIEWS",
})
"""The ``information_schema`` tables MySQL 8.0 and MariaDB 10.11 both have (MySQL reference
manual "INFORMATION_SCHEMA Table Reference"); all are empty when there is no database."""

_FROM_IS = re.compile(r"\sFROM\s+`?information_schema`?\s*\.\s*`?(\w+)`?", re.I)
_ALIAS = re.compile(r"(?s)(.*?)\s+(?:AS\s+)?(`[^`]+`|'[^']+'|\"[^\"]+\"|\w+)")


def information_schema_table(select_rest: str) -> str | None:
    """The ``information_schema`` table a SELECT (the text after ``SELECT``) reads, or None."""
    m = _FROM_IS.search(" " + select_rest)
    return m.group(1) if m else None


def _column_name(item: str) -> str:
    """A select item's result column name: its alias, else the column's name without its
    qualifier (``s.schema_name`` -> ``schema_name``), else the item's text."""
    m = _ALIAS.fullmatch(item.strip())
    if m and re.fullmatch(r"[\w.`]+", m.group(1).strip()) and m.group(1).strip().upper() not in ("DISTINCT",):
        return m.group(2).strip("`'\"")
    bare = item.strip()
    if re.fullmatch(r"[\w.`]+", bare):
        return bare.split(".")[-1].strip("`")
    return bare


def information_schema_select(select_rest: str, table: str,
                              columns: Callable[[], tuple[list, bool]] | None = None) -> list[bytes]:
    """The answer to ``SELECT <select_rest>`` reading ``information_schema.<table>``: no rows
    (module docstring), the selected columns' names; 1109 for a table it does not have.
    ``columns()`` gives (rows of information_schema.COLUMNS, whether the server is MariaDB):
    when it has rows, a COLUMNS query is evaluated over them (queries_columns.py)."""
    if table.upper() not in INFORMATION_SCHEMA_TABLES:
        raise QueryError(ER_UNKNOWN_TABLE, f"Unknown table '{table.upper()}' in information_schema", "42S02")
    m = _FROM_IS.search(" " + select_rest)
    assert m is not None
    items = select_rest[: m.start()].strip()
    items = re.sub(r"^(?:DISTINCT|ALL)\s+", "", items, flags=re.I)
    if table.upper() == "COLUMNS" and columns is not None and "*" not in items:
        rows, mariadb = columns()
        if rows:
            from binlogwriter.serve.queries_columns import columns_select

            return columns_select(items, select_rest[m.end() - 1:], rows, mariadb=mariadb)
    cols = [_column_name(it) for it in split_top(items)]
    if any(c == "*" or c.endswith(".*") for c in cols):
        # the columns of `*` would have to be the server's own: refused as before (1146)
        raise QueryError(1146, f"binlogwriter serve has no table 'information_schema.{table}' to list", "42S02")
    return result_set(cols, [])
