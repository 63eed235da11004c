"""The intermediate result both CREATE TABLE parsers produce (sqlglot's AST converted by
:mod:`~binlogwriter.schema.sqlglot_parse`, the fallback of :mod:`~binlogwriter.schema.fallback`):
column type words and arguments as written, attributes, keys; :mod:`~binlogwriter.schema.parse`
turns it into a :class:`~binlogwriter.schema.model.Table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from binlogwriter.schema.model import Key

__all__ = ["_ColSpec", "_TableSpec", "_sql_literal"]


@dataclass
class _ColSpec:
    name: str
    words: list[str]            # type words, upper-case, e.g. ["DOUBLE", "PRECISION"]
    args: list[str] = field(default_factory=list)   # type arguments as text
    unsigned: bool = False
    zerofill: bool = False
    charset: str | None = None
    collation: str | None = None
    binary_attr: bool = False
    nullable: bool | None = None
    default: str | None = None
    auto_increment: bool = False
    invisible: bool = False
    generated: bool = False
    primary: bool = False
    unique: bool = False


@dataclass
class _TableSpec:
    database: str | None
    name: str
    columns: list[_ColSpec]
    keys: list[Key]
    charset: str | None = None
    collation: str | None = None


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
