"""Generator side of the ``inet_uuid`` family (INET4 INET6 UUID).

MariaDB's INET4, INET6 and UUID: values are their binary forms (4 or 16 bytes, as the row
events carry them). Drawn values: any address; a UUID of version 4 and the RFC 4122 variant
(what ``UUID()`` / ``SYS_GUID()`` -style application keys look like, and stored by the
server in the order given). Key values count up: ``key + 1`` in the address, a UUID's last
seven bytes (its version and variant bits kept, the rest drawn from the key).

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
from generators.columns._common import START_TIME, with_edges
from generators.columns._vec import twin_of
from generators.hashing import Stream, hash64, salt

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "inet_uuid"
SQL_TYPES = ("INET4", "INET6", "UUID")

_WIDTH = {"INET4": 4, "INET6": 16, "UUID": 16}


def _uuid4(hi: int, lo: int) -> bytes:
    """16 bytes from two 64-bit draws, with version 4 and the RFC 4122 variant bits set."""
    b = bytearray(hi.to_bytes(8, "big") + lo.to_bytes(8, "big"))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return bytes(b)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: ``fn(stream, key) -> value``."""
    if col.type == "UUID":
        return lambda st, k: _uuid4(st.next(), st.next())
    if col.type == "INET4":
        f = lambda st, k: (st.next() & 0xFFFFFFFF).to_bytes(4, "big")  # noqa: E731
        return with_edges(f, [bytes(4), b"\xff" * 4, b"\x7f\x00\x00\x01"], edge)
    f = lambda st, k: st.next().to_bytes(8, "big") + st.next().to_bytes(8, "big")  # noqa: E731
    return with_edges(f, [bytes(16), b"\xff" * 16, bytes(15) + b"\x01"], edge)


def vector_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                     start_time: int = START_TIME):
    """The numpy twin of :func:`generator` (its edge wrapper's), or None: column_vector_generator
    then replays the scalar one on numpy draws (these types are rare)."""
    return twin_of(generator(col, table, flavor, edge=edge, start_time=start_time))


def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    return {"INET4": (1 << 32) - 1, "INET6": 1 << 62, "UUID": (1 << 56) - 1}[col.type]


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``: ``key + 1`` as the address; a UUID's last seven bytes, its first
    nine drawn from the key (version 4, RFC 4122 variant)."""
    if col.type == "UUID":
        h = salt("key", table, col.name)
        return lambda k: _uuid4(hash64(h, k), hash64(h ^ 1, k))[:9] + (k + 1).to_bytes(7, "big")
    n = _WIDTH[col.type]
    return lambda k: (k + 1).to_bytes(n, "big")


key_vector_generator = None  # rare keys: rows.py takes the scalar key_generator


def coerce(col: Column, v: Any, where: str) -> Any:
    return str(v)  # as before the family split: a spec literal is kept as its text


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    b = bytes(v)
    return "X'" + b.hex() + "'" if b else "''"


sql_literals = None  # value by value: ``bytes.hex`` is one cheap call per value
