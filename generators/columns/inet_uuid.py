"""Generator side of the ``inet_uuid`` family (INET4 INET6 UUID).

MariaDB's INET4, INET6 and UUID: values are their binary forms (4 or 16 bytes). No
generator yet: a table with such a column needs a spec-file generator (const, choice, …).

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from typing import Any

from binlogwriter.schema import Column

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "inet_uuid"
SQL_TYPES = ("INET4", "INET6", "UUID")

# no default value generator yet (none before the family split either): type_generator
# raises SpecError naming the column; spec-file generators (const, choice) still work
generator = None
vector_generator = None
# not supported as a generated key (key_generator raises SpecError)
key_generator = None
key_capacity = None
key_vector_generator = None


def coerce(col: Column, v: Any, where: str) -> Any:
    return str(v)  # as before the family split: a spec literal is kept as its text


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    b = bytes(v)
    return "X'" + b.hex() + "'" if b else "''"


sql_literals = None  # value by value: ``bytes.hex`` is one cheap call per value
