"""The type families: one module per family of column types, each the one home of what the
codec side knows of its types (docs/adding-a-type.md).

Every family module (``binlogwriter/values/<family>.py``) has the same faces:

* ``FAMILY`` (its name), ``SQL_TYPES`` (the schema model's type names it owns, schema/types.py
  KNOWN_TYPES) and ``TYPE_CODES`` (the binlog type codes its codecs read and write, old codes
  included);
* ``binlog_type(col, flavor) -> int`` and ``binlog_meta(col, flavor) -> bytes``: the TABLE_MAP
  type byte and metadata of a schema column (schema/binlog.py dispatches here);
* its codec classes (``@register``-ed in values/_common.py's REGISTRY by type code; bound per
  column with scalar ``encode``/``decode`` and, where one exists, a vectorised encoder);
* ``renderer(col: ColumnDesc, family) -> fn(value) -> str``: the mysqlbinlog ``###`` text
  (values/render.py dispatches here);
* ``truth_renderer(col: Column, flavor) -> fn(value)``: the canonical ground-truth form
  (docs/output.md "Canonical row form"; generators/truth.py dispatches here);
* ``arrow_type(col)``: the Arrow type of its values (read/export.py dispatches here);
* ``type_text(type_code, meta, family)``: the type named in ``-vv`` comments, or None
  (text/columns.py type_string dispatches here).

A binlog type code belongs to one family, except 254/253 (STRING): the char family's codec,
which hands columns whose metadata names ENUM or SET to the enum_set family
(:func:`family_of_column`). The NULL type (6) is no schema type: its codec is in values/_null.py.
"""

from __future__ import annotations

from types import ModuleType

from binlogwriter.values import (
    _null,  # noqa: F401 - registers the NULL type's codec
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
from binlogwriter.values._common import REGISTRY
from binlogwriter.values.base import ColumnDesc

__all__ = ["FAMILIES", "META_SIZE", "family_of_type", "family_of_code", "family_of_column"]

FAMILIES: dict[str, ModuleType] = {m.FAMILY: m for m in (
    integer, floating, decimal, bit, year, date, time, datetime, timestamp, char, blob, enum_set, json,
    geometry, inet_uuid)}
"""Family name -> its module, in the order of docs/adding-a-type.md."""

_NO_CODEC_META = {0: 0, 249: 1, 250: 1, 251: 1}
"""Metadata bytes of the type codes no codec reads: the old DECIMAL (0) and TINY / MEDIUM /
LONG_BLOB (249–251, which servers log as BLOB, 252)."""

META_SIZE: dict[int, int] = dict(sorted(
    {**_NO_CODEC_META, **{code: codec.meta_layout.sizeof() for code, codec in REGISTRY.items()}}.items()))
"""Table_map metadata bytes per binlog type code (values.md §1 "Metadata byte order reminders"):
each codec's ``meta_layout`` size, the one table the Table_map splitter (metadata.py), the
``-vv`` printers (text/columns.py, text/metadata.py) and the fuzzers use."""

_BY_TYPE: dict[str, ModuleType] = {t: m for m in FAMILIES.values() for t in m.SQL_TYPES}
_BY_CODE: dict[int, ModuleType] = {c: m for m in FAMILIES.values() for c in m.TYPE_CODES}


def family_of_type(sql_type: str) -> ModuleType | None:
    """The family module of a schema type name (``"VARCHAR"`` -> values/char.py), or None."""
    return _BY_TYPE.get(sql_type)


def family_of_code(type_code: int) -> ModuleType | None:
    """The family module whose codec reads binlog type ``type_code``, or None (254/253 -> char;
    see :func:`family_of_column` for ENUM/SET)."""
    return _BY_CODE.get(type_code)


def family_of_column(col: ColumnDesc) -> ModuleType | None:
    """The family module of a binlog column: by type code, and for 254/253 by the real type in
    its metadata (values.md §5), or None."""
    code = col.type_code
    if code in (253, 254) and len(col.meta) == 2:
        real = bytes(col.meta)[0]
        real = real | 0x30 if (real & 0x30) != 0x30 else real
        if real in (247, 248):
            return enum_set
    return _BY_CODE.get(code)
