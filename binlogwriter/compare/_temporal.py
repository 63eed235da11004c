"""Temporal families (DATE, TIME, DATETIME, TIMESTAMP, YEAR via integers): a consumer value -> canonical candidates (docs/output.md "Canonical row form": the server's text with the column's fsp)."""

from __future__ import annotations

import datetime as _dt
import math
import re
from decimal import Decimal
from typing import Any

from binlogwriter.compare._numbers import is_int
from binlogwriter.compare._results import Reject, cannot, short, wrong_type
from binlogwriter.schema.model import Column


def _frac(us: int, fsp: int) -> str:
    """Fraction digits as the truth prints them; all six when ``us`` has digits beyond fsp
    (so a more precise value is never shown equal)."""
    if us % (10 ** (6 - fsp)):
        return "." + f"{us:06d}"
    return "" if not fsp else "." + f"{us:06d}"[:fsp]


def _us_of(frac: str | None) -> int:
    if not frac:
        return 0
    if len(frac) > 6 and set(frac[6:]) != {"0"}:
        raise cannot(f"fraction .{frac} is finer than microseconds")
    return int(frac[:6].ljust(6, "0"))


def _dt_text(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int, fsp: int) -> str:
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}" + _frac(us, fsp)


def _date_text(y: int, mo: int, d: int) -> str:
    return f"{y:04d}-{mo:02d}-{d:02d}"


_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?\Z")
_DT_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
                    r"(Z|[+-]\d{2}:?\d{2})?\Z")
_TIME_RE = re.compile(r"(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\Z")
_EPOCH = _dt.datetime(1970, 1, 1)


def n_date(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDate

    if isinstance(v, MysqlDate):
        return [str(v)]
    if isinstance(v, _dt.datetime):
        if "date_as_datetime" not in F:
            raise wrong_type(v, col)
        if v.tzinfo is not None:
            v = v.astimezone(_dt.UTC)
        if (v.hour, v.minute, v.second, v.microsecond) != (0, 0, 0, 0):
            raise cannot(f"datetime {v.isoformat()} is not at midnight")
        return [_date_text(v.year, v.month, v.day)]
    if isinstance(v, _dt.date):
        return [_date_text(v.year, v.month, v.day)]
    if isinstance(v, str):
        if "date_text" not in F:
            return [v]
        m = _DATE_RE.match(v.strip())
        if not m:
            raise cannot(f"{short(v)} is not a date")
        return [_date_text(*map(int, m.groups()))]
    if is_int(v) and "date_epoch_days" in F:
        try:
            d = _dt.date(1970, 1, 1) + _dt.timedelta(days=v)
        except OverflowError:
            raise cannot(f"{v} days from 1970-01-01 is outside the calendar") from None
        return [_date_text(d.year, d.month, d.day)]
    raise wrong_type(v, col)


def n_time(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlTime):
        v = v.to_timedelta()
    if isinstance(v, _dt.time) and "time_object" in F:
        v = _dt.timedelta(hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond)
    if is_int(v) and "time_micros" in F:
        v = _dt.timedelta(microseconds=v)
    if isinstance(v, _dt.timedelta):
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
    elif isinstance(v, str):
        if "time_text" not in F:
            return [v]
        m = _TIME_RE.match(v.strip())
        if not m:
            raise cannot(f"{short(v)} is not a time")
        sign, h, mi, s, frac = m.groups()
        us = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1_000_000 + _us_of(frac)
        us = -us if sign else us
    else:
        raise wrong_type(v, col)
    sign = "-" if us < 0 else ""
    secs, frac_us = divmod(abs(us), 1_000_000)
    return [f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}" + _frac(frac_us, fsp)]


def _parse_dt_text(v: str) -> tuple[tuple[int, ...], str | None]:
    m = _DT_RE.match(v.strip())
    if not m:
        raise cannot(f"{short(v)} is not a date and time")
    y, mo, d, h, mi, s, frac, zone = m.groups()
    return (int(y), int(mo), int(d), int(h), int(mi), int(s), _us_of(frac)), zone


def n_datetime(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDateTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlDateTime):
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            if "datetime_aware" not in F:
                raise Reject("type", "aware datetime for DATETIME (a wall clock without a zone)")
            v = v.astimezone(_dt.UTC)
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, str):
        if "datetime_text" not in F:
            return [v]
        parts, zone = _parse_dt_text(v)
        if zone not in (None, "Z", "+00:00", "+0000", "-00:00"):
            raise cannot(f"{short(v)} has a zone offset; DATETIME has none")
        return [_dt_text(*parts, fsp)]
    if is_int(v) and "datetime_epoch" in F:
        us = v * 1000 if fsp <= 3 else v
        try:
            d = _EPOCH + _dt.timedelta(microseconds=us)
        except OverflowError:
            raise cannot(f"{v} from the epoch is outside the calendar") from None
        return [_dt_text(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, fsp)]
    raise wrong_type(v, col)


def _ts_zero(fsp: int) -> str:
    return "0000-00-00 00:00:00" + ("." + "0" * fsp if fsp else "")


def _ts_from_us(us: int, fsp: int) -> str:
    """Epoch microseconds -> the truth's UTC text; epoch 0 is the zero TIMESTAMP (MySQL's
    TIMESTAMP range starts at 1970-01-01 00:00:01 UTC, 0 is reserved for the zero value)."""
    if us == 0:
        return _ts_zero(fsp)
    try:
        d = _EPOCH + _dt.timedelta(microseconds=us)
    except OverflowError:
        raise cannot(f"{us} µs from the epoch is outside the calendar") from None
    return _dt_text(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, fsp)


def n_timestamp(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDateTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlDateTime):
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, _dt.datetime):
        if v.tzinfo is None and "timestamp_naive_utc" not in F:
            raise Reject("type", "naive datetime for TIMESTAMP (an instant: give it aware, in UTC)")
        v = v.replace(tzinfo=_dt.UTC) if v.tzinfo is None else v.astimezone(_dt.UTC)
        delta = v - _EPOCH.replace(tzinfo=_dt.UTC)
        return [_ts_from_us((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds, fsp)]
    if isinstance(v, str):
        s = v.strip()
        if "timestamp_epoch" in F and re.fullmatch(r"-?\d+(\.\d+)?", s):
            return n_timestamp(Decimal(s), col, F, flavor)
        if "timestamp_text" not in F:
            return [v]
        parts, zone = _parse_dt_text(s)
        if parts[:3] == (0, 0, 0) or 0 in parts[1:3]:
            return [_dt_text(*parts, fsp)]  # the zero timestamp as text
        try:
            d = _dt.datetime(*parts[:6], parts[6], tzinfo=_dt.UTC)
        except ValueError as e:
            raise cannot(f"{short(v)}: {e}") from None
        if zone not in (None, "Z"):
            sign = -1 if zone[0] == "-" else 1
            hh, mm = int(zone[1:3]), int(zone[-2:])
            d -= sign * _dt.timedelta(hours=hh, minutes=mm)
        return n_timestamp(d, col, F | {"timestamp_naive_utc"}, flavor)
    if isinstance(v, int | float | Decimal) and not isinstance(v, bool):
        out = []
        if "timestamp_epoch" in F:
            if isinstance(v, float) and not math.isfinite(v):
                raise cannot(f"{v!r} is not an instant")
            out.append(_ts_from_us(int((Decimal(v) * 1_000_000).to_integral_value()), fsp))
        if "timestamp_epoch_millis" in F and is_int(v):
            out.append(_ts_from_us(v * 1000, fsp))
        if out:
            return out
    raise wrong_type(v, col)


