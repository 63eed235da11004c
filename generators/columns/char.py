"""Generator side of the ``char`` family (CHAR VARCHAR BINARY VARBINARY).

Short strings: Faker picks chosen by the column's name (email, city, phone, …) or words,
cut to the column; BINARY(n) random bytes of length n, VARBINARY random bytes of
exponential length. The code is shared with ``blob`` (generators/columns/_strings.py).

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from binlogwriter.schema import Column
from generators.columns._common import START_TIME
from generators.columns._strings import (
    string_coerce,
    string_generator,
    string_key_capacity,
    string_key_generator,
    string_sql_literal,
)
from generators.columns._vec import twin_of
from generators.hashing import Stream

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "char"
SQL_TYPES = ("CHAR", "VARCHAR", "BINARY", "VARBINARY")


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``
    (``charset_stress``: the share of multilingual values, generators/columns/_stress.py)."""
    return string_generator(col, table, flavor, edge, charset_stress)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator`: ``fn(h, j) -> (kind, data, extra)``, or None when
    the scalar generator has none (column_vector_generator then replays it on numpy draws)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column (``prefix``: the
    index prefix length, when the key is on a prefix)."""
    return string_key_capacity(col, flavor, prefix)


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: the key's digits then words (text), or the key's big-endian bytes."""
    return string_key_generator(col, flavor, table, primary)


key_vector_generator = None  # text keys have ``fn.vec`` (numpy hashes, Python strings) instead


def coerce(col: Column, v: Any, where: str) -> Any:
    return string_coerce(col, v, where)


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    """Text quoted with MySQL's backslash escapes, binary strings as ``X'..'``."""
    return string_sql_literal(col, v, flavor)


sql_literals = None  # value by value (one ``str.translate`` each); pooled values are quoted once per pool entry by column_sql_literals
