"""The type -> binlog mapping of a column: the TABLE_MAP type byte, its metadata bytes, the
SIGNEDNESS bit and the value codecs' :class:`~binlogwriter.values.base.ColumnDesc`
(values.md §1 master table, §5, §6; format.md §12). :class:`~binlogwriter.schema.model.Column`
exposes these as methods. The type byte and metadata of each type are in its family's module
(binlogwriter/values/<family>.py, found through values/families.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from binlogwriter.errors import SchemaError
from binlogwriter.schema.types import TEMPORAL_FSP, is_mariadb
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.blob import blob_length_bytes
from binlogwriter.values.families import family_of_type

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["binlog_type", "binlog_meta", "blob_length_bytes", "is_unsigned_in_binlog", "column_desc"]


def _family(col: Column, what: str):
    fam = family_of_type(col.type)
    if fam is None:
        raise SchemaError(f"column {col.name!r}: no binlog {what} for {col.type}")
    return fam


def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """The TABLE_MAP column type byte (values.md §1): the type family's ``binlog_type``."""
    return _family(col, "type").binlog_type(col, flavor)


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The column's metadata bytes in TABLE_MAP (values.md §1 master table, §5, §6): the type
    family's ``binlog_meta``."""
    return _family(col, "metadata").binlog_meta(col, flavor)


def is_unsigned_in_binlog(col: Column, flavor: str = "mysql80") -> bool:
    """SIGNEDNESS bit: UNSIGNED flag; YEAR is 0 on MySQL, 1 on MariaDB (mariadb.md)."""
    if col.type == "YEAR":
        return is_mariadb(flavor)
    return col.is_numeric and col.unsigned

def column_desc(col: Column, flavor: str = "mysql80", table: str | None = None) -> ColumnDesc:
    """The value codecs' view of this column (values/base.py)."""
    return ColumnDesc(
        type_code=binlog_type(col, flavor),
        meta=binlog_meta(col, flavor),
        unsigned=is_unsigned_in_binlog(col, flavor),
        collation=col.collation_id(flavor),
        enum_values=col.members if col.type == "ENUM" else None,
        set_values=col.members if col.type == "SET" else None,
        fsp=(col.fsp or 0) if col.type in TEMPORAL_FSP else None,
        nullable=col.nullable,
        name=col.name,
        table=table,
        flavor=flavor,
        json_text=col.type == "JSON" and is_mariadb(flavor),
    )
