"""Typed events <-> layouts, mirroring :mod:`binlogwriter.layouts`.

- :mod:`~binlogwriter.events.base`: :class:`Event`, :class:`RawEvent`, :class:`EventPosition`;
- :mod:`~binlogwriter.events.control`, :mod:`~binlogwriter.events.query`,
  :mod:`~binlogwriter.events.mariadb`, :mod:`~binlogwriter.events.table_map`,
  :mod:`~binlogwriter.events.rows`: one explicit dataclass per event type;
- :mod:`~binlogwriter.events.table`: the one table type code -> (class, layout, post-header);
- :mod:`~binlogwriter.events.codec`: :func:`encode_event` / :func:`decode_event` (pure).

An event is a dataclass whose fields are the fields of its construct declaration plus the
common header fields (format.md §3). Types without a declaration decode to :class:`RawEvent`
and re-encode byte-exactly (docs/design.md principle 3).
"""

from __future__ import annotations

from binlogwriter.events.base import ANONYMOUS_SID, Event, EventPosition, RawEvent
from binlogwriter.events.codec import (
    decode_body,
    decode_event,
    encode_body,
    encode_event,
    event_crc,
    fde_server_version,
    has_footer,
    type_has_footer,
)
from binlogwriter.events.control import (
    AnonymousGtidEvent,
    AppendBlockEvent,
    BeginLoadQueryEvent,
    DeleteFileEvent,
    FormatDescriptionEvent,
    GtidBase,
    GtidEvent,
    GtidTaggedEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    IncidentEvent,
    IntvarEvent,
    PreviousGtidsEvent,
    RandEvent,
    RotateEvent,
    RowsQueryEvent,
    StopEvent,
    TransactionPayloadEvent,
    UserVarEvent,
    XaPrepareEvent,
    XidEvent,
)
from binlogwriter.events.mariadb import (
    AnnotateRowsEvent,
    BinlogCheckpointEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    StartEncryptionEvent,
)
from binlogwriter.events.query import ExecuteLoadQueryEvent, QueryBase, QueryCompressedEvent, QueryEvent
from binlogwriter.events.rows import RowsEvent, rows_event_class
from binlogwriter.events.table import EVENTS, event_class
from binlogwriter.events.table_map import TableMapEvent

__all__ = [
    "Event", "RawEvent", "EventPosition", "ANONYMOUS_SID", "encode_event", "decode_event",
    "decode_body", "encode_body", "has_footer", "event_class", "EVENTS",
    "FormatDescriptionEvent", "RotateEvent", "StopEvent", "XidEvent", "IntvarEvent",
    "RandEvent", "UserVarEvent", "IncidentEvent", "HeartbeatEvent", "HeartbeatV2Event",
    "RowsQueryEvent", "XaPrepareEvent", "BeginLoadQueryEvent", "AppendBlockEvent",
    "DeleteFileEvent", "ExecuteLoadQueryEvent", "PreviousGtidsEvent", "GtidEvent",
    "AnonymousGtidEvent", "GtidTaggedEvent", "TransactionPayloadEvent", "QueryEvent",
    "QueryCompressedEvent", "AnnotateRowsEvent", "BinlogCheckpointEvent", "MariadbGtidEvent",
    "MariadbGtidListEvent", "StartEncryptionEvent", "TableMapEvent", "RowsEvent", "rows_event_class",
]
_ = (event_crc, fde_server_version, type_has_footer, GtidBase, QueryBase)  # used by batch, read, text
