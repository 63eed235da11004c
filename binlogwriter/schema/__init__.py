"""Table / Column / Key model, CREATE TABLE parsing and validation, split by concept:

- :mod:`~binlogwriter.schema.model`: :class:`Column`, :class:`Table` (and ``Table.from_sql``:
  one statement, built from the parsed spec here); :mod:`~binlogwriter.schema.keys`:
  :class:`Key`, :class:`KeyPart`; :mod:`~binlogwriter.schema.tables`: ``build_table``,
  ``column_from_info``;
- :mod:`~binlogwriter.schema.types`: type names, aliases, binlog type codes, flavor helpers;
- :mod:`~binlogwriter.schema.binlog`: a column's TABLE_MAP type byte, metadata, ColumnDesc;
- :mod:`~binlogwriter.schema.validate`: normalisation and the server's checks;
- :mod:`~binlogwriter.schema.parse`: a CREATE script -> Tables (``parse_tables``);
  :mod:`~binlogwriter.schema.statements`: one statement's text -> the spec
  (:mod:`~binlogwriter.schema.spec`; sqlglot first, :mod:`~binlogwriter.schema.sqlglot_parse`;
  what it cannot read, :mod:`~binlogwriter.schema.fallback` over :mod:`~binlogwriter.schema.lexer`);
- :mod:`~binlogwriter.schema.source`: the schemas a reader decodes with.

The parsers produce specs and import nothing of the model, so the model can call them
(``Table.from_sql``) without an import loop.

Charset text encoding (``encode_in_charset`` / ``decode_in_charset``) is
:mod:`binlogwriter.charsets`; the flavors are :data:`binlogwriter.format.FLAVORS`. Both are
re-exported here for existing imports.
"""

from __future__ import annotations

from binlogwriter.charsets import BINARY_COLLATION, decode_in_charset, encode_in_charset
from binlogwriter.schema.fallback import parse_create_fallback
from binlogwriter.schema.lexer import tokenize
from binlogwriter.schema.model import Check, Column, Key, KeyPart, Table
from binlogwriter.schema.parse import parse_tables, table_from_spec
from binlogwriter.schema.sqlglot_parse import parse_with_sqlglot
from binlogwriter.schema.tables import build_table
from binlogwriter.schema.types import FLAVORS, GEOMETRY_TYPES, KNOWN_TYPES, SERVER_DEFAULT_CHARSET
from binlogwriter.schema.validate import MAX_COLUMNS

__all__ = [
    "Check", "Column", "Key", "KeyPart", "Table", "build_table", "parse_tables", "FLAVORS", "GEOMETRY_TYPES",
    "KNOWN_TYPES", "SERVER_DEFAULT_CHARSET", "MAX_COLUMNS", "encode_in_charset", "decode_in_charset",
    "BINARY_COLLATION",
]
_ = (parse_create_fallback, parse_with_sqlglot, table_from_spec, tokenize)  # used by tests/schema/test_schema.py
