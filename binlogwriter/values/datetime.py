"""The datetime family: DATETIME (values.md §4, §4.1): DATETIME2 (18, metadata fsp) and the
old DATETIME (12, MariaDB "hires" forms when ``ColumnDesc.fsp`` says so).

DATETIME → naive ``datetime.datetime``; ``MysqlDateTime`` when ``datetime`` cannot hold it.
Encoders take naive ``datetime``, ``MysqlDateTime``, ``date``/``MysqlDate`` (midnight).
An aware ``datetime`` is refused (DATETIME has no time zone).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, decode_error, register
from binlogwriter.values._temporal import (
    DATETIME_HIRES_BYTES,
    FSP_LAYOUT,
    POW,
    check_fsp,
    datetime_fields,
    datetime_value,
    frac_decode,
    fsp_frac,
    fsp_of,
    old_fsp,
    short,
    wrap,
)
from binlogwriter.values._temporal_arrays import datetime2_array
from binlogwriter.values._text import frac as _rfrac
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    DATETIME2_INT_BYTES,
    datetime2_size,
    datetime_int,
    datetime_parts,
    frac_encode,
)

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "DateTime2Codec", "OldDateTimeCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "datetime"
SQL_TYPES = ("DATETIME",)
TYPE_CODES = (18, 12)


@register
class DateTime2Codec(Codec):
    """DATETIME2 (18): 5 bytes BE ``datetime_int + 2^39`` (values/temporal_layout.py) + fraction bytes (values.md §4)."""

    type_codes = (18,)
    meta_layout = FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = fsp_of(self, col)
        sql = f"DATETIME({fsp})" if fsp else "DATETIME"
        size = datetime2_size(fsp)

        def enc(value: Any) -> bytes:
            y, m, d, h, mi, s, us = datetime_fields(value)
            check_fsp(us, fsp)
            return (datetime_int(y, m, d, h, mi, s) + DATETIME2_BIAS).to_bytes(DATETIME2_INT_BYTES, "big") + frac_encode(us, fsp)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            ip = int.from_bytes(buf[pos:pos + 5], "big") - DATETIME2_BIAS
            if ip < 0:
                raise decode_error(col, f"{sql} bytes {bytes(buf[pos:end]).hex()} have the sign bit clear")
            us = frac_decode(buf, pos + DATETIME2_INT_BYTES, fsp, col, sql) if fsp else 0
            return datetime_value(*datetime_parts(ip), us), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "datetime | MysqlDateTime",
                     encode_array=datetime2_array(fsp))


@register
class OldDateTimeCodec(Codec):
    """Old DATETIME (12): fsp 0 = 8 bytes LE ``YYYYMMDDhhmmss``; MariaDB DATETIME(1–6) hires (§4.1)."""

    type_codes = (12,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = old_fsp(col)
        sql = f"DATETIME({fsp}) (old format)" if fsp else "DATETIME (old format)"
        size = DATETIME_HIRES_BYTES[fsp]
        p = POW[fsp]

        def enc(value: Any) -> bytes:
            y, m, d, h, mi, s, us = datetime_fields(value)
            check_fsp(us, fsp)
            if fsp == 0:
                v = ((y * 10000 + m * 100 + d) * 1000000) + h * 10000 + mi * 100 + s
                return v.to_bytes(8, "little")
            v = (((((y * 13 + m) * 32 + d) * 24 + h) * 60 + mi) * 60 + s) * p + us // POW[6 - fsp]
            return v.to_bytes(size, "big")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            if fsp == 0:
                v = int.from_bytes(buf[pos:end], "little")
                dpart, tpart = divmod(v, 1000000)
                return datetime_value(dpart // 10000, dpart // 100 % 100, dpart % 100,
                                      tpart // 10000, tpart // 100 % 100, tpart % 100, 0), end
            v = int.from_bytes(buf[pos:end], "big")
            v, frac = divmod(v, p)
            v, s = divmod(v, 60)
            v, mi = divmod(v, 60)
            v, h = divmod(v, 24)
            ym, d = divmod(v, 32)
            y, m = divmod(ym, 13)
            return datetime_value(y, m, d, h, mi, s, frac * POW[6 - fsp]), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "datetime | MysqlDateTime")


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """DATETIME2 18 (values.md §1); the old DATETIME (12) is read, not written."""
    return 18


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The fsp (values.md §1)."""
    return bytes((col.fsp or 0,))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def _fields(v: Any) -> tuple[int, int, int, int, int, int, int]:
    return (v.year, v.month, v.day, getattr(v, "hour", 0), getattr(v, "minute", 0), getattr(v, "second", 0),
            getattr(v, "microsecond", 0))


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted ``'YYYY-MM-DD hh:mm:ss[.fraction]'``: old DATETIME without a fraction, DATETIME2
    with ``fsp`` digits."""
    if col.type_code == 12:
        def dt_old(v: Any) -> str:
            y, mo, d, h, mi, s, _ = _fields(v)
            return f"'{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}'"
        return dt_old
    dec = min(bytes(col.meta)[0], 6)
    cut = 20 + dec if dec else 19

    def dt2(v: Any) -> str:
        # digits and "-: ." only: nothing quote_bytes would escape
        if type(v) is _dt.datetime:  # isoformat: 4-digit year, 6 fraction digits, cut to fsp
            return "'" + v.isoformat(" ", "microseconds")[:cut] + "'"
        y, mo, d, h, mi, s, us = _fields(v)
        return f"'{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}{_rfrac(us, dec)}'"
    return dt2


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: timestamp in microseconds."""
    import pyarrow as pa

    return pa.timestamp("us")


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------


def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``YYYY-MM-DD hh:mm:ss`` with all fsp digits, as the server prints it."""
    fsp = col.fsp or 0

    def datetime_text(v: Any) -> str:
        return (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                + fsp_frac(v.microsecond, fsp))
    return datetime_text


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``DATETIME``, or ``DATETIME(fsp)`` for DATETIME2."""
    return "DATETIME" if type_code == 12 else f"DATETIME({meta})"
