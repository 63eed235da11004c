"""Python value classes for column values that the standard library cannot hold.

The rule everywhere (docs/python-types.md): **decoding returns a standard type whenever it can
hold the value exactly** — ``datetime.date``, ``datetime.datetime``, ``datetime.timedelta``,
``Decimal``, ``int``, ``str`` … — and one of the classes below only when it cannot:

* :class:`MysqlDate` — a DATE that ``datetime.date`` cannot hold: the zero date
  ``0000-00-00``, a zero month or day (``2016-00-28``), year 0, or a date the server kept
  under ``ALLOW_INVALID_DATES`` (``2020-02-30``).
* :class:`MysqlDateTime` — the same for DATETIME / TIMESTAMP (and JSON opaque DATETIME).
* :class:`MysqlTime` — never returned by a decoder (every TIME fits a ``timedelta``); accepted
  by encoders as a sign-and-fields spelling of TIME (``-838:59:59.000000``).
* :class:`Geometry` — a GEOMETRY value: SRID plus WKB bytes (values.md §8).
* :class:`JsonOpaque`, :class:`JsonUInt`, :class:`JsonDecimal`, :class:`JsonTimestamp` — JSON
  binary nodes that plain JSON types would lose (values.md §7).

Values built by a decoder are *lenient*: they re-encode to the bytes they came from even if
the server would refuse them as input today (``2020-02-30``). Values you build yourself are
*strict* unless you pass ``strict=False``: encoders then reject calendar-invalid dates
(Feb 30) and out-of-range fields with ``ValueEncodeError``. ``strict`` takes no part in
equality, hashing or ``repr``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from decimal import Decimal

__all__ = [
    "MysqlDate",
    "MysqlDateTime",
    "MysqlTime",
    "Geometry",
    "JsonOpaque",
    "JsonUInt",
    "JsonDecimal",
    "JsonTimestamp",
    "days_in_month",
]


def days_in_month(year: int, month: int) -> int:
    """Days of ``month`` in ``year`` by MySQL's calendar (``calc_days_in_year``: year 0 is not leap)."""
    if month == 2:
        leap = (year & 3) == 0 and (year % 100 != 0 or (year % 400 == 0 and year != 0))
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


@dataclass(frozen=True, slots=True)
class MysqlDate:
    """A DATE that ``datetime.date`` cannot hold (zero date, zero month/day, year 0, invalid day).

    ``str()`` gives the server's text form ``YYYY-MM-DD``.
    """

    year: int
    month: int
    day: int
    strict: bool = field(default=True, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    @property
    def is_zero(self) -> bool:
        return self.year == 0 and self.month == 0 and self.day == 0

    def to_date(self) -> _dt.date | None:
        """The equal ``datetime.date``, or None when there is none."""
        try:
            return _dt.date(self.year, self.month, self.day)
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class MysqlDateTime:
    """A DATETIME/TIMESTAMP that ``datetime.datetime`` cannot hold (``0000-00-00 00:00:00`` …).

    ``str()`` gives ``YYYY-MM-DD hh:mm:ss`` plus ``.ffffff`` when ``microsecond`` is not 0.
    """

    year: int
    month: int
    day: int
    hour: int = 0
    minute: int = 0
    second: int = 0
    microsecond: int = 0
    strict: bool = field(default=True, compare=False, repr=False)

    def __str__(self) -> str:
        s = (f"{self.year:04d}-{self.month:02d}-{self.day:02d} "
             f"{self.hour:02d}:{self.minute:02d}:{self.second:02d}")
        return s + (f".{self.microsecond:06d}" if self.microsecond else "")

    @property
    def is_zero(self) -> bool:
        return not (self.year or self.month or self.day or self.hour or self.minute
                    or self.second or self.microsecond)

    def to_datetime(self) -> _dt.datetime | None:
        """The equal naive ``datetime.datetime``, or None when there is none."""
        try:
            return _dt.datetime(self.year, self.month, self.day, self.hour, self.minute,
                                self.second, self.microsecond)
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class MysqlTime:
    """A TIME value as sign and fields: ``MysqlTime(True, 838, 59, 59)`` is ``-838:59:59``.

    Encoders accept it wherever they accept a ``timedelta``; decoders return ``timedelta``.
    """

    negative: bool
    hours: int
    minutes: int = 0
    seconds: int = 0
    microseconds: int = 0

    def __str__(self) -> str:
        s = f"{'-' if self.negative else ''}{self.hours:02d}:{self.minutes:02d}:{self.seconds:02d}"
        return s + (f".{self.microseconds:06d}" if self.microseconds else "")

    def total_microseconds(self) -> int:
        """Signed length of the interval in microseconds."""
        us = ((self.hours * 60 + self.minutes) * 60 + self.seconds) * 1_000_000 + self.microseconds
        return -us if self.negative else us

    def to_timedelta(self) -> _dt.timedelta:
        return _dt.timedelta(microseconds=self.total_microseconds())

    @classmethod
    def from_timedelta(cls, td: _dt.timedelta) -> MysqlTime:
        us = (td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds
        neg = us < 0
        us = abs(us)
        secs, frac = divmod(us, 1_000_000)
        return cls(neg, secs // 3600, secs // 60 % 60, secs % 60, frac)


@dataclass(frozen=True, slots=True)
class Geometry:
    """A GEOMETRY column value: ``srid`` (u32) and the standard ``wkb`` bytes (values.md §8).

    ``Geometry(0, bytes.fromhex("0101000000000000000000f83f00000000000000c0"))`` is
    ``POINT(1.5 -2)``. Encoders also take raw ``bytes`` = 4-byte LE SRID + WKB.
    """

    srid: int
    wkb: bytes

    def to_bytes(self) -> bytes:
        """MySQL's internal form: 4-byte LE SRID followed by the WKB."""
        return self.srid.to_bytes(4, "little") + bytes(self.wkb)


@dataclass(frozen=True, slots=True)
class JsonOpaque:
    """A JSON opaque node (type 0x0f) kept as raw bytes: ``field_type`` is a MySQL column type code.

    The decoder returns it for opaque nodes it does not map to a Python type (BLOB 252,
    VARCHAR 15, BIT 16, GEOMETRY 255 …) and for mapped ones whose bytes would not
    re-encode identically.
    """

    field_type: int
    data: bytes


class JsonUInt(int):
    """An ``int`` stored as a JSON *unsigned* integer (uint16 / uint32 / uint64, values.md §7).

    Decoders return it for unsigned nodes so that a re-encode keeps the unsigned type;
    it compares and computes like any ``int``. Encoders pick the smallest of uint16,
    uint32, uint64; a plain ``int`` takes int16, int32, int64 (uint64 above INT64_MAX).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JsonUInt({int(self)})"


class JsonDecimal(Decimal):
    """A ``Decimal`` that remembers the precision stored with it in a JSON opaque DECIMAL.

    Plain ``Decimal`` values are stored with precision ``max(1, integer digits) + scale``
    (``0.1`` → 2, 1; ``1.99`` → 3, 2). A value cast from a wider SQL column keeps that
    column's precision; the decoder then returns a ``JsonDecimal`` so that it re-encodes
    byte-exactly. It compares equal to the plain ``Decimal``.
    """

    __slots__ = ("precision",)

    def __new__(cls, value: object = "0", precision: int = 0) -> JsonDecimal:
        obj = super().__new__(cls, value)
        obj.precision = precision
        return obj

    def __repr__(self) -> str:
        return f"JsonDecimal('{self}', precision={self.precision})"

    def __reduce__(self):
        return (JsonDecimal, (str(self), self.precision))


class JsonTimestamp(_dt.datetime):
    """A naive ``datetime`` that is stored as a JSON opaque TIMESTAMP (field type 7), not DATETIME (12)."""

    __slots__ = ()

    def __reduce__(self):
        return (JsonTimestamp, (self.year, self.month, self.day, self.hour, self.minute,
                                self.second, self.microsecond))


class JsonNull:
    """A JSON column value that is the JSON ``null`` document — not SQL NULL (which is ``None``).

    Two instances, equal to each other: :data:`JSON_NULL` is the literal document ``04 00``;
    :data:`JSON_NULL_EMPTY` is the zero-length value the server stores for a NOT NULL JSON
    column given no value (values.md §7), kept apart only so that it re-encodes byte-exactly.
    Inside a JSON document ``None`` is the null literal as usual.
    """

    __slots__ = ("empty",)

    def __init__(self, empty: bool = False) -> None:
        self.empty = empty

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonNull)

    def __hash__(self) -> int:
        return hash(JsonNull)

    def __repr__(self) -> str:
        return "JSON_NULL_EMPTY" if self.empty else "JSON_NULL"

    def __reduce__(self):
        return (JsonNull, (self.empty,))


JSON_NULL = JsonNull(False)
JSON_NULL_EMPTY = JsonNull(True)
__all__ += ["JsonNull", "JSON_NULL", "JSON_NULL_EMPTY"]
