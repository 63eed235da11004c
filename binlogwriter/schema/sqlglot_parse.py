"""CREATE TABLE through sqlglot's MySQL dialect: its AST converted to a
:class:`~binlogwriter.schema.spec.TableSpec`; None whenever sqlglot fails or shows something
this mapping does not know, so the fallback parser (:mod:`~binlogwriter.schema.fallback`) reads it.
"""

from __future__ import annotations

import logging
from typing import Any

from binlogwriter.schema.keys import Key, KeyPart
from binlogwriter.schema.spec import ColSpec, TableSpec, sql_literal

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallback warnings are ours to report

__all__ = ["parse_with_sqlglot"]



_SQLGLOT_TYPES = {
    "TINYINT": ("TINYINT", False), "UTINYINT": ("TINYINT", True),
    "SMALLINT": ("SMALLINT", False), "USMALLINT": ("SMALLINT", True),
    "MEDIUMINT": ("MEDIUMINT", False), "UMEDIUMINT": ("MEDIUMINT", True),
    "INT": ("INT", False), "UINT": ("INT", True), "BIGINT": ("BIGINT", False),
    "UBIGINT": ("BIGINT", True), "DECIMAL": ("DECIMAL", False), "UDECIMAL": ("DECIMAL", True),
    "BIT": ("BIT", False), "DATE": ("DATE", False), "TIME": ("TIME", False),
    "DATETIME": ("DATETIME", False), "TIMESTAMP": ("TIMESTAMP", False),
    "TIMESTAMPTZ": ("TIMESTAMP", False), "CHAR": ("CHAR", False), "VARCHAR": ("VARCHAR", False),
    "BINARY": ("BINARY", False), "VARBINARY": ("VARBINARY", False), "TINYTEXT": ("TINYTEXT", False),
    "TEXT": ("TEXT", False), "MEDIUMTEXT": ("MEDIUMTEXT", False), "LONGTEXT": ("LONGTEXT", False),
    "TINYBLOB": ("TINYBLOB", False), "BLOB": ("BLOB", False), "MEDIUMBLOB": ("MEDIUMBLOB", False),
    "LONGBLOB": ("LONGBLOB", False), "ENUM": ("ENUM", False), "SET": ("SET", False),
    "JSON": ("JSON", False), "GEOMETRY": ("GEOMETRY", False),
}


def parse_with_sqlglot(sql: str) -> TableSpec | None:
    """Convert sqlglot's MySQL AST; None when sqlglot fails or shows something unmapped."""
    try:
        import sqlglot
        from sqlglot import exp

        tree = sqlglot.parse_one(sql, read="mysql")
    except Exception:  # sqlglot's own errors: fall back to the own parser
        return None
    if not isinstance(tree, exp.Create) or str(tree.args.get("kind", "")).upper() != "TABLE":
        return None
    schema = tree.this
    if not isinstance(schema, exp.Schema) or not isinstance(schema.this, exp.Table):
        return None
    spec = TableSpec(schema.this.db or None, schema.this.name, [], [])

    def part(e: Any) -> KeyPart | None:
        if isinstance(e, exp.Ordered):
            e = e.this
        if isinstance(e, exp.ColumnPrefix):
            if not e.expression.name.isdigit():
                return None  # the own parser reports it
            return KeyPart(e.this.name, int(e.expression.name))
        if isinstance(e, (exp.Identifier, exp.Column)):
            return KeyPart(e.name)
        return None

    for item in schema.expressions:
        if isinstance(item, exp.ColumnDef):
            cs = _sqlglot_column(item, exp)
            if cs is None:
                return None
            spec.columns.append(cs)
            continue
        if isinstance(item, exp.PrimaryKey):
            kind, name, items = "PRIMARY", None, item.expressions
        elif isinstance(item, exp.UniqueColumnConstraint) and isinstance(item.this, exp.Schema):
            kind, name, items = "UNIQUE", item.this.name or None, item.this.expressions
        elif isinstance(item, exp.IndexColumnConstraint):
            kind = str(item.args.get("kind") or "INDEX").upper()
            kind, name, items = kind if kind in ("FULLTEXT", "SPATIAL") else "INDEX", item.name or None, item.expressions
        else:
            return None
        parts = [part(x) for x in items]
        if any(x is None for x in parts):
            return None
        spec.keys.append(Key(kind, tuple(parts), name))  # type: ignore[arg-type]
    props = tree.args.get("properties")
    for prop in (props.expressions if props else []):
        if isinstance(prop, exp.CharacterSetProperty):
            spec.charset = prop.this.name
        elif isinstance(prop, exp.CollateProperty):
            spec.collation = prop.this.name
    return spec


def _sqlglot_column(cd: Any, exp: Any) -> ColSpec | None:
    kind = cd.args.get("kind")
    if kind is None:
        return None
    tname = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
    if tname not in _SQLGLOT_TYPES:
        return None
    word, unsigned = _SQLGLOT_TYPES[tname]
    args = []
    for e in kind.expressions:
        lit = e.this if isinstance(e, exp.DataTypeParam) else e
        if not isinstance(lit, exp.Literal):
            return None
        args.append(lit.this if lit.is_string else lit.name)
    cs = ColSpec(name=cd.name, words=[word], args=args, unsigned=unsigned)
    for c in cd.args.get("constraints") or []:
        k = c.args.get("kind")
        if isinstance(k, exp.NotNullColumnConstraint):
            cs.nullable = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            cs.primary = True
        elif isinstance(k, exp.UniqueColumnConstraint):
            cs.unique = True
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            cs.auto_increment = True
        elif isinstance(k, exp.DefaultColumnConstraint):
            v = k.this
            if isinstance(v, exp.Literal):
                cs.default = sql_literal(v.this) if v.is_string else v.name
            elif isinstance(v, exp.Neg) and isinstance(v.this, exp.Literal):
                cs.default = "-" + v.this.name
            else:
                cs.default = v.sql("mysql").upper()
        elif isinstance(k, exp.CharacterSetColumnConstraint):
            cs.charset = k.this.name
        elif isinstance(k, exp.CollateColumnConstraint):
            cs.collation = k.this.name
        elif isinstance(k, exp.ZeroFillColumnConstraint):
            cs.zerofill = True
        elif isinstance(k, exp.InvisibleColumnConstraint):
            cs.invisible = True
        elif isinstance(k, exp.CommentColumnConstraint):
            pass
        else:
            return None
    return cs
