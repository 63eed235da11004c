"""``--edge-values FRACTION``: a share of every default-generated column's values taken from its
type's edge values (docs/generate.md "Edge values"), for any schema.

A table's :class:`ValueMode` says how its columns are drawn by type: the share of edge values
(``--edge-values`` / spec ``edge_values``) and whether integers span their type's whole range
(``--schema`` runs; the built-in workloads keep their 0..1,000,000). :func:`edge_values` is the
list of one column's edge values: the limits of values.md §1 for its type —

* integers: the minimum and maximum of every integer type that fall in the column's range
  (so 2^31 - 1, 2^32 - 1, 2^63 - 1, -2^31 … where they fit), 0, 1 and -1 when signed;
* DECIMAL(p, s): ±(10^(p-s) - 10^-s) (no negatives when UNSIGNED), 0, ±10^-s;
* FLOAT / DOUBLE: the largest finite value, the smallest normal one, 0 (FLOAT(M,D) / DOUBLE(M,D):
  only values that fit M and D exactly);
* BIT(n): 0, all ones, 1, the high bit alone; YEAR: 1901, 2155, 0 (0000);
* DATE 1000-01-01, 9999-12-31, 0000-00-00; DATETIME(fsp) 1000-01-01 00:00:00,
  9999-12-31 23:59:59.999999 (cut to fsp), 0000-00-00 00:00:00; TIMESTAMP(fsp)
  1970-01-01 00:00:01 and 2038-01-19 03:14:07.999999 UTC, 0000-00-00 00:00:00;
  TIME ±838:59:59 and 0 (and a negative sub-second with fsp);
* text: the empty string, the longest ASCII string and — for a multibyte charset — the
  longest string of the charset's widest character (the most bytes the column holds),
  a string with quotes and backslashes; MEDIUM/LONG TEXT and BLOB stop at 65,535 bytes;
* binary: empty (VARBINARY and BLOBs), all zero bytes, all 0xFF bytes at the maximum length;
* ENUM: the first and last members and '' (index 0); SET: empty and every member;
* JSON: ``{}``, ``[]``, a string, a number, ``true``, a nested array;

and NULL for a nullable column, one more edge value (generators/values.py
``column_generator``). Zero dates are in every flavor's list: row events are applied whatever
the server's sql_mode, and ``truth/snapshot.sql`` sets ``sql_mode = 'NO_AUTO_VALUE_ON_ZERO'``
(no NO_ZERO_DATE, not strict) so its INSERTs take them on MySQL 8 as on MariaDB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from binlogwriter.schema import Column
from generators.columns._fit import BYTE_TYPES, TEXT_LIMIT, TEXT_TYPES, char_limit, enc
from generators.columns.integer import int_range
from generators.spec import Spec, SpecError

__all__ = ["ValueMode", "value_mode", "edge_values", "LONG_EDGE_BYTES"]

LONG_EDGE_BYTES = 65535
"""The longest edge string of a MEDIUM/LONG TEXT or BLOB column (TEXT's maximum): a 16 MB or
4 GB value in a share of the rows would make the run about nothing else."""

_INT_BITS = (8, 16, 24, 32, 64)
_WIDE = ("\U0001f600", "中", "€", "é", "x")  # 4-, 3-, 2-byte characters in some charset


@dataclass(frozen=True)
class ValueMode:
    """How a table's columns without a spec generator are drawn (``TableDef.edge``):
    ``edge_share`` of the values from :func:`edge_values` (0: none), and integers over their
    type's whole range when ``full_range`` (else 0..1,000,000)."""

    edge_share: float = 0.0
    full_range: bool = False

    def __post_init__(self) -> None:
        if (
            isinstance(self.edge_share, bool)
            or not isinstance(self.edge_share, int | float)
            or not 0.0 <= self.edge_share <= 1.0
        ):  # a Spec built in Python, not through from_dict
            raise SpecError(
                f"--edge-values: expected a fraction 0..1, got {self.edge_share!r}", setting="edge_values"
            )


def value_mode(spec: Spec) -> ValueMode | None:
    """How ``spec``'s tables draw values by type, or None for a built-in workload without
    ``--edge-values`` (its tables keep their own ``TableDef.edge``)."""
    if spec.workload is None:
        return ValueMode(spec.edge_values or 0.0, full_range=True)
    if spec.edge_values is not None:
        return ValueMode(spec.edge_values)
    return None


def _int_edges(col: Column) -> list[int]:
    lo, hi = int_range(col)
    lim = {0, 1, -1}
    for b in _INT_BITS:
        lim |= {-(1 << (b - 1)), (1 << (b - 1)) - 1, (1 << b) - 1}
    return sorted(x for x in lim if lo <= x <= hi)


def _longest_texts(col: Column, flavor: str) -> list[str]:
    """The longest ASCII string and the longest string of the charset's widest character."""
    nchars, nbytes = char_limit(col, flavor)
    nbytes = min(nbytes, LONG_EDGE_BYTES)
    coll = col.collation_obj(flavor)
    out = []
    best, width = "x", 0
    mb = col.mbmaxlen(flavor)
    for ch in _WIDE:
        try:
            w = len(coll.encode(ch)) if coll is not None and coll.charset != "binary" else len(ch.encode())
        except (UnicodeError, LookupError, ValueError):
            continue
        # wider than the charset's widest character: a codec's stand-in (a UTF-16 surrogate
        # pair for ucs2, 4-byte UTF-8 for utf8mb3) the server would not store
        if width < w <= mb:
            best, width = ch, w
    for ch in ("x", best):
        w = len(enc(ch, coll))
        n = min(nchars, nbytes // w)
        if n > 0:
            out.append(ch * n)
    return out


def _float_fits(col: Column, v: float) -> bool:
    if col.precision is None or col.scale is None:
        return True
    return abs(v) < 10 ** (col.precision - col.scale) and round(v, col.scale) == v


def edge_values(col: Column, flavor: str, own: list) -> list:
    """The edge values of one column (module docstring), NULL aside; ``own`` is the list its
    family's generator uses for ``alltypes`` (kept, so nothing it covers is lost)."""
    t = col.type
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"):
        vals: list[Any] = _int_edges(col)
    elif t in ("FLOAT", "DOUBLE"):
        vals = [v for v in own if _float_fits(col, v)] or [0.0]
    elif t in TEXT_TYPES:
        vals = list(own) + _longest_texts(col, flavor)
    elif t == "VARBINARY":
        vals = list(own) + [b"\xff" * (col.char_length() or 0)]
    elif t in BYTE_TYPES and t != "BINARY":
        vals = list(own) + [b"\xff" * min(TEXT_LIMIT[t], LONG_EDGE_BYTES)]
    else:
        vals = list(own)
    seen, out = set(), []
    for v in vals:
        k = (type(v).__name__, repr(v))
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out
