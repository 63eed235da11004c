"""The integer family: TINYINT SMALLINT MEDIUMINT INT BIGINT (values.md §1, §2).

``int``; signed or unsigned range by ``ColumnDesc.unsigned``. Encoders take any integer
(``bool`` and numpy integers included), never a float or ``Decimal``. No metadata.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs
import numpy as np

from binlogwriter.values._common import (
    Bound,
    Codec,
    Fixed,
    decode_error,
    describe,
    int_text,
    register,
    value_error,
)
from binlogwriter.values._numeric import is_int
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "IntCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text", "TEXT_HALF"]

FAMILY = "integer"
SQL_TYPES = ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT")
TYPE_CODES = (1, 2, 9, 3, 8)

# type code -> (SQL name, byte width, struct letter or None for 3 bytes)
_INTS = {1: ("TINYINT", 1, "b"), 2: ("SMALLINT", 2, "h"), 9: ("MEDIUMINT", 3, None),
         3: ("INT", 4, "i"), 8: ("BIGINT", 8, "q")}


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
            if not is_int(value) or isinstance(value, str):
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
                    if lo <= value <= hi and is_int(value):
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


# -- schema -> binlog (values.md §1) ----------------------------------------------------

_BINLOG_TYPES = {"TINYINT": 1, "SMALLINT": 2, "MEDIUMINT": 9, "INT": 3, "BIGINT": 8}


def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """The TABLE_MAP column type byte (values.md §1)."""
    return _BINLOG_TYPES[col.type]


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """No metadata (values.md §1)."""
    return b""


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

_INT_WIDTH = {code: width for code, (_, width, _) in _INTS.items()}
TEXT_HALF: dict[int, int] = {code: 1 << (8 * width - 1) for code, width in _INT_WIDTH.items()}
"""Integer type -> the first value whose ``###`` text (:func:`renderer`) is not ``str(value)``:
a value in ``0 .. TEXT_HALF - 1`` prints as itself (the compiled printers inline that case)."""


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """The stored bits as signed, with the unsigned reading in parentheses when negative
    (``-1 (65535)``), as ``log_event_print_value`` prints them."""
    half = TEXT_HALF[col.type_code]
    full = half << 1

    def signed_text(v: int) -> str:
        s = v - full if v >= half else v
        return f"{s} ({s + full})" if s < 0 else str(s)
    return signed_text


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: (u)int8/16/32/64."""
    import pyarrow as pa

    bits = {1: 8, 2: 16, 9: 32, 3: 32, 8: 64}[col.type_code]
    return getattr(pa, f"{'u' if col.unsigned else ''}int{bits}")()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """Integers as JSON integers."""
    return int


_TYPE_TEXT = {3: "INT", 1: "TINYINT", 2: "SHORTINT", 9: "MEDIUMINT", 8: "LONGINT"}


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type (``typestr`` of log_event_print_value): mysqlbinlog's names."""
    return _TYPE_TEXT.get(type_code)
