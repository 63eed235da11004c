"""GTID verdicts of ``verify --roundtrip`` from the bytes alone (format.md §8, mariadb.md):
whether a MySQL GTID / ANONYMOUS_GTID or a MariaDB GTID body re-encodes to itself, without
building the event. Used by :mod:`binlogwriter.read.fastverify`; each is property-tested equal
to the fast event readers' verdict (tests/read/test_fastverify_props.py).

:func:`transaction_gtid` is the one reading of a transaction's GTID from its event's bytes
for the readers that do not build events (``changes()``, the columnar export): the fast
reading only where these verdicts vouch for the shape, the declarative decode otherwise.
"""

from __future__ import annotations

from typing import Any

from binlogwriter.errors import KeptRawError
from binlogwriter.events import RawEvent, decode_event
from binlogwriter.format import ANONYMOUS_GTID_LOG_EVENT, GTID_LOG_EVENT, MARIADB_GTID_EVENT
from binlogwriter.gtids import mariadb_gtid_text, mysql_gtid_text
from binlogwriter.layouts.header import HEADER_SIZE, LENGTH_AT, SERVER_ID_AT
from binlogwriter.layouts.mariadb import FL_COMPLETED_XA, FL_GROUP_COMMIT_ID, FL_PREPARED_XA
from binlogwriter.layouts.primitives import read_packed, uuid_text
from binlogwriter.read.fastdecode import mysql_gtid
from binlogwriter.read.places import MARIADB_GTID, MARIADB_GTID_POST, MYSQL_GTID

__all__ = ["mysql_gtid_exact", "mysql_gtid_ok", "mariadb_gtid_ok", "transaction_gtid"]

# field places from the declared layouts (read/places.py)
_TS = MYSQL_GTID.ts
_TS_SIZE = MYSQL_GTID.ts_size
_TS_TOP = _TS + _TS_SIZE - 1  # holds the "original commit timestamp follows" bit
_TS_ORIG = _TS + _TS_SIZE
_TS_END = _TS_ORIG + _TS_SIZE
_TS_MASK = (1 << (8 * _TS_SIZE - 1)) - 1
_SV_SIZE = MYSQL_GTID.sv_size
_SV_MASK = (1 << (8 * _SV_SIZE - 1)) - 1
_TICKET = MYSQL_GTID.ticket_size
_MIN_END = _TS_ORIG + 1 + _SV_SIZE  # header, post-header, timestamp, 1-byte length, version


def mysql_gtid_exact(t: int, data: bytes, end: int, fmt: Any) -> bool:
    """GTID / ANONYMOUS_GTID in the shape the fast decoder reads, with every variable-size
    field (the commit timestamps and server versions with their "original differs" high
    bit, the packed transaction length) in the one form the encoder writes."""
    ev = mysql_gtid(t, data, end, fmt, 0, 0, 0, 0)
    if ev is None:
        return False
    if data[_TS_TOP] & 0x80:  # original commit timestamp follows: only when it differs
        if ev.original_commit_timestamp == ev.immediate_commit_timestamp:
            return False
        p = _TS_END
    else:
        p = _TS_ORIG
    # _mysql_gtid accepts only the shortest packed transaction length
    p = read_packed(data, p, end)[1]  # type: ignore[index]
    if data[p + _SV_SIZE - 1] & 0x80:
        if ev.original_server_version == ev.immediate_server_version:
            return False
    return True


def mysql_gtid_ok(data: bytes, end: int) -> bool:
    """:func:`_mysql_gtid_exact` from the bytes alone, no event built (post-header length
    checked by the caller): the 8.0 shape, the "original differs" high bits only over values
    that differ, the transaction length packed in its shortest form, then nothing or the
    commit group ticket (format.md §8; property-tested equal)."""
    if end < _MIN_END:
        return False
    if data[_TS_TOP] & 0x80:  # original commit timestamp follows: only when it differs
        if end < _TS_END or int.from_bytes(data[_TS:_TS_ORIG], "little") & _TS_MASK == int.from_bytes(
            data[_TS_ORIG:_TS_END], "little"
        ):
            return False
        p = _TS_END
    else:
        p = _TS_ORIG
    packed = read_packed(data, p, end)
    if packed is None or not packed[2]:
        return False
    p = packed[1]
    q = p + _SV_SIZE
    if q > end:
        return False
    if data[q - 1] & 0x80:  # original server version follows: only when it differs
        if q + _SV_SIZE > end or int.from_bytes(data[p:q], "little") & _SV_MASK == int.from_bytes(
            data[q : q + _SV_SIZE], "little"
        ):
            return False
        q += _SV_SIZE
    return q == end or q + _TICKET == end


_F2 = MARIADB_GTID.flags2
_CID = MARIADB_GTID.commit_id
_CID_END = _CID + MARIADB_GTID.commit_id_size


def mariadb_gtid_ok(data: bytes, end: int) -> bool:
    """``_mariadb_gtid(...) is not None`` from the bytes alone (post-header length 19 checked
    by the caller; mariadb.md): flags2 without the XA / flags_extra bits, the commit id when
    flagged, then zero padding kept as it is (property-tested equal)."""
    if end - HEADER_SIZE < MARIADB_GTID_POST:
        return False
    f2 = data[_F2]
    if f2 & (FL_PREPARED_XA | FL_COMPLETED_XA):
        return False
    p = _CID
    if f2 & FL_GROUP_COMMIT_ID:
        if end < _CID_END:
            return False
        p = _CID_END
    return p >= end or data[p] == 0


_SID, _SID_END = MYSQL_GTID.sid, MYSQL_GTID.sid + MYSQL_GTID.sid_size
_GNO, _GNO_END = MYSQL_GTID.gno, MYSQL_GTID.gno + MYSQL_GTID.gno_size
_SEQ, _SEQ_END = MARIADB_GTID.seq_no, MARIADB_GTID.seq_no + MARIADB_GTID.seq_no_size
_DOM, _DOM_END = MARIADB_GTID.domain_id, MARIADB_GTID.domain_id + MARIADB_GTID.domain_id_size
_UUIDS: dict[bytes, str] = {}
"""GTID source ids as text by their 16 bytes (few sources per file set)."""


def transaction_gtid(t: int, data: bytes, end: int, fmt: Any, name: str, offset: int) -> str | None:
    """The GTID a GTID event gives its transaction, as the declarative path decodes it: MySQL
    ``uuid:gno`` (type 33), ``uuid:tag:gno`` (42), None for ANONYMOUS_GTID (34, gtid_mode
    OFF); MariaDB ``domain-server-seq`` (162). ``end``: where the body ends (the CRC32 footer
    after it is never read as a field).

    The GNO is MySQL's ``rpl_gno``, a signed 64-bit integer (format.md §8; the server reads
    it with ``read<int64_t>``): bytes ``00..80`` are -9223372036854775808, as the event's
    ``gno`` and the listing say. A server accepts 1..2^63-2 only ("Invalid GNO" otherwise).

    Read from the bytes only in the shapes whose declarative decode is known to be these very
    fields (:func:`_mysql_gtid_ok`, :func:`_mariadb_gtid_ok`); every other body is decoded by
    :func:`~binlogwriter.events.decode_event`, so a body cut short is the located
    :class:`~binlogwriter.errors.DecodeError` ``verify`` and ``inspect`` give, and a GTID the
    decoder keeps raw (not in the form a server writes; ``inspect`` lists it as not decoded)
    is a located :class:`~binlogwriter.errors.KeptRawError`: its transaction's GTID is not
    handed out from fields the reader did not decode."""
    if t == GTID_LOG_EVENT or t == ANONYMOUS_GTID_LOG_EVENT:
        if fmt.post_header_len(t) == MYSQL_GTID.post and mysql_gtid_ok(data, end):
            if t == ANONYMOUS_GTID_LOG_EVENT:
                return None
            sid = bytes(data[_SID:_SID_END])
            u = _UUIDS.get(sid)
            if u is None:
                if len(_UUIDS) >= 4096:
                    _UUIDS.clear()
                u = _UUIDS[sid] = uuid_text(sid)
            return mysql_gtid_text(u, int.from_bytes(data[_GNO:_GNO_END], "little", signed=True))
    elif t == MARIADB_GTID_EVENT and fmt.post_header_len(MARIADB_GTID_EVENT) == MARIADB_GTID_POST and mariadb_gtid_ok(data, end):
        return mariadb_gtid_text(int.from_bytes(data[_DOM:_DOM_END], "little"),
                                 int.from_bytes(data[SERVER_ID_AT:LENGTH_AT], "little"),
                                 int.from_bytes(data[_SEQ:_SEQ_END], "little"))
    ev = decode_event(data, fmt, file=name, offset=offset, verify_checksum=False)
    if isinstance(ev, RawEvent):
        raise KeptRawError(
            f"the GTID of this transaction is not read: the event is kept as raw bytes "
            f"({ev.kept_raw or 'its type is not decoded'})",
            file=name,
            offset=offset,
            event_type=ev.type_name,
        )
    return ev.gtid
