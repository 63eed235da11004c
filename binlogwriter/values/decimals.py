"""NEWDECIMAL (type 246) binary format: ``decimal2bin`` / ``bin2decimal`` (values.md §3); the
codec and the family's other faces are in values/decimal.py.

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
from typing import Any

import numpy as np

from binlogwriter.values._common import (
    be_bytes,
)

__all__ = ["decimal_size", "encode_decimal", "decode_decimal", "DecimalError",
           "scaled_decimal", "pack_decimal_array"]

DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4)
_POW10 = [10 ** i for i in range(0, 100)]


class DecimalError(ValueError):
    """A Decimal that does not fit ``DECIMAL(p,s)``; codecs turn it into ValueEncodeError."""


def decimal_size(precision: int, scale: int) -> int:
    """Bytes of ``decimal2bin`` for ``DECIMAL(precision, scale)`` (values.md §3)."""
    intg = precision - scale
    return 4 * (intg // 9) + DIG2BYTES[intg % 9] + 4 * (scale // 9) + DIG2BYTES[scale % 9]


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
    intg = precision - scale
    ipart, fpart = divmod(scaled, _POW10[scale]) if scale < 100 else divmod(scaled, 10 ** scale)
    x = 0
    # integer part: leading intg%9 digits, then full groups of 9, most significant first
    full = intg // 9
    lead = intg % 9
    if full:
        groups = []
        for _ in range(full):
            ipart, g = divmod(ipart, 1_000_000_000)
            groups.append(g)
        x = ipart  # leading partial group (0 when lead == 0)
        for g in reversed(groups):
            x = (x << 32) | g
    else:
        x = ipart
    nbytes = DIG2BYTES[lead] + 4 * full
    # fraction part: full groups of 9 first, then trailing scale%9 digits
    ffull = scale // 9
    ftail = scale % 9
    if ffull:
        ftail_val = fpart % _POW10[ftail]
        fhead = fpart // _POW10[ftail]
        groups = []
        for _ in range(ffull):
            fhead, g = divmod(fhead, 1_000_000_000)
            groups.append(g)
        for g in reversed(groups):
            x = (x << 32) | g
    else:
        ftail_val = fpart
    tb = DIG2BYTES[ftail]
    x = (x << (8 * tb)) | ftail_val
    nbytes += 4 * ffull + tb
    top = 1 << (8 * nbytes - 1)
    if negative:
        x = ((1 << (8 * nbytes)) - 1) ^ x
    return (x ^ top).to_bytes(nbytes, "big")


def pack_decimal_array(units: np.ndarray, precision: int, scale: int) -> np.ndarray | None:
    """:func:`_pack` elementwise for int64 ``units`` (value × 10^scale): an (n, size) uint8
    array of ``decimal2bin`` (values.md §3), or None when a value has more than
    ``precision`` digits or the scale has more than 18 digits (the caller then packs the
    Decimal values one by one, which raises for one that does not fit)."""
    if scale > 18 or not len(units):
        return None
    if units.dtype != np.int64 or int(units.min()) <= -(1 << 63):
        return None
    neg = units < 0
    a = np.abs(units).astype(np.uint64)
    if precision < 19 and int(a.max()) >= _POW10[precision]:
        return None
    intg = precision - scale
    ipart, fpart = np.divmod(a, np.uint64(_POW10[scale]))
    parts = []
    lead, full = intg % 9, intg // 9
    groups = []
    for _ in range(full):  # integer groups of 9 digits, least significant first
        ipart, g = np.divmod(ipart, np.uint64(1_000_000_000))
        groups.append(g)
    if lead:
        parts.append(be_bytes(ipart, DIG2BYTES[lead]))
    parts += [be_bytes(g, 4) for g in reversed(groups)]
    ffull, ftail = scale // 9, scale % 9
    fhead, ftail_val = np.divmod(fpart, np.uint64(_POW10[ftail]))
    groups = []
    for _ in range(ffull):
        fhead, g = np.divmod(fhead, np.uint64(1_000_000_000))
        groups.append(g)
    parts += [be_bytes(g, 4) for g in reversed(groups)]
    if ftail:
        parts.append(be_bytes(ftail_val, DIG2BYTES[ftail]))
    out = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0].copy()
    out[neg] ^= 0xFF
    out[:, 0] ^= 0x80
    return out


def decode_decimal(buf: Any, pos: int, precision: int, scale: int) -> tuple[Decimal, int]:
    """``bin2decimal``: (Decimal with exactly ``scale`` fraction digits, position after it).

    Raises ValueError for a group out of range or too few bytes (callers add the column).
    """
    n = decimal_size(precision, scale)
    end = pos + n
    if end > len(buf) or n == 0:
        raise ValueError(f"DECIMAL({precision},{scale}) needs {n} bytes, {len(buf) - pos} left")
    x = int.from_bytes(buf[pos:end], "big")
    top = 1 << (8 * n - 1)
    x ^= top
    negative = False
    if x & top:  # original top bit was 0 -> negative
        negative = True
        x = ((1 << (8 * n)) - 1) ^ x
    intg = precision - scale
    # walk from the least significant end
    tb = DIG2BYTES[scale % 9]
    ftail = x & ((1 << (8 * tb)) - 1)
    x >>= 8 * tb
    if ftail >= _POW10[scale % 9] and tb:
        raise ValueError(f"DECIMAL fraction digits out of range: {ftail}")
    frac = ftail
    mul = _POW10[scale % 9]
    for _ in range(scale // 9):
        g = x & 0xFFFFFFFF
        x >>= 32
        if g >= 1_000_000_000:
            raise ValueError(f"DECIMAL group out of range: {g}")
        frac += g * mul
        mul *= 1_000_000_000
    ipart = 0
    mul = 1
    for _ in range(intg // 9):
        g = x & 0xFFFFFFFF
        x >>= 32
        if g >= 1_000_000_000:
            raise ValueError(f"DECIMAL group out of range: {g}")
        ipart += g * mul
        mul *= 1_000_000_000
    lead = intg % 9
    if lead:
        if x >= _POW10[lead]:
            raise ValueError(f"DECIMAL leading digits out of range: {x}")
        ipart += x * mul
    text = f"{'-' if negative else ''}{ipart}"
    if scale:
        text += f".{frac:0{scale}d}"
    return Decimal(text), end
