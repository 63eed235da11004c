"""Value bytes shown canonical without decoding them: ``verify --roundtrip``'s shortcuts
(format.md §13, values.md §3, §5, §6).

A row image re-encodes to itself when every value in it does (rowencode.image_verifier).
For most values that is shown by decoding them with their column's codec and encoding the
value again. This module answers the same question from the bytes alone for the value
shapes where the answer is arithmetic, grouped by type family so each section can move next
to its family's codec:

* **char** (CHAR, VARCHAR) and **blob** (BLOB/TEXT): :func:`string_rule` — a length, then
  bytes. A length at or under a bound (and, for CHAR, bytes that do not end with the pad
  the server strips) is sufficient; anything else is left to the codec (a *sufficient*
  rule: the caller decodes and encodes when it does not hold).
* **decimal**: :func:`decimal_rule` — ``decimal2bin`` bytes re-encode to themselves exactly
  when every digit group is in range and the value is not a negative zero (nor negative in
  an UNSIGNED column): an *exact* rule, equal to the codec's verdict on every byte string
  of the column's size.

Both are property-tested against the codecs (tests/read/test_canonical_props.py): a rule never
accepts bytes the codec does not give back, the exact rule accepts all that it gives back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    DATETIME2_INT_BYTES,
    FRACTIONS,
    TIMESTAMP2_SECONDS,
    TS_MAX,
    datetime2_size,
    datetime_parts,
    timestamp2_size,
)

__all__ = ["StringRule", "string_rule", "decimal_rule"]


# -- char / blob ------------------------------------------------------------------------

_ANY_BYTES = frozenset(("utf8mb4",))
"""Charsets whose Python codec gives back every byte string it decodes (strict UTF-8), and
whose codec keeps bytes that do not decode as bytes (values.md §5): any content re-encodes."""
_ASCII_SAFE = frozenset(("utf8mb3", "latin1", "ascii"))
"""Charsets in which ASCII bytes are one character each and decode and encode to themselves."""


class StringRule:
    """A length-prefixed value whose ``n`` bytes re-encode to themselves when ``n <= max_len``,
    the last byte is not ``pad`` (-1: no pad rule) and, with ``ascii``, every byte is ASCII."""

    __slots__ = ("lb", "max_len", "pad", "ascii")

    def __init__(self, lb: int, max_len: int, pad: int, ascii_only: bool) -> None:
        self.lb, self.max_len, self.pad, self.ascii = lb, max_len, pad, ascii_only

    def holds(self, data: bytes) -> bool:
        """The rule on a value's bytes (without its length prefix)."""
        n = len(data)
        if n > self.max_len or n >= 1 << (8 * self.lb):
            return False
        if self.pad >= 0 and n and data[-1] == self.pad:
            return False
        return not self.ascii or data.isascii()


def string_rule(col: ColumnDesc) -> StringRule | None:
    """The :class:`StringRule` of a CHAR / VARCHAR (**char**) or BLOB / TEXT (**blob**)
    column, or None when its values are left to the codec.

    * CHAR(n) (type 254, real type 254): the encoder strips the trailing pad and counts at
      most ``n // mbmaxlen`` characters; a value not ending with the pad (space, or 0x00 for
      BINARY, whose decoder pads it back) of at most that many bytes has at most that many
      characters.
    * VARCHAR (15): at most ``max_bytes // mbmaxlen`` bytes, the same way.
    * BLOB/TEXT (252): any length its prefix can hold; JSON-as-text columns too (the decoded
      ``str`` is encoded as text again).

    The charset decides the content rule: binary and unknown collations keep bytes as they
    are; utf8mb4 (strict UTF-8, or bytes kept when they do not decode) gives back any bytes;
    utf8mb3, latin1 and ascii give back ASCII bytes; other charsets are left to the codec.
    """
    from binlogwriter.values._strings import Text, parse_string_meta

    try:
        code = col.type_code
        t = Text(col)
        if code in (253, 254):
            real, length = parse_string_meta(col.meta)
            if real != 254:
                return None  # ENUM / SET: fixed size, remembered by their bytes
            lb = 2 if length > 255 else 1
            if len(t.pad_unit) > 1:
                return None
            pad = t.pad_unit[0] if t.pad_unit else -1
        elif code == 15:
            length = int.from_bytes(bytes(col.meta[:2]), "little")
            lb = 2 if length > 255 else 1
            pad = -1
        elif code == 252:
            lb = col.meta[0]
            if not 1 <= lb <= 4:
                return None
            length = (1 << (8 * lb)) - 1
            pad = -1
        else:
            return None
    except Exception:  # noqa: BLE001 - malformed metadata: the codec reports it
        return None
    if t.text:
        if t.charset in _ANY_BYTES:
            ascii_only = False
        elif t.charset in _ASCII_SAFE:
            ascii_only = True
        else:
            return None
        max_len = length // t.mbmaxlen if code != 252 else length
    elif t.binary or t.raw:
        ascii_only = False
        max_len = length
    else:
        return None
    return StringRule(lb, max_len, pad, ascii_only)


# -- decimal ----------------------------------------------------------------------------

def decimal_rule(col: ColumnDesc) -> tuple[int, Callable[[Any], bool]] | None:
    """``(size, holds)`` for a DECIMAL(p,s) column: ``holds(b)`` for ``size`` bytes ``b`` is
    True exactly when decoding ``b`` and encoding the value gives ``b`` back (values.md §3;
    the layout is values/decimal_binary.py's :func:`digit_groups` and :func:`sign_masks`).

    Not given back: a digit group out of range (the decoder refuses it), a negative zero
    (it encodes as zero), a negative value in an UNSIGNED column (the encoder refuses it)."""
    from binlogwriter.values.decimal_binary import decimal_size, digit_groups, sign_masks

    if col.type_code != 246 or len(col.meta) != 2:
        return None
    p, s = col.meta[0], col.meta[1]
    if s > p or p == 0:
        return None
    size = decimal_size(p, s)
    if size == 0:
        return None
    # (shift, mask, limit) of every digit group
    checks = tuple((g.shift, (1 << (8 * g.size)) - 1, 10 ** g.digits) for g in digit_groups(p, s))
    top, full = sign_masks(size)
    unsigned = bool(col.unsigned)

    def holds(b: Any) -> bool:
        x = int.from_bytes(b, "big") ^ top
        if x & top:  # negative: the magnitude is the complement
            if unsigned:
                return False
            x ^= full
            if not x:
                return False  # negative zero
        for sh, mask, limit in checks:
            if (x >> sh) & mask >= limit:
                return False
        return True

    return size, holds


# -- timestamp / datetime ---------------------------------------------------------------

def _fsp(col: ColumnDesc) -> int | None:
    if len(col.meta) != 1 or col.meta[0] > 6:
        return None
    return col.meta[0]


def timestamp_rule(col: ColumnDesc) -> tuple[int, Callable[[Any], bool]] | None:
    """``(size, holds)`` for a TIMESTAMP2 column (type 17; values.md §4): 4 bytes big-endian
    seconds since the epoch, then the fraction. Given back exactly when the fraction is
    below a second and has no digit beyond the fsp, the seconds are at most 2^31 - 1 (the
    encoder's range) and, at 0 seconds (the zero timestamp), the fraction is 0."""
    fsp = _fsp(col) if col.type_code == 17 else None
    if fsp is None:
        return None
    fb, _unit, top, step = FRACTIONS[fsp]
    size = timestamp2_size(fsp)

    def holds(b: Any) -> bool:
        secs = int.from_bytes(b[0:TIMESTAMP2_SECONDS], "big")
        if secs > TS_MAX:
            return False
        if fb:
            f = int.from_bytes(b[TIMESTAMP2_SECONDS:size], "big")
            if f > top or f % step or (f and not secs):
                return False
        return True

    return size, holds


def datetime_rule(col: ColumnDesc) -> tuple[int, Callable[[Any], bool]] | None:
    """``(size, holds)`` for a DATETIME2 column (type 18; values.md §4): 5 bytes big-endian
    ``datetime_int + 2^39`` (values/temporal_layout.py), then the fraction. Given back exactly when the sign bit is set, the year is at most
    9999, the hour at most 23, the minute and second at most 59 and the fraction is as for
    TIMESTAMP2; any month 0..12 and day 0..31 (zero dates, Feb 31) is kept as it is."""
    fsp = _fsp(col) if col.type_code == 18 else None
    if fsp is None:
        return None
    fb, _unit, top, step = FRACTIONS[fsp]
    size = datetime2_size(fsp)

    def holds(b: Any) -> bool:
        ip = int.from_bytes(b[0:DATETIME2_INT_BYTES], "big") - DATETIME2_BIAS
        if ip < 0:
            return False
        y, _mo, _d, h, mi, s = datetime_parts(ip)
        if y > 9999 or h > 23 or mi > 59 or s > 59:
            return False
        if fb:
            f = int.from_bytes(b[DATETIME2_INT_BYTES:size], "big")
            if f > top or f % step:
                return False
        return True

    return size, holds


def fixed_rule(col: ColumnDesc) -> tuple[int, Callable[[Any], bool]] | None:
    """The exact rule of a fixed-size value (decimal, timestamp, datetime), or None."""
    t = col.type_code
    if t == 246:
        return decimal_rule(col)
    if t == 17:
        return timestamp_rule(col)
    if t == 18:
        return datetime_rule(col)
    return None


__all__ += ["timestamp_rule", "datetime_rule", "fixed_rule"]
