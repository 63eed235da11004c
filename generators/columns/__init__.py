"""Generator side of the column types, one module per type family (issue 12 item 3).

Each family module (``generators/columns/<family>.py``) has the same faces: ``FAMILY``,
``SQL_TYPES``, ``generator``, ``vector_generator``, ``key_generator``, ``key_capacity``,
``key_vector_generator``, ``coerce``, ``sql_literal`` and ``sql_literals`` (many values at
once: a ColumnArray or a list); a face is None only where the
module says why. :data:`FAMILIES` maps the family names (the same names as the codec side,
``binlogwriter/values/families.py``) to their modules; :func:`family_of_type` finds the
family of a schema type name (binlogwriter/schema/types.py ``KNOWN_TYPES``).
generators/values.py dispatches through it. Adding a type: docs/adding-a-type.md.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values.column_array import ColumnArray
from generators.columns import (
    bit,
    blob,
    char,
    date,
    datetime,
    decimal,
    enum_set,
    floating,
    geometry,
    inet_uuid,
    integer,
    json,
    time,
    timestamp,
    year,
)
from generators.columns._common import quote

__all__ = ["FAMILIES", "FACES", "family_of_type", "sql_literal", "column_sql_literals"]

FAMILIES: dict[str, ModuleType] = {m.FAMILY: m for m in (
    integer, floating, decimal, bit, year, date, time, datetime, timestamp, char, blob, enum_set, json,
    geometry, inet_uuid)}
"""Family name -> module."""

FACES = ("generator", "vector_generator", "key_generator", "key_capacity", "key_vector_generator",
         "coerce", "sql_literal", "sql_literals")
"""The module-level functions of every family (None where the module documents why)."""

_BY_TYPE: dict[str, ModuleType] = {t: m for m in FAMILIES.values() for t in m.SQL_TYPES}


def family_of_type(sql_type: str) -> ModuleType | None:
    """The family module of a schema type name (``Column.type``), or None if none has it."""
    return _BY_TYPE.get(sql_type)


def column_sql_literals(col: Column, values: Any, flavor: str) -> list[str]:
    """:func:`sql_literal` of every value of one column (a list of Python values, None for
    NULL, or a ``ColumnArray``): a value pool's entries made once each and gathered, else the
    family's ``sql_literals`` (many values at once) where it has one and takes them, else its
    ``sql_literal`` value by value (the family looked up once)."""
    fam = _BY_TYPE.get(col.type)
    if isinstance(values, ColumnArray):
        if values.kind == "pool" and len(values.pool) <= len(values.data):
            lits = column_sql_literals(col, list(values.pool), flavor)
            out = [lits[i] for i in values.data.tolist()]
            if values.nulls is not None:
                for r in np.flatnonzero(values.nulls).tolist():
                    out[r] = "NULL"
            return out
        many = None if fam is None else fam.sql_literals
        got = None if many is None else many(col, values, flavor)
        if got is not None:
            return got
        values = values.tolist()
    if fam is None:
        return ["NULL" if v is None else quote(str(v)) for v in values]
    f = fam.sql_literal
    return ["NULL" if v is None else f(col, v, flavor) for v in values]


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    """A value as an SQL literal the server stores exactly (session time_zone '+00:00'):
    ``NULL``, else the family's :func:`sql_literal` (a quoted string for an unknown type)."""
    if v is None:
        return "NULL"
    fam = _BY_TYPE.get(col.type)
    if fam is None:
        return quote(str(v))
    return fam.sql_literal(col, v, flavor)
