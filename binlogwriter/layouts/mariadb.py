"""MariaDB-only events: ANNOTATE_ROWS (160), BINLOG_CHECKPOINT (161), GTID (162),
GTID_LIST (163), START_ENCRYPTION (164) — mariadb.md "Events".
"""

from __future__ import annotations

import construct as cs
from construct import this

from binlogwriter.layouts.primitives import SText

FL_STANDALONE = 1
FL_GROUP_COMMIT_ID = 2
FL_TRANSACTIONAL = 4
FL_ALLOW_PARALLEL = 8
FL_WAITED = 16
FL_DDL = 32
FL_PREPARED_XA = 64
FL_COMPLETED_XA = 128

FL_EXTRA_MULTI_ENGINE = 1
FL_START_ALTER = 2
FL_COMMIT_ALTER = 4
FL_ROLLBACK_ALTER = 8

ANNOTATE_ROWS_FIELDS = ["query" / SText(cs.GreedyBytes)]

BINLOG_CHECKPOINT_FIELDS = ["log_file" / SText(cs.Prefixed(cs.Int32ul, cs.GreedyBytes))]

START_ENCRYPTION_FIELDS = ["scheme" / cs.Int8ul, "key_version" / cs.Int32ul, "nonce" / cs.Bytes(12)]


GTID_PADDED_SIZE = 19
"""A GTID_EVENT body is zero-padded to this size, which MariaDB's FDE declares as its
post-header length (mariadb.md)."""


def _gtid_trailing(ctx) -> bytes:
    # zero bytes up to GTID_PADDED_SIZE (the post-header length); nothing if already longer
    if ctx.get("trailing") is not None:
        return ctx.trailing
    size = 8 + 4 + 1
    if ctx.flags2 & FL_GROUP_COMMIT_ID:
        size += 8
    if ctx.get("xid") is not None:
        size += 4 + 2 + len(ctx.xid["gtrid"]) + len(ctx.xid["bqual"])
    fe = ctx.get("flags_extra") or 0
    if fe:
        size += 1
        if fe & FL_EXTRA_MULTI_ENGINE:
            size += 1
        if fe & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER):
            size += 8
    return b"\0" * max(0, GTID_PADDED_SIZE - size)


class _FlagsExtra(cs.Construct):
    """``flags_extra`` byte, present only when non-zero: peek the next byte (mariadb.md)."""

    def _parse(self, stream, context, path):
        here = stream.tell()
        b = stream.read(1)
        if not b or b[0] == 0:
            stream.seek(here)
            return None
        return b[0]

    def _build(self, obj, stream, context, path):
        if obj:
            cs.stream_write(stream, bytes((obj,)), 1, path)
        return obj


_XidPart = cs.Struct(
    "format_id" / cs.Int32sl,
    "_gtrid_len" / cs.Rebuild(cs.Int8ul, cs.len_(this.gtrid)),
    "_bqual_len" / cs.Rebuild(cs.Int8ul, cs.len_(this.bqual)),
    "gtrid" / cs.Bytes(this._gtrid_len),
    "bqual" / cs.Bytes(this._bqual_len),
)

class _XaPart(cs.Construct):
    """The XA xid of a GTID with FL_PREPARED_XA/FL_COMPLETED_XA: parsed only when its bytes are
    all there (a hand-made flags2 0xff without them keeps the rest as ``trailing``)."""

    def _parse(self, stream, context, path):
        if not context.flags2 & (FL_PREPARED_XA | FL_COMPLETED_XA):
            return None
        here = stream.tell()
        head = stream.read(6)
        if len(head) == 6:
            need = head[4] + head[5]
            rest = stream.read(need)
            if len(rest) == need:
                stream.seek(here)
                return _XidPart._parsereport(stream, context, path)
        stream.seek(here)
        return None

    def _build(self, obj, stream, context, path):
        if obj is not None:
            _XidPart._build(obj, stream, context, path)
        return obj


GTID_FIELDS = [
    "seq_no" / cs.Int64ul,
    "domain_id" / cs.Int32ul,
    "flags2" / cs.Int8ul,
    "commit_id" / cs.If(this.flags2 & FL_GROUP_COMMIT_ID, cs.Int64ul),
    "xid" / _XaPart(),
    "flags_extra" / _FlagsExtra(),
    "extra_engines" / cs.If(lambda c: (c.flags_extra or 0) & FL_EXTRA_MULTI_ENGINE, cs.Int8ul),
    "sa_seq_no" / cs.If(lambda c: (c.flags_extra or 0) & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER), cs.Int64ul),
    "trailing" / cs.Rebuild(cs.GreedyBytes, _gtid_trailing),
]
"""GTID_EVENT body: seq_no, domain_id, flags2, [commit_id], [XA xid], [flags_extra …], then
zero padding to 19 bytes; bytes these rules do not explain are kept in ``trailing``."""

GTID_LIST_FIELDS = [
    "_count" / cs.Rebuild(cs.Int32ul, lambda c: len(c.gtids) | ((c.get("list_flags") or 0) << 28)),
    "list_flags" / cs.Computed(lambda c: c._count >> 28),
    "gtids" / cs.Array(lambda c: c._count & 0x0FFFFFFF, cs.Struct(
        "domain_id" / cs.Int32ul, "server_id" / cs.Int32ul, "seq_no" / cs.Int64ul)),
    # an empty list carries two extra zero bytes (mariadb.md GTID_LIST)
    "trailing" / cs.Rebuild(cs.GreedyBytes,
                            lambda c: c.trailing if c.get("trailing") is not None
                            else (b"\0\0" if not c.gtids else b"")),
]
