"""Primitive constructs shared by every layout (docs/design.md principle 1).

Each custom construct implements parse, build and sizeof; everything else in
``binlogwriter.layouts`` is a declaration built from these and construct's own classes.
"""

from __future__ import annotations

from typing import Any

import construct as cs
from construct import Construct, SizeofError, stream_read, stream_write

__all__ = [
    "PackedInt",
    "packed_int_size",
    "encode_packed_int",
    "PackedBytes",
    "PackedString",
    "Int48ul",
    "Bitmap",
    "MsbBitmap",
    "Uuid",
    "RestBytes",
]


def packed_int_size(value: int) -> int:
    """Bytes ``net_store_length`` uses for ``value`` (format.md §2)."""
    if value < 251:
        return 1
    if value < 1 << 16:
        return 3
    if value < 1 << 24:
        return 4
    return 9


def encode_packed_int(value: int) -> bytes:
    """``net_store_length``: shortest form, 251..255 take 3 bytes (format.md §2)."""
    if value < 0 or value >= 1 << 64:
        raise cs.IntegerError(f"packed integer out of range: {value}")
    if value < 251:
        return bytes((value,))
    if value < 1 << 16:
        return b"\xfc" + value.to_bytes(2, "little")
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    return b"\xfe" + value.to_bytes(8, "little")


PACKED_FORMS = {0xFC: (2, 251), 0xFD: (3, 1 << 16), 0xFE: (8, 1 << 24)}
"""Packed integer prefix byte -> (bytes of value after it, smallest value that needs this form);
a first byte below 251 is the value itself (format.md §2)."""


def read_packed(data: bytes, p: int, end: int) -> tuple[int, int, bool] | None:
    """(value, position after it, whether it is in its shortest form) of the packed integer at
    ``p`` in ``data[:end]``, as :data:`PackedInt` parses it; None when the prefix is invalid
    or the value runs past ``end`` (for the fast readers, which then defer to construct)."""
    if p >= end:
        return None
    b = data[p]
    if b < 251:
        return b, p + 1, True
    form = PACKED_FORMS.get(b)
    if form is None or p + 1 + form[0] > end:
        return None
    q = p + 1 + form[0]
    v = int.from_bytes(data[p + 1:q], "little")
    return v, q, v >= form[1]


class _PackedInt(Construct):
    """Length-encoded integer (``net_field_length`` / ``net_store_length``), format.md §2."""

    def _parse(self, stream, context, path):
        b = stream_read(stream, 1, path)[0]
        if b < 251:
            return b
        form = PACKED_FORMS.get(b)
        if form is None:
            raise cs.ExplicitError(f"invalid packed integer prefix 0x{b:02x}", path=path)
        return int.from_bytes(stream_read(stream, form[0], path), "little")

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int):
            raise cs.IntegerError(f"packed integer needs an int, got {obj!r}", path=path)
        data = encode_packed_int(obj)
        stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("packed integer has variable size", path=path)

    def _emitdecompiled(self, context):  # pragma: no cover - compile() not used on it
        raise NotImplementedError


PackedInt = _PackedInt()
"""A packed (length-encoded) integer."""

PackedBytes = cs.Prefixed(PackedInt, cs.GreedyBytes)
"""Bytes preceded by their packed length."""

PackedString = cs.PascalString(PackedInt, "utf8")
"""UTF-8 text preceded by its packed byte length (identifiers: utf8mb3)."""

Int48ul = cs.BytesInteger(6, swapped=True)
"""Unsigned 6-byte little-endian integer (table ids)."""

RestBytes = cs.GreedyBytes
"""Everything up to the end of the event body (the footer is cut off before parsing)."""


def uuid_text(raw: bytes) -> str:
    """16 source-id bytes as a server UUID's canonical text ``xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``
    (lower case, RFC 4122 byte order): the one home of a GTID's source text (format.md §8)."""
    h = raw.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


class _Uuid(cs.Adapter):
    """16 bytes shown as the canonical text form ``xxxxxxxx-xxxx-…`` (RFC 4122 byte order)."""

    def _decode(self, obj, context, path):
        return uuid_text(obj)

    def _encode(self, obj, context, path):
        raw = bytes.fromhex(str(obj).replace("-", ""))
        if len(raw) != 16:
            raise cs.ExplicitError(f"bad uuid {obj!r}", path=path)
        return raw


Uuid = _Uuid(cs.Bytes(16))


class _Bitmap(Construct):
    """A bitmap of ``count`` bits in ceil(count/8) bytes, as a tuple of bools.

    ``msb_first=False``: bit i is bit (i % 8) of byte i // 8 (column bitmaps, null bits);
    ``msb_first=True``: bit i is 0x80 >> (i % 8) (Table_map SIGNEDNESS / COLUMN_VISIBILITY).
    Padding bits are not part of the value; ``pad`` (0 or 1) is what the builder writes there
    and ``padding`` (a context key, optional) lets a parser keep what it read so that a
    re-encode is byte-exact (format.md §12, §13).
    """

    def __init__(self, count, msb_first: bool = False):
        super().__init__()
        self.count = count
        self.msb_first = msb_first

    def _n(self, context) -> int:
        return cs.evaluate(self.count, context)

    def _parse(self, stream, context, path):
        n = self._n(context)
        data = stream_read(stream, (n + 7) // 8, path)
        return decode_bitmap(data, n, self.msb_first)

    def _build(self, obj, stream, context, path):
        n = self._n(context)
        bits = obj
        pad = 0
        if isinstance(obj, BitmapValue):
            pad = obj.pad
            bits = obj.bits
        if len(bits) != n:
            raise cs.ExplicitError(f"bitmap needs {n} bits, got {len(bits)}", path=path)
        stream_write(stream, encode_bitmap(bits, self.msb_first, pad), (n + 7) // 8, path)
        return obj

    def _sizeof(self, context, path):
        return (self._n(context) + 7) // 8


class BitmapValue(tuple):
    """A parsed bitmap that remembers its padding bits (``pad`` = raw padding value)."""

    pad: int
    bits: tuple

    def __new__(cls, bits, pad: int = 0):
        obj = super().__new__(cls, bits)
        obj.pad = pad
        obj.bits = tuple(bits)
        return obj


def encode_bitmap(bits, msb_first: bool = False, pad: int = 0) -> bytes:
    """Pack bools into bytes; ``pad`` is the raw value of the padding bits (all-ones: -1)."""
    n = len(bits)
    out = bytearray((n + 7) // 8)
    for i, b in enumerate(bits):
        if b:
            out[i >> 3] |= (0x80 >> (i & 7)) if msb_first else (1 << (i & 7))
    rem = n & 7
    if rem and pad:
        mask = (0xFF >> rem) if msb_first else (0xFF << rem) & 0xFF
        out[-1] |= pad & mask if pad != -1 else mask
    return bytes(out)


def decode_bitmap(data: bytes, n: int, msb_first: bool = False) -> BitmapValue:
    bits = [bool(data[i >> 3] & ((0x80 >> (i & 7)) if msb_first else (1 << (i & 7)))) for i in range(n)]
    rem = n & 7
    pad = 0
    if rem:
        mask = (0xFF >> rem) if msb_first else (0xFF << rem) & 0xFF
        pad = data[-1] & mask
    return BitmapValue(bits, pad)


def Bitmap(count, msb_first: bool = False) -> Construct:
    return _Bitmap(count, msb_first)


def MsbBitmap(count) -> Construct:
    return _Bitmap(count, True)


def build(layout: Construct, obj: Any, **ctx: Any) -> bytes:
    """Build helper that raises construct's own errors (callers translate them)."""
    return layout.build(obj, **ctx)


def parse(layout: Construct, data: bytes, **ctx: Any) -> Any:
    return layout.parse(data, **ctx)


__all__ += ["uuid_text"]
__all__ += ["BitmapValue", "encode_bitmap", "decode_bitmap"]


class _IfMore(cs.Subconstruct):
    """A trailing optional part: parsed only if bytes remain, built only if not None.

    Used for fields that old writers omit at the end of an event (format.md §8: GTID parts
    "optional at the end for old writers"; §10: USER_VAR's flags byte).
    """

    def _parse(self, stream, context, path):
        here = stream.tell()
        stream.seek(0, 2)
        end = stream.tell()
        stream.seek(here)
        if here >= end:
            return None
        return self.subcon._parsereport(stream, context, path)

    def _build(self, obj, stream, context, path):
        if obj is None:
            return None
        return self.subcon._build(obj, stream, context, path)

    def _sizeof(self, context, path):
        raise SizeofError("optional trailing field", path=path)


def IfMore(subcon: Construct) -> Construct:
    return _IfMore(subcon)


class _NulPadded(cs.Adapter):
    """A fixed-size NUL-padded ASCII field (FDE server_version, format.md §4)."""

    def _decode(self, obj, context, path):
        return obj.rstrip(b"\0").decode("ascii", "surrogateescape")

    def _encode(self, obj, context, path):
        raw = obj.encode("ascii", "surrogateescape")
        size = self.subcon.length
        if len(raw) > size:
            raise cs.ExplicitError(f"text longer than {size} bytes: {obj!r}", path=path)
        return raw + b"\0" * (size - len(raw))


def NulPadded(size: int) -> Construct:
    return _NulPadded(cs.Bytes(size))


Text = cs.GreedyString("utf8")
"""Text running to the end of the body; names and SQL are utf8 (invalid bytes kept raw)."""


class _SurrogateText(cs.Adapter):
    """Bytes shown as str; undecodable bytes survive as surrogates so re-encoding is exact."""

    def _decode(self, obj, context, path):
        return bytes(obj).decode("utf-8", "surrogateescape")

    def _encode(self, obj, context, path):
        if isinstance(obj, bytes | bytearray):
            return bytes(obj)
        return obj.encode("utf-8", "surrogateescape")


def SText(subcon: Construct) -> Construct:
    """Wrap a bytes construct so it reads/writes str losslessly (utf-8 + surrogateescape)."""
    return _SurrogateText(subcon)


__all__ += ["IfMore", "NulPadded", "SText", "PACKED_FORMS", "read_packed"]
