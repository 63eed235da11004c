"""Source lines that read a DECIMAL, DATETIME2 or TIMESTAMP2 value inline in a compiled row
decoder (:mod:`binlogwriter.read.rowdecode`), without a function call per value.

Each reads the column's fixed-size bytes ``k`` (already sliced by the decoder's memo) and
takes only the common case; anything else (cut bytes, a digit group out of range, a zero
or invalid date, a fraction of a second or more) calls the column's bound codec
``_d<r>(buf, pos)``, the reference, which gives the lenient value or the typed error. A
property test asserts the compiled decoder equals the declarative path
(tests/read/test_rowdecode_props.py).

* DECIMAL (values.md §3, ``bin2decimal``): the bytes as one big-endian integer with the sign
  bit flipped (all bits inverted for a negative value), cut into digit groups from the least
  significant end — the fraction tail, the 9-digit fraction groups, the 9-digit integer
  groups, the leading integer digits — each checked below its power of ten; the value is
  ``Decimal("[-]<unscaled>E-<scale>")``, the same sign, digits and exponent as the codec's.
* DATETIME2 (values.md §4): the 40-bit ``datetime_int`` (values/temporal_layout.py, the layout's one home)
  offset by 2^39, then the fraction bytes; TIMESTAMP2: 32-bit seconds since the epoch,
  then the fraction bytes (a calendar day per day number from :mod:`temporal_fast`).
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import Any

from binlogwriter.values.decimal_binary import decimal_size, digit_groups, sign_masks
from binlogwriter.values.temporal_fast import DAYS, UTC, day
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    FRACTIONS,
    datetime2_size,
    datetime_parts_source,
    timestamp2_size,
)

__all__ = ["miss_lines"]

"""fraction bytes -> (largest valid value, multiplier to microseconds) (values.md §4)."""


def miss_lines(col: Any, r: int, ind: str, env: dict) -> list[str] | None:
    """Lines setting ``v<r>`` (and ``e`` when the reference reads) from ``k``, or None when
    the column has no inline reader."""
    code, meta = col.type_code, col.meta
    if code == 246 and len(meta) == 2:
        return _decimal(meta[0], meta[1], r, ind, env)
    if code in (17, 18) and len(meta) == 1 and 0 <= meta[0] <= 6:
        return _temporal(code, meta[0], r, ind, env)
    return None


def decimal_text_lines(col: Any, r: int, ind: str, env: dict, slow: list[str]) -> list[str] | None:
    """Lines setting ``p<r>`` to the ``-v`` text of a DECIMAL value (``format(value, "f")``,
    values/decimal.py: sign, integer digits, every scale digit) straight from its bytes
    ``k``, the digit groups read as :func:`miss_lines` reads them; the ``slow`` lines (the
    codec, then the renderer) wherever the reader would call the codec. None for other
    columns."""
    code, meta = col.type_code, col.meta
    if code != 246 or len(meta) != 2:
        return None
    s = meta[1]
    parts = _decimal_parts(meta[0], s, r, ind, env, slow)
    if parts is None:
        return None
    lines, unscaled = parts
    text = f"f'{{sg_}}{{u_ // {10 ** s}}}.{{u_ % {10 ** s}:0{s}d}}'" if s else "sg_ + str(u_)"
    return [*lines, f"{ind}    u_ = {unscaled}", f"{ind}    p{r} = {text} + T{r}"]


def _decimal(p: int, s: int, r: int, ind: str, env: dict) -> list[str] | None:
    parts = _decimal_parts(p, s, r, ind, env, [f"v{r}, e = _d{r}(buf, pos)"])
    if parts is None:
        return None
    lines, unscaled = parts
    exp = f"E-{s}" if s else ""
    return [*lines, f"{ind}    v{r} = _Dec(f'{{sg_}}{{{unscaled}}}{exp}')"]


def _decimal_parts(p: int, s: int, r: int, ind: str, env: dict, miss: list[str]
                   ) -> tuple[list[str], str] | None:
    """The lines reading a DECIMAL(p,s) value's digit groups from its bytes ``k`` into sign
    ``sg_`` and groups ``g<i>_`` (values.md §3; the layout is values/decimal_binary.py's
    :func:`digit_groups` and :func:`sign_masks`), the ``miss``
    lines wherever the bytes are not such a value, and the expression of the unscaled
    integer the groups make; the last line opens the ``else`` branch of a well-formed value."""
    if p == 0 or s > p:
        return None
    n = decimal_size(p, s)
    top, full = sign_masks(n)
    env["_Dec"] = Decimal
    lines = [f"{ind}if len(k) != {n}:", *[f"{ind}  {x}" for x in miss], f"{ind}else:",
             f"{ind}  x_ = int.from_bytes(k, 'big') ^ {top}",
             f"{ind}  if x_ & {top}:", f"{ind}    x_ ^= {full}", f"{ind}    sg_ = '-'",
             f"{ind}  else:", f"{ind}    sg_ = ''"]
    # (shift, bits, limit, weight) from the least significant end; bits 0: the rest
    groups = digit_groups(p, s)
    segs = [(g.shift, 8 * g.size if k < len(groups) - 1 else 0, 10 ** g.digits, 10 ** g.exp)
            for k, g in enumerate(groups)]
    if not segs:
        return None
    checks, terms = [], []
    for i, (sh, bits, limit, weight) in enumerate(segs):
        src = f"x_ >> {sh}" if sh else "x_"
        lines.append(f"{ind}  g{i}_ = ({src}) & {(1 << bits) - 1}" if bits else f"{ind}  g{i}_ = {src}")
        checks.append(f"g{i}_ >= {limit}")
        terms.append(f"g{i}_ * {weight}" if weight != 1 else f"g{i}_")
    lines += [f"{ind}  if {' or '.join(checks)}:", *[f"{ind}    {x}" for x in miss], f"{ind}  else:"]
    return lines, " + ".join(terms)


def _temporal(code: int, fsp: int, r: int, ind: str, env: dict) -> list[str]:
    fb, mul, limit = FRACTIONS[fsp][:3]
    size = (datetime2_size if code == 18 else timestamp2_size)(fsp)
    env["_dtm"], env["_UTC"], env["_DAYS"], env["_day"] = _dt.datetime, UTC, DAYS, day
    sh = 8 * fb
    us = f"(x_ & {(1 << sh) - 1})" + (f" * {mul}" if mul != 1 else "") if fb else "0"
    lines = [f"{ind}if len(k) != {size}:", f"{ind}  v{r}, e = _d{r}(buf, pos)", f"{ind}else:",
             f"{ind}  x_ = int.from_bytes(k, 'big')"]
    if code == 18:
        lines += [f"{ind}  ip_ = (x_ >> {sh}) - {DATETIME2_BIAS}",
                  f"{ind}  if ip_ < 0{f' or x_ & {(1 << sh) - 1} > {limit}' if fb else ''}:",
                  f"{ind}    v{r}, e = _d{r}(buf, pos)", f"{ind}  else:",
                  f"{ind}    try:",
                  f"{ind}      v{r} = _dtm({datetime_parts_source('ip_')}, {us})",
                  f"{ind}    except ValueError:", f"{ind}      v{r}, e = _d{r}(buf, pos)"]
    else:
        lines += [f"{ind}  sec_ = x_ >> {sh}" if sh else f"{ind}  sec_ = x_",
                  f"{ind}  if sec_ == 0{f' or x_ & {(1 << sh) - 1} > {limit}' if fb else ''}:",
                  f"{ind}    v{r}, e = _d{r}(buf, pos)", f"{ind}  else:",
                  f"{ind}    dy_, rm_ = divmod(sec_, 86400)",
                  f"{ind}    ymd_ = _DAYS.get(dy_) or _day(dy_)",
                  f"{ind}    v{r} = _dtm(ymd_[0], ymd_[1], ymd_[2], rm_ // 3600, rm_ // 60 % 60, rm_ % 60, "
                  f"{us}, _UTC)"]
    return lines
