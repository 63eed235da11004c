"""The year family: YEAR (values.md §1).

``int``, 1901..2155 or 0 (the zero year ``0000``).
"""

from __future__ import annotations

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
from binlogwriter.values._numeric import int_array, is_int
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "YearCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "year"
SQL_TYPES = ("YEAR",)
TYPE_CODES = (13,)


@register
class YearCodec(Codec):
    """YEAR (13): 1 byte, 0 = year 0000, else year − 1900 (values.md §1)."""

    type_codes = (13,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        sql = "YEAR"

        def encode(value: Any) -> bytes:
            if not is_int(value) or isinstance(value, str | bool):
                raise value_error(col, sql, f"needs an int year, got {describe(value)}")
            v = int(value)
            if v == 0:
                return b"\x00"
            if 1901 <= v <= 2155:
                return bytes((v - 1900,))
            raise value_error(col, sql, f"holds 1901..2155 or 0, got {int_text(v)}")

        def encode_many(values: Any) -> list | None:
            # 0, or year - 1900 for 1901..2155; anything else: the scalar encoder
            a = int_array(values)
            if a is None or not ((a == 0) | ((a >= 1901) & (a <= 2155))).all():
                return None
            return [Fixed(np.where(a == 0, 0, a - 1900).astype(np.uint8).reshape(-1, 1))]

        def decode(buf: Any, pos: int) -> tuple[int, int]:
            if pos >= len(buf):
                raise decode_error(col, f"YEAR needs 1 byte at {pos}")
            b = buf[pos]
            return (b + 1900 if b else 0), pos + 1

        return Bound(col, sql, encode, decode, 1, "int", encode_many)


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """YEAR 13 (values.md §1)."""
    return 13


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """No metadata (values.md §1)."""
    return b""


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """``byte + 1900``, so YEAR 0 prints 1900."""
    return lambda v: f"{v if v else 1900:04d}"


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: int16."""
    import pyarrow as pa

    return pa.int16()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """YEAR as a JSON integer."""
    return int


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type."""
    return "YEAR"
