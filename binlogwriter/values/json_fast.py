"""A faster reader of MySQL binary JSON for the compiled row decoders (values.md §7).

:func:`binlogwriter.values.json_binary.decode_json` is the reference. This reader works on
absolute positions in one ``bytes`` buffer (no memoryview slices), reads each container's
key and value entries with one precomputed ``struct`` format per (entry count, width), and
takes the short form of the variable-length string size inline. It checks no less than the
reference and refuses more: on anything it does not take (a malformed document, an
unknown node type, a deep document) it raises, and the caller re-reads the value with the
reference, which gives the value or the located error. Opaque nodes (DECIMAL, temporal,
other) are mapped by the reference's own ``_opaque_value``. A property test asserts both
give equal values on generated documents (tests/read/test_rowdecode_props.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from binlogwriter.values.json_binary import opaque_value, read_varlen
from binlogwriter.values.types import JsonUInt

__all__ = ["decode_json_at", "memo_json_reader", "FastJsonRefused"]

_HH = struct.Struct("<HH")
_II = struct.Struct("<II")
_NUM = {0x05: struct.Struct("<h"), 0x07: struct.Struct("<i"), 0x09: struct.Struct("<q"),
        0x06: struct.Struct("<H"), 0x08: struct.Struct("<I"), 0x0A: struct.Struct("<Q"),
        0x0B: struct.Struct("<d")}
_UNSIGNED = frozenset((0x06, 0x08, 0x0A))
_DEPTH = 64
"""Deeper documents go to the reference (it allows 100 and names the limit)."""

_ENTRIES: dict[tuple[int, int, bool], Any] = {}


class FastJsonRefused(Exception):
    """The fast reader does not take this document: re-read it with the reference."""


def _entries(count: int, large: int, obj: bool) -> Any:
    key = (count, large, obj)
    st = _ENTRIES.get(key)
    if st is None:
        w = "I" if large else "H"
        st = struct.Struct("<" + (w + "H") * count * obj + ("B" + w) * count)
        if len(_ENTRIES) < 2048:
            _ENTRIES[key] = st
    return st.unpack_from


def _scalar(buf: bytes, t: int, pos: int, end: int) -> Any:
    """A non-inlined scalar node whose bytes start at ``pos`` (after its type)."""
    if t == 0x0C:
        n = buf[pos]
        if n < 0x80:
            pos += 1
        else:
            n, pos = read_varlen(buf, pos, end)
        e = pos + n
        if e > end:
            raise FastJsonRefused
        return buf[pos:e].decode("utf-8")
    st = _NUM.get(t)
    if st is not None:
        if pos + st.size > end:
            raise FastJsonRefused
        v = st.unpack_from(buf, pos)[0]
        return JsonUInt(v) if t in _UNSIGNED else v
    if t == 0x04:
        if pos >= end:
            raise FastJsonRefused
        return _literal(buf[pos])
    if t == 0x0F:
        if pos >= end:
            raise FastJsonRefused
        ft = buf[pos]
        n, pos = read_varlen(buf, pos + 1, end)
        if pos + n > end:
            raise FastJsonRefused
        return opaque_value(ft, buf[pos:pos + n])
    raise FastJsonRefused


def _literal(b: int) -> Any:
    if b == 0:
        return None
    if b == 1:
        return True
    if b == 2:
        return False
    raise FastJsonRefused


def _container(buf: bytes, t: int, start: int, end: int, depth: int) -> Any:
    if depth > _DEPTH:
        raise FastJsonRefused
    large = t & 1
    if large:
        count, size = _II.unpack_from(buf, start)
        hdr = 8
    else:
        count, size = _HH.unpack_from(buf, start)
        hdr = 4
    cend = start + size
    is_obj = t < 2
    w = hdr >> 1
    if cend > end or start + hdr + count * ((w + 2 if is_obj else 0) + 1 + w) > cend:
        raise FastJsonRefused
    ents = _entries(count, large, is_obj)(buf, start + hdr)
    vi = 0
    if is_obj:
        vi = 2 * count
        if count:
            # the keys, memoised by the key entries and the key bytes they point at (keys
            # laid out back to back, as servers write them; anything else is read each time)
            kb = buf[start + hdr:start + hdr + count * (w + 2)]
            ko = start + ents[0]
            ke = start + ents[vi - 2] + ents[vi - 1]
            if ke > cend:
                raise FastJsonRefused
            ck = (kb, buf[ko:ke])
            keys = _KEYS.get(ck)
            if keys is None:
                keys = _keys(buf, start, cend, ents, count)
                if ke - ko == sum(ents[1:vi:2]) and all(
                        ents[i + 2] == ents[i] + ents[i + 1] for i in range(0, vi - 2, 2)):
                    if len(_KEYS) >= 4096:
                        _KEYS.clear()
                    _KEYS[ck] = keys
        else:
            keys = ()
    values = []
    for i in range(vi, vi + 2 * count, 2):
        vt = ents[i]
        off = ents[i + 1]
        if vt == 0x0C:
            if off >= size:
                raise FastJsonRefused
            p = start + off
            n = buf[p]
            if n < 0x80:
                p += 1
            else:
                n, p = read_varlen(buf, p, cend)
            e = p + n
            if e > cend:
                raise FastJsonRefused
            values.append(buf[p:e].decode("utf-8"))
        elif vt == 0x04:
            values.append(_literal(off & 0xFF))
        elif vt == 0x05:
            v = off & 0xFFFF
            values.append(v - 0x10000 if v & 0x8000 else v)
        elif vt == 0x06:
            values.append(JsonUInt(off & 0xFFFF))
        elif large and vt == 0x07:
            values.append(off - 0x100000000 if off & 0x80000000 else off)
        elif large and vt == 0x08:
            values.append(JsonUInt(off))
        else:
            if off >= size:
                raise FastJsonRefused
            if vt <= 3:
                values.append(_container(buf, vt, start + off, cend, depth + 1))
            else:
                values.append(_scalar(buf, vt, start + off, cend))
    if is_obj:
        return dict(zip(keys, values, strict=True))
    return values


def _keys(buf: bytes, start: int, cend: int, ents: tuple, count: int) -> tuple:
    keys = []
    for i in range(0, 2 * count, 2):
        ko = start + ents[i]
        ke = ko + ents[i + 1]
        if ke > cend:
            raise FastJsonRefused
        keys.append(buf[ko:ke].decode("utf-8"))
    return tuple(keys)


_KEYS: dict[tuple[bytes, bytes], tuple] = {}
"""Object keys by (key entries, key bytes): documents of one column repeat their keys."""


def decode_json_at(buf: bytes, start: int, end: int) -> Any:
    """The value of the binary JSON document ``buf[start:end]`` (non-empty), as
    :func:`~binlogwriter.values.json_binary.decode_json` gives it; raises (any exception)
    when the reference must decide."""
    t = buf[start]
    if t <= 3:
        return _container(buf, t, start + 1, end, 1)
    return _scalar(buf, t, start + 1, end)


def _copy(v: Any) -> Any:
    """A fresh copy of the containers of a decoded document (scalars are immutable, shared)."""
    if type(v) is dict:
        return {k: _copy(x) if type(x) in _CONTAINERS else x for k, x in v.items()}
    return [_copy(x) if type(x) in _CONTAINERS else x for x in v]


_CONTAINERS = (dict, list)


def _copier(v: Any) -> Callable[[Any], Any] | None:
    """How to copy ``v`` for a caller: None for a scalar (immutable), ``dict.copy`` /
    ``list.copy`` when no container nests in it, else a copier made for ``v``'s shape (a
    memoised document never changes): a shallow copy, then each nested container copied
    by its own copier at its known key or index."""
    t = type(v)
    if t is not dict and t is not list:
        return None
    items = v.items() if t is dict else enumerate(v)
    subs = tuple((k, _copier(x)) for k, x in items if type(x) in _CONTAINERS)
    shallow = dict.copy if t is dict else list.copy
    if not subs:
        return shallow
    if len(subs) > 16:  # wide documents: the recursive copy
        return _copy

    def copy(x: Any) -> Any:
        y = shallow(x)
        for k, cp in subs:
            y[k] = cp(y[k])
        return y
    return copy


MEMO_MAX_DOC = 2048
"""Documents longer than this many bytes are not memoised."""


def memo_json_reader(max_entries: int = 4096) -> Callable[[bytes, int, int], Any]:
    """``read(buf, start, end)`` as :func:`decode_json_at`, memoised by the document's bytes
    for one column (documents repeat: an UPDATE's before and after images, catalogue rows).
    The memo keeps its decoded tree to itself: every call returns fresh containers (a copy),
    so a caller may edit what it gets as it may edit a fresh decode. After 1024 lookups with
    fewer than one hit in eight the column stops memoising (its documents do not repeat)."""
    memo: dict[bytes, tuple[Any, Any]] = {}
    stats = [0, 0]  # lookups, hits

    def read(buf: bytes, start: int, end: int) -> Any:
        if end - start > MEMO_MAX_DOC or stats[0] < 0:
            return decode_json_at(buf, start, end)
        k = buf[start:end]
        hit = memo.get(k)
        stats[0] += 1
        if hit is not None:
            stats[1] += 1
            v, cp = hit
            return v if cp is None else cp(v)
        if stats[0] >= 1024:
            if stats[1] * 8 < stats[0]:
                stats[0] = -1  # off for good
                memo.clear()
                return decode_json_at(buf, start, end)
            stats[0] = stats[1] = 0
        v = decode_json_at(buf, start, end)
        cp = _copier(v)
        if len(memo) >= max_entries:
            memo.clear()
        memo[k] = (v, cp)
        return v if cp is None else cp(v)

    return read
