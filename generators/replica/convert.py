"""Value conversion onto a replica column, per type family (MariaDB 10.11), in the canonical
form of docs/output.md.

What the server does (``unpack_row``, sql/rpl_record.cc: an exact pair is unpacked straight
into the replica's field; any other through a conversion field of the source type and
``Field::store`` / ``Copy_field`` into the replica's; verified on a 10.11 replica,
tests/generators/test_replica_rules.py):

- integers: the source's bits are re-read with the *replica's* signedness (at the source's
  width), then clamped to the replica's range (``Field_num::store`` of an out-of-range value):
  4294967295 from INT UNSIGNED is -1 in an INT; 236 from TINYINT UNSIGNED is -20 in a SMALLINT;
- DECIMAL: rounded half away from zero to the replica's scale, clamped to its largest value;
- FLOAT -> DOUBLE: the float32 value, widened (no decimal rounding);
- CHAR/VARCHAR/TEXT: bytes are never converted between charsets. An exact or subset pair
  keeps them as they are (latin1 bytes land in a utf8mb4 column; a VARCHAR(5) utf8mb4 of 20
  octets takes 20 latin1 characters). A superset pair keeps the longest prefix that is well
  formed in the replica's charset, at most its length in characters and in octets
  (``String_copier::well_formed_copy``): latin1 "é€" read as utf8mb4 is not well formed, so
  nothing is kept;
- ENUM / SET: the index / bitmask is kept and read against the replica's members; an index
  past the replica's last member prints as '' and bits past its last member print nothing
  (the stored number keeps them);
- any other type: only between identical definitions, the value unchanged.

A text value whose bytes are not valid in the replica column's charset is ``{"hex": "..."}``.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from binlogwriter.schema import Column
from binlogwriter.schema.lexer import tokenize
from generators.replica.classes import Pair, UnsupportedConversion
from generators.replica.columns import FLAVOR, INT_BYTES, chars, family, int_range, octets


def source_bytes(col: Column, value: str) -> bytes:
    """The bytes of a canonical text value in the source column's charset."""
    coll = col.collation_obj(FLAVOR)
    assert coll is not None
    return coll.encode(value)


def text_value(col: Column, data: bytes) -> Any:
    """Canonical form of ``data`` stored in ``col``: its text, or ``{"hex": ...}``."""
    coll = col.collation_obj(FLAVOR)
    assert coll is not None
    try:
        text = coll.decode(data)
    except (UnicodeDecodeError, LookupError):
        return {"hex": data.hex()}
    return text.rstrip(" ") if col.type == "CHAR" else text


def _well_formed_prefix(col: Column, data: bytes) -> bytes:
    """Longest prefix of ``data`` valid in ``col``'s charset, of at most its length."""
    coll = col.collation_obj(FLAVOR)
    assert coll is not None
    limit = octets(col) if family(col) in ("char", "varchar") else len(data)
    n = min(len(data), limit)
    nchars = chars(col) if family(col) in ("char", "varchar") else None
    while n > 0:
        try:
            text = coll.decode(data[:n])
        except (UnicodeDecodeError, LookupError):
            n -= 1
            continue
        if nchars is not None and len(text) > nchars:
            n = len(coll.encode(text[:nchars]))
            continue
        return data[:n]
    return b""


def decimal_store(dst: Column, value: str) -> str:
    """``value`` stored into DECIMAL ``dst``: rounded half away from zero to its scale, then
    clamped to its range (``Field_new_decimal::store``; UNSIGNED: not below 0)."""
    p, s = dst.precision or 10, dst.scale or 0
    q = Decimal(value).quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP)
    top = Decimal(10) ** (p - s) - Decimal(1).scaleb(-s)
    q = max(min(q, top), Decimal(0) if dst.unsigned else -top)
    text = f"{q:f}"
    if q == 0:
        text = text.lstrip("-")
    return text


def _bits(members: tuple[str, ...], value: str) -> list[int]:
    return [members.index(m) for m in value.split(",")] if value else []


def convert(pair: Pair, value: Any) -> Any:
    """``value`` (canonical, of ``pair.source``) as the replica stores it (canonical)."""
    if value is None:
        return None
    src, dst = pair.source, pair.target
    f = family(dst)
    if f == "int":
        bits = 8 * INT_BYTES[src.type]
        raw = int(value) & ((1 << bits) - 1)
        if not dst.unsigned and raw >= 1 << (bits - 1):
            raw -= 1 << bits
        lo, hi = int_range(dst)
        return max(lo, min(hi, raw))
    if f == "decimal":
        return value if pair.kind == "exact" else decimal_store(dst, value)
    if f in ("float", "double"):
        if family(src) == "float" or pair.kind == "exact":
            return value
        raise UnsupportedConversion(f"unsupported conversion: {pair.table}.{dst.name}: DOUBLE -> FLOAT",
                                    setting="replica")
    if f in ("char", "varchar", "text"):
        data = source_bytes(src, value)
        if pair.kind == "superset":
            data = _well_formed_prefix(dst, data)
        return text_value(dst, data)
    if f == "enum":
        idx = src.members.index(value) + 1 if value != "" else 0
        return dst.members[idx - 1] if 0 < idx <= len(dst.members) else ""
    if f == "set":
        bits = set(_bits(src.members, value))
        return ",".join(m for i, m in enumerate(dst.members) if i in bits)
    return value


_ZERO_TEMPORAL = {"DATE": "0000-00-00", "DATETIME": "0000-00-00 00:00:00", "TIMESTAMP": "0000-00-00 00:00:00",
                  "TIME": "00:00:00", "YEAR": 0}


def default_value(table: str, col: Column) -> Any:
    """An extra replica column's value in a replicated row: its literal DEFAULT; a
    ``CURRENT_TIMESTAMP`` default is *not* evaluated (NULL when the column is nullable, the
    zero value when NOT NULL, as a 10.11 replica stores it); without DEFAULT, NULL or the
    implicit default (0, '', the first ENUM member, the zero date)."""
    d = col.default
    f = family(col)
    if d is not None and d.upper().startswith("CURRENT_TIMESTAMP") or d is not None and d.upper() == "NOW()":
        d = None
    elif d is not None and d.upper() == "NULL":
        return None
    if d is None:
        return None if col.nullable else implicit_default(table, col)
    toks = tokenize(d) if d[:1] == "'" else []
    lit = toks[0].text if len(toks) == 1 and toks[0].kind == "string" else d  # escapes read as the server does
    if f == "int":
        return int(lit)
    if f == "decimal":
        return decimal_store(col, lit)
    if f in ("char", "varchar", "text", "enum", "set"):
        return lit.rstrip(" ") if col.type == "CHAR" else lit
    if col.type in ("DATETIME", "TIMESTAMP", "DATE") and not col.fsp:
        return lit
    raise UnsupportedConversion(f"unsupported conversion: {table}.{col.name}: DEFAULT {d} of {col.type}",
                                setting="replica")


def implicit_default(table: str, col: Column) -> Any:
    """The implicit default of a NOT NULL column (``Field::reset``): 0, ``''``, the first ENUM
    member, the zero date; what a replica row or a non-strict INSERT stores for a NOT NULL column
    it has no value for."""
    f = family(col)
    if f == "int":
        return 0
    if f == "decimal":
        return decimal_store(col, "0")
    if f in ("float", "double"):
        return 0.0
    if f in ("char", "varchar", "text", "set"):
        return ""
    if f == "enum":
        return col.members[0]
    if col.type in _ZERO_TEMPORAL:
        z = _ZERO_TEMPORAL[col.type]
        return z + ("." + "0" * col.fsp if col.fsp and isinstance(z, str) and col.type != "DATE" else "")
    raise UnsupportedConversion(f"unsupported conversion: {table}.{col.name}: implicit default of {col.type}",
                                setting="replica")
