"""Integers, FLOAT/DOUBLE, BIT, YEAR and the NULL type (values.md §1, §2, §6).

Python types:

* TINYINT/SMALLINT/MEDIUMINT/INT/BIGINT (1, 2, 9, 3, 8): ``int``; signed or unsigned range by
  ``ColumnDesc.unsigned``. Encoders take any integer (``bool`` and numpy integers included),
  never a float or ``Decimal``.
* FLOAT (4): ``float``. An encoded float is rounded to the nearest float32 (round half to even,
  like the server's C cast); the decoded value is that float32 widened to a Python float.
  NaN and ±inf are refused (the server refuses them), as is a finite value beyond
  ±3.4028234663852886e38. DOUBLE (5): ``float``, exact. ``int`` is accepted for both.
  UNSIGNED FLOAT/DOUBLE refuse negative values.
* BIT(M) (16): ``int`` in ``0 .. 2^M-1``; encoders also take ``bytes`` (big-endian, at most
  ``(M+7)/8`` bytes).
* YEAR (13): ``int``, 1901..2155 or 0 (the zero year ``0000``).
* NULL (6): always ``None``; it has no bytes.
"""

from __future__ import annotations

import math
import numbers
import struct
from typing import Any

import construct as cs
import numpy as np

from binlogwriter.errors import SchemaError
from binlogwriter.values._common import (
    Bound,
    Codec,
    Fixed,
    be_bytes,
    decode_error,
    describe,
    int_text,
    register,
    value_error,
)
from binlogwriter.values.base import ColumnDesc

__all__ = ["IntCodec", "FloatCodec", "BitCodec", "YearCodec", "NullCodec"]

# type code -> (SQL name, byte width, struct letter or None for 3 bytes)
_INTS = {1: ("TINYINT", 1, "b"), 2: ("SMALLINT", 2, "h"), 9: ("MEDIUMINT", 3, None),
         3: ("INT", 4, "i"), 8: ("BIGINT", 8, "q")}


def _is_int(value: Any) -> bool:
    if isinstance(value, int):
        return True
    return hasattr(value, "__index__") and not isinstance(value, float)


@register
class IntCodec(Codec):
    """Fixed-width little-endian two's complement integers (values.md §2); no metadata."""

    type_codes = (1, 2, 9, 3, 8)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        name, width, letter = _INTS[col.type_code]
        unsigned = col.unsigned
        sql = name + (" UNSIGNED" if unsigned else "")
        lo, hi = (0, (1 << (8 * width)) - 1) if unsigned else (-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1)

        def fail(value: Any) -> Exception:
            if not _is_int(value) or isinstance(value, str):
                return value_error(col, sql, f"needs an int, got {describe(value)}")
            return value_error(col, sql, f"holds {lo}..{hi}, got {int_text(int(value))}")

        if letter is not None:
            st = struct.Struct("<" + (letter.upper() if unsigned else letter))
            pack = st.pack
            unpack_from = st.unpack_from

            def encode(value: Any) -> bytes:
                try:
                    return pack(value)
                except (struct.error, TypeError, OverflowError):
                    raise fail(value) from None

            def decode(buf: Any, pos: int) -> tuple[int, int]:
                try:
                    return unpack_from(buf, pos)[0], pos + width
                except struct.error:
                    raise decode_error(col, f"{sql} needs {width} bytes at {pos}, "
                                            f"{max(0, len(buf) - pos)} left") from None
        else:
            def encode(value: Any) -> bytes:
                try:
                    if lo <= value <= hi and _is_int(value):
                        return int(value).to_bytes(3, "little", signed=not unsigned)
                except TypeError:
                    pass
                raise fail(value)

            def decode(buf: Any, pos: int) -> tuple[int, int]:
                end = pos + 3
                if end > len(buf):
                    raise decode_error(col, f"{sql} needs 3 bytes at {pos}, {max(0, len(buf) - pos)} left")
                return int.from_bytes(buf[pos:end], "little", signed=not unsigned), end

        return Bound(col, sql, encode, decode, width, "int", _ints_many(lo, hi, width))


def _int_array(values: Any) -> np.ndarray | None:
    """A non-empty 1-d integer array of ``values`` (an int array, or a list of plain ints),
    else None (bools, floats, bytes, ints beyond 64 bits: the scalar encoder decides)."""
    if isinstance(values, np.ndarray):
        a = values
    else:
        if any(type(v) is not int for v in values):
            return None
        try:
            a = np.asarray(values)
        except (OverflowError, ValueError, TypeError):
            return None
    if a.ndim != 1 or a.dtype.kind not in "iu" or not len(a):
        return None
    return a


def _ints_many(lo: int, hi: int, width: int):
    """Vectorised integers (values.md §2): little-endian two's complement, ``width`` bytes:
    the low bytes of the 64-bit value. None for anything but integers in ``lo..hi``."""

    def encode_many(values: list) -> list | None:
        try:
            a = np.asarray(values)
        except (OverflowError, ValueError, TypeError):
            return None
        if a.ndim != 1 or a.dtype.kind not in "iu" or not len(a):
            return None
        if int(a.min()) < lo or int(a.max()) > hi:
            return None
        b = a.astype("<u8" if a.dtype.kind == "u" else "<i8", copy=False)
        return [Fixed(b.view(np.uint8).reshape(-1, 8)[:, :width])]

    return encode_many


_FLT_MAX = 3.4028234663852886e38


@register
class FloatCodec(Codec):
    """FLOAT (4) and DOUBLE (5): IEEE-754 little-endian; metadata = pack length (values.md §1)."""

    type_codes = (4, 5)
    meta_layout = cs.Struct("pack_length" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        is_float = col.type_code == 4
        width = 4 if is_float else 8
        sql = ("FLOAT" if is_float else "DOUBLE") + (" UNSIGNED" if col.unsigned else "")
        st = struct.Struct("<f" if is_float else "<d")
        pack, unpack_from = st.pack, st.unpack_from
        unsigned = col.unsigned

        def encode(value: Any) -> bytes:
            if type(value) is float:
                f = value
            elif isinstance(value, numbers.Real) and not isinstance(value, bool):
                try:
                    f = float(value)
                except OverflowError:
                    raise value_error(col, sql, f"{value} is out of range") from None
            else:
                raise value_error(col, sql, f"needs a float or int, got {describe(value)}")
            if not math.isfinite(f):
                raise value_error(col, sql, f"cannot hold {value!r} (NaN and infinity are not stored)")
            if unsigned and f < 0:
                raise value_error(col, sql, f"UNSIGNED column cannot hold negative {value!r}")
            try:
                return pack(f)
            except OverflowError:
                raise value_error(col, sql, f"holds at most ±{_FLT_MAX!r}, got {value!r}") from None

        def encode_many(values: list) -> list | None:
            # IEEE-754 little-endian; float32 by round-to-nearest-even like the scalar C cast
            if set(map(type, values)) != {float}:
                return None
            return encode_floats(np.asarray(values, dtype=np.float64))

        def encode_array(kind: str, data: Any, meta: Any) -> list | None:
            return encode_floats(data) if kind == "float" and data.dtype == np.float64 else None

        def encode_floats(a: np.ndarray) -> list | None:
            if not np.isfinite(a).all() or (unsigned and (a < 0).any()):
                return None
            b = a.astype("<f4" if is_float else "<f8")
            if is_float and not np.isfinite(b).all():
                return None
            return [Fixed(b.view(np.uint8).reshape(-1, width))]

        def decode(buf: Any, pos: int) -> tuple[float, int]:
            try:
                return unpack_from(buf, pos)[0], pos + width
            except struct.error:
                raise decode_error(col, f"{sql} needs {width} bytes at {pos}") from None

        return Bound(col, sql, encode, decode, width, "float", encode_many, encode_array)


@register
class BitCodec(Codec):
    """BIT(M) (16): metadata ``[M % 8, M / 8]``, value (M+7)/8 bytes big-endian (values.md §6)."""

    type_codes = (16,)
    meta_layout = cs.Struct("bits" / cs.Int8ul, "bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        m = self.parse_meta(col)
        nbits = m.bytes * 8 + m.bits
        if not 1 <= nbits <= 64 or m.bits > 7:
            raise SchemaError(f"BIT metadata {bytes(col.meta).hex()} gives an impossible width {nbits}"
                              f" - at {col.table}.{col.name}")
        nbytes = (nbits + 7) // 8
        sql = f"BIT({nbits})"
        limit = 1 << nbits

        def encode(value: Any) -> bytes:
            if isinstance(value, bytes | bytearray | memoryview):
                raw = bytes(value)
                if len(raw) > nbytes:
                    raise value_error(col, sql, f"holds {nbytes} bytes, got {len(raw)}")
                value = int.from_bytes(raw, "big")
            elif not _is_int(value) or isinstance(value, str):
                raise value_error(col, sql, f"needs an int or bytes, got {describe(value)}")
            v = int(value)
            if not 0 <= v < limit:
                raise value_error(col, sql, f"holds {nbits} bits (0..{limit - 1}), got {int_text(v)}")
            return v.to_bytes(nbytes, "big")

        def encode_many(values: Any) -> list | None:
            # (M+7)/8 bytes big-endian of ints in 0..2^M-1; anything else: the scalar encoder
            a = _int_array(values)
            if a is None or int(a.min()) < 0 or int(a.max()) >= limit:
                return None
            return [Fixed(be_bytes(a, nbytes))]

        def decode(buf: Any, pos: int) -> tuple[int, int]:
            end = pos + nbytes
            if end > len(buf):
                raise decode_error(col, f"{sql} needs {nbytes} bytes at {pos}")
            return int.from_bytes(buf[pos:end], "big"), end

        return Bound(col, sql, encode, decode, nbytes, "int", encode_many)


@register
class YearCodec(Codec):
    """YEAR (13): 1 byte, 0 = year 0000, else year − 1900 (values.md §1)."""

    type_codes = (13,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        sql = "YEAR"

        def encode(value: Any) -> bytes:
            if not _is_int(value) or isinstance(value, str | bool):
                raise value_error(col, sql, f"needs an int year, got {describe(value)}")
            v = int(value)
            if v == 0:
                return b"\x00"
            if 1901 <= v <= 2155:
                return bytes((v - 1900,))
            raise value_error(col, sql, f"holds 1901..2155 or 0, got {int_text(v)}")

        def encode_many(values: Any) -> list | None:
            # 0, or year - 1900 for 1901..2155; anything else: the scalar encoder
            a = _int_array(values)
            if a is None or not ((a == 0) | ((a >= 1901) & (a <= 2155))).all():
                return None
            return [Fixed(np.where(a == 0, 0, a - 1900).astype(np.uint8).reshape(-1, 1))]

        def decode(buf: Any, pos: int) -> tuple[int, int]:
            if pos >= len(buf):
                raise decode_error(col, f"YEAR needs 1 byte at {pos}")
            b = buf[pos]
            return (b + 1900 if b else 0), pos + 1

        return Bound(col, sql, encode, decode, 1, "int", encode_many)


@register
class NullCodec(Codec):
    """The NULL type (6): no bytes; the value is always ``None``."""

    type_codes = (6,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)

        def encode(value: Any) -> bytes:
            if value is not None:
                raise value_error(col, "NULL", f"a NULL-type column holds only None, got {describe(value)}")
            return b""

        def decode(buf: Any, pos: int) -> tuple[None, int]:
            return None, pos

        return Bound(col, "NULL", encode, decode, 0, "None")
