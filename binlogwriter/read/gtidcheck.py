"""GTID verdicts of ``verify --roundtrip`` from the bytes alone (format.md §8, mariadb.md):
whether a MySQL GTID / ANONYMOUS_GTID or a MariaDB GTID body re-encodes to itself, without
building the event. Used by :mod:`binlogwriter.read.fastverify`; each is property-tested equal
to the fast event readers' verdict (tests/test_fastverify_props.py).
"""

from __future__ import annotations

from typing import Any

from binlogwriter.read.fastdecode import _mysql_gtid

__all__ = ["_mysql_gtid_exact", "_mysql_gtid_ok", "_mariadb_gtid_ok"]


def _mysql_gtid_exact(t: int, data: bytes, end: int, fmt: Any) -> bool:
    """GTID / ANONYMOUS_GTID in the shape the fast decoder reads, with every variable-size
    field (the commit timestamps and server versions with their "original differs" high
    bit, the packed transaction length) in the one form the encoder writes."""
    ev = _mysql_gtid(t, data, end, fmt, 0, 0, 0, 0)
    if ev is None:
        return False
    p = 61
    if data[p + 6] & 0x80:  # original commit timestamp follows: only when it differs
        if ev.original_commit_timestamp == ev.immediate_commit_timestamp:
            return False
        p += 14
    else:
        p += 7
    tlen = ev.transaction_length
    b = data[p]
    width = 1 if b < 251 else 3 if b == 0xFC else 4 if b == 0xFD else 9
    if width != (1 if tlen < 251 else 3 if tlen < 1 << 16 else 4 if tlen < 1 << 24 else 9):
        return False
    p += width
    if data[p + 3] & 0x80:
        if ev.original_server_version == ev.immediate_server_version:
            return False
    return True


def _mysql_gtid_ok(data: bytes, end: int) -> bool:
    """:func:`_mysql_gtid_exact` from the bytes alone, no event built (post-header length 42
    checked by the caller): the 8.0 shape, the "original differs" high bits only over values
    that differ, the transaction length packed in its shortest form, then nothing or the
    8-byte commit group ticket (format.md §8; property-tested equal)."""
    if end < 73:  # header, post-header, 7-byte timestamp, 1-byte length, 4-byte version
        return False
    if data[67] & 0x80:  # original commit timestamp follows: only when it differs
        if end < 75 or int.from_bytes(data[61:68], "little") & 0x7FFFFFFFFFFFFF == int.from_bytes(
                data[68:75], "little"):
            return False
        p = 75
    else:
        p = 68
    if p >= end:
        return False
    b = data[p]
    if b < 251:
        p += 1
    elif b == 0xFC:
        if p + 3 > end or data[p + 1] | data[p + 2] << 8 < 251:
            return False
        p += 3
    elif b == 0xFD:
        if p + 4 > end or int.from_bytes(data[p + 1:p + 4], "little") < 1 << 16:
            return False
        p += 4
    elif b == 0xFE:
        if p + 9 > end or int.from_bytes(data[p + 1:p + 9], "little") < 1 << 24:
            return False
        p += 9
    else:
        return False
    if p + 4 > end:
        return False
    if data[p + 3] & 0x80:  # original server version follows: only when it differs
        if p + 8 > end or int.from_bytes(data[p:p + 4], "little") & 0x7FFFFFFF == int.from_bytes(
                data[p + 4:p + 8], "little"):
            return False
        p += 8
    else:
        p += 4
    return p == end or p + 8 == end


def _mariadb_gtid_ok(data: bytes, end: int) -> bool:
    """``_mariadb_gtid(...) is not None`` from the bytes alone (post-header length 19 checked
    by the caller; mariadb.md): flags2 without the XA / flags_extra bits, the commit id when
    flagged, then zero padding kept as it is (property-tested equal)."""
    n = end - 19
    if n < 19:
        return False
    f2 = data[31]
    if f2 & 192:
        return False
    p = 32
    if f2 & 2:
        if n < 21:
            return False
        p = 40
    return p >= end or data[p] == 0
