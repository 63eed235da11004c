"""Generator side of the ``blob`` family (TINYTEXT TEXT MEDIUMTEXT LONGTEXT TINYBLOB BLOB MEDIUMBLOB LONGBLOB).

Long strings: Faker picks chosen by the column's name or paragraphs of exponential
length, cut to the type's byte limit; BLOBs are random bytes. The code is shared with
``char`` (generators/columns/_strings.py).

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from generators.columns.char import (  # the string faces are char's (generators/columns/_strings.py)
    coerce,
    generator,
    key_capacity,
    key_generator,
    sql_literal,
    vector_generator,
)

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "blob"
SQL_TYPES = ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")


key_vector_generator = None  # text keys have ``fn.vec`` (numpy hashes, Python strings) instead


sql_literals = None  # value by value, as char's: one ``str.translate`` each; pooled values are quoted once per pool entry by column_sql_literals
