"""The bit family: BIT(M) (values.md §6).

``int`` in ``0 .. 2^M-1``; encoders also take ``bytes`` (big-endian, at most ``(M+7)/8`` bytes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

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
from binlogwriter.values._numeric import int_array, is_int
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column
from binlogwriter.values._text import bit_string

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "BitCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "bit"
SQL_TYPES = ("BIT",)
TYPE_CODES = (16,)


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
            elif not is_int(value) or isinstance(value, str):
                raise value_error(col, sql, f"needs an int or bytes, got {describe(value)}")
            v = int(value)
            if not 0 <= v < limit:
                raise value_error(col, sql, f"holds {nbits} bits (0..{limit - 1}), got {int_text(v)}")
            return v.to_bytes(nbytes, "big")

        def encode_many(values: Any) -> list | None:
            # (M+7)/8 bytes big-endian of ints in 0..2^M-1; anything else: the scalar encoder
            a = int_array(values)
            if a is None or int(a.min()) < 0 or int(a.max()) >= limit:
                return None
            return [Fixed(be_bytes(a, nbytes))]

        def decode(buf: Any, pos: int) -> tuple[int, int]:
            end = pos + nbytes
            if end > len(buf):
                raise decode_error(col, f"{sql} needs {nbytes} bytes at {pos}")
            return int.from_bytes(buf[pos:end], "big"), end

        return Bound(col, sql, encode, decode, nbytes, "int", encode_many)


# -- schema -> binlog (values.md §1, §6) --------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """BIT 16 (values.md §1)."""
    return 16


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """``[M % 8, M / 8]`` (values.md §6)."""
    m = col.length if col.length is not None else 1
    return bytes((m % 8, m // 8))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """A bit string ``b'…'`` of M bits."""
    meta = bytes(col.meta)
    nbits = meta[1] * 8 + meta[0]
    nbytes = (nbits + 7) // 8
    return lambda v: bit_string(v.to_bytes(nbytes, "big"), nbits)


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: uint64."""
    import pyarrow as pa

    return pa.uint64()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """BIT as a JSON integer."""
    return int


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``BIT(n)``, n = bytes * 8 + bits from the metadata."""
    return f"BIT({(meta >> 8) * 8 + (meta & 0xFF)})"
