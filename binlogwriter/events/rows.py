"""Typed rows events (format.md §13–§14, mariadb.md): one class per type code; their layouts
are :mod:`binlogwriter.layouts.rows`.

A rows event carries the ``columns`` (ColumnDesc list, from its Table_map) it needs to
encode or decode its row images; without them the rows part stays raw bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from binlogwriter.events.base import Event
from binlogwriter.format import EventType
from binlogwriter.layouts.rows import ROWS_TYPES, STMT_END_F, UPDATE_TYPES, V2_TYPES, RowsPayload
from binlogwriter.values.base import ColumnDesc

__all__ = ["RowsEvent", "rows_event_class", "ROWS_CLASSES", "STMT_END_F", "WriteRowsEventV1", "UpdateRowsEventV1", "DeleteRowsEventV1", "WriteRowsEvent", "UpdateRowsEvent", "DeleteRowsEvent", "PartialUpdateRowsEvent", "WriteRowsCompressedEventV1", "UpdateRowsCompressedEventV1", "DeleteRowsCompressedEventV1", "WriteRowsCompressedEvent", "UpdateRowsCompressedEvent", "DeleteRowsCompressedEvent"]


@dataclass(kw_only=True)
class RowsEvent(Event):
    """Base of WRITE/UPDATE/DELETE rows events.

    ``rows``: WRITE/DELETE: list of full-width tuples (ABSENT = not in the image, None =
    NULL); UPDATE: list of (before, after). ``columns_present`` (the before-image / only
    bitmap) and ``columns_after`` are tuples of bools (a parsed BitmapValue keeps its
    padding bits). ``null_pads`` None = the flavor's padding. ``rows_raw`` holds the rows
    bytes when they could not be decoded (unknown table).
    """

    table_id: int = 0
    rows_flags: int = 0
    extra_info: bytes = b""
    width: int = 0
    columns_present: tuple[bool, ...] = ()
    columns_after: tuple[bool, ...] | None = None
    rows: list[Any] | None = field(default_factory=list)
    null_pads: list[Any] | None = None
    rows_raw: bytes | None = None
    columns: list[ColumnDesc] | None = field(default=None, compare=False, repr=False)
    default_null_pad: int = field(default=0, compare=False, repr=False)

    KIND: ClassVar[str] = ""

    @property
    def is_update(self) -> bool:
        return self.TYPE in UPDATE_TYPES

    @property
    def stmt_end(self) -> bool:
        return bool(self.rows_flags & STMT_END_F)

    def to_layout(self) -> dict[str, Any]:
        d = {"table_id": self.table_id, "rows_flags": self.rows_flags, "width": self.width,
             "columns_present": self.columns_present, "post_header_extra": self.post_header_extra,
             "rows": RowsPayload(rows=self.rows if self.rows_raw is None else None,
                                 null_pads=self.null_pads, raw=self.rows_raw,
                                 default_pad=self.default_null_pad)}
        if self.TYPE in V2_TYPES:
            d["extra_info"] = self.extra_info
        if self.is_update:
            d["columns_after"] = self.columns_after
        return d

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        payload: RowsPayload = c.rows
        return cls(table_id=c.table_id, rows_flags=c.rows_flags, extra_info=c.get("extra_info", b""),
                   width=c.width, columns_present=c.columns_present,
                   columns_after=c.get("columns_after"), rows=payload.rows,
                   null_pads=payload.null_pads, rows_raw=payload.raw,
                   post_header_extra=c.get("post_header_extra", b""), **header)

    def build_context(self) -> dict[str, Any]:
        return {"columns": self.columns}


class WriteRowsEventV1(RowsEvent):
    """WRITE_ROWS_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.WRITE_ROWS_EVENT_V1
    KIND: ClassVar[str] = "insert"


class UpdateRowsEventV1(RowsEvent):
    """UPDATE_ROWS_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.UPDATE_ROWS_EVENT_V1
    KIND: ClassVar[str] = "update"


class DeleteRowsEventV1(RowsEvent):
    """DELETE_ROWS_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.DELETE_ROWS_EVENT_V1
    KIND: ClassVar[str] = "delete"


class WriteRowsEvent(RowsEvent):
    """WRITE_ROWS_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.WRITE_ROWS_EVENT
    KIND: ClassVar[str] = "insert"


class UpdateRowsEvent(RowsEvent):
    """UPDATE_ROWS_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.UPDATE_ROWS_EVENT
    KIND: ClassVar[str] = "update"


class DeleteRowsEvent(RowsEvent):
    """DELETE_ROWS_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.DELETE_ROWS_EVENT
    KIND: ClassVar[str] = "delete"


class PartialUpdateRowsEvent(RowsEvent):
    """PARTIAL_UPDATE_ROWS_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.PARTIAL_UPDATE_ROWS_EVENT
    KIND: ClassVar[str] = "update"


class WriteRowsCompressedEventV1(RowsEvent):
    """WRITE_ROWS_COMPRESSED_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.WRITE_ROWS_COMPRESSED_EVENT_V1
    KIND: ClassVar[str] = "insert"


class UpdateRowsCompressedEventV1(RowsEvent):
    """UPDATE_ROWS_COMPRESSED_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.UPDATE_ROWS_COMPRESSED_EVENT_V1
    KIND: ClassVar[str] = "update"


class DeleteRowsCompressedEventV1(RowsEvent):
    """DELETE_ROWS_COMPRESSED_EVENT_V1 (format.md §13)."""

    TYPE: ClassVar[int] = EventType.DELETE_ROWS_COMPRESSED_EVENT_V1
    KIND: ClassVar[str] = "delete"


class WriteRowsCompressedEvent(RowsEvent):
    """WRITE_ROWS_COMPRESSED_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.WRITE_ROWS_COMPRESSED_EVENT
    KIND: ClassVar[str] = "insert"


class UpdateRowsCompressedEvent(RowsEvent):
    """UPDATE_ROWS_COMPRESSED_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.UPDATE_ROWS_COMPRESSED_EVENT
    KIND: ClassVar[str] = "update"


class DeleteRowsCompressedEvent(RowsEvent):
    """DELETE_ROWS_COMPRESSED_EVENT (format.md §13)."""

    TYPE: ClassVar[int] = EventType.DELETE_ROWS_COMPRESSED_EVENT
    KIND: ClassVar[str] = "delete"


ROWS_CLASSES: dict[int, type[RowsEvent]] = {cls.TYPE: cls for cls in (WriteRowsEventV1, UpdateRowsEventV1, DeleteRowsEventV1, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent, PartialUpdateRowsEvent, WriteRowsCompressedEventV1, UpdateRowsCompressedEventV1, DeleteRowsCompressedEventV1, WriteRowsCompressedEvent, UpdateRowsCompressedEvent, DeleteRowsCompressedEvent)}
"""Rows event type code -> class."""
assert set(ROWS_CLASSES) == set(ROWS_TYPES)


def rows_event_class(kind: str, *, version: int = 2, compressed: bool = False) -> type[RowsEvent]:
    """The class for ``kind`` in {insert, update, delete} of a rows-event version."""
    base = {"insert": 0, "update": 1, "delete": 2}[kind]
    if compressed:
        first = EventType.WRITE_ROWS_COMPRESSED_EVENT if version == 2 else EventType.WRITE_ROWS_COMPRESSED_EVENT_V1
    else:
        first = EventType.WRITE_ROWS_EVENT if version == 2 else EventType.WRITE_ROWS_EVENT_V1
    return ROWS_CLASSES[first + base]  # write, update, delete: consecutive codes
