"""TABLE_MAP_EVENT (19) as a typed event (format.md §12).

The layout is :func:`binlogwriter.layouts.table_map.table_map_layout`; building one from a
schema, choosing the optional metadata per ``binlog_row_metadata``, and the derived
per-column views live in :mod:`binlogwriter.table_map.metadata`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from binlogwriter.errors import DecodeError
from binlogwriter.events.base import Event
from binlogwriter.format import BinlogFormat, EventType

__all__ = ["TableMapEvent"]


@dataclass(kw_only=True)
class TableMapEvent(Event):
    """TABLE_MAP_EVENT. ``tm_flags`` is the post-header flags field (1 = TM_BIT_LEN_EXACT_F);
    ``optional_metadata`` the TLVs as written ([{type, value}], format.md §12.1)."""

    TYPE: ClassVar[int] = EventType.TABLE_MAP_EVENT
    table_id: int = 0
    tm_flags: int = 1
    schema: str = ""
    table: str = ""
    column_types: list[int] = field(default_factory=list)
    metadata: bytes = b""
    null_bits: tuple[bool, ...] = ()
    optional_metadata: list[dict[str, Any]] = field(default_factory=list)
    flavor: str = field(default="mysql80", compare=False, repr=False)
    schema_table: Any = field(default=None, compare=False, repr=False)

    def to_layout(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "flags": self.tm_flags, "schema": self.schema,
                "table": self.table, "column_types": list(self.column_types), "metadata": self.metadata,
                "null_bits": self.null_bits, "optional_metadata": list(self.optional_metadata),
                "post_header_extra": self.post_header_extra}

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        return cls(table_id=c.table_id, tm_flags=c.flags, schema=c.schema, table=c.table,
                   column_types=list(c.column_types), metadata=c.metadata, null_bits=tuple(c.null_bits) if not hasattr(c.null_bits, "pad") else c.null_bits,
                   optional_metadata=[{"type": f["type"], "value": f["value"]} for f in c.optional_metadata],
                   post_header_extra=c.get("post_header_extra", b""), **header)

    @classmethod
    def from_table(cls, table: Any, table_id: int, fmt: BinlogFormat, row_metadata: str,
                   **header: Any) -> TableMapEvent:
        """The Table_map a server writes for ``table`` under ``binlog_row_metadata``."""
        from binlogwriter.table_map.metadata import build_table_map

        c = build_table_map(table, table_id, fmt.flavor, row_metadata)
        ev = cls.from_layout(_Obj(c), **header)
        ev.flavor = fmt.flavor
        ev.schema_table = table
        return ev

    def view(self, flavor: str | None = None):
        """The decoded :class:`binlogwriter.table_map.metadata.TableMap` view (columns, names, PK…)."""
        from binlogwriter.table_map.metadata import TableMap

        try:
            return TableMap.decode(self.to_layout(), flavor or self.flavor)
        except DecodeError as exc:
            raise self._located(exc) from None

    def column_descs(self, schema: Any = None) -> list:
        """ColumnDesc per column, from the optional metadata merged with ``schema``."""
        view = self.view()
        try:
            return view.column_descs(schema if schema is not None else self.schema_table)
        except DecodeError as exc:
            raise self._located(exc) from None

    def _located(self, exc: DecodeError) -> DecodeError:
        """``exc`` with this event's file:offset filled in (errors raised by the views)."""
        o = self.origin
        return exc.located(file=o.file if o else None, offset=o.offset if o else None,
                           event_type="TABLE_MAP_EVENT")


class _Obj(dict):
    """A dict that also answers attribute access (what from_layout expects of a Container)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

