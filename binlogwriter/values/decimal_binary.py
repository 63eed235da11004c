"""NEWDECIMAL (type 246) binary format, the one home of its layout: ``decimal2bin`` /
``bin2decimal`` (MySQL ``strings/decimal.cc``; values.md §3). The codec and the family's other
faces are in values/decimal.py; every other reader or writer of these bytes (the compiled
decoders and ``###`` printers of read/inline_values.py, the canonical verifier of
read/canonical.py, the Arrow builder of read/arrowfamilies.py, binary JSON) takes the layout
from :func:`digit_groups`, :func:`decimal_size` and :func:`decimal_sign` here.

The layout of ``DECIMAL(precision, scale)``: the integer part's ``precision - scale`` digits and
the fraction's ``scale`` digits, each cut into groups of :data:`DIGITS_PER_GROUP` (9) digits
stored in 4 bytes big-endian; the integer part's leftover ``(precision - scale) % 9`` digits
lead, the fraction's ``scale % 9`` trail, each in :data:`DIG2BYTES` bytes. A non-negative value
has the top bit of its first byte set (:data:`SIGN_BIT`); a negative one is the complement of
its magnitude (every byte XOR 0xFF) with that bit clear. The metadata is ``[precision, scale]``.

Python type: ``decimal.Decimal``. Decoding gives exactly ``scale`` fraction digits
(``DECIMAL(7,3)`` → ``Decimal('-10.550')``). Encoding takes ``Decimal``, ``int`` or ``float``
(a float goes through its shortest ``repr``, ``0.1`` → ``Decimal('0.1')``). **No rounding**:
a value with more non-zero fraction digits than the scale, or more integer digits than
``precision - scale``, raises ``ValueEncodeError`` (the server would round or clip with a
warning; a generator that wants that must round itself, e.g. ``value.quantize(...)``).
Trailing fraction zeros beyond the scale are fine (``Decimal('1.500')`` in ``DECIMAL(4,1)``).
Zero, including ``-0``, is written positive (``80 00 …``) as the server does.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from binlogwriter.values._common import (
    be_bytes,
)

__all__ = ["decimal_size", "encode_decimal", "decode_decimal", "DecimalError", "scaled_decimal",
           "pack_decimal_array", "digit_groups", "DigitGroup", "decimal_sign", "sign_masks", "DIG2BYTES",
           "DIGITS_PER_GROUP", "GROUP_BYTES", "SIGN_BIT"]

DIGITS_PER_GROUP = 9
"""Decimal digits in one full group (decimal.cc ``DIG_PER_DEC1``)."""
GROUP_BYTES = 4
"""Bytes of one full group, big-endian."""
DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4)
"""Bytes of a leftover group of 0..8 digits (decimal.cc ``dig2bytes``)."""
SIGN_BIT = 0x80
"""Set in the first byte of a non-negative value; a negative value is its magnitude's
complement, this bit clear."""
_POW10 = [10 ** i for i in range(0, 100)]


class DigitGroup(NamedTuple):
    """One group of digits in a ``decimal2bin`` value read as one big-endian integer."""

    shift: int
    """Bits below the group (0 for the last byte's group)."""
    size: int
    """Its bytes: 4 for 9 digits, :data:`DIG2BYTES` for a leftover group."""
    digits: int
    """Decimal digits it holds: a well-formed group is below ``10 ** digits``."""
    exp: int
    """Power of ten of its last digit in the unscaled value (the value × 10^scale)."""


@cache
def digit_groups(precision: int, scale: int) -> tuple[DigitGroup, ...]:
    """The digit groups of ``DECIMAL(precision, scale)``, least significant first (values.md §3):
    the fraction's trailing ``scale % 9`` digits, its groups of 9, the integer part's groups of
    9, its leading ``(precision - scale) % 9`` digits; groups of no digit are left out."""
    intg = precision - scale
    counts = ([scale % DIGITS_PER_GROUP] + [DIGITS_PER_GROUP] * (scale // DIGITS_PER_GROUP)
              + [DIGITS_PER_GROUP] * (intg // DIGITS_PER_GROUP) + [intg % DIGITS_PER_GROUP])
    out, shift, exp = [], 0, 0
    for digits in counts:
        if digits:
            size = GROUP_BYTES if digits == DIGITS_PER_GROUP else DIG2BYTES[digits]
            out.append(DigitGroup(shift, size, digits, exp))
            shift, exp = shift + 8 * size, exp + digits
    return tuple(out)


@cache
def decimal_size(precision: int, scale: int) -> int:
    """Bytes of ``decimal2bin`` for ``DECIMAL(precision, scale)`` (values.md §3)."""
    return sum(g.size for g in digit_groups(precision, scale))


def sign_masks(size: int) -> tuple[int, int]:
    """(the sign bit, every bit) of a ``size``-byte value read as one big-endian integer."""
    return 1 << (8 * size - 1), (1 << (8 * size)) - 1


def decimal_sign(x: int, size: int) -> tuple[bool, int]:
    """(negative, the digit groups' bits) of a ``size``-byte ``decimal2bin`` value read as one
    big-endian integer ``x``: the sign bit flipped, a negative value complemented."""
    top, full = sign_masks(size)
    x ^= top
    return (True, x ^ full) if x & top else (False, x)


class DecimalError(ValueError):
    """A Decimal that does not fit ``DECIMAL(p,s)``; codecs turn it into ValueEncodeError."""


def scaled_decimal(value: Decimal, precision: int, scale: int) -> tuple[bool, int]:
    """(negative, |value| × 10^scale as an exact int); DecimalError when it does not fit.

    The exponent is checked before the coefficient is scaled, so ``Decimal('1E+100000000')``
    or ``Decimal('1E-100000000')`` is refused at once instead of building a 10^10^8 int
    (values.md §3: at most ``precision - scale`` integer and ``scale`` fraction digits).
    """
    if not value.is_finite():
        raise DecimalError(f"{value} is not a number a DECIMAL can hold")
    sign, digits, exp = value.as_tuple()
    assert isinstance(exp, int)
    # trailing zeros of the coefficient carry no digit: Decimal('1.500') fits DECIMAL(4,1)
    n = len(digits)
    while n and digits[n - 1] == 0:
        n -= 1
    if n == 0:
        return False, 0
    exp += len(digits) - n
    if exp + scale < 0:  # the last non-zero digit is beyond the scale
        raise DecimalError(f"{value} has more than {scale} fraction digits (scale {scale}); "
                           f"round it first")
    if exp + n > precision - scale:  # exp + n = integer digits of a value whose last digit is non-zero
        raise DecimalError(f"{value} has more than {precision - scale} integer digits "
                           f"(precision {precision}, scale {scale})")
    coeff = int("".join(map(str, digits[:n])))
    return bool(sign), coeff * _pow10(exp + scale)


def _pow10(n: int) -> int:
    return _POW10[n] if n < 100 else 10 ** n


def encode_decimal(value: Decimal, precision: int, scale: int) -> bytes:
    """``decimal2bin`` of ``value`` as ``DECIMAL(precision, scale)``; DecimalError if it does not fit."""
    negative, scaled = scaled_decimal(value, precision, scale)
    return pack(negative, scaled, precision, scale)


def pack(negative: bool, scaled: int, precision: int, scale: int) -> bytes:
    """``decimal2bin`` of ±``scaled`` (the value × 10^scale, which :func:`scaled_decimal` checked)
    as ``DECIMAL(precision, scale)``: the digit groups of :func:`digit_groups`, then the sign."""
    x = 0
    for g in digit_groups(precision, scale):
        scaled, d = divmod(scaled, _POW10[g.digits])
        x |= d << g.shift
    n = decimal_size(precision, scale)
    top, full = sign_masks(n)
    return ((x ^ full if negative else x) ^ top).to_bytes(n, "big")


def pack_decimal_array(units: np.ndarray, precision: int, scale: int) -> np.ndarray | None:
    """:func:`pack` elementwise for int64 ``units`` (value × 10^scale): an (n, size) uint8
    array of ``decimal2bin`` (values.md §3), or None when a value has more than
    ``precision`` digits or the scale has more than 18 digits (the caller then packs the
    Decimal values one by one, which raises for one that does not fit)."""
    if scale > 18 or not len(units):
        return None
    if units.dtype != np.int64 or int(units.min()) <= -(1 << 63):
        return None
    neg = units < 0
    rest = np.abs(units).astype(np.uint64)
    if precision < 19 and int(rest.max()) >= _POW10[precision]:
        return None
    parts = []
    for g in digit_groups(precision, scale):  # least significant first
        rest, d = np.divmod(rest, np.uint64(_POW10[g.digits]))
        parts.append(be_bytes(d, g.size))
    out = np.concatenate(parts[::-1], axis=1) if len(parts) > 1 else parts[0].copy()
    out[neg] ^= 0xFF
    out[:, 0] ^= SIGN_BIT
    return out


def decode_decimal(buf: Any, pos: int, precision: int, scale: int) -> tuple[Decimal, int]:
    """``bin2decimal``: (Decimal with exactly ``scale`` fraction digits, position after it).

    Raises ValueError for a group out of range or too few bytes (callers add the column).
    """
    n = decimal_size(precision, scale)
    end = pos + n
    if end > len(buf) or n == 0:
        raise ValueError(f"DECIMAL({precision},{scale}) needs {n} bytes, {len(buf) - pos} left")
    negative, x = decimal_sign(int.from_bytes(buf[pos:end], "big"), n)
    unscaled = 0
    for g in digit_groups(precision, scale):
        d = (x >> g.shift) & ((1 << 8 * g.size) - 1)
        if d >= _POW10[g.digits]:
            raise ValueError(f"DECIMAL group out of range: {d} in {g.digits} digits")
        unscaled += d * _pow10(g.exp)
    ipart, frac = divmod(unscaled, _pow10(scale))
    text = f"{'-' if negative else ''}{ipart}"
    if scale:
        text += f".{frac:0{scale}d}"
    return Decimal(text), end
