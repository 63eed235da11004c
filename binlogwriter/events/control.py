"""Control events (format.md §4–§8, §10–§11, §15–§17): FDE, ROTATE, STOP, XID, INTVAR, RAND,
USER_VAR, INCIDENT, heartbeats, ROWS_QUERY, XA_PREPARE, LOAD DATA events, PREVIOUS_GTIDS,
GTID / ANONYMOUS_GTID / tagged GTID, TRANSACTION_PAYLOAD. Their layouts are
:mod:`binlogwriter.layouts.control`; the type code -> (class, layout, post-header) table is
:mod:`binlogwriter.events.table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from binlogwriter.events.base import ANONYMOUS_SID, Event
from binlogwriter.format import BinlogFormat, EventType
from binlogwriter.gtids import mysql_gtid_text
from binlogwriter.layouts.control import tsids_text
from binlogwriter.layouts.header import HEADER_SIZE

__all__ = [
    "FormatDescriptionEvent", "RotateEvent", "StopEvent", "XidEvent", "IntvarEvent", "RandEvent",
    "UserVarEvent", "IncidentEvent", "HeartbeatEvent", "HeartbeatV2Event", "RowsQueryEvent",
    "XaPrepareEvent", "BeginLoadQueryEvent", "AppendBlockEvent", "DeleteFileEvent",
    "PreviousGtidsEvent", "TransactionPayloadEvent", "GtidEvent", "AnonymousGtidEvent",
    "GtidTaggedEvent",
]


@dataclass(kw_only=True)
class FormatDescriptionEvent(Event):
    """FORMAT_DESCRIPTION_EVENT (format.md §4)."""

    TYPE: ClassVar[int] = EventType.FORMAT_DESCRIPTION_EVENT
    binlog_version: int = 4
    server_version: str = ""
    create_timestamp: int = 0
    header_length: int = HEADER_SIZE
    post_header_lengths: tuple[int, ...] = ()
    checksum_alg: int | None = 1

    @classmethod
    def for_format(cls, fmt: BinlogFormat, **kw: Any) -> FormatDescriptionEvent:
        alg = int(fmt.checksum) if fmt.has_checksum_alg else None
        return cls(binlog_version=fmt.binlog_version, server_version=fmt.server_version,
                   header_length=fmt.common_header_length,
                   post_header_lengths=tuple(fmt.post_header_lengths), checksum_alg=alg, **kw)

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        ev = super().from_layout(c, **header)
        ev.post_header_lengths = tuple(ev.post_header_lengths)
        return ev

    def to_format(self) -> BinlogFormat:
        return BinlogFormat.from_fde(self)


@dataclass(kw_only=True)
class RotateEvent(Event):
    """ROTATE_EVENT (format.md §5)."""

    TYPE: ClassVar[int] = EventType.ROTATE_EVENT
    position: int = 4
    next_file: str


@dataclass(kw_only=True)
class StopEvent(Event):
    """STOP_EVENT (format.md §6)."""

    TYPE: ClassVar[int] = EventType.STOP_EVENT


@dataclass(kw_only=True)
class XidEvent(Event):
    """XID_EVENT (format.md §10)."""

    TYPE: ClassVar[int] = EventType.XID_EVENT
    xid: int


@dataclass(kw_only=True)
class IntvarEvent(Event):
    """INTVAR_EVENT: 1 LAST_INSERT_ID, 2 INSERT_ID (format.md §10)."""

    TYPE: ClassVar[int] = EventType.INTVAR_EVENT
    type: int
    value: int


@dataclass(kw_only=True)
class RandEvent(Event):
    """RAND_EVENT (format.md §10)."""

    TYPE: ClassVar[int] = EventType.RAND_EVENT
    seed1: int
    seed2: int


@dataclass(kw_only=True)
class UserVarEvent(Event):
    """USER_VAR_EVENT (format.md §10): value_type 0 STRING, 1 REAL, 2 INT, 4 DECIMAL; ``value`` raw
    bytes (INT 8 bytes LE, REAL double, DECIMAL precision·scale·decimal2bin); value_flags bit0 UNSIGNED."""

    TYPE: ClassVar[int] = EventType.USER_VAR_EVENT
    name: str
    is_null: bool = False
    value_type: int | None = None
    charset: int | None = None
    value: bytes | None = None
    value_flags: int | None = None


@dataclass(kw_only=True)
class IncidentEvent(Event):
    """INCIDENT_EVENT (format.md §17)."""

    TYPE: ClassVar[int] = EventType.INCIDENT_EVENT
    incident: int = 1
    message: str = ""


@dataclass(kw_only=True)
class HeartbeatEvent(Event):
    """HEARTBEAT_LOG_EVENT (format.md §16)."""

    TYPE: ClassVar[int] = EventType.HEARTBEAT_LOG_EVENT
    log_filename: str


@dataclass(kw_only=True)
class HeartbeatV2Event(Event):
    """HEARTBEAT_LOG_EVENT_V2 (format.md §16)."""

    TYPE: ClassVar[int] = EventType.HEARTBEAT_LOG_EVENT_V2
    log_filename: str | None = None
    log_position: int | None = None

    def to_layout(self) -> dict[str, Any]:
        return {"heartbeat": {"log_filename": self.log_filename, "log_position": self.log_position},
                "post_header_extra": self.post_header_extra, "unparsed": self.unparsed}

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        return cls(log_filename=c.heartbeat.log_filename, log_position=c.heartbeat.log_position,
                   post_header_extra=c.get("post_header_extra", b""), unparsed=c.get("unparsed", b""),
                   **header)


@dataclass(kw_only=True)
class RowsQueryEvent(Event):
    """ROWS_QUERY_LOG_EVENT (format.md §11): ``length_byte`` None = len & 0xFF."""

    TYPE: ClassVar[int] = EventType.ROWS_QUERY_LOG_EVENT
    query: str
    length_byte: int | None = None


@dataclass(kw_only=True)
class XaPrepareEvent(Event):
    """XA_PREPARE_LOG_EVENT (format.md §17)."""

    TYPE: ClassVar[int] = EventType.XA_PREPARE_LOG_EVENT
    one_phase: bool = False
    format_id: int = 1
    gtrid: bytes = b""
    bqual: bytes = b""


@dataclass(kw_only=True)
class BeginLoadQueryEvent(Event):
    """BEGIN_LOAD_QUERY_EVENT (format.md §17)."""

    TYPE: ClassVar[int] = EventType.BEGIN_LOAD_QUERY_EVENT
    file_id: int
    block: bytes = b""


@dataclass(kw_only=True)
class AppendBlockEvent(Event):
    """APPEND_BLOCK_EVENT (format.md §17)."""

    TYPE: ClassVar[int] = EventType.APPEND_BLOCK_EVENT
    file_id: int
    block: bytes = b""


@dataclass(kw_only=True)
class DeleteFileEvent(Event):
    """DELETE_FILE_EVENT (format.md §17)."""

    TYPE: ClassVar[int] = EventType.DELETE_FILE_EVENT
    file_id: int


@dataclass(kw_only=True)
class PreviousGtidsEvent(Event):
    """PREVIOUS_GTIDS_LOG_EVENT (format.md §7): gtid_set = {tagged, sids: [(uuid, tag, [(start, end_excl)])]}."""

    TYPE: ClassVar[int] = EventType.PREVIOUS_GTIDS_LOG_EVENT
    gtid_set: dict = field(default_factory=lambda: {"tagged": False, "sids": []})

    @property
    def text(self) -> str:
        """The set as ``uuid:1-5,...`` text."""
        return tsids_text(self.gtid_set["sids"])


@dataclass(kw_only=True)
class TransactionPayloadEvent(Event):
    """TRANSACTION_PAYLOAD_EVENT (format.md §15): header TLVs (1 size, 2 compression 0=ZSTD,
    3 uncompressed size) in written order, then the compressed payload."""

    TYPE: ClassVar[int] = EventType.TRANSACTION_PAYLOAD_EVENT
    header_fields: list = field(default_factory=list)
    payload: bytes = b""


@dataclass(kw_only=True)
class GtidBase(Event):
    """GTID_LOG_EVENT / ANONYMOUS_GTID_LOG_EVENT, 8.0 layout (format.md §8).

    ``original_*`` None = not written (equal to the immediate value); trailing parts None =
    absent (old writers)."""

    gtid_flags: int = 0
    sid: str = ANONYMOUS_SID
    gno: int = 0
    lt_typecode: int | None = 2
    last_committed: int | None = 0
    sequence_number: int | None = 1
    immediate_commit_timestamp: int | None = 0
    original_commit_timestamp: int | None = None
    transaction_length: int | None = 0
    immediate_server_version: int | None = None
    original_server_version: int | None = None
    commit_group_ticket: int | None = None

    @property
    def gtid(self) -> str:
        return mysql_gtid_text(self.sid, self.gno)

    def to_layout(self) -> dict[str, Any]:
        d = super().to_layout()
        ict, oct_ = d.pop("immediate_commit_timestamp"), d.pop("original_commit_timestamp")
        isv, osv = d.pop("immediate_server_version"), d.pop("original_server_version")
        d["commit_timestamps"] = None if ict is None else (ict, oct_)
        d["server_versions"] = None if isv is None else (isv, osv)
        return d

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        ev = super().from_layout(c, **header)
        ts, sv = c.get("commit_timestamps"), c.get("server_versions")
        ev.immediate_commit_timestamp, ev.original_commit_timestamp = ts if ts else (None, None)
        ev.immediate_server_version, ev.original_server_version = sv if sv else (None, None)
        return ev


@dataclass(kw_only=True)
class GtidEvent(GtidBase):
    TYPE: ClassVar[int] = EventType.GTID_LOG_EVENT


@dataclass(kw_only=True)
class AnonymousGtidEvent(GtidBase):
    """ANONYMOUS_GTID_LOG_EVENT: the transaction that follows has no GTID (gtid_mode OFF).
    ``gtid`` is None, as for :class:`~binlogwriter.read.changes.Change` (docs/read.md): the
    server writes a zero sid and gno here, mysqlbinlog prints ``GTID_NEXT= 'ANONYMOUS'`` and
    python-mysql-replication gives such a transaction no GTID. ``sid`` / ``gno`` keep the
    written bytes."""

    TYPE: ClassVar[int] = EventType.ANONYMOUS_GTID_LOG_EVENT

    @property
    def gtid(self) -> None:  # type: ignore[override]
        return None


@dataclass(kw_only=True)
class GtidTaggedEvent(Event):
    """GTID_TAGGED_LOG_EVENT (42, MySQL 8.3+): a mysql::serialization message (format.md §8)."""

    TYPE: ClassVar[int] = EventType.GTID_TAGGED_LOG_EVENT
    gtid_flags: int = 0
    sid: str = ANONYMOUS_SID
    gno: int = 1
    tag: str = ""
    last_committed: int = 0
    sequence_number: int = 1
    immediate_commit_timestamp: int = 0
    original_commit_timestamp: int | None = None
    transaction_length: int = 0
    immediate_server_version: int = 0
    original_server_version: int | None = None
    commit_group_ticket: int | None = None
    # mysql::serialization format version: 1 is what MySQL 8.3+ writes and what independent
    # decoders (ZongJi, mysql_common) require; 0 is refused by them.
    version: int = 1
    last_non_ignorable_field_id: int = 8

    @property
    def gtid(self) -> str:
        return mysql_gtid_text(self.sid, self.gno, self.tag)

    def to_layout(self) -> dict[str, Any]:
        d = super().to_layout()
        extra = d.pop("post_header_extra")
        rest = d.pop("unparsed")
        return {"message": d, "post_header_extra": extra, "unparsed": rest}

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        ev = super().from_layout(c.message, **header)
        ev.unparsed = c.get("unparsed", b"")
        return ev
