"""What a comparison returns (:class:`ValueDiff`, :class:`Uncomparable`) and how a column is described to it (:func:`column_of`, the type family of a column)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from binlogwriter.schema.model import Column

# ------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Uncomparable:
    """What :func:`normalise` returns for a value it cannot bring to canonical form."""

    why: str

    def __repr__(self) -> str:
        return f"<cannot compare: {self.why}>"


@dataclass(frozen=True)
class ValueDiff:
    """Why a decoded value is not the truth's: ``kind`` is ``"column value"`` (both in
    canonical form, different), ``"type"`` (a representation the profile does not accept for
    the column) or ``"cannot compare"``; ``why`` one short sentence."""

    kind: str
    why: str = ""


class Reject(Exception):
    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind, self.why = kind, why


def wrong_type(v: Any, col: Column) -> Reject:
    return Reject("type", f"{type(v).__name__} is not a form of {col.type} under this profile")


def cannot(why: str) -> Reject:
    return Reject("cannot compare", why)


@dataclass(frozen=True)
class Approx:
    """A float standing for an exact value (DECIMAL or big integer given as a float)."""

    value: float


@dataclass(frozen=True)
class JsonDoc:
    """A JSON document in comparable form (see :func:`_json_key`)."""

    doc: Any


@dataclass(frozen=True)
class WkbOnly:
    """A geometry without its SRID: ``0x`` hex of the WKB."""

    hex: str


# ------------------------------------------------------------------------------------
# columns
# ------------------------------------------------------------------------------------

def column_of(column: Any) -> Column | None:
    """A :class:`~binlogwriter.schema.model.Column` from a Column, a column description
    mapping (manifest ``column_types``, the truth Parquet ``binlogwriter.columns`` metadata) or
    None (type unknown)."""
    if column is None or isinstance(column, Column):
        return column
    if isinstance(column, Mapping):
        from binlogwriter.schema.tables import column_from_info

        return column_from_info(column)
    raise TypeError(f"not a column description: {type(column).__name__}")


INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
TEXTY = ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT")
BINARY = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
HEX = re.compile(r"0x[0-9a-f]*\Z")


_FAMILY_OF: dict[str, str] = {}


def family(col: Column) -> str:
    got = _FAMILY_OF.get(col.type)
    if got is None:
        from binlogwriter.values.families import family_of_type

        fam = family_of_type(col.type)
        got = _FAMILY_OF[col.type] = fam.FAMILY if fam is not None else "?"
    return got


def short(v: Any, width: int = 80) -> str:
    """``repr(v)`` cut to about ``width`` characters (never the whole of a 500 KB value):
    the head, ``…``, the tail and the full length."""
    try:
        r = repr(v) if not isinstance(v, bytes | bytearray | str) or len(v) <= 4 * width \
            else repr(v[:width]) + repr(v[-width:])
    except Exception as e:  # noqa: BLE001 - a foreign object's __repr__
        r = f"<{type(v).__name__}: repr failed: {type(e).__name__}>"
    if len(r) <= width:
        return r
    n = len(v) if isinstance(v, bytes | bytearray | str) else len(r)
    keep = max(8, (width - 20) // 2)
    return f"{r[:keep]}…{r[-keep:]} ({n} {'bytes' if isinstance(v, bytes | bytearray) else 'chars'})"
