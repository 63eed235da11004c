"""MySQL binary JSON (type 245) both ways (values.md §7, ``sql-common/json_binary.h``).

Python types of a JSON document:

=====================  ======================================================================
JSON node              Python
=====================  ======================================================================
object                 ``dict`` (str keys; decoded in stored order: by byte length, then bytes)
array                  ``list`` (``tuple`` accepted when encoding)
literal                ``None`` / ``True`` / ``False``
int16/int32/int64      ``int`` (encoding picks the smallest; above INT64_MAX → uint64)
uint16/uint32/uint64   :class:`JsonUInt` (an ``int``; encoding picks the smallest unsigned)
double                 ``float`` (NaN/inf refused)
string                 ``str`` (utf8mb4)
opaque DECIMAL (246)   ``Decimal``; :class:`JsonDecimal` when the stored precision is wider than
                       ``max(1, integer digits) + scale``
opaque DATE (10)       ``datetime.date`` / ``MysqlDate``
opaque DATETIME (12)   naive ``datetime.datetime`` / ``MysqlDateTime``
opaque TIMESTAMP (7)   :class:`JsonTimestamp` (a naive ``datetime``)
opaque TIME (11)       ``datetime.timedelta`` (``MysqlTime`` and ``datetime.time`` accepted)
other opaque           :class:`JsonOpaque` ``(field_type, data)`` — also for mapped opaque
                       nodes whose bytes would not re-encode identically
=====================  ======================================================================

A JSON *column* value is a 4-byte LE length + document. At that level ``None`` is SQL NULL, so
a top-level JSON ``null`` is :data:`JSON_NULL` (``04 00``) or :data:`JSON_NULL_EMPTY` (the
zero-length value, "JSON null" per the server); both compare equal.

Serialization follows the server: containers are written small (u16 counts/offsets) unless
their size exceeds 65535 bytes, then large (u32), each container deciding for itself;
literals/int16/uint16 are inlined in value entries, int32/uint32 only in large containers;
object keys sorted by byte length then bytes; depth limited to 100 (JSON_DOCUMENT_MAX_DEPTH).

The node writers are in :mod:`~binlogwriter.values.json_binary_encode`, the reader in
:mod:`~binlogwriter.values.json_binary_decode`; this module is the entry point of both.
"""

from __future__ import annotations

from typing import Any

from binlogwriter.values.json_binary_decode import decode_json
from binlogwriter.values.json_binary_decode import opaque_value as opaque_value  # json_fast
from binlogwriter.values.json_binary_decode import read_varlen as read_varlen  # json_fast
from binlogwriter.values.json_binary_encode import MAX_DEPTH, JsonEncodeError, node
from binlogwriter.values.json_binary_fast import Unplain, encode_plain
from binlogwriter.values.types import JsonNull

__all__ = ["encode_json", "decode_json", "JsonEncodeError", "MAX_DEPTH"]


def encode_json(value: Any) -> bytes:
    """The binary JSON document of ``value`` (no length prefix); JsonEncodeError if it has none.

    ``None`` is the null literal here; :data:`JSON_NULL` too, :data:`JSON_NULL_EMPTY` gives b"".
    A :class:`JsonKeptObject` / :class:`JsonKeptArray` whose content is still what its
    ``binary`` holds gives those bytes back.
    """
    tv = type(value)
    if tv is dict or tv is list:
        try:
            return encode_plain(value)  # same bytes (json_binary_fast.py)
        except Unplain:
            pass
    if isinstance(value, JsonNull):
        return b"" if value.empty else b"\x04\x00"
    t, body = node(value, 0)
    doc = bytes((t,)) + body
    kept = getattr(value, "binary", None) if type(value) in (JsonKeptObject, JsonKeptArray) else None
    if kept is not None and doc != kept:
        try:
            same = encode_json(decode_json(kept)) == doc
        except (ValueError, RecursionError):
            same = False
        if same:
            return kept
    return doc


class JsonKeptObject(dict):
    """A JSON object read from a binlog: a plain ``dict`` for every use, whose ``binary``
    keeps the document's bytes. :func:`encode_json` gives them back while the content is
    unchanged, so a document not in the shortest form the encoder writes (MySQL leaves unused
    bytes in one updated in place, see ``JSON_STORAGE_FREE``; values.md §7) re-encodes to
    the bytes read."""

    __slots__ = ("binary",)


class JsonKeptArray(list):
    """The :class:`JsonKeptObject` of an array."""

    __slots__ = ("binary",)
