"""The decimal family: DECIMAL (values.md §3); the binary format and its layout are in values/decimal_binary.py.

Python type: ``decimal.Decimal`` (see values/decimal_binary.py for the rules).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.errors import SchemaError
from binlogwriter.values._common import Bound, Codec, Fixed, decode_error, describe, register, value_error
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.decimal_binary import (
    DecimalError,
    decimal_size,
    decode_decimal,
    pack,
    pack_decimal_array,
    scaled_decimal,
)

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "DecimalCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "decimal"
SQL_TYPES = ("DECIMAL",)
TYPE_CODES = (246,)  # the old DECIMAL (0) has no codec: codec_for refuses it


@register
class DecimalCodec(Codec):
    """NEWDECIMAL (246): metadata ``[precision, scale]``, value ``decimal2bin`` (values.md §3)."""

    type_codes = (246,)
    meta_layout = cs.Struct("precision" / cs.Int8ul, "scale" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        m = self.parse_meta(col)
        p, s = m.precision, m.scale
        if s > p or p == 0:
            raise SchemaError(f"DECIMAL metadata precision {p}, scale {s} is impossible"
                              f" - at {col.table}.{col.name}")
        sql = f"DECIMAL({p},{s})" + (" UNSIGNED" if col.unsigned else "")
        size = decimal_size(p, s)
        unsigned = col.unsigned

        def encode(value: Any) -> bytes:
            if isinstance(value, Decimal):
                d = value
            elif isinstance(value, int) and not isinstance(value, bool):
                d = Decimal(value)
            elif isinstance(value, float):
                d = Decimal(repr(value))
            else:
                raise value_error(col, sql, f"needs a Decimal, int or float, got {describe(value)}")
            try:
                negative, scaled = scaled_decimal(d, p, s)
            except DecimalError as exc:
                raise value_error(col, sql, str(exc)) from None
            if negative and unsigned:
                raise value_error(col, sql, f"UNSIGNED column cannot hold negative {value}")
            return pack(negative, scaled, p, s)

        def decode(buf: Any, pos: int) -> tuple[Decimal, int]:
            try:
                return decode_decimal(buf, pos, p, s)
            except ValueError as exc:
                raise decode_error(col, f"{sql}: {exc}") from None

        def encode_array(kind: str, data: Any, meta: Any) -> list | None:
            # "dec": int64 units at this column's scale
            if kind != "dec" or meta != s or (unsigned and len(data) and int(data.min()) < 0):
                return None
            out = pack_decimal_array(data, p, s)
            return None if out is None else [Fixed(out)]

        return Bound(col, sql, encode, decode, size, "Decimal", encode_array=encode_array)


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """NEWDECIMAL 246 (values.md §1)."""
    return 246


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """``[precision, scale]`` (values.md §1)."""
    return bytes((col.precision if col.precision is not None else 10, col.scale or 0))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Every scale digit (``format(d, "f")``)."""
    return lambda v: format(v, "f") if isinstance(v, Decimal) else str(v)


# -- exports and typed truth (read/export.py) --------------------------------------------

ARROW_MAX_PRECISION = 76
"""decimal256's largest precision. Servers declare at most DECIMAL(65, 30), but a Table_map
is one byte each (values.md §1) and the reader takes what the file holds."""


def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: decimal128, decimal256 beyond
    38 digits; string (the value with every scale digit, as :func:`renderer`) for metadata no
    Arrow decimal holds (precision 0 or over :data:`ARROW_MAX_PRECISION`, scale over precision)."""
    import pyarrow as pa

    p, s = col.meta[0], col.meta[1]
    if not 1 <= p <= ARROW_MAX_PRECISION or s > p:
        return pa.string()
    return pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """A string with exactly ``scale`` digits, zero without a sign."""
    s = col.scale or 0
    q = Decimal(1).scaleb(-s)
    ctx = Context(prec=100)

    def dec(v):
        d = Decimal(v).quantize(q, context=ctx)
        if d == 0:
            d = abs(d)
        return format(d, "f")
    return dec


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``DECIMAL(precision,scale)`` from the metadata."""
    return f"DECIMAL({meta >> 8},{meta & 0xFF})" if type_code == 246 else None
