"""The timestamp family: TIMESTAMP (values.md §4, §4.1): TIMESTAMP2 (17, metadata fsp) and the
old TIMESTAMP (7, MariaDB "hires" forms when ``ColumnDesc.fsp`` says so).

TIMESTAMP → aware ``datetime`` in UTC (the binlog holds UTC seconds); the zero timestamp
(all-zero bytes) → ``MysqlDateTime(0, 0, 0)``. Encoders take an aware ``datetime``
(converted to UTC), a naive ``datetime`` (taken as UTC), an ``int`` of seconds since the
epoch (``0`` = the zero timestamp) or a zero ``MysqlDateTime``. The range is
1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, register
from binlogwriter.values._temporal import (
    EPOCH,
    FSP_LAYOUT,
    POW,
    check_fsp,
    frac_decode,
    fsp_frac,
    fsp_of,
    old_fsp,
    short,
    timestamp_us,
    ts_frac_value,
    ts_value,
    wrap,
)
from binlogwriter.values._temporal_arrays import timestamp2_array
from binlogwriter.values._text import frac as _rfrac
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.temporal_layout import FRACTIONS, TIMESTAMP2_SECONDS, frac_encode, timestamp2_size
from binlogwriter.values.types import MysqlDateTime

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "Timestamp2Codec", "OldTimestampCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "timestamp"
SQL_TYPES = ("TIMESTAMP",)
TYPE_CODES = (17, 7)


@register
class Timestamp2Codec(Codec):
    """TIMESTAMP2 (17): 4 bytes BE seconds since the epoch (UTC) + fraction bytes (values.md §4)."""

    type_codes = (17,)
    meta_layout = FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = fsp_of(self, col)
        sql = f"TIMESTAMP({fsp})" if fsp else "TIMESTAMP"
        size = timestamp2_size(fsp)

        def enc(value: Any) -> bytes:
            us = timestamp_us(value)
            check_fsp(us, fsp)
            secs, frac = divmod(us, 1_000_000)
            return secs.to_bytes(TIMESTAMP2_SECONDS, "big") + frac_encode(frac, fsp)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            secs = int.from_bytes(buf[pos:pos + TIMESTAMP2_SECONDS], "big")
            us = frac_decode(buf, pos + TIMESTAMP2_SECONDS, fsp, col, sql) if fsp else 0
            return ts_frac_value(col, sql, secs, us), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "datetime (UTC) | MysqlDateTime",
                     encode_array=timestamp2_array(fsp))


@register
class OldTimestampCodec(Codec):
    """Old TIMESTAMP (7): fsp 0 = 4 bytes LE seconds; MariaDB TIMESTAMP(1–6) = 4 bytes BE + frac (§4.1)."""

    type_codes = (7,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = old_fsp(col)
        sql = f"TIMESTAMP({fsp}) (old format)" if fsp else "TIMESTAMP (old format)"
        fb = FRACTIONS[fsp].size  # MariaDB's hires TIMESTAMP: fsp digits in TIMESTAMP2's bytes
        size = 4 + fb

        def enc(value: Any) -> bytes:
            us = timestamp_us(value)
            check_fsp(us, fsp)
            secs, frac = divmod(us, 1_000_000)
            if fsp == 0:
                return secs.to_bytes(4, "little")
            return secs.to_bytes(4, "big") + (frac // POW[6 - fsp]).to_bytes(fb, "big")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            if fsp == 0:
                return ts_value(int.from_bytes(buf[pos:end], "little"), 0), end
            secs = int.from_bytes(buf[pos:pos + 4], "big")
            frac = int.from_bytes(buf[pos + 4:end], "big")
            return ts_frac_value(col, sql, secs, frac * POW[6 - fsp]), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "datetime (UTC) | MysqlDateTime")


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """TIMESTAMP2 17 (values.md §1); the old TIMESTAMP (7) is read, not written."""
    return 17


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The fsp (values.md §1)."""
    return bytes((col.fsp or 0,))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def _unix(v: Any) -> tuple[int, int]:
    """(seconds, microseconds) since the epoch of a decoded TIMESTAMP (zero: 0, 0)."""
    if isinstance(v, MysqlDateTime):
        return 0, 0
    d = v - EPOCH if v.tzinfo is not None else v - EPOCH.replace(tzinfo=None)
    return d.days * 86400 + d.seconds, d.microseconds


def _signed32(s: int) -> int:
    """The seconds as C's ``%d`` of the stored 32 bits prints them."""
    return s - (1 << 32) if s >= 1 << 31 else s


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Unix seconds (``1.01``), unquoted; TIMESTAMP2 with ``fsp`` fraction digits."""
    if col.type_code == 7:
        return lambda v: str(_signed32(_unix(v)[0]))
    dec = min(bytes(col.meta)[0], 6)

    def ts2(v: Any) -> str:
        s, us = _unix(v)
        return f"{_signed32(s)}{_rfrac(us, dec)}"
    return ts2


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: UTC timestamp in microseconds."""
    import pyarrow as pa

    return pa.timestamp("us", tz="UTC")


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------


def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``YYYY-MM-DD hh:mm:ss`` in UTC with all fsp digits, as the server prints it."""
    fsp = col.fsp or 0

    def timestamp_text(v: Any) -> str:
        if isinstance(v, MysqlDateTime):
            return (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                    + fsp_frac(v.microsecond, fsp))
        if v.tzinfo is not None:
            v = v.astimezone(_dt.UTC)
        return (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                + fsp_frac(v.microsecond, fsp))
    return timestamp_text


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``TIMESTAMP``, or ``TIMESTAMP(fsp)`` for TIMESTAMP2."""
    return "TIMESTAMP" if type_code == 7 else f"TIMESTAMP({meta})"
