"""Faster DATETIME2 / TIMESTAMP2 readers for the compiled row decoders (values.md §4).

The bound codecs of the temporal families (values/datetime.py, timestamp.py) are the reference. These readers
take the common case — a valid date and time, a fraction below one second, a TIMESTAMP
other than the zero value — with plain integer arithmetic and one ``datetime``
constructor call (a TIMESTAMP's calendar day is looked up per day number instead of adding
a ``timedelta`` to the epoch); anything else (zero dates, invalid days, sign bit clear,
cut bytes) goes to the reference decoder, which gives the lenient value or the located
error. A property test asserts both give equal values (tests/read/test_rowdecode_props.py).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from binlogwriter.values._temporal import EPOCH
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    DATETIME2_INT_BYTES,
    FRACTIONS,
    TIMESTAMP2_SECONDS,
    datetime2_size,
    datetime_parts,
    timestamp2_size,
)

__all__ = ["fast_temporal_decoder"]

_datetime = _dt.datetime
UTC = EPOCH.tzinfo
DAYS: dict[int, tuple[int, int, int]] = {}


def day(days: int) -> tuple[int, int, int]:
    ymd = DAYS.get(days)
    if ymd is None:
        d = _dt.date(1970, 1, 1) + _dt.timedelta(days=days)
        ymd = (d.year, d.month, d.day)
        if len(DAYS) >= 65536:
            DAYS.clear()
        DAYS[days] = ymd
    return ymd


def _frac_reader(fsp: int, at: int) -> Callable[[Any, int], int]:
    """Microseconds of the fraction bytes of ``fsp`` (values/temporal_layout.py FRACTIONS) at
    ``pos + at``; -1 when a second or more."""
    n, mul, limit = FRACTIONS[fsp][:3]
    if n == 0:
        return lambda buf, pos: 0
    if n == 1:
        def f1(buf: Any, pos: int) -> int:
            v = buf[pos + at]
            return v * mul if v <= limit else -1
        return f1

    def fn(buf: Any, pos: int) -> int:
        v = int.from_bytes(buf[pos + at:pos + at + n], "big")
        return v * mul if v <= limit else -1
    return fn


def fast_temporal_decoder(type_code: int, fsp: int, reference: Callable) -> Callable | None:
    """``decode(buf, pos) -> (value, pos)`` for DATETIME2 (18) / TIMESTAMP2 (17) of ``fsp``
    giving what ``reference`` (the bound codec's decode) gives; None for other types."""
    if not 0 <= fsp <= 6:
        return None
    if type_code == 18:
        size = datetime2_size(fsp)
        frac = _frac_reader(fsp, DATETIME2_INT_BYTES)

        def datetime2(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                return reference(buf, pos)
            ip = int.from_bytes(buf[pos:pos + DATETIME2_INT_BYTES], "big") - DATETIME2_BIAS
            us = frac(buf, pos)
            if ip < 0 or us < 0:
                return reference(buf, pos)
            try:
                return _datetime(*datetime_parts(ip), us), end
            except ValueError:  # zero or invalid dates: a lenient MysqlDateTime
                return reference(buf, pos)
        return datetime2
    if type_code == 17:
        size = timestamp2_size(fsp)
        frac = _frac_reader(fsp, TIMESTAMP2_SECONDS)

        def timestamp2(buf: Any, pos: int) -> tuple[Any, int]:
            end = pos + size
            if end > len(buf):
                return reference(buf, pos)
            secs = int.from_bytes(buf[pos:pos + TIMESTAMP2_SECONDS], "big")
            us = frac(buf, pos)
            if secs == 0 or us < 0:
                return reference(buf, pos)
            days, rem = divmod(secs, 86400)
            y, m, d = day(days)
            return _datetime(y, m, d, rem // 3600, rem // 60 % 60, rem % 60, us, UTC), end
        return timestamp2
    return None
