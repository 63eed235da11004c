"""Control events: FDE, ROTATE, STOP, XID, INTVAR, RAND, USER_VAR, INCIDENT, ROWS_QUERY,
heartbeats, XA_PREPARE, LOAD DATA events, PREVIOUS_GTIDS, GTID / ANONYMOUS_GTID / tagged GTID,
TRANSACTION_PAYLOAD (format.md §4–§11, §15–§17). The GTID layouts are in
:mod:`binlogwriter.layouts.gtid` (re-exported here).

Each ``*_FIELDS`` list is the construct fields of an event's post-header + body; which
leading fields form the post-header is said in :data:`binlogwriter.events.table.EVENTS`, and a
longer post-header in the FDE is kept as ``post_header_extra`` (events/table.py).
"""

from __future__ import annotations

import construct as cs
from construct import this

from binlogwriter.format import version_tuple
from binlogwriter.layouts.gtid import (
    GTID_FIELDS,
    PREVIOUS_GTIDS_FIELDS,
    TAGGED_GTID_FIELD_IDS,
    TAGGED_GTID_FIELDS,
    NonCanonical,
    VarlenInt,
    VarlenUint,
    tsids_text,
)
from binlogwriter.layouts.primitives import (
    IfMore,
    NulPadded,
    PackedBytes,
    PackedInt,
    SText,
    encode_packed_int,
    packed_int_size,
)

# the GTID layouts (PREVIOUS_GTIDS, GTID, tagged GTID) live in layouts/gtid.py; re-exported here
_GTID_LAYOUTS = (GTID_FIELDS, PREVIOUS_GTIDS_FIELDS, TAGGED_GTID_FIELD_IDS, TAGGED_GTID_FIELDS, NonCanonical, VarlenInt, VarlenUint, tsids_text)

# ---------------------------------------------------------------------------------- FDE §4


def _fde_table_len(ctx) -> int:
    # N = body - 57 - (1 alg byte if the server is >= 5.6.1); the 4-byte checksum field is
    # cut off as the footer before parsing (format.md §4, the self-describing N rule).
    alg = 1 if version_tuple(ctx.server_version) >= (5, 6, 1) else 0
    return ctx._.body_size - 57 - alg


def _has_alg(ctx) -> bool:
    return version_tuple(ctx.server_version) >= (5, 6, 1)


FDE_FIELDS = [
    "binlog_version" / cs.Int16ul,
    "server_version" / NulPadded(50),
    "create_timestamp" / cs.Int32ul,
    "header_length" / cs.Int8ul,
    "post_header_lengths" / cs.Array(
        lambda ctx: _fde_table_len(ctx) if ctx._parsing else len(ctx.post_header_lengths), cs.Int8ul),
    "checksum_alg" / cs.If(_has_alg, cs.Int8ul),
]

# ------------------------------------------------------------------------------ simple ones

ROTATE_FIELDS = ["position" / cs.Int64ul, "next_file" / SText(cs.GreedyBytes)]
STOP_FIELDS: list = []
XID_FIELDS = ["xid" / cs.Int64ul]
INTVAR_FIELDS = ["type" / cs.Int8ul, "value" / cs.Int64ul]
RAND_FIELDS = ["seed1" / cs.Int64ul, "seed2" / cs.Int64ul]
INCIDENT_FIELDS = ["incident" / cs.Int16ul, "message" / SText(cs.Prefixed(cs.Int8ul, cs.GreedyBytes))]
HEARTBEAT_FIELDS = ["log_filename" / SText(cs.GreedyBytes)]
XA_PREPARE_FIELDS = [
    "one_phase" / cs.Flag,
    "format_id" / cs.Int32sl,
    "_gtrid_length" / cs.Rebuild(cs.Int32ul, cs.len_(this.gtrid)),
    "_bqual_length" / cs.Rebuild(cs.Int32ul, cs.len_(this.bqual)),
    "gtrid" / cs.Bytes(this._gtrid_length),
    "bqual" / cs.Bytes(this._bqual_length),
]

# ROWS_QUERY §11: the length byte holds only the low 8 bits; readers ignore it.
ROWS_QUERY_FIELDS = [
    "length_byte" / cs.Rebuild(
        cs.Int8ul,
        lambda ctx: ctx.length_byte if ctx.get("length_byte") is not None
        else len(ctx.query.encode("utf-8", "surrogateescape")) & 0xFF),
    "query" / SText(cs.GreedyBytes),
]

# USER_VAR §10: name, is_null; then type, charset, value, optional flags.
USER_VAR_FIELDS = [
    "name" / SText(cs.Prefixed(cs.Int32ul, cs.GreedyBytes)),
    "is_null" / cs.Flag,
    "value_type" / cs.If(~this.is_null, cs.Int8ul),
    "charset" / cs.If(~this.is_null, cs.Int32ul),
    "value" / cs.If(~this.is_null, cs.Prefixed(cs.Int32ul, cs.GreedyBytes)),
    "value_flags" / cs.If(~this.is_null, IfMore(cs.Int8ul)),
]

# LOAD DATA family §17.
BEGIN_LOAD_QUERY_FIELDS = ["file_id" / cs.Int32ul, "block" / cs.GreedyBytes]
APPEND_BLOCK_FIELDS = BEGIN_LOAD_QUERY_FIELDS
DELETE_FILE_FIELDS = ["file_id" / cs.Int32ul]

# ------------------------------------------------------------------- heartbeat v2 §16


_TlvItem = cs.Struct(
    "type" / PackedInt,
    "value" / cs.If(this.type != 0, PackedBytes),
)
TlvList = cs.ExprAdapter(
    cs.RepeatUntil(lambda item, lst, ctx: item["type"] == 0, _TlvItem),
    decoder=lambda obj, ctx: [(i.type, i.value) for i in obj[:-1]],
    encoder=lambda obj, ctx: [{"type": t, "value": v} for t, v in obj] + [{"type": 0, "value": None}],
)
"""``packed type · packed length · value`` items up to a type-0 END_MARK, as [(type, bytes)]
(format.md §15 payload header, §16 heartbeat v2)."""


def _packed_value(data: bytes, path: str) -> int:
    """A packed int that must fill its TLV value exactly (format.md §15–§16)."""
    v = PackedInt.parse(data)
    if packed_int_size(v) != len(data):
        raise cs.ExplicitError(f"packed value {v} does not fill its {len(data)}-byte field", path=path)
    return v


class _HeartbeatV2Body(cs.Adapter):
    """TLV body: 1 LOG_FILENAME (bytes), 2 LOG_POSITION (packed int), then the end mark."""

    def _decode(self, obj, context, path):
        out = cs.Container(log_filename=None, log_position=None)
        for t, v in obj:
            if t == 1:
                out.log_filename = v.decode("utf-8", "surrogateescape")
            elif t == 2:
                out.log_position = _packed_value(v, path)
            else:
                raise cs.ExplicitError(f"unknown heartbeat v2 field type {t}", path=path)
        return out

    def _encode(self, obj, context, path):
        items = []
        if obj.get("log_filename") is not None:
            items.append((1, obj["log_filename"].encode("utf-8", "surrogateescape")))
        if obj.get("log_position") is not None:
            items.append((2, encode_packed_int(obj["log_position"])))
        return items


HEARTBEAT_V2_FIELDS = ["heartbeat" / _HeartbeatV2Body(TlvList)]

# ---------------------------------------------------------- TRANSACTION_PAYLOAD (40) §15


class _PayloadHeader(cs.Adapter):
    """Header fields in written order as (type, value); each value a packed int filling its
    TLV length (format.md §15)."""

    def _decode(self, obj, context, path):
        return [(t, _packed_value(v, path)) for t, v in obj]

    def _encode(self, obj, context, path):
        return [(t, encode_packed_int(v)) for t, v in obj]


TRANSACTION_PAYLOAD_FIELDS = ["header_fields" / _PayloadHeader(TlvList), "payload" / cs.GreedyBytes]
