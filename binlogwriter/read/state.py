"""State carried across the events of a file while reading it: the Table_map of each table
id, so that rows events can be decoded (format.md §12–§13: a rows event is meaningless
without the Table_map that precedes it in its statement). A schema (``Table`` objects by
``db.table``) may be supplied to fill in what MINIMAL / NO_LOG metadata leave out.
"""

from __future__ import annotations

from typing import Any

from binlogwriter.events import Event
from binlogwriter.format import FORMAT_DESCRIPTION_EVENT, TABLE_MAP_EVENT

__all__ = ["ReadState"]


class ReadState:
    """Table maps seen so far (by table id) and their ColumnDesc lists."""

    def __init__(self, schemas: Any = None) -> None:
        self.tables: dict[int, Any] = {}
        self.columns: dict[int, list] = {}
        self.schemas = schemas or {}
        self.pending_rows = 0
        """Rows printed since the last statement end (``# Number of rows``, text/rows.py RowCount)."""
        self.flavor: str | None = None
        """"mariadb" or "mysql" after the FDE (its server version), for rows events whose
        Table_map was not seen (a listing from --start-position)."""
        self.unknown_rows = ""
        """MariaDB: the ``### Row event for unknown table`` text of the statement so far."""

    def observe(self, event: Event) -> None:
        if event.type_code == TABLE_MAP_EVENT:
            self.tables[event.table_id] = event
            if isinstance(self.schemas, dict):
                schema = self.schemas.get(f"{event.schema}.{event.table}")
            else:  # Table objects or CREATE TABLE SQL (binlogwriter.read.changes.SchemaSource)
                from binlogwriter.schema.source import SchemaSource

                if not isinstance(self.schemas, SchemaSource):
                    self.schemas = SchemaSource(self.schemas)
                schema = self.schemas.find(event.schema, event.table, event.flavor)
            # a Table_map decoded once per distinct body (binlogwriter.read.fastdecode) carries
            # a cache of its column descriptions per schema
            cache = event.__dict__.get("_descs_cache")
            hit = cache.get(id(schema)) if cache is not None else None
            if hit is not None and hit[0] is schema:
                self.columns[event.table_id] = hit[1]
                return
            try:
                cols = tuple(event.column_descs(schema))
            except Exception:  # noqa: BLE001 - a schema that does not fit this Table_map (an ALTER since)
                try:  # the Table_map's own metadata still decodes the rows (names when FULL)
                    cols = tuple(event.column_descs(None)) if schema is not None else None
                except Exception:  # noqa: BLE001 - an undecodable table map leaves its rows raw
                    cols = None
                if cols is None:
                    self.columns.pop(event.table_id, None)
                    return
            self.columns[event.table_id] = cols
            if cache is not None:
                cache[id(schema)] = (schema, cols)
        elif event.type_code == FORMAT_DESCRIPTION_EVENT:
            self.flavor = "mariadb" if "mariadb" in (getattr(event, "server_version", "") or "").lower() else "mysql"

    def columns_for(self, table_id: int) -> list | None:
        return self.columns.get(table_id)
