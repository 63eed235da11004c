"""Typed event objects <-> layouts; :func:`encode_event` / :func:`decode_event` are pure.

An event is a dataclass whose fields are the fields of its construct declaration
(``binlogwriter.layouts``) plus the common header fields (format.md §3): ``timestamp``,
``server_id``, ``flags``, ``log_pos``. Types without a declaration decode to
:class:`RawEvent` and re-encode byte-exactly (docs/design.md principle 3).

Framing (format.md §3): header · post-header+body · CRC32 footer when the governing FDE says
CRC32. The FDE of a ≥ 5.6.1 server always carries the 4-byte checksum field, and its CRC is
computed with ``LOG_EVENT_BINLOG_IN_USE_F`` cleared.
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import construct as cs

from binlogwriter.errors import (
    BinlogError,
    ChecksumError,
    DecodeError,
    EncodeError,
    KeptRawError,
    TruncatedError,
)
from binlogwriter.format import BinlogFormat, EventType, type_name, version_tuple
from binlogwriter.layouts import body_layout
from binlogwriter.layouts.control import NonCanonical, gtid_set_text
from binlogwriter.layouts.header import FLAG_IN_USE, HEADER_SIZE, Header

__all__ = [
    "Event", "RawEvent", "EventPosition", "encode_event", "decode_event", "decode_body", "encode_body",
    "event_class", "FormatDescriptionEvent", "RotateEvent", "StopEvent", "XidEvent", "IntvarEvent",
    "RandEvent", "UserVarEvent", "IncidentEvent", "HeartbeatEvent", "HeartbeatV2Event",
    "RowsQueryEvent", "XaPrepareEvent", "BeginLoadQueryEvent", "AppendBlockEvent",
    "DeleteFileEvent", "ExecuteLoadQueryEvent", "PreviousGtidsEvent", "GtidEvent",
    "AnonymousGtidEvent", "GtidTaggedEvent", "TransactionPayloadEvent", "QueryEvent",
    "QueryCompressedEvent", "AnnotateRowsEvent", "BinlogCheckpointEvent", "MariadbGtidEvent",
    "MariadbGtidListEvent", "StartEncryptionEvent",
]

ANONYMOUS_SID = "00000000-0000-0000-0000-000000000000"
"""The SID of ANONYMOUS_GTID events (all zero, format.md §8)."""

_HEADER_FIELDS = ("timestamp", "server_id", "flags", "log_pos")
_ROWS_TYPES = frozenset((23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))


@dataclass(frozen=True, slots=True)
class EventPosition:
    """Where a decoded event was read: file name, absolute offset, total length."""

    file: str | None
    offset: int
    length: int


@dataclass(kw_only=True)
class Event:
    """Base of every event. ``timestamp`` None lets the writer fill in its clock."""

    TYPE: ClassVar[int] = -1
    timestamp: int | None = None
    server_id: int | None = None
    flags: int = 0
    log_pos: int = 0
    post_header_extra: bytes = b""
    unparsed: bytes = b""
    origin: EventPosition | None = field(default=None, compare=False, repr=False)

    @property
    def type_code(self) -> int:
        return self.TYPE

    def build_context(self) -> dict[str, Any]:
        """Extra construct context the layout needs to build this event (rows: columns)."""
        return {}

    @property
    def type_name(self) -> str:
        return type_name(self.type_code)

    # layout <-> fields ---------------------------------------------------------------------
    def to_layout(self) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(self):
            if f.name in _HEADER_FIELDS or f.name == "origin":
                continue
            out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        kw = {}
        for f in dataclasses.fields(cls):
            if f.name in _HEADER_FIELDS or f.name == "origin":
                continue
            if f.name in c:
                kw[f.name] = _plain(c[f.name])
        return cls(**kw, **header)


def _plain(v: Any) -> Any:
    """construct Containers/ListContainers -> dicts/lists (keys starting with '_' dropped)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if not str(k).startswith("_")}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


@dataclass(kw_only=True)
class RawEvent(Event):
    """An event kept as its raw post-header+body bytes: an unknown or undeclared type, or
    (``kept_raw`` says why) a body the declaration decodes but would not encode back to the
    same bytes — a field value out of what the layout models, bytes left over, a
    non-canonical encoding. Re-encoding gives the bytes read (docs/design.md principle 3)."""

    raw_type: int
    body: bytes = b""
    kept_raw: str | None = field(default=None, compare=False)

    def __getattr__(self, name: str) -> Any:
        # asked for a field of its type (``ev.gtid`` of a GTID kept raw): a located, typed
        # error saying why the event has no fields — still an AttributeError for hasattr()
        if name.startswith("_") or name in ("origin", "kept_raw", "raw_type", "body"):
            raise AttributeError(name)
        o = self.__dict__.get("origin")
        why = self.__dict__.get("kept_raw") or "its type is not decoded"
        raise KeptRawError(f"{type_name(self.__dict__.get('raw_type', -1))} has no field {name!r}: "
                           f"kept as raw bytes ({why})", file=o.file if o else None,
                           offset=o.offset if o else None)

    @property
    def type_code(self) -> int:
        return self.raw_type


_CLASSES: dict[int, type[Event]] = {}


def _register(cls: type[Event]) -> type[Event]:
    _CLASSES[cls.TYPE] = cls
    return cls


def event_class(type_code: int) -> type[Event] | None:
    """The typed class of an event type, or None when it is kept raw."""
    return _CLASSES.get(type_code)


def register_event_class(cls: type[Event]) -> type[Event]:
    """Register a typed event class for its ``TYPE`` (used by Table_map / rows modules)."""
    return _register(cls)


@_register
@dataclass(kw_only=True)
class FormatDescriptionEvent(Event):
    """FORMAT_DESCRIPTION_EVENT (format.md §4)."""

    TYPE: ClassVar[int] = EventType.FORMAT_DESCRIPTION_EVENT
    binlog_version: int = 4
    server_version: str = ""
    create_timestamp: int = 0
    header_length: int = 19
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


def _simple(cls_name: str, code: int, doc: str, /, **fields: tuple[type, Any]) -> type[Event]:
    ns: dict[str, Any] = {"__doc__": doc, "__annotations__": {"TYPE": ClassVar[int]}, "TYPE": code}
    for fname, (ftype, default) in fields.items():
        ns["__annotations__"][fname] = ftype
        if isinstance(default, (list, dict)):
            ns[fname] = field(default_factory=lambda d=default: type(d)(d))
        elif default is not dataclasses.MISSING:
            ns[fname] = default
    cls = type(cls_name, (Event,), ns)
    cls = dataclass(kw_only=True)(cls)
    return _register(cls)


M = dataclasses.MISSING
RotateEvent = _simple("RotateEvent", 4, "ROTATE_EVENT (format.md §5).",
                      position=(int, 4), next_file=(str, M))
StopEvent = _simple("StopEvent", 3, "STOP_EVENT (format.md §6).")
XidEvent = _simple("XidEvent", 16, "XID_EVENT (format.md §10).", xid=(int, M))
IntvarEvent = _simple("IntvarEvent", 5, "INTVAR_EVENT: 1 LAST_INSERT_ID, 2 INSERT_ID (format.md §10).",
                      type=(int, M), value=(int, M))
RandEvent = _simple("RandEvent", 13, "RAND_EVENT (format.md §10).", seed1=(int, M), seed2=(int, M))
UserVarEvent = _simple(
    "UserVarEvent", 14,
    "USER_VAR_EVENT (format.md §10): value_type 0 STRING, 1 REAL, 2 INT, 4 DECIMAL; ``value`` raw "
    "bytes (INT 8 bytes LE, REAL double, DECIMAL precision·scale·decimal2bin); value_flags bit0 UNSIGNED.",
    name=(str, M), is_null=(bool, False), value_type=(int | None, None), charset=(int | None, None),
    value=(bytes | None, None), value_flags=(int | None, None))
IncidentEvent = _simple("IncidentEvent", 26, "INCIDENT_EVENT (format.md §17).",
                        incident=(int, 1), message=(str, ""))
HeartbeatEvent = _simple("HeartbeatEvent", 27, "HEARTBEAT_LOG_EVENT (format.md §16).",
                         log_filename=(str, M))
RowsQueryEvent = _simple("RowsQueryEvent", 29,
                         "ROWS_QUERY_LOG_EVENT (format.md §11): ``length_byte`` None = len & 0xFF.",
                         query=(str, M), length_byte=(int | None, None))
XaPrepareEvent = _simple("XaPrepareEvent", 38, "XA_PREPARE_LOG_EVENT (format.md §17).",
                         one_phase=(bool, False), format_id=(int, 1), gtrid=(bytes, b""), bqual=(bytes, b""))
BeginLoadQueryEvent = _simple("BeginLoadQueryEvent", 17, "BEGIN_LOAD_QUERY_EVENT (format.md §17).",
                              file_id=(int, M), block=(bytes, b""))
AppendBlockEvent = _simple("AppendBlockEvent", 9, "APPEND_BLOCK_EVENT (format.md §17).",
                           file_id=(int, M), block=(bytes, b""))
DeleteFileEvent = _simple("DeleteFileEvent", 11, "DELETE_FILE_EVENT (format.md §17).", file_id=(int, M))
PreviousGtidsEvent = _simple(
    "PreviousGtidsEvent", 35,
    "PREVIOUS_GTIDS_LOG_EVENT (format.md §7): gtid_set = {tagged, sids: [(uuid, tag, [(start, end_excl)])]}.",
    gtid_set=(dict, {"tagged": False, "sids": []}))
PreviousGtidsEvent.text = property(lambda self: gtid_set_text(self.gtid_set))  # type: ignore[attr-defined]
TransactionPayloadEvent = _simple(
    "TransactionPayloadEvent", 40,
    "TRANSACTION_PAYLOAD_EVENT (format.md §15): header TLVs (1 size, 2 compression 0=ZSTD, "
    "3 uncompressed size) in written order, then the compressed payload.",
    header_fields=(list, []), payload=(bytes, b""))
AnnotateRowsEvent = _simple("AnnotateRowsEvent", 160, "MariaDB ANNOTATE_ROWS_EVENT (mariadb.md).",
                            query=(str, M))
BinlogCheckpointEvent = _simple("BinlogCheckpointEvent", 161,
                                "MariaDB BINLOG_CHECKPOINT_EVENT (mariadb.md).", log_file=(str, M))
StartEncryptionEvent = _simple("StartEncryptionEvent", 164, "MariaDB START_ENCRYPTION_EVENT.",
                               scheme=(int, 1), key_version=(int, 0), nonce=(bytes, b"\0" * 12))
MariadbGtidListEvent = _simple(
    "MariadbGtidListEvent", 163,
    "MariaDB GTID_LIST_EVENT (mariadb.md): gtids [{domain_id, server_id, seq_no}]; ``trailing`` None "
    "= as the server writes (two zero bytes for an empty list).",
    gtids=(list, []), list_flags=(int, 0), trailing=(bytes | None, None))
MariadbGtidEvent = _simple(
    "MariadbGtidEvent", 162,
    "MariaDB GTID_EVENT (mariadb.md): flags2 1 STANDALONE, 2 GROUP_COMMIT_ID, 4 TRANSACTIONAL, "
    "8 ALLOW_PARALLEL, 32 DDL, 64 PREPARED_XA, 128 COMPLETED_XA. ``trailing`` None = zero pad to 19.",
    seq_no=(int, M), domain_id=(int, 0), flags2=(int, 0), commit_id=(int | None, None),
    xid=(dict | None, None), flags_extra=(int | None, None), extra_engines=(int | None, None),
    sa_seq_no=(int | None, None), trailing=(bytes | None, None))


@_register
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
class _GtidBase(Event):
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
        return f"{self.sid}:{self.gno}"

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


@_register
@dataclass(kw_only=True)
class GtidEvent(_GtidBase):
    TYPE: ClassVar[int] = EventType.GTID_LOG_EVENT


@_register
@dataclass(kw_only=True)
class AnonymousGtidEvent(_GtidBase):
    TYPE: ClassVar[int] = EventType.ANONYMOUS_GTID_LOG_EVENT


@_register
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
        return f"{self.sid}:{self.tag}:{self.gno}" if self.tag else f"{self.sid}:{self.gno}"

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


@dataclass(kw_only=True)
class _QueryBase(Event):
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


@_register
@dataclass(kw_only=True)
class QueryEvent(_QueryBase):
    TYPE: ClassVar[int] = EventType.QUERY_EVENT


@_register
@dataclass(kw_only=True)
class ExecuteLoadQueryEvent(_QueryBase):
    """EXECUTE_LOAD_QUERY_EVENT: Query plus file_id, filename positions, dup handling (§17)."""

    TYPE: ClassVar[int] = EventType.EXECUTE_LOAD_QUERY_EVENT
    file_id: int = 0
    fn_pos_start: int = 0
    fn_pos_end: int = 0
    dup_handling: int = 0


@_register
@dataclass(kw_only=True)
class QueryCompressedEvent(_QueryBase):
    """MariaDB QUERY_COMPRESSED_EVENT: ``query`` holds the compressed blob (bytes); ``text``
    decompresses it (mariadb.md "Compression")."""

    TYPE: ClassVar[int] = EventType.QUERY_COMPRESSED_EVENT
    query: bytes = b""  # type: ignore[assignment]

    @property
    def text(self) -> str:
        from binlogwriter.compression import mariadb_decompress

        try:
            return mariadb_decompress(self.query).decode("utf-8", "surrogateescape")
        except DecodeError as exc:
            o = self.origin
            raise exc.located(file=o.file if o else None, offset=o.offset if o else None,
                              event_type=self.type_name, path="query") from None


# ---------------------------------------------------------------------------- framing


def _has_footer(type_code: int, fmt: BinlogFormat, server_version: str | None = None) -> bool:
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return version_tuple(server_version or fmt.server_version) >= (5, 6, 1)
    return fmt.footer_size == 4


def has_footer(data: bytes | bytearray, fmt: BinlogFormat) -> bool:
    """Whether the encoded event ``data`` ends with a CRC32 footer under ``fmt`` (an FDE
    decides by its own server version, format.md §4)."""
    return _has_footer(data[4], fmt, _fde_server_version(data))


def _fde_server_version(data: bytes | bytearray) -> str | None:
    """The server_version field of an encoded FDE (None for any other event)."""
    if data[4] != EventType.FORMAT_DESCRIPTION_EVENT or len(data) < HEADER_SIZE + 52:
        return None
    return bytes(data[HEADER_SIZE + 2:HEADER_SIZE + 52]).rstrip(b"\0").decode("ascii", "replace")


def _event_crc(data: bytes | bytearray) -> int:
    """CRC32 of an encoded event without its footer; an FDE's is computed with
    LOG_EVENT_BINLOG_IN_USE_F cleared, so a server can clear it in place (format.md §3)."""
    flags = int.from_bytes(data[17:19], "little")
    if data[4] == EventType.FORMAT_DESCRIPTION_EVENT and flags & FLAG_IN_USE:
        crc = zlib.crc32(data[:17])
        crc = zlib.crc32((flags & ~FLAG_IN_USE).to_bytes(2, "little"), crc)
        return zlib.crc32(data[19:], crc)
    return zlib.crc32(data)


def _construct_error(exc: Exception) -> str:
    msg = str(exc).strip().splitlines()
    return msg[-1] if msg else exc.__class__.__name__


def encode_body(event: Event, fmt: BinlogFormat) -> bytes:
    """The post-header + body bytes of ``event`` under ``fmt`` (no header, no footer), built
    by its construct declaration. (Many events at once: :mod:`binlogwriter.batch`, whose
    bytes equal these, property-tested.)"""
    if isinstance(event, RawEvent):
        return bytes(event.body)
    layout = body_layout(event.type_code, fmt)
    if layout is None:
        raise EncodeError(f"no layout for {event.type_name} in format {fmt.flavor}")
    obj = event.to_layout()
    extra = obj.get("post_header_extra", b"")
    declared = fmt.post_header_len(event.type_code)
    ctx = event.build_context()
    try:
        return layout.build(obj, body_size=None, **ctx)
    except cs.ConstructError as exc:
        if "post_header_extra" in str(exc) and not extra:
            raise EncodeError(f"{event.type_name}: the format declares a {declared}-byte post-header; "
                              f"set post_header_extra") from None
        raise EncodeError(f"cannot encode {event.type_name}: {_construct_error(exc)}") from None


def encode_event(event: Event, fmt: BinlogFormat, log_pos: int | None = None, *,
                 footer: bool | None = None, timestamp: int | None = None,
                 offset: int | None = None) -> bytes:
    """Encode one whole event: header with ``event_length`` and ``log_pos`` filled in, body,
    CRC32 footer when the format says CRC32 (always for a ≥ 5.6.1 FDE). ``footer=False``
    encodes an event as it sits inside a TRANSACTION_PAYLOAD (no CRC, format.md §15).
    ``offset`` (the event's position in its file) sets ``log_pos = offset + event_length``."""
    body = encode_body(event, fmt)
    sv = event.server_version if isinstance(event, FormatDescriptionEvent) else None
    has_footer = _has_footer(event.type_code, fmt, sv) if footer is None else footer
    length = HEADER_SIZE + len(body) + (4 if has_footer else 0)
    if offset is not None:
        log_pos = offset + length
    ts = timestamp if timestamp is not None else event.timestamp
    header = {"timestamp": ts or 0, "type_code": event.type_code,
              "server_id": 1 if event.server_id is None else event.server_id,
              "event_length": length, "log_pos": event.log_pos if log_pos is None else log_pos,
              "flags": event.flags}
    try:
        head = Header.build(header)
    except (cs.ConstructError, struct.error) as exc:
        raise EncodeError(f"cannot encode {event.type_name} header: {_construct_error(exc)}") from None
    data = head + body
    if not has_footer:
        return data
    return data + _event_crc(data).to_bytes(4, "little")


def decode_body(type_code: int, body: bytes, fmt: BinlogFormat, *, header: dict | None = None,
                file: str | None = None, offset: int | None = None,
                columns_for: Any = None) -> Event:
    """Decode post-header + body bytes of an event of ``type_code`` under ``fmt``.

    ``columns_for(table_id)`` returns the ColumnDesc list of a table (from its Table_map) so
    that rows events decode their row images; without it rows stay raw."""
    header = dict(header or {})
    layout = body_layout(type_code, fmt)
    cls = _CLASSES.get(type_code)
    if layout is None or cls is None:
        return RawEvent(raw_type=type_code, body=bytes(body), **header)
    columns = None
    if columns_for is not None and type_code in _ROWS_TYPES and len(body) >= fmt.table_id_size:
        columns = columns_for(int.from_bytes(body[:fmt.table_id_size], "little"))
    try:
        c = layout.parse(body, body_size=len(body), columns=columns)
    except BinlogError as exc:
        if isinstance(exc, DecodeError):
            raise exc.located(file=file, offset=offset, event_type=type_name(type_code)) from None
        raise DecodeError(str(exc), file=file, offset=offset, event_type=type_name(type_code)) from None
    except NonCanonical as exc:  # parses, but not in the form the encoder writes: keep the bytes
        return RawEvent(raw_type=type_code, body=bytes(body), kept_raw=f"not canonical: {exc}", **header)
    except cs.ConstructError as exc:
        path = getattr(exc, "path", None)
        path = path.replace("(parsing) -> ", "").replace("(parsing)", "") if path else None
        raise DecodeError(f"malformed event body: {_construct_error(exc)}", file=file, offset=offset,
                          event_type=type_name(type_code), path=path or None) from None
    except (ValueError, UnicodeError, IndexError, OverflowError, KeyError, TypeError) as exc:
        # the one choke point: nothing but BinlogError leaves the decoder (docs/design.md principle 6)
        raise DecodeError(f"malformed event body: {exc.__class__.__name__}: {exc}", file=file,
                          offset=offset, event_type=type_name(type_code)) from None
    ev = cls.from_layout(c, **header)
    if "flavor" in getattr(ev, "__dataclass_fields__", {}):
        ev.flavor = fmt.flavor  # type: ignore[attr-defined]
    if columns is not None:
        ev.columns = columns  # type: ignore[attr-defined]
    if type_code not in _SELF_CHECKED:
        reason = _reencodes(ev, body, fmt)
        if reason is not None:
            if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
                raise DecodeError(f"FORMAT_DESCRIPTION_EVENT {reason}", file=file, offset=offset,
                                  event_type=type_name(type_code))
            return RawEvent(raw_type=type_code, body=bytes(body), kept_raw=reason, **header)
    return ev


_SELF_CHECKED = _ROWS_TYPES | {EventType.GTID_TAGGED_LOG_EVENT}
"""Types not re-encoded after decoding: rows events (their value codecs are byte-exact both
ways) and tagged GTIDs, one per transaction, whose parser is strict (layouts/control.py)."""


def _reencodes(ev: Event, body: bytes | memoryview, fmt: BinlogFormat) -> str | None:
    """None if ``ev`` encodes back to ``body``; else why not. A decoder that accepted bytes
    it does not model (a field cut short, bytes left over, a non-canonical integer) must not
    hand out an event that would silently write other bytes (docs/fuzzing.md). Rows events
    are left to the value codecs, which are byte-exact both ways (values.md)."""
    try:
        again = encode_body(ev, fmt)
    except BinlogError as exc:
        return f"does not re-encode ({exc})"
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, UnicodeError, struct.error) as exc:
        return f"does not re-encode ({exc.__class__.__name__}: {exc})"
    if again != body:
        at = next((i for i, (a, b) in enumerate(zip(again, body, strict=False)) if a != b),
                  min(len(again), len(body)))
        return f"re-encodes to other bytes (body byte {at}: {len(again)} vs {len(body)} bytes)"
    return None


def decode_event(data: bytes | memoryview, fmt: BinlogFormat, *, file: str | None = None,
                 offset: int | None = None, verify_checksum: bool = True,
                 footer: bool | None = None, columns_for: Any = None) -> Event:
    """Decode one whole event (header · body · optional CRC32)."""
    data = bytes(data)
    if len(data) < HEADER_SIZE:
        raise TruncatedError(f"event shorter than the {HEADER_SIZE}-byte header ({len(data)} bytes)",
                             file=file, offset=offset)
    h = Header.parse(data[:HEADER_SIZE])
    tname = type_name(h.type_code)
    if h.event_length != len(data):
        raise TruncatedError(f"event_length {h.event_length} but {len(data)} bytes available",
                             file=file, offset=offset, event_type=tname)
    has_footer = _has_footer(h.type_code, fmt, _fde_server_version(data)) if footer is None else footer
    end = len(data) - (4 if has_footer else 0)
    if end < HEADER_SIZE:
        raise TruncatedError("event too short for its checksum", file=file, offset=offset, event_type=tname)
    if has_footer and verify_checksum:
        stored = int.from_bytes(data[end:], "little")
        actual = _event_crc(data[:end])
        if stored != actual:
            raise ChecksumError(f"CRC32 mismatch: stored 0x{stored:08x}, computed 0x{actual:08x}",
                                file=file, offset=offset, event_type=tname)
    header = {"timestamp": h.timestamp, "server_id": h.server_id, "flags": h.flags, "log_pos": h.log_pos}
    ev = decode_body(h.type_code, data[HEADER_SIZE:end], fmt, header=header, file=file, offset=offset,
                     columns_for=columns_for)
    if offset is not None:
        ev.origin = EventPosition(file, offset, len(data))
    return ev


from binlogwriter import rows_events as _rows_events  # noqa: E402,F401  (registers rows classes)
from binlogwriter import table_map_event as _table_map_event  # noqa: E402,F401
