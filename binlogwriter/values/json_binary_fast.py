"""Binary JSON encoding of plain documents, fast (values.md §7, ``sql-common/json_binary.cc``).

The same bytes as the node writers of :mod:`~binlogwriter.values.json_binary_encode` for a
document made only of ``dict`` (str keys), ``list``, ``str``, ``int``, ``float``, ``bool`` and
``None`` whose containers all fit the small (u16) form — the documents generators and most
users write. Anything else (other types, a large container, a depth beyond 100, a string that
is not utf8mb4) raises :class:`Unplain` and the caller takes the general path, which also
gives the error. ``tests/values/test_json_binary_fast.py`` checks the two agree byte for byte.

What is pure is kept: an object's key set (in its dict order) maps to its stored key order,
key entries and key bytes, which only depend on the keys (the key entries' offsets start after
the header, whose size is fixed by the number of members).
"""

from __future__ import annotations

import math
import struct
from typing import Any

from binlogwriter.values.json_binary_encode import (
    DOUBLE,
    INT16,
    INT32,
    INT64,
    MAX_DEPTH,
    SMALL_ARRAY,
    SMALL_OBJECT,
    STRING,
    varlen,
)

__all__ = ["Unplain", "encode_plain"]


class Unplain(Exception):
    """The document needs the general encoder (see the module docstring)."""


_I16 = struct.Struct("<h").pack
_I32 = struct.Struct("<i").pack
_I64 = struct.Struct("<q").pack
_DBL = struct.Struct("<d").pack
_OFF = struct.Struct("<BH").pack  # a value entry pointing at its data (small container)
_HEAD = struct.Struct("<HH").pack  # member count, container size

# value entries of the nodes inlined in a small container: literals, int16 (uint16 is never
# produced from a plain int)
_NONE, _TRUE, _FALSE = b"\x04\x00\x00", b"\x04\x01\x00", b"\x04\x02\x00"

_KEYS_MAX = 4096
_keys_cache: dict[tuple[str, ...], tuple[list[int], bytes, int]] = {}


def key_layout(keys: tuple[str, ...]) -> tuple[list[int], bytes, int]:
    """(stored order as indices into ``keys``, key entries + key bytes, their length)."""
    got = _keys_cache.get(keys)
    if got is not None:
        return got
    encoded = []
    for i, k in enumerate(keys):
        if type(k) is not str:
            raise Unplain
        try:
            kb = k.encode("utf-8")
        except UnicodeEncodeError:
            raise Unplain from None
        if len(kb) > 0xFFFF:
            raise Unplain
        encoded.append((len(kb), kb, i))
    encoded.sort()
    n = len(keys)
    off = 4 + n * 7  # count, size, n key entries (u16 offset, u16 length), n value entries
    entries = bytearray()
    for ln, _, _ in encoded:
        entries += _HEAD(off, ln)
        off += ln
    block = bytes(entries) + b"".join(kb for _, kb, _ in encoded)
    got = ([i for _, _, i in encoded], block, len(block))
    if len(_keys_cache) >= _KEYS_MAX:
        _keys_cache.clear()
    _keys_cache[keys] = got
    return got


def _child(v: Any, depth: int, tail: list[bytes], off: int) -> tuple[bytes, int]:
    """(value entry of ``v`` in a small container, new data offset); its data goes to ``tail``."""
    t = type(v)
    if t is str:
        try:
            data = v.encode("utf-8")
        except UnicodeEncodeError:
            raise Unplain from None
        n = len(data)
        tail.append((bytes((n,)) if n < 0x80 else varlen(n)) + data)
        return _OFF(STRING, off), off + len(tail[-1])
    if t is int:
        if -32768 <= v <= 32767:
            return bytes((INT16,)) + _I16(v), off
        if -2147483648 <= v <= 2147483647:
            tail.append(_I32(v))
            return _OFF(INT32, off), off + 4
        if -(1 << 63) <= v < (1 << 63):
            tail.append(_I64(v))
            return _OFF(INT64, off), off + 8
        raise Unplain
    if v is None:
        return _NONE, off
    if v is True:
        return _TRUE, off
    if v is False:
        return _FALSE, off
    if t is dict:
        data = _object(v, depth + 1)
        tail.append(data)
        return _OFF(SMALL_OBJECT, off), off + len(data)
    if t is list:
        data = _array(v, depth + 1)
        tail.append(data)
        return _OFF(SMALL_ARRAY, off), off + len(data)
    if t is float:
        if not math.isfinite(v):
            raise Unplain
        tail.append(_DBL(v))
        return _OFF(DOUBLE, off), off + 8
    raise Unplain


def _object(value: dict, depth: int) -> bytes:
    """A small object's bytes after its type byte."""
    if depth > MAX_DEPTH:
        raise Unplain
    keys = tuple(value)
    try:
        order, block, blen = key_layout(keys)
    except struct.error:  # a key offset beyond u16: the object is large
        raise Unplain from None
    vals = list(value.values())
    n = len(keys)
    off = 4 + n * 3 + blen  # header (count, size, key and value entries) + keys
    ents = []
    tail: list[bytes] = []
    try:
        for i in order:
            e, off = _child(vals[i], depth, tail, off)
            ents.append(e)
    except struct.error:  # an offset beyond u16: the container is large
        raise Unplain from None
    if off > 0xFFFF:
        raise Unplain
    return _HEAD(n, off) + block[:n * 4] + b"".join(ents) + block[n * 4:] + b"".join(tail)


def _array(value: list, depth: int) -> bytes:
    """A small array's bytes after its type byte."""
    if depth > MAX_DEPTH:
        raise Unplain
    n = len(value)
    off = 4 + n * 3
    ents = []
    tail: list[bytes] = []
    try:
        for v in value:
            e, off = _child(v, depth, tail, off)
            ents.append(e)
    except struct.error:  # an offset beyond u16: the container is large
        raise Unplain from None
    if off > 0xFFFF:
        raise Unplain
    return _HEAD(n, off) + b"".join(ents) + b"".join(tail)


def encode_plain(value: Any) -> bytes:
    """The binary JSON document of a plain ``dict`` or ``list`` (type byte included);
    :class:`Unplain` when it needs the general encoder."""
    t = type(value)
    if t is dict:
        return b"\x00" + _object(value, 1)
    if t is list:
        return b"\x02" + _array(value, 1)
    raise Unplain
