"""The one table of event types: type code -> (class, layout, post-header).

Every typed event is one row of :data:`EVENTS`: its class (:mod:`binlogwriter.events`), its
construct fields (:mod:`binlogwriter.layouts`, a list or a factory of the format), and how
many leading fields form the post-header. The post-header's byte size is not written down:
it is the ``sizeof()`` of those fields (:func:`post_header_size`). When the FDE declares a
longer post-header than that, the unknown bytes are kept as ``post_header_extra`` so the
event re-encodes exactly (format.md §4; edge-cases.md 19). A type with no row decodes to
:class:`~binlogwriter.events.base.RawEvent`.

Nothing registers itself: adding an event type is a class, a layout and a row here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import construct as cs

from binlogwriter.events import control as c
from binlogwriter.events import mariadb as m
from binlogwriter.events import query as q
from binlogwriter.events.base import Event
from binlogwriter.events.rows import ROWS_CLASSES
from binlogwriter.events.table_map import TableMapEvent
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts import control, mariadb, query
from binlogwriter.layouts.rows import V2_TYPES, rows_fields
from binlogwriter.layouts.table_map import table_map_layout

__all__ = ["EventKind", "EVENTS", "event_class", "declared_fields", "known_post_header",
           "post_header_size", "body_layout"]

Fields = list | Callable[[BinlogFormat], list]


@dataclass(frozen=True)
class EventKind:
    """One event type: its class, its fields (or ``fmt -> fields``), and ``n_post`` the number of
    leading fields that form the post-header — None when the FDE's post-header entry is not
    used to split the body (the FDE describes itself; TRANSACTION_PAYLOAD's entry is a frozen
    server bug; MariaDB GTID's padding to 19 bytes is part of its declaration)."""

    cls: type[Event]
    fields: Fields
    n_post: int | None = 0

    @property
    def code(self) -> int:
        return self.cls.TYPE

    def fields_for(self, fmt: BinlogFormat) -> list:
        return list(self.fields(fmt) if callable(self.fields) else self.fields)


def _table_map_fields(fmt: BinlogFormat) -> list:
    return list(table_map_layout(fmt.table_id_size).subcons)


def _rows_kind(cls: type[Event]) -> EventKind:
    code = cls.TYPE
    # post-header: table_id, flags (+ the v2 extra-info length) — format.md §13
    return EventKind(cls, lambda fmt: rows_fields(code, fmt.table_id_size), 3 if code in V2_TYPES else 2)


_QUERY_POST = len(query.QUERY_POST_HEADER)

EVENTS: dict[int, EventKind] = {k.code: k for k in (
    EventKind(c.FormatDescriptionEvent, control.FDE_FIELDS, None),
    EventKind(c.RotateEvent, control.ROTATE_FIELDS, 1),
    EventKind(c.StopEvent, control.STOP_FIELDS),
    EventKind(c.XidEvent, control.XID_FIELDS),
    EventKind(c.IntvarEvent, control.INTVAR_FIELDS),
    EventKind(c.RandEvent, control.RAND_FIELDS),
    EventKind(c.UserVarEvent, control.USER_VAR_FIELDS),
    EventKind(c.IncidentEvent, control.INCIDENT_FIELDS, 1),
    EventKind(c.HeartbeatEvent, control.HEARTBEAT_FIELDS),
    EventKind(c.HeartbeatV2Event, control.HEARTBEAT_V2_FIELDS),
    EventKind(c.RowsQueryEvent, control.ROWS_QUERY_FIELDS),
    EventKind(c.XaPrepareEvent, control.XA_PREPARE_FIELDS),
    EventKind(c.BeginLoadQueryEvent, control.BEGIN_LOAD_QUERY_FIELDS, 1),
    EventKind(c.AppendBlockEvent, control.APPEND_BLOCK_FIELDS, 1),
    EventKind(c.DeleteFileEvent, control.DELETE_FILE_FIELDS, 1),
    EventKind(c.PreviousGtidsEvent, control.PREVIOUS_GTIDS_FIELDS),
    EventKind(c.GtidEvent, control.GTID_FIELDS, 6),
    EventKind(c.AnonymousGtidEvent, control.GTID_FIELDS, 6),
    EventKind(c.GtidTaggedEvent, control.TAGGED_GTID_FIELDS),
    EventKind(c.TransactionPayloadEvent, control.TRANSACTION_PAYLOAD_FIELDS, None),
    EventKind(q.QueryEvent, query.QUERY_FIELDS, _QUERY_POST),
    EventKind(q.ExecuteLoadQueryEvent, query.EXECUTE_LOAD_QUERY_FIELDS, _QUERY_POST + 4),
    EventKind(q.QueryCompressedEvent, query.QUERY_COMPRESSED_FIELDS, _QUERY_POST),
    EventKind(m.AnnotateRowsEvent, mariadb.ANNOTATE_ROWS_FIELDS),
    EventKind(m.BinlogCheckpointEvent, mariadb.BINLOG_CHECKPOINT_FIELDS, 1),
    EventKind(m.MariadbGtidEvent, mariadb.GTID_FIELDS, None),
    EventKind(m.MariadbGtidListEvent, mariadb.GTID_LIST_FIELDS, 1),
    EventKind(m.StartEncryptionEvent, mariadb.START_ENCRYPTION_FIELDS),
    EventKind(TableMapEvent, _table_map_fields, 2),  # table_id, flags (format.md §12)
    *(_rows_kind(cls) for cls in ROWS_CLASSES.values()),
)}
"""Every typed event type code -> :class:`EventKind`."""


def event_class(type_code: int) -> type[Event] | None:
    """The typed class of an event type, or None when it is kept raw."""
    kind = EVENTS.get(type_code)
    return kind.cls if kind is not None else None


def _head_size(con: cs.Construct) -> int:
    """Bytes a post-header field takes: its ``sizeof()``; a length-prefixed field counts only
    its length (the post-header holds the length, the body the bytes: BINLOG_CHECKPOINT);
    an optional field (present when bytes remain) its value (the post-header always holds it:
    GTID's 42 bytes)."""
    while True:
        try:
            return con.sizeof()
        except cs.SizeofError:
            if isinstance(con, cs.Prefixed):
                return con.lengthfield.sizeof()
            if not hasattr(con, "subcon"):
                raise
            con = con.subcon


def post_header_size(fields: list) -> int:
    """The post-header length the given leading ``fields`` declare."""
    return sum(_head_size(f) for f in fields)


@lru_cache(maxsize=1024)
def declared_fields(type_code: int, fmt: BinlogFormat) -> tuple[list, int | None, int] | None:
    """(fields, known post-header length or None, number of post-header fields) of
    ``type_code`` under ``fmt``; None for a type kept as raw bytes. Callers copy ``fields``
    before changing it."""
    kind = EVENTS.get(type_code)
    if kind is None:
        return None
    fields = kind.fields_for(fmt)
    if kind.n_post is None:
        return fields, None, 0
    return fields, post_header_size(fields[:kind.n_post]), kind.n_post


def known_post_header(type_code: int, fmt: BinlogFormat) -> int | None:
    """The post-header length our declaration of ``type_code`` knows (None: not split by the
    FDE's entry, or kept raw)."""
    declared = declared_fields(type_code, fmt)
    return None if declared is None else declared[1]


_GREEDY_LAST = {"next_file", "query", "block", "log_filename", "trailing", "payload", "rows", None}


@lru_cache(maxsize=1024)
def body_layout(type_code: int, fmt: BinlogFormat) -> cs.Construct | None:
    """The Struct of an event's post-header + body (between the 19-byte header and the CRC
    footer) under ``fmt``, or None for a type kept as raw bytes."""
    declared = declared_fields(type_code, fmt)
    if declared is None:
        return None
    fields, known, n_post = declared
    fields = list(fields)
    last = getattr(fields[-1], "name", None) if fields else None
    if (not fields or last not in _GREEDY_LAST) and not any(getattr(f, "name", None) == "unparsed" for f in fields):
        # bytes after the last declared field (a newer server's additions) are kept, never
        # dropped: "nothing is lost" (docs/design.md principle 3)
        fields.append("unparsed" / cs.GreedyBytes)
    if known is not None:
        declared_len = fmt.post_header_len(type_code)
        if declared_len > known:
            fields.insert(n_post, "post_header_extra" / cs.Bytes(declared_len - known))
    return cs.Struct(*fields)
