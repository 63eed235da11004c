"""DATE, TIME, DATETIME, TIMESTAMP in all their binlog forms (values.md §4, §4.1).

Type codes: DATE 10; TIME2 19, DATETIME2 18, TIMESTAMP2 17 (metadata: fsp); old TIME 11,
DATETIME 12, TIMESTAMP 7 (no metadata; MariaDB "hires" fsp 1–6 forms when ``ColumnDesc.fsp``
says so, §4.1).

Python types — decoders return a standard type whenever it holds the value exactly, the
classes of :mod:`binlogwriter.values.types` otherwise:

* DATE → ``datetime.date``; ``MysqlDate`` for the zero date, a zero month/day, year 0 or a
  calendar-invalid day. Encoders take ``date``, ``MysqlDate``, or a naive ``datetime`` at
  midnight.
* DATETIME → naive ``datetime.datetime``; ``MysqlDateTime`` when ``datetime`` cannot hold it.
  Encoders take naive ``datetime``, ``MysqlDateTime``, ``date``/``MysqlDate`` (midnight).
  An aware ``datetime`` is refused (DATETIME has no time zone).
* TIMESTAMP → aware ``datetime`` in UTC (the binlog holds UTC seconds); the zero timestamp
  (all-zero bytes) → ``MysqlDateTime(0, 0, 0)``. Encoders take an aware ``datetime``
  (converted to UTC), a naive ``datetime`` (taken as UTC), an ``int`` of seconds since the
  epoch (``0`` = the zero timestamp) or a zero ``MysqlDateTime``. The range is
  1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC.
* TIME → ``datetime.timedelta`` (always: every TIME, negative or beyond 24 h, fits one).
  Encoders take ``timedelta``, ``MysqlTime`` or ``datetime.time``. Range ±838:59:59.999999.

Fractions: a value with more fractional digits than the column's fsp is refused
(``ValueEncodeError``), never rounded. Calendar checks (Feb 30) apply to values you build;
values a decoder built are lenient (types.py).
"""

from __future__ import annotations

import datetime as _dt
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
from binlogwriter.values.types import MysqlDate, MysqlDateTime, MysqlTime, days_in_month

__all__ = [
    "DateCodec",
    "Time2Codec",
    "DateTime2Codec",
    "Timestamp2Codec",
    "OldTimeCodec",
    "OldDateTimeCodec",
    "OldTimestampCodec",
    "temporal_text",
    "datetime_packed",
    "datetime_from_packed",
    "time_packed",
    "time_from_packed",
    "date_value",
    "datetime_value",
    "TIME_MAX_US",
]

UTC = _dt.UTC
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)
_TD_ZERO = _dt.timedelta(0)
TIME_MAX_US = ((838 * 60 + 59) * 60 + 59) * 1_000_000 + 999_999
"""Largest TIME magnitude accepted: 838:59:59.999999 (MariaDB's limit; MySQL clips at .000000)."""
_TS_MAX = (1 << 31) - 1
_POW = (1, 10, 100, 1000, 10000, 100000, 1000000)


class _Reject(Exception):
    """Internal: a value that does not fit; the bound codec turns it into ValueEncodeError."""


# ---------------------------------------------------------------------------------------------
# Python value <-> fields
# ---------------------------------------------------------------------------------------------

def date_value(y: int, m: int, d: int) -> _dt.date | MysqlDate:
    """``date`` if it can hold Y-M-D, else a lenient ``MysqlDate`` (the decoders' rule)."""
    if y and m and d:
        try:
            return _dt.date(y, m, d)
        except ValueError:
            pass
    return MysqlDate(y, m, d, strict=False)


def datetime_value(y: int, m: int, d: int, h: int, mi: int, s: int, us: int) -> _dt.datetime | MysqlDateTime:
    """Naive ``datetime`` if it can hold the fields, else a lenient ``MysqlDateTime``."""
    if y and m and d:
        try:
            return _dt.datetime(y, m, d, h, mi, s, us)
        except ValueError:
            pass
    return MysqlDateTime(y, m, d, h, mi, s, us, strict=False)


def _check_ymd(y: int, m: int, d: int, strict: bool) -> None:
    if not (0 <= y <= 9999 and 0 <= m <= 12 and 0 <= d <= 31):
        raise _Reject(f"date {y:04d}-{m:02d}-{d:02d} is out of range (year 0..9999, month 0..12, day 0..31)")
    if strict and m and d and d > days_in_month(y, m):
        raise _Reject(f"invalid date {y:04d}-{m:02d}-{d:02d}: month {m} has {days_in_month(y, m)} days")


def _check_hms(h: int, mi: int, s: int, us: int) -> None:
    if not (0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59 and 0 <= us <= 999_999):
        raise _Reject(f"time of day {h:02d}:{mi:02d}:{s:02d}.{us:06d} is out of range")


def _date_fields(value: Any) -> tuple[int, int, int]:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None or value.time() != _dt.time(0):
            raise _Reject(f"DATE has no time part, got {describe(value)}")
        return value.year, value.month, value.day
    if isinstance(value, _dt.date):
        return value.year, value.month, value.day
    if isinstance(value, MysqlDate):
        _check_ymd(value.year, value.month, value.day, value.strict)
        return value.year, value.month, value.day
    raise _Reject(f"needs a datetime.date or MysqlDate, got {describe(value)}")


def _datetime_fields(value: Any) -> tuple[int, int, int, int, int, int, int]:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            raise _Reject(f"DATETIME has no time zone; pass a naive datetime, got {describe(value)}")
        return (value.year, value.month, value.day, value.hour, value.minute, value.second,
                value.microsecond)
    if isinstance(value, MysqlDateTime):
        _check_ymd(value.year, value.month, value.day, value.strict)
        _check_hms(value.hour, value.minute, value.second, value.microsecond)
        return (value.year, value.month, value.day, value.hour, value.minute, value.second,
                value.microsecond)
    if isinstance(value, _dt.date):
        return value.year, value.month, value.day, 0, 0, 0, 0
    if isinstance(value, MysqlDate):
        _check_ymd(value.year, value.month, value.day, value.strict)
        return value.year, value.month, value.day, 0, 0, 0, 0
    raise _Reject(f"needs a naive datetime.datetime or MysqlDateTime, got {describe(value)}")


def _time_us(value: Any) -> int:
    """Signed microseconds of a TIME value, range-checked."""
    if isinstance(value, _dt.timedelta):
        us = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    elif isinstance(value, MysqlTime):
        if not (0 <= value.minutes <= 59 and 0 <= value.seconds <= 59
                and 0 <= value.microseconds <= 999_999 and value.hours >= 0):
            raise _Reject(f"TIME fields out of range: {value}")
        us = value.total_microseconds()
    elif isinstance(value, _dt.time):
        if value.tzinfo is not None:
            raise _Reject(f"TIME has no time zone, got {describe(value)}")
        us = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    else:
        raise _Reject(f"needs a datetime.timedelta, MysqlTime or datetime.time, got {describe(value)}")
    if abs(us) > TIME_MAX_US:
        raise _Reject(f"holds -838:59:59.999999..838:59:59.999999, got {_time_text(us, 6)}")
    return us


def _timestamp_us(value: Any) -> int:
    """Microseconds since the epoch (UTC) for a TIMESTAMP value; 0 = the zero timestamp."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            delta = value - _EPOCH_NAIVE
        else:
            delta = value - _EPOCH
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(value, MysqlDateTime):
        if value.is_zero:
            return 0
        d = value.to_datetime()
        if d is None:
            raise _Reject(f"TIMESTAMP cannot hold {value}")
        delta = d - _EPOCH_NAIVE
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(value, int) and not isinstance(value, bool):
        if value == 0:
            return 0
        if not 1 <= value <= _TS_MAX:  # checked before any arithmetic on a huge int
            raise _Reject("holds 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC "
                          f"(or the zero timestamp), got {int_text(value)} seconds")
        us = value * 1_000_000
    else:
        raise _Reject(f"needs a datetime, int seconds or the zero MysqlDateTime, got {describe(value)}")
    if not 1_000_000 <= us <= _TS_MAX * 1_000_000 + 999_999:
        raise _Reject("holds 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC "
                      f"(or the zero timestamp), got {_ts_text(us)}")
    return us


def _ts_text(us: int) -> str:
    """A TIMESTAMP's microseconds for a message: the UTC date when Python can show it."""
    try:
        return str(_EPOCH + _dt.timedelta(microseconds=us))
    except OverflowError:
        return f"{int_text(us)} microseconds since the epoch"


def _check_fsp(us: int, fsp: int) -> None:
    if us % _POW[6 - fsp]:
        digits = f"{abs(us) % 1_000_000:06d}".rstrip("0")
        raise _Reject(f"fraction .{digits} has {len(digits)} digits, fsp {fsp} keeps {fsp}; round it first")


def _time_text(us: int, fsp: int) -> str:
    neg = us < 0
    a = -us if neg else us
    secs, frac = divmod(a, 1_000_000)
    s = f"{'-' if neg else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
    if fsp:
        s += "." + f"{frac:06d}"[:fsp]
    return s


def temporal_text(value: Any, fsp: int = 0) -> str:
    """The server's text form of a decoded temporal value with ``fsp`` fraction digits.

    ``timedelta`` → ``-838:59:58.12``; ``datetime``/``MysqlDateTime`` → ``YYYY-MM-DD hh:mm:ss[.f]``
    (an aware datetime is shown in UTC); ``date``/``MysqlDate`` → ``YYYY-MM-DD``.
    """
    if isinstance(value, _dt.timedelta):
        return _time_text((value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds, fsp)
    if isinstance(value, MysqlTime):
        return _time_text(value.total_microseconds(), fsp)
    if isinstance(value, _dt.datetime | MysqlDateTime):
        if isinstance(value, _dt.datetime) and value.tzinfo is not None:
            value = value.astimezone(UTC)
        s = (f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
             f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}")
        if fsp:
            s += "." + f"{value.microsecond:06d}"[:fsp]
        return s
    if isinstance(value, _dt.date | MysqlDate):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    raise TypeError(f"not a temporal value: {value!r}")


# ---------------------------------------------------------------------------------------------
# packed longlong forms (my_time.cc), also used by JSON opaque values (values.md §7)
# ---------------------------------------------------------------------------------------------

def datetime_packed(y: int, m: int, d: int, h: int = 0, mi: int = 0, s: int = 0, us: int = 0) -> int:
    """``TIME_to_longlong_datetime_packed``: ``((ymd << 17 | hms) << 24) + usec``."""
    ymd = ((y * 13 + m) << 5) | d
    hms = (h << 12) | (mi << 6) | s
    return (((ymd << 17) | hms) << 24) + us


def datetime_from_packed(nr: int) -> tuple[int, int, int, int, int, int, int]:
    """Inverse of :func:`datetime_packed` (non-negative values): (y, m, d, h, mi, s, us)."""
    us = nr & 0xFFFFFF
    ip = nr >> 24
    ymd = ip >> 17
    hms = ip & 0x1FFFF
    ym = ymd >> 5
    return ym // 13, ym % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63, us


def time_packed(us: int) -> int:
    """``TIME_to_longlong_time_packed`` of a signed microsecond count: ``±((hms << 24) + usec)``."""
    neg = us < 0
    a = -us if neg else us
    secs, frac = divmod(a, 1_000_000)
    hms = ((secs // 3600) << 12) | ((secs // 60 % 60) << 6) | (secs % 60)
    nr = (hms << 24) + frac
    return -nr if neg else nr


def time_from_packed(nr: int) -> int:
    """Signed microseconds of a packed TIME (fields as the server reads them)."""
    neg = nr < 0
    a = -nr if neg else nr
    hms = a >> 24
    frac = a & 0xFFFFFF
    us = ((((hms >> 12) & 0x3FF) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63)) * 1_000_000 + frac
    return -us if neg else us


def _td(us: int) -> _dt.timedelta:
    return _dt.timedelta(microseconds=us) if us else _TD_ZERO



# ---------------------------------------------------------------------------------------------
# vectorised encoders (arrays of microseconds / days; same bytes as the scalar encoders)
# ---------------------------------------------------------------------------------------------

_US = 1_000_000


def _ymd_arrays(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(year, month, day) of days since 1970-01-01 (proleptic Gregorian, as ``datetime``)."""
    d = days.astype("M8[D]")
    m = d.astype("M8[M]")
    y = d.astype("M8[Y]")
    return (y.astype(np.int64) + 1970, (m - y.astype("M8[M]")).astype(np.int64) + 1,
            (d - m.astype("M8[D]")).astype(np.int64) + 1)


def _years_ok(days: np.ndarray) -> bool:
    """Every day in 0001-01-01 .. 9999-12-31 (what ``datetime.date`` holds)."""
    return bool(len(days)) and int(days.min()) >= -719162 and int(days.max()) <= 2932896


def _fsp_ok(frac: np.ndarray, fsp: int) -> bool:
    return fsp == 6 or not (frac % _POW[6 - fsp]).any()


def _frac_array(frac: np.ndarray, fsp: int) -> list:
    """:func:`_frac_encode` elementwise: (fsp+1)/2 big-endian bytes of the fraction."""
    if fsp == 0:
        return []
    if fsp <= 2:
        return [be_bytes(frac // 10000, 1)]
    if fsp <= 4:
        return [be_bytes(frac // 100, 2)]
    return [be_bytes(frac, 3)]


def _fixed(parts: list) -> list:
    return [Fixed(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1))]


def _date_array(kind: str, data: np.ndarray) -> list | None:
    """DATE of days since the epoch: 3 bytes LE ``day | month << 5 | year << 9``."""
    if kind != "date" or not _years_ok(data):
        return None
    y, m, d = _ymd_arrays(data)
    v = d | (m << 5) | (y << 9)
    return [Fixed(v.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3])]


def _datetime2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "dt":
            return None
        secs = data // _US
        frac = data - secs * _US
        days = secs // 86400
        if not _years_ok(days) or not _fsp_ok(frac, fsp):
            return None
        sod = secs - days * 86400
        y, m, d = _ymd_arrays(days)
        ip = ((((y * 13 + m) << 5) | d) << 17) | ((sod // 3600) << 12) | ((sod // 60 % 60) << 6) | (sod % 60)
        return _fixed([be_bytes(ip + 0x8000000000, 5), *_frac_array(frac, fsp)])
    return enc


def _timestamp2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "ts" or not len(data):
            return None
        if int(data.min()) < _US or int(data.max()) > _TS_MAX * _US + 999_999:
            return None
        secs = data // _US
        frac = data - secs * _US
        if not _fsp_ok(frac, fsp):
            return None
        return _fixed([be_bytes(secs, 4), *_frac_array(frac, fsp)])
    return enc


def _time2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "time" or not len(data):
            return None
        a = np.abs(data)
        if int(a.max()) > TIME_MAX_US:
            return None
        secs = a // _US
        frac = a - secs * _US
        if not _fsp_ok(frac, fsp):
            return None
        hms = ((secs // 3600) << 12) | ((secs // 60 % 60) << 6) | (secs % 60)
        nr = (hms << 24) + frac
        neg = data < 0
        nr = np.where(neg, -nr, nr)  # time_packed
        if fsp >= 5:
            return [Fixed(be_bytes(nr + 0x800000000000, 6))]
        ip = be_bytes((nr >> 24) + 0x800000, 3)
        if fsp == 0:
            return [Fixed(ip)]
        fr = np.where(neg, -((-nr) & 0xFFFFFF), nr & 0xFFFFFF)  # C remainder: sign of nr
        div = 10000 if fsp <= 2 else 100
        q = np.where(fr < 0, -((-fr) // div), fr // div)  # C division: toward zero
        return _fixed([ip, be_bytes(q, 1 if fsp <= 2 else 2)])
    return enc


# ---------------------------------------------------------------------------------------------
# codecs
# ---------------------------------------------------------------------------------------------

_FSP_LAYOUT = cs.Struct("fsp" / cs.Int8ul)


def _fsp_of(codec: Codec, col: ColumnDesc) -> int:
    fsp = codec.parse_meta(col).fsp
    if fsp > 6:
        raise SchemaError(f"fsp {fsp} in metadata is beyond 6 - at {col.table}.{col.name}")
    return fsp


def _wrap(col: ColumnDesc, sql: str, fn):
    def encode(value: Any) -> bytes:
        try:
            return fn(value)
        except _Reject as exc:
            raise value_error(col, sql, str(exc)) from None
    return encode


def _short(col: ColumnDesc, sql: str, buf: Any, pos: int, n: int):
    return decode_error(col, f"{sql} needs {n} bytes at {pos}, {max(0, len(buf) - pos)} left")


@register
class DateCodec(Codec):
    """DATE (10): 3 bytes LE ``day | month << 5 | year << 9`` (values.md §4)."""

    type_codes = (10, 14)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        sql = "DATE"

        def enc(value: Any) -> bytes:
            y, m, d = _date_fields(value)
            return (d | (m << 5) | (y << 9)).to_bytes(3, "little")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + 3
            if end > len(buf):
                raise _short(col, sql, buf, pos, 3)
            v = int.from_bytes(buf[pos:end], "little")
            return date_value(v >> 9, (v >> 5) & 15, v & 31), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, 3, "date | MysqlDate",
                     encode_array=lambda kind, data, meta: _date_array(kind, data))


@register
class Time2Codec(Codec):
    """TIME2 (19): 3 bytes BE int part + (fsp+1)/2 fraction bytes, negative via C remainder (§4)."""

    type_codes = (19,)
    meta_layout = _FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = _fsp_of(self, col)
        sql = f"TIME({fsp})" if fsp else "TIME"
        size = 3 + (fsp + 1) // 2

        def enc(value: Any) -> bytes:
            us = _time_us(value)
            _check_fsp(us, fsp)
            nr = time_packed(us)
            if fsp >= 5:
                return (nr + 0x800000000000).to_bytes(6, "big")
            ip = (nr >> 24) + 0x800000
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
                raise _short(col, sql, buf, pos, size)
            if fsp >= 5:
                nr = int.from_bytes(buf[pos:end], "big") - 0x800000000000
                if (-nr if nr < 0 else nr) & 0xFFFFFF > 999999:
                    raise _bad_frac(col, sql, (-nr if nr < 0 else nr) & 0xFFFFFF)
            else:
                ip = int.from_bytes(buf[pos:pos + 3], "big") - 0x800000
                if fsp == 0:
                    nr = ip << 24
                elif fsp <= 2:
                    f = buf[pos + 3]
                    if f > 99 if ip >= 0 else 0 < f < 157:  # |fraction| of 1 s or more (§4)
                        raise _bad_frac(col, sql, f)
                    if ip < 0 and f:
                        ip += 1
                        f -= 256
                    nr = (ip << 24) + f * 10000
                else:
                    f = int.from_bytes(buf[pos + 3:end], "big")
                    if f > 9999 if ip >= 0 else 0 < f < 55537:
                        raise _bad_frac(col, sql, f)
                    if ip < 0 and f:
                        ip += 1
                        f -= 65536
                    nr = (ip << 24) + f * 100
            hms = (-nr if nr < 0 else nr) >> 24
            if hms >> 12 > 838 or (hms >> 6) & 63 > 59 or hms & 63 > 59:
                raise decode_error(col, f"{sql} {hms >> 12}:{(hms >> 6) & 63}:{hms & 63} is out of range")
            return _td(time_from_packed(nr)), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "timedelta", encode_array=_time2_array(fsp))


def _frac_encode(us: int, fsp: int) -> bytes:
    if fsp == 0:
        return b""
    if fsp <= 2:
        return bytes((us // 10000,))
    if fsp <= 4:
        return (us // 100).to_bytes(2, "big")
    return us.to_bytes(3, "big")


def _frac_decode(buf: Any, pos: int, fsp: int, col: ColumnDesc | None = None, sql: str = "") -> int:
    """Microseconds of a fraction stored in (fsp+1)/2 bytes; a stored fraction of a second or
    more (no server writes one, and it would not encode back) is a located DecodeError."""
    if fsp <= 2:
        v = buf[pos]
        if v > 99:
            raise _bad_frac(col, sql, v)
        return v * 10000
    if fsp <= 4:
        v = int.from_bytes(buf[pos:pos + 2], "big")
        if v > 9999:
            raise _bad_frac(col, sql, v)
        return v * 100
    v = int.from_bytes(buf[pos:pos + 3], "big")
    if v > 999999:
        raise _bad_frac(col, sql, v)
    return v


def _bad_frac(col: ColumnDesc | None, sql: str, v: int):
    msg = f"{sql or 'temporal'} fraction {v} is a second or more"
    return decode_error(col, msg) if col is not None else ValueError(msg)


@register
class DateTime2Codec(Codec):
    """DATETIME2 (18): 5 bytes BE ``(ymd << 17 | hms) + 2^39`` + fraction bytes (values.md §4)."""

    type_codes = (18,)
    meta_layout = _FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = _fsp_of(self, col)
        sql = f"DATETIME({fsp})" if fsp else "DATETIME"
        size = 5 + (fsp + 1) // 2

        def enc(value: Any) -> bytes:
            y, m, d, h, mi, s, us = _datetime_fields(value)
            _check_fsp(us, fsp)
            ip = ((((y * 13 + m) << 5) | d) << 17) | (h << 12) | (mi << 6) | s
            return (ip + 0x8000000000).to_bytes(5, "big") + _frac_encode(us, fsp)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise _short(col, sql, buf, pos, size)
            ip = int.from_bytes(buf[pos:pos + 5], "big") - 0x8000000000
            if ip < 0:
                raise decode_error(col, f"{sql} bytes {bytes(buf[pos:end]).hex()} have the sign bit clear")
            us = _frac_decode(buf, pos + 5, fsp, col, sql) if fsp else 0
            ymd = ip >> 17
            ym = ymd >> 5
            hms = ip & 0x1FFFF
            return datetime_value(ym // 13, ym % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63, us), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "datetime | MysqlDateTime",
                     encode_array=_datetime2_array(fsp))


def _ts_value(secs: int, us: int) -> Any:
    if secs == 0 and us == 0:
        return MysqlDateTime(0, 0, 0, strict=False)
    return _EPOCH + _dt.timedelta(seconds=secs, microseconds=us)


def _ts_frac_value(col: ColumnDesc, sql: str, secs: int, us: int) -> Any:
    """:func:`_ts_value` of a TIMESTAMP with a fraction: 0 seconds with a fraction is below the
    range (1970-01-01 00:00:01 UTC; only the zero timestamp has 0 seconds), no server writes it."""
    if secs == 0 and us:
        raise decode_error(col, f"{sql} of 0 seconds and {us} microseconds is below its range "
                                "(only the zero timestamp has 0 seconds)")
    return _ts_value(secs, us)


@register
class Timestamp2Codec(Codec):
    """TIMESTAMP2 (17): 4 bytes BE seconds since the epoch (UTC) + fraction bytes (values.md §4)."""

    type_codes = (17,)
    meta_layout = _FSP_LAYOUT

    def bind(self, col: ColumnDesc) -> Bound:
        fsp = _fsp_of(self, col)
        sql = f"TIMESTAMP({fsp})" if fsp else "TIMESTAMP"
        size = 4 + (fsp + 1) // 2

        def enc(value: Any) -> bytes:
            us = _timestamp_us(value)
            _check_fsp(us, fsp)
            secs, frac = divmod(us, 1_000_000)
            return secs.to_bytes(4, "big") + _frac_encode(frac, fsp)

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise _short(col, sql, buf, pos, size)
            secs = int.from_bytes(buf[pos:pos + 4], "big")
            us = _frac_decode(buf, pos + 4, fsp, col, sql) if fsp else 0
            return _ts_frac_value(col, sql, secs, us), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "datetime (UTC) | MysqlDateTime",
                     encode_array=_timestamp2_array(fsp))


def _old_fsp(col: ColumnDesc) -> int:
    fsp = col.fsp or 0
    if not 0 <= fsp <= 6:
        raise SchemaError(f"fsp {fsp} is beyond 6 - at {col.table}.{col.name}")
    return fsp


_TIME_HIRES_BYTES = (3, 4, 4, 5, 5, 5, 6)
_DATETIME_HIRES_BYTES = (8, 6, 6, 7, 7, 7, 8)
_TS_FRAC_BYTES = (0, 1, 1, 2, 2, 3, 3)


@register
class OldTimeCodec(Codec):
    """Old TIME (11): fsp 0 = 3 bytes LE signed ``±hhmmss``; MariaDB TIME(1–6) hires (§4.1).

    The fsp is not in the binlog: it comes from ``ColumnDesc.fsp`` (None = 0).
    """

    type_codes = (11,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = _old_fsp(col)
        sql = f"TIME({fsp}) (old format)" if fsp else "TIME (old format)"
        size = _TIME_HIRES_BYTES[fsp]
        p = _POW[fsp]
        ofs = 3020400 * p

        def enc(value: Any) -> bytes:
            us = _time_us(value)
            _check_fsp(us, fsp)
            if fsp == 0:
                a = abs(us) // 1_000_000
                v = (a // 3600) * 10000 + (a // 60 % 60) * 100 + a % 60
                return (-v if us < 0 else v).to_bytes(3, "little", signed=True)
            # (seconds * p + frac), negated for negative times, + 838:59:59+1 s in units of 10^-fsp
            return (us // _POW[6 - fsp] + ofs).to_bytes(size, "big")

        def decode(buf: Any, pos: int) -> tuple[_dt.timedelta, int]:
            end = pos + size
            if end > len(buf):
                raise _short(col, sql, buf, pos, size)
            if fsp == 0:
                v = int.from_bytes(buf[pos:end], "little", signed=True)
                a = -v if v < 0 else v
                if a // 100 % 100 >= 60 or a % 100 >= 60:  # no server writes 102:55:72
                    raise decode_error(col, f"{sql} {a // 10000}:{a // 100 % 100}:{a % 100} is out of range")
                us = ((a // 10000) * 3600 + (a // 100 % 100) * 60 + a % 100) * 1_000_000
                return _td(-us if v < 0 else us), end
            v = int.from_bytes(buf[pos:end], "big") - ofs
            return _td(v * _POW[6 - fsp]), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "timedelta")


@register
class OldDateTimeCodec(Codec):
    """Old DATETIME (12): fsp 0 = 8 bytes LE ``YYYYMMDDhhmmss``; MariaDB DATETIME(1–6) hires (§4.1)."""

    type_codes = (12,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = _old_fsp(col)
        sql = f"DATETIME({fsp}) (old format)" if fsp else "DATETIME (old format)"
        size = _DATETIME_HIRES_BYTES[fsp]
        p = _POW[fsp]

        def enc(value: Any) -> bytes:
            y, m, d, h, mi, s, us = _datetime_fields(value)
            _check_fsp(us, fsp)
            if fsp == 0:
                v = ((y * 10000 + m * 100 + d) * 1000000) + h * 10000 + mi * 100 + s
                return v.to_bytes(8, "little")
            v = (((((y * 13 + m) * 32 + d) * 24 + h) * 60 + mi) * 60 + s) * p + us // _POW[6 - fsp]
            return v.to_bytes(size, "big")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise _short(col, sql, buf, pos, size)
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
            return datetime_value(y, m, d, h, mi, s, frac * _POW[6 - fsp]), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "datetime | MysqlDateTime")


@register
class OldTimestampCodec(Codec):
    """Old TIMESTAMP (7): fsp 0 = 4 bytes LE seconds; MariaDB TIMESTAMP(1–6) = 4 bytes BE + frac (§4.1)."""

    type_codes = (7,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        fsp = _old_fsp(col)
        sql = f"TIMESTAMP({fsp}) (old format)" if fsp else "TIMESTAMP (old format)"
        fb = _TS_FRAC_BYTES[fsp]
        size = 4 + fb

        def enc(value: Any) -> bytes:
            us = _timestamp_us(value)
            _check_fsp(us, fsp)
            secs, frac = divmod(us, 1_000_000)
            if fsp == 0:
                return secs.to_bytes(4, "little")
            return secs.to_bytes(4, "big") + (frac // _POW[6 - fsp]).to_bytes(fb, "big")

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                raise _short(col, sql, buf, pos, size)
            if fsp == 0:
                return _ts_value(int.from_bytes(buf[pos:end], "little"), 0), end
            secs = int.from_bytes(buf[pos:pos + 4], "big")
            frac = int.from_bytes(buf[pos + 4:end], "big")
            return _ts_frac_value(col, sql, secs, frac * _POW[6 - fsp]), end

        return Bound(col, sql, _wrap(col, sql, enc), decode, size, "datetime (UTC) | MysqlDateTime")
