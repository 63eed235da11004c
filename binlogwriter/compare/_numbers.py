"""Numeric families (integers, BIT, DECIMAL, FLOAT/DOUBLE): a consumer value -> the canonical candidates it may stand for under a profile's forms (docs/output.md "Canonical row form")."""

from __future__ import annotations

import math
import struct
from decimal import Context, Decimal, InvalidOperation
from typing import Any

from binlogwriter.compare._results import INT_BITS, Approx, cannot, short, wrong_type
from binlogwriter.schema.model import Column

# ------------------------------------------------------------------------------------
# per family: value -> canonical candidates
# ------------------------------------------------------------------------------------

def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_from(v: Any, col: Column, F: frozenset[str], bits: int | None) -> list[Any]:
    """Integer candidates of ``v`` (shared by integer, YEAR, BIT, SET-mask forms)."""
    if isinstance(v, bool):
        if "bool_int" in F or ("bit_bool" in F and col.type == "BIT"):
            return [int(v)]
        raise wrong_type(v, col)
    if is_int(v):
        out = [v]
    elif isinstance(v, str | Decimal) and "int_text" in F:
        try:
            d = Decimal(v.strip()) if isinstance(v, str) else v
            if not d.is_finite() or d != d.to_integral_value():
                raise cannot(f"{short(v)} is not a whole number")
            out = [int(d)]
        except InvalidOperation:
            raise cannot(f"{short(v)} is not a number") from None
    elif isinstance(v, float) and "int_float" in F:
        if not math.isfinite(v):
            raise cannot(f"{v!r} is not a whole number")
        out = [int(v)] if v.is_integer() and abs(v) < 2 ** 53 else [Approx(v)]
    else:
        raise wrong_type(v, col)
    if bits and "unsigned_as_signed" in F and is_int(out[0]) and out[0] < 0:
        out.append(out[0] + (1 << bits))
    return out


def n_integer(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if col.type == "YEAR":
        got = _int_from(v, col, F, None)
        return [0 if x == 1900 and "year_1900" in F else x for x in got]
    return _int_from(v, col, F, INT_BITS.get(col.type) if col.unsigned else None)


def n_bit(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        out = [int.from_bytes(b, "big")] if "bit_bytes" in F else []
        if "bit_bytes_le" in F:
            out.append(int.from_bytes(b, "little"))
        if not out:
            raise wrong_type(v, col)
        return out
    if isinstance(v, str) and "bit_string" in F and v and set(v) <= {"0", "1"}:
        return [int(v, 2)]
    return _int_from(v, col, F, 64)


_DEC_CTX = Context(prec=100)


def n_decimal(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    scale = col.scale or 0
    q = Decimal(1).scaleb(-scale)

    def text(d: Decimal) -> str:
        if not d.is_finite():
            raise cannot(f"{d} is not a DECIMAL value")
        d = d.quantize(q, context=_DEC_CTX)
        return format(abs(d) if d == 0 else d, "f")

    if isinstance(v, Decimal):
        return [text(v)]
    if isinstance(v, bytes | bytearray) and "decimal_text" in F:
        v = bytes(v).decode("ascii", "replace")
    if isinstance(v, str):
        if "decimal_text" not in F:
            return [v]  # the canonical form itself
        try:
            d = Decimal(v.strip())
        except InvalidOperation:
            raise cannot(f"{short(v)} is not a decimal number") from None
        if d.as_tuple().exponent < -scale and d != d.quantize(q, context=_DEC_CTX):
            return [format(d, "f")]  # more fraction digits than the column has: shown as such
        return [text(d)]
    if isinstance(v, float | int) and not isinstance(v, bool) and "decimal_float" in F:
        return [Approx(float(v))]
    raise wrong_type(v, col)


def n_floating(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if is_int(v) and "float_int" in F:
        v = float(v)
    if not isinstance(v, float):
        raise wrong_type(v, col)
    if col.type == "FLOAT" and math.isfinite(v):
        try:
            return [struct.unpack("<f", struct.pack("<f", v))[0]]
        except OverflowError:
            raise cannot(f"{v!r} is outside FLOAT") from None
    return [v]


