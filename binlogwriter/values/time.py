"""The time family: TIME (values.md §4, §4.1): TIME2 (19, metadata fsp) and the old TIME
(11, MariaDB "hires" forms when ``ColumnDesc.fsp`` says so).

TIME → ``datetime.timedelta`` (always: every TIME, negative or beyond 24 h, fits one).
Encoders take ``timedelta``, ``MysqlTime`` or ``datetime.time``. Range ±838:59:59.999999.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, decode_error, register
from binlogwriter.values._temporal import (
    FSP_LAYOUT,
    POW,
    TIME_HIRES_BYTES,
    bad_frac,
    check_fsp,
    fsp_frac,
    fsp_of,
    old_fsp,
    short,
    td,
    time_us,
    wrap,
)
from binlogwriter.values._temporal_arrays import time2_array
from binlogwriter.values._text import frac as _rfrac
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.temporal_layout import TIME2_BIAS, time2_size, time_from_packed, time_packed
from binlogwriter.values.types import MysqlTime

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "Time2Codec", "OldTimeCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "time"
SQL_TYPES = ("TIME",)
TYPE_CODES = (19, 11)


@register
class Time2Codec(Codec):
    """TIME2 (19): 3 bytes BE int part + (fsp+1)/2 fraction bytes, negative via C remainder (§4)."""

    type_codes = (19,)
    meta_layout = FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = fsp_of(self, col)
        sql = f"TIME({fsp})" if fsp else "TIME"
        size = time2_size(fsp)

        def enc(value: Any) -> bytes:
            us = time_us(value)
            check_fsp(us, fsp)
            nr = time_packed(us)
            if fsp >= 5:
                return (nr + (TIME2_BIAS << 24)).to_bytes(6, "big")
            ip = (nr >> 24) + TIME2_BIAS
            if fsp == 0:
                return ip.to_bytes(3, "big")
            fr = -((-nr) & 0xFFFFFF) if nr < 0 else nr & 0xFFFFFF  # C remainder: sign of nr
            if fsp <= 2:
                q = -((-fr) // 10000) if fr < 0 else fr // 10000
                return ip.to_bytes(3, "big") + bytes((q & 0xFF,))
            q = -((-fr) // 100) if fr < 0 else fr // 100
            return ip.to_bytes(3, "big") + (q & 0xFFFF).to_bytes(2, "big")

        def decode(buf: Any, pos: int) -> tuple[_dt.timedelta, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            if fsp >= 5:
                nr = int.from_bytes(buf[pos:end], "big") - (TIME2_BIAS << 24)
                if (-nr if nr < 0 else nr) & 0xFFFFFF > 999999:
                    raise bad_frac(col, sql, (-nr if nr < 0 else nr) & 0xFFFFFF)
            else:
                ip = int.from_bytes(buf[pos:pos + 3], "big") - TIME2_BIAS
                if fsp == 0:
                    nr = ip << 24
                elif fsp <= 2:
                    f = buf[pos + 3]
                    if f > 99 if ip >= 0 else 0 < f < 157:  # |fraction| of 1 s or more (§4)
                        raise bad_frac(col, sql, f)
                    if ip < 0 and f:
                        ip += 1
                        f -= 256
                    nr = (ip << 24) + f * 10000
                else:
                    f = int.from_bytes(buf[pos + 3:end], "big")
                    if f > 9999 if ip >= 0 else 0 < f < 55537:
                        raise bad_frac(col, sql, f)
                    if ip < 0 and f:
                        ip += 1
                        f -= 65536
                    nr = (ip << 24) + f * 100
            hms = (-nr if nr < 0 else nr) >> 24
            if hms >> 12 > 838 or (hms >> 6) & 63 > 59 or hms & 63 > 59:
                raise decode_error(col, f"{sql} {hms >> 12}:{(hms >> 6) & 63}:{hms & 63} is out of range")
            return td(time_from_packed(nr)), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "timedelta", encode_array=time2_array(fsp))


@register
class OldTimeCodec(Codec):
    """Old TIME (11): fsp 0 = 3 bytes LE signed ``±hhmmss``; MariaDB TIME(1–6) hires (§4.1).

    The fsp is not in the binlog: it comes from ``ColumnDesc.fsp`` (None = 0).
    """

    type_codes = (11,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = old_fsp(col)
        sql = f"TIME({fsp}) (old format)" if fsp else "TIME (old format)"
        size = TIME_HIRES_BYTES[fsp]
        p = POW[fsp]
        ofs = 3020400 * p

        def enc(value: Any) -> bytes:
            us = time_us(value)
            check_fsp(us, fsp)
            if fsp == 0:
                a = abs(us) // 1_000_000
                v = (a // 3600) * 10000 + (a // 60 % 60) * 100 + a % 60
                return (-v if us < 0 else v).to_bytes(3, "little", signed=True)
            # (seconds * p + frac), negated for negative times, + 838:59:59+1 s in units of 10^-fsp
            return (us // POW[6 - fsp] + ofs).to_bytes(size, "big")

        def decode(buf: Any, pos: int) -> tuple[_dt.timedelta, int]:
            end = pos + size
            if end > len(buf):
                raise short(col, sql, buf, pos, size)
            if fsp == 0:
                v = int.from_bytes(buf[pos:end], "little", signed=True)
                a = -v if v < 0 else v
                if a // 100 % 100 >= 60 or a % 100 >= 60:  # no server writes 102:55:72
                    raise decode_error(col, f"{sql} {a // 10000}:{a // 100 % 100}:{a % 100} is out of range")
                us = ((a // 10000) * 3600 + (a // 100 % 100) * 60 + a % 100) * 1_000_000
                return td(-us if v < 0 else us), end
            v = int.from_bytes(buf[pos:end], "big") - ofs
            return td(v * POW[6 - fsp]), end

        return Bound(col, sql, wrap(col, sql, enc), decode, size, "timedelta")


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """TIME2 19 (values.md §1); the old TIME (11) is read, not written."""
    return 19


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The fsp (values.md §1)."""
    return bytes((col.fsp or 0,))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def _text_us(v: Any) -> int:
    if isinstance(v, MysqlTime):
        return v.total_microseconds()
    return (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds


def _time_text(v: Any, dec: int) -> str:
    us = _text_us(v)
    neg = us < 0
    secs, frac = divmod(-us if neg else us, 1_000_000)
    return (f"{'-' if neg else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
            f"{_rfrac(frac, dec)}")


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted ``'[-]HH:MM:SS[.fraction]'``: old TIME without a fraction, TIME2 with ``fsp`` digits."""
    if col.type_code == 11:
        return lambda v: "'" + _time_text(v, 0) + "'"
    dec = min(bytes(col.meta)[0], 6)
    return lambda v: "'" + _time_text(v, dec) + "'"  # digits and "-:." only: nothing to escape


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: duration in microseconds."""
    import pyarrow as pa

    return pa.duration("us")


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------


def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``[-]HH:MM:SS`` with all fsp digits, as the server prints it."""
    fsp = col.fsp or 0

    def time_text(v: Any) -> str:
        if isinstance(v, MysqlTime):
            v = v.to_timedelta()
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
        sign = "-" if us < 0 else ""
        us = abs(us)
        secs, frac = divmod(us, 1_000_000)
        return f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}" + fsp_frac(frac, fsp)
    return time_text


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``TIME``, or ``TIME(fsp)`` for TIME2."""
    return "TIME" if type_code == 11 else f"TIME({meta})"
