"""Helpers shared by the date, time, datetime and timestamp families (values.md §4, §4.1);
the codecs are in values/date.py, time.py, datetime.py, timestamp.py, the vectorised
encoders in values/_temporal_arrays.py, the bit layouts of DATETIME2, TIME2, TIMESTAMP2 and
their fractions in values/temporal_layout.py.

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

from binlogwriter.errors import SchemaError
from binlogwriter.values._common import Codec, decode_error, describe, int_text, value_error
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.temporal_layout import FRACTIONS, TS_MAX
from binlogwriter.values.types import MysqlDate, MysqlDateTime, MysqlTime, days_in_month

__all__ = [
    "temporal_text",
    "date_value",
    "datetime_value",
    "TIME_MAX_US",
]

UTC = _dt.UTC
EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)
_TD_ZERO = _dt.timedelta(0)
TIME_MAX_US = ((838 * 60 + 59) * 60 + 59) * 1_000_000 + 999_999
"""Largest TIME magnitude accepted: 838:59:59.999999 (MariaDB's limit; MySQL clips at .000000)."""
POW = (1, 10, 100, 1000, 10000, 100000, 1000000)


class Reject(Exception):
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
        raise Reject(f"date {y:04d}-{m:02d}-{d:02d} is out of range (year 0..9999, month 0..12, day 0..31)")
    if strict and m and d and d > days_in_month(y, m):
        raise Reject(f"invalid date {y:04d}-{m:02d}-{d:02d}: month {m} has {days_in_month(y, m)} days")


def _check_hms(h: int, mi: int, s: int, us: int) -> None:
    if not (0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59 and 0 <= us <= 999_999):
        raise Reject(f"time of day {h:02d}:{mi:02d}:{s:02d}.{us:06d} is out of range")


def date_fields(value: Any) -> tuple[int, int, int]:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None or value.time() != _dt.time(0):
            raise Reject(f"DATE has no time part, got {describe(value)}")
        return value.year, value.month, value.day
    if isinstance(value, _dt.date):
        return value.year, value.month, value.day
    if isinstance(value, MysqlDate):
        _check_ymd(value.year, value.month, value.day, value.strict)
        return value.year, value.month, value.day
    raise Reject(f"needs a datetime.date or MysqlDate, got {describe(value)}")


def datetime_fields(value: Any) -> tuple[int, int, int, int, int, int, int]:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            raise Reject(f"DATETIME has no time zone; pass a naive datetime, got {describe(value)}")
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
    raise Reject(f"needs a naive datetime.datetime or MysqlDateTime, got {describe(value)}")


def time_us(value: Any) -> int:
    """Signed microseconds of a TIME value, range-checked."""
    if isinstance(value, _dt.timedelta):
        us = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    elif isinstance(value, MysqlTime):
        if not (0 <= value.minutes <= 59 and 0 <= value.seconds <= 59
                and 0 <= value.microseconds <= 999_999 and value.hours >= 0):
            raise Reject(f"TIME fields out of range: {value}")
        us = value.total_microseconds()
    elif isinstance(value, _dt.time):
        if value.tzinfo is not None:
            raise Reject(f"TIME has no time zone, got {describe(value)}")
        us = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    else:
        raise Reject(f"needs a datetime.timedelta, MysqlTime or datetime.time, got {describe(value)}")
    if abs(us) > TIME_MAX_US:
        raise Reject(f"holds -838:59:59.999999..838:59:59.999999, got {_time_text(us, 6)}")
    return us


def timestamp_us(value: Any) -> int:
    """Microseconds since the epoch (UTC) for a TIMESTAMP value; 0 = the zero timestamp."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            delta = value - _EPOCH_NAIVE
        else:
            delta = value - EPOCH
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(value, MysqlDateTime):
        if value.is_zero:
            return 0
        d = value.to_datetime()
        if d is None:
            raise Reject(f"TIMESTAMP cannot hold {value}")
        delta = d - _EPOCH_NAIVE
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(value, int) and not isinstance(value, bool):
        if value == 0:
            return 0
        if not 1 <= value <= TS_MAX:  # checked before any arithmetic on a huge int
            raise Reject("holds 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC "
                         f"(or the zero timestamp), got {int_text(value)} seconds")
        us = value * 1_000_000
    else:
        raise Reject(f"needs a datetime, int seconds or the zero MysqlDateTime, got {describe(value)}")
    if not 1_000_000 <= us <= TS_MAX * 1_000_000 + 999_999:
        raise Reject("holds 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999 UTC "
                     f"(or the zero timestamp), got {_ts_text(us)}")
    return us


def _ts_text(us: int) -> str:
    """A TIMESTAMP's microseconds for a message: the UTC date when Python can show it."""
    try:
        return str(EPOCH + _dt.timedelta(microseconds=us))
    except OverflowError:
        return f"{int_text(us)} microseconds since the epoch"


def check_fsp(us: int, fsp: int) -> None:
    if us % POW[6 - fsp]:
        digits = f"{abs(us) % 1_000_000:06d}".rstrip("0")
        raise Reject(f"fraction .{digits} has {len(digits)} digits, fsp {fsp} keeps {fsp}; round it first")


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


def td(us: int) -> _dt.timedelta:
    return _dt.timedelta(microseconds=us) if us else _TD_ZERO


# ---------------------------------------------------------------------------------------------
# vectorised encoders (arrays of microseconds / days; same bytes as the scalar encoders)
# ---------------------------------------------------------------------------------------------


FSP_LAYOUT = cs.Struct("fsp" / cs.Int8ul)


def fsp_of(codec: Codec, col: ColumnDesc) -> int:
    fsp = codec.parse_meta(col).fsp
    if fsp > 6:
        raise SchemaError(f"fsp {fsp} in metadata is beyond 6 - at {col.table}.{col.name}")
    return fsp


def wrap(col: ColumnDesc, sql: str, fn):
    def encode(value: Any) -> bytes:
        try:
            return fn(value)
        except Reject as exc:
            raise value_error(col, sql, str(exc)) from None
    return encode


def short(col: ColumnDesc, sql: str, buf: Any, pos: int, n: int):
    return decode_error(col, f"{sql} needs {n} bytes at {pos}, {max(0, len(buf) - pos)} left")


def frac_decode(buf: Any, pos: int, fsp: int, col: ColumnDesc | None = None, sql: str = "") -> int:
    """Microseconds of the fraction bytes of ``fsp`` at ``pos`` (:data:`FRACTIONS`); a stored
    fraction of a second or more (no server writes one, and it would not encode back) is a
    located DecodeError."""
    f = FRACTIONS[fsp]
    v = int.from_bytes(buf[pos:pos + f.size], "big")
    if v > f.limit:
        raise bad_frac(col, sql, v)
    return v * f.unit


def bad_frac(col: ColumnDesc | None, sql: str, v: int):
    msg = f"{sql or 'temporal'} fraction {v} is a second or more"
    return decode_error(col, msg) if col is not None else ValueError(msg)


def ts_value(secs: int, us: int) -> Any:
    if secs == 0 and us == 0:
        return MysqlDateTime(0, 0, 0, strict=False)
    return EPOCH + _dt.timedelta(seconds=secs, microseconds=us)


def ts_frac_value(col: ColumnDesc, sql: str, secs: int, us: int) -> Any:
    """:func:`_ts_value` of a TIMESTAMP with a fraction: 0 seconds with a fraction is below the
    range (1970-01-01 00:00:01 UTC; only the zero timestamp has 0 seconds), no server writes it."""
    if secs == 0 and us:
        raise decode_error(col, f"{sql} of 0 seconds and {us} microseconds is below its range "
                                "(only the zero timestamp has 0 seconds)")
    return ts_value(secs, us)


def old_fsp(col: ColumnDesc) -> int:
    fsp = col.fsp or 0
    if not 0 <= fsp <= 6:
        raise SchemaError(f"fsp {fsp} is beyond 6 - at {col.table}.{col.name}")
    return fsp


TIME_HIRES_BYTES = (3, 4, 4, 5, 5, 5, 6)
DATETIME_HIRES_BYTES = (8, 6, 6, 7, 7, 7, 8)


def fsp_frac(us: int, fsp: int) -> str:
    """The ground-truth fraction: the first ``fsp`` of six microsecond digits (docs/output.md)."""
    return "" if not fsp else "." + f"{us:06d}"[:fsp]
