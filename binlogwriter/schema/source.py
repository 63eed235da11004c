"""Table definitions for a reader (:class:`SchemaSource`): the schemas a binlog's rows are
decoded with, given as Table objects, a dict, or CREATE TABLE SQL parsed for the binlog's
flavor (binlogwriter/read/changes.py, binlogwriter/read/state.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["SchemaSource"]


class SchemaSource:
    """Table definitions by ``db.table`` from Table objects, a dict, or CREATE TABLE SQL.

    ``source`` may be a ``{"db.table": Table}`` dict, an iterable of ``Table``, a path to a
    ``.sql`` file, or SQL text. SQL is parsed for the binlog's flavor when first needed, with
    the columns a server logs but the text does not list (MariaDB system versioning's
    ``row_start`` / ``row_end``);
    statements without a database take ``database``. A table not found by ``db.table`` is
    looked up by its name alone when that name is unique."""

    def __init__(self, source: Any = None, database: str = "test") -> None:
        self.database = database
        self._sql: str | None = None
        self._tables: dict[str, Any] | None = None
        self._flavor: str | None = None
        if source is None:
            self._tables = {}
        elif isinstance(source, SchemaSource):
            self._sql, self._tables, self.database = source._sql, source._tables, source.database
        elif isinstance(source, dict):
            self._tables = dict(source)
        elif isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                                  and not source.lstrip().upper().startswith("CREATE")):
            self._sql = Path(source).read_text(encoding="utf-8")
        elif isinstance(source, str):
            self._sql = source
        else:
            self._tables = {f"{t.database}.{t.name}": t for t in source}

    def for_flavor(self, flavor: str) -> dict[str, Any]:
        if self._tables is None or (self._sql is not None and self._flavor != flavor):
            from binlogwriter.schema.parse import parse_tables

            assert self._sql is not None
            tables = parse_tables(self._sql, self.database, flavor, binlog_columns=True, own_parser_first=True)
            self._tables = {f"{t.database}.{t.name}": t for t in tables}
            self._flavor = flavor
        return self._tables

    def find(self, database: str, table: str, flavor: str) -> Any:
        tables = self.for_flavor(flavor)
        t = tables.get(f"{database}.{table}")
        if t is None:
            same = [v for v in tables.values() if v.name == table]
            if len(same) == 1:
                t = same[0]
        return t

    def __bool__(self) -> bool:
        return bool(self._sql) or bool(self._tables)
