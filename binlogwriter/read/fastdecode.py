"""Decoding events fast, with the declarative path as the reference (format.md §3, §12, §13).

:class:`EventDecoder` gives the same :class:`~binlogwriter.events.Event` objects as
:func:`binlogwriter.events.decode_event` (property-tested on generated files), faster:

* the common header is read with one ``struct`` call and the CRC32 checked with the residue
  check (framing.py); any error is re-raised by the declarative path, located;
* events whose body bytes repeat (Query ``BEGIN``, Table_map, Annotate_rows, …) are decoded
  once per distinct body: decoding is a pure function of (format, type, body), so a copy of
  the first decode with this event's header fields is what decoding again would give
  (top-level lists are copied; values inside them are shared and must not be edited in
  place); Table_maps keep their column descriptions with them;
* rows events are read by the compiled row decoders (:mod:`binlogwriter.read.rowdecode`);
* everything else goes through :func:`decode_event` unchanged.
"""

from __future__ import annotations

import zlib
from typing import Any

from binlogwriter.events import AnonymousGtidEvent as _AnonymousGtidEvent
from binlogwriter.events import EventPosition, decode_body, decode_event
from binlogwriter.events import GtidEvent as _GtidEvent
from binlogwriter.events import MariadbGtidEvent as _MariadbGtidEvent
from binlogwriter.events import XidEvent as _XidEvent
from binlogwriter.format import (
    ANNOTATE_ROWS_EVENT,
    ANONYMOUS_GTID_LOG_EVENT,
    BINLOG_CHECKPOINT_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT,
    MARIADB_GTID_EVENT,
    MARIADB_GTID_LIST_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
    PREVIOUS_GTIDS_LOG_EVENT,
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    ROTATE_EVENT,
    ROWS_QUERY_LOG_EVENT,
    TABLE_MAP_EVENT,
    XA_PREPARE_LOG_EVENT,
    XID_EVENT,
    BinlogFormat,
    EventType,
)
from binlogwriter.layouts.header import HEADER_SIZE, HEADER_STRUCT, TYPE_AT
from binlogwriter.layouts.mariadb import FL_COMPLETED_XA, FL_GROUP_COMMIT_ID, FL_PREPARED_XA
from binlogwriter.layouts.primitives import read_packed, uuid_text
from binlogwriter.layouts.rows import ROWS_TYPES, UPDATE_TYPES, no_image_columns, unsized_column
from binlogwriter.read.framing import CRC_RESIDUE
from binlogwriter.read.places import (
    MARIADB_GTID,
    MARIADB_GTID_POST,
    MYSQL_GTID,
    rows_places_of,
)
from binlogwriter.read.rowdecode import parse_rows_header, table_decoder

__all__ = ["EventDecoder", "CACHED_TYPES", "mariadb_gtid_fields"]

_HEAD = HEADER_STRUCT
CACHED_TYPES = frozenset((QUERY_EVENT, TABLE_MAP_EVENT, ROWS_QUERY_LOG_EVENT, ANNOTATE_ROWS_EVENT, QUERY_COMPRESSED_EVENT,
                          PREVIOUS_GTIDS_LOG_EVENT, MARIADB_GTID_LIST_EVENT, BINLOG_CHECKPOINT_EVENT,
                          EventType.STOP_EVENT))
"""Types decoded once per distinct body (bodies that repeat: BEGIN, Table_map, …)."""
_ROWS = frozenset(ROWS_TYPES) - {PARTIAL_UPDATE_ROWS_EVENT}
_KNOWN_POST = {t: rows_places_of(t, 6).post for t in ROWS_TYPES}


_NOT_STATEFUL = frozenset((GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT, ROTATE_EVENT,
                           EventType.INTVAR_EVENT, EventType.RAND_EVENT, EventType.USER_VAR_EVENT,
                           EventType.INCIDENT_EVENT, EventType.HEARTBEAT_LOG_EVENT, XA_PREPARE_LOG_EVENT,
                           EventType.HEARTBEAT_LOG_EVENT_V2, EventType.START_ENCRYPTION_EVENT))
"""Types whose body alone decides the event (no state of the file's earlier events)."""


_MG = MARIADB_GTID
_MG_AT, _MG_FIXED, _MG_CID, _MG_CID_END = _MG.seq_no, _MG.fixed, _MG.commit_id, _MG.commit_id + _MG.commit_id_size
_MG_POST = _MG_CID - HEADER_SIZE  # seq_no, domain_id, flags2 (the FDE declares them padded to 19)
assert _MG.names == ("seq_no", "domain_id", "flags2") and _MG_AT == HEADER_SIZE


def mariadb_gtid(data: bytes, end: int, fmt: BinlogFormat, ts: int, server_id: int, flags: int,
                 log_pos: int) -> Any:
    """MariaDB GTID_EVENT (mariadb.md) in its common shapes — seq_no, domain_id, flags2,
    [commit_id], zero padding kept as ``trailing``, no XA xid, no flags_extra — exactly as
    the declarative layout parses them (field places from it: read/places.py); None for
    anything else."""
    fields = mariadb_gtid_fields(data, end, fmt)
    if fields is None:
        return None
    seq_no, domain_id, f2, commit_id, p = fields
    return _MariadbGtidEvent(seq_no=seq_no, domain_id=domain_id, flags2=f2, commit_id=commit_id,
                             trailing=data[p:end], timestamp=ts, server_id=server_id, flags=flags,
                             log_pos=log_pos)


def mariadb_gtid_fields(data: bytes, end: int, fmt: BinlogFormat) -> tuple[int, int, int, int | None, int] | None:
    """(seq_no, domain_id, flags2, commit_id or None, start of the zero padding) of a MariaDB
    GTID_EVENT in the shapes :func:`_mariadb_gtid` takes, else None (its checks, without
    building the event: the listing prints these fields)."""
    if end - HEADER_SIZE < MARIADB_GTID_POST or fmt.post_header_len(MARIADB_GTID_EVENT) != MARIADB_GTID_POST:
        return None
    seq_no, domain_id, f2 = _MG_FIXED.unpack_from(data, _MG_AT)
    if f2 & (FL_PREPARED_XA | FL_COMPLETED_XA):
        return None
    p = _MG_CID
    commit_id = None
    if f2 & FL_GROUP_COMMIT_ID:
        if end < _MG_CID_END:
            return None
        commit_id = int.from_bytes(data[_MG_CID:_MG_CID_END], "little")
        p = _MG_CID_END
    if p < end and data[p] != 0:  # a flags_extra byte
        return None
    return seq_no, domain_id, f2, commit_id, p


def _flagged(data: bytes, p: int, size: int, end: int) -> tuple[int, int | None, int] | None:
    if p + size > end:
        return None
    v = int.from_bytes(data[p:p + size], "little")
    bit = 1 << (8 * size - 1)
    if v & bit:
        if p + 2 * size > end:
            return None
        return v & ~bit, int.from_bytes(data[p + size:p + 2 * size], "little"), p + 2 * size
    return v, None, p + size


_G = MYSQL_GTID
_G_POST, _G_FIXED, _G_NAMES, _G_TS, _G_TS_SIZE, _G_SV_SIZE = _G.post, _G.fixed, _G.names, _G.ts, _G.ts_size, _G.sv_size
_G_MIN = _G_POST + _G_TS_SIZE + 1 + _G_SV_SIZE  # post-header, timestamp, 1-byte length, version
_G_TICKET = _G.ticket_size


def mysql_gtid(t: int, data: bytes, end: int, fmt: BinlogFormat, ts: int, server_id: int, flags: int,
               log_pos: int) -> Any:
    """GTID / ANONYMOUS_GTID (format.md §8) in the 8.0 shape — every field up to the server
    versions present, optionally the commit group ticket, nothing after — exactly as the
    declarative layout parses it (field places from it: read/places.py); None for any other
    shape."""
    if fmt.post_header_len(t) != _G_POST or end - HEADER_SIZE < _G_MIN:
        return None
    fields = dict(zip(_G_NAMES, _G_FIXED.unpack_from(data, HEADER_SIZE), strict=True))
    fields["sid"] = uuid_text(fields["sid"])
    ct = _flagged(data, _G_TS, _G_TS_SIZE, end)
    if ct is None:
        return None
    imm_ts, orig_ts, p = ct
    packed = read_packed(data, p, end)
    if packed is None or not packed[2]:
        return None  # not the shortest form: the declarative path keeps such an event raw
    tlen, p, _ = packed
    sv = _flagged(data, p, _G_SV_SIZE, end)
    if sv is None:
        return None
    imm_sv, orig_sv, p = sv
    ticket = None
    if p + _G_TICKET == end:
        ticket = int.from_bytes(data[p:end], "little")
    elif p != end:
        return None
    return (_GtidEvent if t == GTID_LOG_EVENT else _AnonymousGtidEvent)(
        **fields, immediate_commit_timestamp=imm_ts, original_commit_timestamp=orig_ts,
        transaction_length=tlen, immediate_server_version=imm_sv, original_server_version=orig_sv,
        commit_group_ticket=ticket, timestamp=ts, server_id=server_id, flags=flags, log_pos=log_pos)


class EventDecoder:
    """Decode events of one reader; ``columns_for(table_id)`` as for decode_event."""

    def __init__(self, max_cached: int = 4096) -> None:
        self._cache: dict[tuple, Any] = {}
        self._max = max_cached
        self._fmt: Any = None
        self._footer = 0
        self._rows_ok: frozenset = frozenset()

    def _set_format(self, fmt: BinlogFormat) -> None:
        """Bodies are cached per format: a new FDE (another object) starts a new cache."""
        self._fmt = fmt
        self._cache = {}
        self._footer = fmt.footer_size
        self._rows_ok = frozenset(t for t in _ROWS if fmt.post_header_len(t) == _KNOWN_POST[t])

    def decode(self, data: bytes, fmt: BinlogFormat, *, file: str | None, offset: int | None,
               verify_checksum: bool, columns_for: Any) -> Any:
        n = len(data)
        t = data[TYPE_AT] if n > TYPE_AT else -1
        if n < HEADER_SIZE or t == FORMAT_DESCRIPTION_EVENT:
            return decode_event(data, fmt, file=file, offset=offset, verify_checksum=verify_checksum,
                                columns_for=columns_for)
        ts, t, server_id, length, log_pos, flags = _HEAD.unpack_from(data, 0)
        if fmt is not self._fmt:
            self._set_format(fmt)
        footer = self._footer
        end = n - footer
        if length != n or end < HEADER_SIZE or (footer and verify_checksum and zlib.crc32(data) != CRC_RESIDUE):
            return decode_event(data, fmt, file=file, offset=offset, verify_checksum=verify_checksum,
                                columns_for=columns_for)
        if t in CACHED_TYPES:
            body = data[HEADER_SIZE:end]
            key = (t, body)
            hit = self._cache.get(key)
            if hit is None:
                proto = decode_body(t, body, fmt, header={"timestamp": ts, "server_id": server_id,
                                                         "flags": flags, "log_pos": log_pos},
                                    file=file, offset=offset, columns_for=columns_for)
                if len(self._cache) >= self._max:
                    self._cache.clear()
                if t == TABLE_MAP_EVENT:  # column descriptions per schema, shared by the copies (read/state.py)
                    proto._descs_cache = {}
                hit = self._cache[key] = (proto, type(proto), dict(proto.__dict__),
                                          tuple(k for k, v in proto.__dict__.items() if type(v) is list))
            proto, cls, d0, lists = hit
            ev = cls.__new__(cls)  # a copy of the first decode (copy.copy without its protocol)
            d = ev.__dict__
            d.update(d0)
            for k in lists:  # a caller may edit a list field: give each event its own
                d[k] = list(d0[k])
            d["timestamp"], d["server_id"], d["flags"], d["log_pos"] = ts, server_id, flags, log_pos
        elif t in self._rows_ok and columns_for is not None:
            tid_size = fmt.table_id_size
            cols = columns_for(int.from_bytes(data[HEADER_SIZE:HEADER_SIZE + tid_size], "little")) if end - HEADER_SIZE >= tid_size else None
            ev = self._rows(t, data, end, fmt, cols, ts, server_id, flags, log_pos) if cols is not None else None
            if ev is None:
                return decode_event(data, fmt, file=file, offset=offset, verify_checksum=verify_checksum,
                                    columns_for=columns_for)
        elif t == XID_EVENT and end - HEADER_SIZE == 8 and fmt.post_header_len(XID_EVENT) == 0:
            # XID_EVENT: one u64 (format.md §10)
            ev = _XidEvent(xid=int.from_bytes(data[HEADER_SIZE:end], "little"), timestamp=ts, server_id=server_id,
                           flags=flags, log_pos=log_pos)
        elif t == MARIADB_GTID_EVENT and (ev := mariadb_gtid(data, end, fmt, ts, server_id, flags, log_pos)) is not None:
            pass
        elif t in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT) and (ev := mysql_gtid(t, data, end, fmt, ts, server_id, flags, log_pos)) is not None:
            pass
        else:
            if t in _NOT_STATEFUL:  # the body alone decides: skip the construct header parse
                ev = decode_body(t, data[HEADER_SIZE:end], fmt, header={"timestamp": ts, "server_id": server_id,
                                                              "flags": flags, "log_pos": log_pos},
                                 file=file, offset=offset)
            else:
                return decode_event(data, fmt, file=file, offset=offset, verify_checksum=verify_checksum,
                                    columns_for=columns_for)
        if offset is not None:
            ev.origin = EventPosition(file, offset, n)
        return ev

    @staticmethod
    def _rows(t: int, data: bytes, end: int, fmt: BinlogFormat, cols: Any, ts: int, server_id: int,
              flags: int, log_pos: int) -> Any:
        """A rows event read by the compiled decoder; None to let the declarative path decide
        (unsized columns, malformed bodies: it gives the located error)."""
        if _has_unsized(cols):
            return None
        try:
            h = parse_rows_header(t, data[HEADER_SIZE:end], fmt.table_id_size)
            if h.width != len(cols):
                return None
            dec = table_decoder(cols)
            buf = h.rows
            n = len(buf)
            pos = 0
            rows: list = []
            pads: list = []
            bimg = dec.image(h.present, _ABSENT)
            once = n == 0 and no_image_columns(h.present, h.after)  # one row of 0-byte images
            if t in UPDATE_TYPES:
                aimg = dec.image(h.after, _ABSENT)
                while pos < n or once:
                    once = False
                    b, pb, pos = bimg(buf, pos)
                    a, pa, pos = aimg(buf, pos)
                    rows.append((b, a))
                    pads.append((pb, pa))
            else:
                while pos < n or once:
                    once = False
                    v, p, pos = bimg(buf, pos)
                    rows.append(v)
                    pads.append(p)
        except Exception:  # noqa: BLE001 - the declarative path raises the located error
            return None
        ev = _CLASSES[t](table_id=h.table_id, rows_flags=h.rows_flags, extra_info=h.extra_info,
                         width=h.width, columns_present=h.present, columns_after=h.after, rows=rows,
                         null_pads=pads, rows_raw=None, post_header_extra=b"", timestamp=ts,
                         server_id=server_id, flags=flags, log_pos=log_pos)
        ev.columns = cols
        return ev


_UNSIZED: dict[int, tuple] = {}


def _has_unsized(cols: Any) -> bool:
    """MariaDB old TIME/DATETIME/TIMESTAMP without an fsp (from a schema): the declarative
    path decides (cached per column tuple, which the reader's state keeps)."""
    hit = _UNSIZED.get(id(cols))
    if hit is None or hit[0] is not cols:
        if len(_UNSIZED) > 1024:
            _UNSIZED.clear()
        hit = _UNSIZED[id(cols)] = (cols, any(unsized_column(c) for c in cols))
    return hit[1]


from binlogwriter.events.rows import ROWS_CLASSES as _CLASSES  # noqa: E402
from binlogwriter.values.base import ABSENT as _ABSENT  # noqa: E402
