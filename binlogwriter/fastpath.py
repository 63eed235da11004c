"""Fast encoders for the events a writer emits by the million (docs/design.md principle 5).

Each function here produces exactly the bytes of the declarative construct path
(:func:`binlogwriter.events.encode_body` with ``fast=False``) for the events it accepts and
returns None for anything else, which then takes the declarative path. Property tests
(tests/test_fastpath.py) compare both paths byte for byte for every accepted shape, flavor
and checksum.

- rows events whose rows are already encoded (``rows_raw``), v1 and v2, not compressed;
- XID; GTID / ANONYMOUS_GTID (8.0 layout); MariaDB GTID without XA / flags_extra;
- QUERY and TABLE_MAP bodies are memoised (a writer repeats the same BEGIN and the same
  Table_map for every transaction): the first encoding goes through construct.
"""

from __future__ import annotations

import struct
from typing import Any

from binlogwriter.layouts.primitives import encode_bitmap, encode_packed_int

__all__ = ["fast_body", "header_bytes", "MEMO_LIMIT"]

MEMO_LIMIT = 4096
_memo: dict[Any, bytes] = {}
_HEADER = struct.Struct("<IBIIIH")
_XID = struct.Struct("<Q")


def header_bytes(timestamp: int, type_code: int, server_id: int, length: int, log_pos: int, flags: int) -> bytes:
    """The 19-byte common header (format.md §3) — same bytes as layouts.header.Header."""
    return _HEADER.pack(timestamp, type_code, server_id, length, log_pos, flags)


def _bitmap(bits: Any) -> bytes:
    return encode_bitmap(getattr(bits, "bits", bits), False, getattr(bits, "pad", 0))


def _rows(ev: Any, fmt: Any) -> bytes | None:
    if ev.rows_raw is None or ev.post_header_extra or ev.unparsed or ev.TYPE >= 166 or ev.TYPE == 39:
        return None
    tid = ev.table_id.to_bytes(fmt.table_id_size, "little")
    out = [tid, ev.rows_flags.to_bytes(2, "little")]
    if ev.TYPE >= 30:
        out.append((len(ev.extra_info) + 2).to_bytes(2, "little"))
        out.append(ev.extra_info)
    out.append(encode_packed_int(ev.width))
    if len(ev.columns_present) != ev.width:
        return None
    out.append(_bitmap(ev.columns_present))
    if ev.TYPE in (24, 31):
        if ev.columns_after is None or len(ev.columns_after) != ev.width:
            return None
        out.append(_bitmap(ev.columns_after))
    out.append(ev.rows_raw)
    return b"".join(out)


def _flagged(imm: int, orig: int | None, size: int) -> bytes:
    if orig is None:
        return imm.to_bytes(size, "little")
    bit = 1 << (8 * size - 1)
    return (imm | bit).to_bytes(size, "little") + orig.to_bytes(size, "little")


def _gtid(ev: Any, fmt: Any) -> bytes | None:
    if ev.post_header_extra or ev.unparsed or ev.lt_typecode is None or ev.last_committed is None \
            or ev.sequence_number is None or ev.immediate_commit_timestamp is None \
            or ev.transaction_length is None or ev.immediate_server_version is None:
        return None
    parts = [bytes((ev.gtid_flags,)), bytes.fromhex(ev.sid.replace("-", "")),
             struct.pack("<qBqq", ev.gno, ev.lt_typecode, ev.last_committed, ev.sequence_number),
             _flagged(ev.immediate_commit_timestamp, ev.original_commit_timestamp, 7),
             encode_packed_int(ev.transaction_length),
             _flagged(ev.immediate_server_version, ev.original_server_version, 4)]
    if ev.commit_group_ticket is not None:
        parts.append(struct.pack("<Q", ev.commit_group_ticket))
    return b"".join(parts)


def _mariadb_gtid(ev: Any, fmt: Any) -> bytes | None:
    if ev.xid is not None or ev.flags_extra or ev.post_header_extra or ev.unparsed:
        return None
    body = struct.pack("<QIB", ev.seq_no, ev.domain_id, ev.flags2)
    if ev.flags2 & 2:
        if ev.commit_id is None:
            return None
        body += struct.pack("<Q", ev.commit_id)
    if ev.trailing is not None:
        return body + ev.trailing
    return body + b"\0" * max(0, 19 - len(body))


def _memo_key(ev: Any, fmt: Any) -> Any:
    if ev.TYPE == 2:
        return (2, fmt, ev.thread_id, ev.exec_time, ev.error_code, repr(ev.status_vars), ev.db, ev.query,
                ev.post_header_extra)
    if ev.TYPE == 19:
        nb = ev.null_bits
        return (19, fmt, ev.table_id, ev.tm_flags, ev.schema, ev.table, tuple(ev.column_types), ev.metadata,
                tuple(nb), getattr(nb, "pad", 0), repr(ev.optional_metadata), ev.post_header_extra)
    return None


def fast_body(event: Any, fmt: Any, declarative: Any) -> bytes | None:
    """Body bytes by a fast encoder, or from the memo (filled by ``declarative(event)``)."""
    t = event.TYPE
    if t in (23, 24, 25, 30, 31, 32):
        return _rows(event, fmt)
    if t == 16 and not event.post_header_extra and not event.unparsed:
        return _XID.pack(event.xid)
    if t in (33, 34):
        return _gtid(event, fmt)
    if t == 162:
        return _mariadb_gtid(event, fmt)
    if t in (2, 19) and type(event).__name__ in ("QueryEvent", "TableMapEvent"):
        key = _memo_key(event, fmt)
        body = _memo.get(key)
        if body is None:
            body = declarative(event)
            if len(_memo) >= MEMO_LIMIT:
                _memo.clear()
            _memo[key] = body
        return body
    return None
