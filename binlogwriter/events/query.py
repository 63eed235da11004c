"""QUERY (2), EXECUTE_LOAD_QUERY (18) and MariaDB QUERY_COMPRESSED (165) events (format.md
§9, §17; mariadb.md "Query events"); their layouts are :mod:`binlogwriter.layouts.query`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from binlogwriter.compression import mariadb_decompress
from binlogwriter.errors import DecodeError
from binlogwriter.events.base import Event
from binlogwriter.format import EventType

__all__ = ["QueryEvent", "ExecuteLoadQueryEvent", "QueryCompressedEvent"]


@dataclass(kw_only=True)
class QueryBase(Event):
    """QUERY_EVENT (format.md §9): ``status_vars`` = [(code, value), ...] in written order."""

    thread_id: int = 0
    exec_time: int = 0
    error_code: int = 0
    status_vars: list[tuple[int | None, Any]] = field(default_factory=list)
    db: str = ""
    query: str = ""

    def to_layout(self) -> dict[str, Any]:
        d = super().to_layout()
        d["status_vars"] = [{"code": c, "value": v} for c, v in self.status_vars]
        return d

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        ev = super().from_layout(c, **header)
        ev.status_vars = [(sv["code"], sv["value"]) for sv in ev.status_vars]
        return ev

    def status(self, code: int, default: Any = None) -> Any:
        for c, v in self.status_vars:
            if c == code:
                return v
        return default


@dataclass(kw_only=True)
class QueryEvent(QueryBase):
    TYPE: ClassVar[int] = EventType.QUERY_EVENT


@dataclass(kw_only=True)
class ExecuteLoadQueryEvent(QueryBase):
    """EXECUTE_LOAD_QUERY_EVENT: Query plus file_id, filename positions, dup handling (§17)."""

    TYPE: ClassVar[int] = EventType.EXECUTE_LOAD_QUERY_EVENT
    file_id: int = 0
    fn_pos_start: int = 0
    fn_pos_end: int = 0
    dup_handling: int = 0


@dataclass(kw_only=True)
class QueryCompressedEvent(QueryBase):
    """MariaDB QUERY_COMPRESSED_EVENT: ``query`` holds the compressed blob (bytes); ``text``
    decompresses it (mariadb.md "Compression")."""

    TYPE: ClassVar[int] = EventType.QUERY_COMPRESSED_EVENT
    query: bytes = b""  # type: ignore[assignment]

    @property
    def text(self) -> str:
        try:
            return mariadb_decompress(self.query).decode("utf-8", "surrogateescape")
        except DecodeError as exc:
            o = self.origin
            raise exc.located(file=o.file if o else None, offset=o.offset if o else None,
                              event_type=self.type_name, path="query") from None
