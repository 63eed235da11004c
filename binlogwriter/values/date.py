"""The date family: DATE (values.md §4).

DATE → ``datetime.date``; ``MysqlDate`` for the zero date, a zero month/day, year 0 or a
calendar-invalid day. Encoders take ``date``, ``MysqlDate``, or a naive ``datetime`` at midnight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, register
from binlogwriter.values._temporal import (
    date_fields,
    date_value,
    short,
    wrap,
)
from binlogwriter.values._temporal_arrays import date_array
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.types import MysqlDate

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "DateCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "date"
SQL_TYPES = ("DATE",)
TYPE_CODES = (10, 14)  # DATE, and NEWDATE (14) which no server logs but the codec reads


@register
class DateCodec(Codec):
    """DATE (10): 3 bytes LE ``day | month << 5 | year << 9`` (values.md §4)."""

    type_codes = (10, 14)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        sql = "DATE"

        def enc(value: Any) -> bytes:
            y, m, d = date_fields(value)
            return (d | (m << 5) | (y << 9)).to_bytes(3, "little")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + 3
            if end > len(buf):
                raise short(col, sql, buf, pos, 3)
            v = int.from_bytes(buf[pos:end], "little")
            return date_value(v >> 9, (v >> 5) & 15, v & 31), end

        return Bound(col, sql, wrap(col, sql, enc), decode, 3, "date | MysqlDate",
                     encode_array=lambda kind, data, meta: date_array(kind, data))


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """DATE 10 (values.md §1)."""
    return 10


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """No metadata (values.md §1)."""
    return b""


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """``'YYYY:MM:DD'``."""
    return lambda v: f"'{v.year:04d}:{v.month:02d}:{v.day:02d}'"


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: date32."""
    import pyarrow as pa

    return pa.date32()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``YYYY-MM-DD`` as the server prints it."""
    def date_text(v: Any) -> str:
        if isinstance(v, MysqlDate):
            return str(v)
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    return date_text


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type (DATE and NEWDATE alike)."""
    return "DATE"
