"""Encoding and decoding whole events: :func:`encode_event` / :func:`decode_event` are pure.

Framing (format.md §3): header · post-header+body · CRC32 footer when the governing FDE says
CRC32. The FDE of a ≥ 5.6.1 server always carries the 4-byte checksum field, and its CRC is
computed with ``LOG_EVENT_BINLOG_IN_USE_F`` cleared. Which class and layout a type code has
is :data:`binlogwriter.events.table.EVENTS`.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import construct as cs

from binlogwriter.errors import BinlogError, ChecksumError, DecodeError, EncodeError, TruncatedError
from binlogwriter.events.base import Event, EventPosition, RawEvent
from binlogwriter.events.control import FormatDescriptionEvent
from binlogwriter.events.table import EVENTS, body_layout
from binlogwriter.format import BinlogFormat, EventType, type_name, version_tuple
from binlogwriter.layouts.control import NonCanonical
from binlogwriter.layouts.header import FLAG_IN_USE, FLAGS_AT, HEADER_SIZE, TYPE_AT, Header
from binlogwriter.layouts.rows import ROWS_TYPES

__all__ = ["encode_event", "decode_event", "encode_body", "decode_body", "has_footer"]

_ROWS_TYPES = frozenset(ROWS_TYPES)


def type_has_footer(type_code: int, fmt: BinlogFormat, server_version: str | None = None) -> bool:
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return version_tuple(server_version or fmt.server_version) >= (5, 6, 1)
    return fmt.footer_size == 4


def has_footer(data: bytes | bytearray, fmt: BinlogFormat) -> bool:
    """Whether the encoded event ``data`` ends with a CRC32 footer under ``fmt`` (an FDE
    decides by its own server version, format.md §4)."""
    return type_has_footer(data[TYPE_AT], fmt, fde_server_version(data))


def fde_server_version(data: bytes | bytearray) -> str | None:
    """The server_version field of an encoded FDE (None for any other event)."""
    if data[TYPE_AT] != EventType.FORMAT_DESCRIPTION_EVENT or len(data) < HEADER_SIZE + 52:
        return None
    return bytes(data[HEADER_SIZE + 2:HEADER_SIZE + 52]).rstrip(b"\0").decode("ascii", "replace")


def event_crc(data: bytes | bytearray) -> int:
    """CRC32 of an encoded event without its footer; an FDE's is computed with
    LOG_EVENT_BINLOG_IN_USE_F cleared, so a server can clear it in place (format.md §3)."""
    flags = int.from_bytes(data[FLAGS_AT:HEADER_SIZE], "little")
    if data[TYPE_AT] == EventType.FORMAT_DESCRIPTION_EVENT and flags & FLAG_IN_USE:
        crc = zlib.crc32(data[:FLAGS_AT])
        crc = zlib.crc32((flags & ~FLAG_IN_USE).to_bytes(2, "little"), crc)
        return zlib.crc32(data[HEADER_SIZE:], crc)
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
    has_footer = type_has_footer(event.type_code, fmt, sv) if footer is None else footer
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
    return data + event_crc(data).to_bytes(4, "little")


def decode_body(type_code: int, body: bytes, fmt: BinlogFormat, *, header: dict | None = None,
                file: str | None = None, offset: int | None = None,
                columns_for: Any = None) -> Event:
    """Decode post-header + body bytes of an event of ``type_code`` under ``fmt``.

    ``columns_for(table_id)`` returns the ColumnDesc list of a table (from its Table_map) so
    that rows events decode their row images; without it rows stay raw."""
    header = dict(header or {})
    layout = body_layout(type_code, fmt)
    kind = EVENTS.get(type_code)
    if layout is None or kind is None:
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
    ev = kind.cls.from_layout(c, **header)
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
    has_footer = type_has_footer(h.type_code, fmt, fde_server_version(data)) if footer is None else footer
    end = len(data) - (4 if has_footer else 0)
    if end < HEADER_SIZE:
        raise TruncatedError("event too short for its checksum", file=file, offset=offset, event_type=tname)
    if has_footer and verify_checksum:
        stored = int.from_bytes(data[end:], "little")
        actual = event_crc(data[:end])
        if stored != actual:
            raise ChecksumError(f"CRC32 mismatch: stored 0x{stored:08x}, computed 0x{actual:08x}",
                                file=file, offset=offset, event_type=tname)
    header = {"timestamp": h.timestamp, "server_id": h.server_id, "flags": h.flags, "log_pos": h.log_pos}
    ev = decode_body(h.type_code, data[HEADER_SIZE:end], fmt, header=header, file=file, offset=offset,
                     columns_for=columns_for)
    if offset is not None:
        ev.origin = EventPosition(file, offset, len(data))
    return ev
