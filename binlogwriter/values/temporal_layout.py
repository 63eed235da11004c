"""The bit layouts of the temporal types with a fraction — DATETIME2 (18), TIME2 (19),
TIMESTAMP2 (17) — and of the packed longlong forms (my_time.cc; values.md §4, §7): their one
home. The codecs (values/datetime.py, time.py, timestamp.py), the array encoders
(values/_temporal_arrays.py), the fast decoders (values/temporal_fast.py, read/inline_values.py),
the Arrow builder (read/arrowfamilies.py), the canonical verifier (read/canonical.py), the fused
``###`` printer (text/fused.py) and binary JSON take these rules from here.

* the fraction of ``fsp`` digits (0..6): ``(fsp + 1) // 2`` bytes big-endian after the integer
  part, counting units of ``10^(6 - 2 * bytes)`` microseconds (:data:`FRACTIONS`); an odd fsp
  stores one digit more than it keeps, always 0 when a server writes it;
* TIMESTAMP2: :data:`TIMESTAMP2_SECONDS` bytes big-endian of seconds since the epoch (UTC),
  1 .. :data:`TS_MAX` (0 is the zero timestamp), then the fraction;
* DATETIME2: :func:`datetime_int` plus :data:`DATETIME2_BIAS` in 5 bytes big-endian, then the
  fraction;
* TIME2: :func:`time_hms` (the packed value's integer part) plus :data:`TIME2_BIAS` in 3 bytes
  big-endian, then the fraction (fsp 5–6: the whole packed value in 6 bytes).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Fraction", "FRACTIONS", "fraction_size", "frac_encode", "TIMESTAMP2_SECONDS", "TS_MAX", "timestamp2_size", "datetime2_size", "time2_size", "DATETIME2_INT_BYTES", "TIME2_INT_BYTES",
           "DATETIME2_BIAS", "datetime_int", "datetime_parts", "datetime_parts_source", "datetime_packed",
           "datetime_from_packed", "TIME2_BIAS", "time_hms", "time_packed", "time_from_packed"]


class Fraction(NamedTuple):
    """How the fraction of one fsp is stored (values.md §4)."""

    size: int
    """Bytes, big-endian: ``(fsp + 1) // 2``."""
    unit: int
    """Microseconds per stored unit: 10000, 100 or 1 (10^6 for fsp 0, which stores none)."""
    limit: int
    """Largest well-formed stored value (below one second): 99, 9999 or 999999."""
    step: int
    """What a stored value must be a multiple of to encode back: 10 for an odd fsp (its extra
    digit is 0), else 1."""


FRACTIONS: tuple[Fraction, ...] = tuple(
    Fraction((fsp + 1) // 2, 10 ** (6 - 2 * ((fsp + 1) // 2)), 10 ** (2 * ((fsp + 1) // 2)) - 1,
             10 ** (2 * ((fsp + 1) // 2) - fsp))
    for fsp in range(7))
"""fsp (0..6) -> its :class:`Fraction`: DATETIME2, TIME2, TIMESTAMP2 and MariaDB's hires
TIMESTAMP (values.md §4, §4.1)."""


def fraction_size(fsp: int) -> int:
    """Bytes of the fraction of ``fsp`` digits: ``(fsp + 1) // 2``."""
    return FRACTIONS[fsp].size


TIMESTAMP2_SECONDS = 4
"""TIMESTAMP2's seconds since the epoch: 4 bytes big-endian, then the fraction."""
TS_MAX = (1 << 31) - 1
"""Largest TIMESTAMP second: 2038-01-19 03:14:07 UTC."""


def frac_encode(us: int, fsp: int) -> bytes:
    """The fraction bytes of ``fsp`` for ``us`` microseconds (below a second, no digit beyond
    the fsp: the encoders check)."""
    f = FRACTIONS[fsp]
    return (us // f.unit).to_bytes(f.size, "big")


DATETIME2_INT_BYTES = 5
"""DATETIME2's integer part (:func:`datetime_int` + :data:`DATETIME2_BIAS`), big-endian."""
TIME2_INT_BYTES = 3
"""TIME2's integer part (:func:`time_hms` + :data:`TIME2_BIAS`), big-endian."""


def timestamp2_size(fsp: int) -> int:
    """Bytes of a TIMESTAMP2 value of ``fsp``."""
    return TIMESTAMP2_SECONDS + FRACTIONS[fsp].size


def datetime2_size(fsp: int) -> int:
    """Bytes of a DATETIME2 value of ``fsp``."""
    return DATETIME2_INT_BYTES + FRACTIONS[fsp].size


def time2_size(fsp: int) -> int:
    """Bytes of a TIME2 value of ``fsp``."""
    return TIME2_INT_BYTES + FRACTIONS[fsp].size


# -- DATETIME2 and TIME2, and the packed longlong forms (my_time.cc) of JSON opaque values (values.md §7)

DATETIME2_BIAS = 1 << 39
"""DATETIME2 stores :func:`datetime_int` plus this (its sign bit) in 5 bytes big-endian, then the
fraction (values.md §4)."""


def datetime_int(y: Any, m: Any, d: Any, h: Any, mi: Any, s: Any) -> Any:
    """The one statement of the datetime bit layout (my_time.cc; values.md §4):
    ``((year * 13 + month) << 5 | day) << 17 | hour << 12 | minute << 6 | second``. DATETIME2's
    integer part and the packed longlong's top bits; ints or numpy int64 arrays alike."""
    return ((((y * 13 + m) << 5) | d) << 17) | (h << 12) | (mi << 6) | s


def datetime_parts(ip: Any) -> tuple:
    """Inverse of :func:`datetime_int`: (year, month, day, hour, minute, second) of ``ip``, an
    int or a numpy int64 array; the same expressions as :func:`datetime_parts_source`."""
    return (ip >> 22) // 13, (ip >> 22) % 13, (ip >> 17) & 31, (ip >> 12) & 31, (ip >> 6) & 63, ip & 63


def datetime_parts_source(ip: str) -> str:
    """:func:`datetime_parts` as source text over the variable ``ip`` (``y, mo, d, h, mi, s``
    comma-separated), for the compiled decoders and printers (read/inline_values.py,
    text/fused.py); tests/values/test_datetime_layout.py holds the two equal."""
    return (f"({ip} >> 22) // 13, ({ip} >> 22) % 13, ({ip} >> 17) & 31, ({ip} >> 12) & 31, ({ip} >> 6) & 63, "
            f"{ip} & 63")


def datetime_packed(y: int, m: int, d: int, h: int = 0, mi: int = 0, s: int = 0, us: int = 0) -> int:
    """``TIME_to_longlong_datetime_packed``: ``datetime_int << 24 | usec``."""
    return (datetime_int(y, m, d, h, mi, s) << 24) + us


def datetime_from_packed(nr: int) -> tuple[int, int, int, int, int, int, int]:
    """Inverse of :func:`datetime_packed` (non-negative values): (y, m, d, h, mi, s, us)."""
    return (*datetime_parts(nr >> 24), nr & 0xFFFFFF)


TIME2_BIAS = 1 << 23
"""TIME2 stores the packed value's integer part (``nr >> 24``) plus this in 3 bytes big-endian,
then the fraction; with fsp 5–6 the whole packed value plus ``TIME2_BIAS << 24`` in 6 bytes
(values.md §4)."""


def time_hms(secs: Any) -> Any:
    """The TIME bit layout (my_time.cc; values.md §4): ``hour << 12 | minute << 6 | second`` of
    a non-negative second count, hours unbounded by 24; ints or numpy int64 arrays alike."""
    return ((secs // 3600) << 12) | ((secs // 60 % 60) << 6) | (secs % 60)


def time_packed(us: int) -> int:
    """``TIME_to_longlong_time_packed`` of a signed microsecond count: ``±((hms << 24) + usec)``."""
    neg = us < 0
    a = -us if neg else us
    secs, frac = divmod(a, 1_000_000)
    nr = (time_hms(secs) << 24) + frac
    return -nr if neg else nr


def time_from_packed(nr: int) -> int:
    """Signed microseconds of a packed TIME (fields as the server reads them)."""
    neg = nr < 0
    a = -nr if neg else nr
    hms = a >> 24
    frac = a & 0xFFFFFF
    us = ((((hms >> 12) & 0x3FF) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63)) * 1_000_000 + frac
    return -us if neg else us
