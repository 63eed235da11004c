"""Generator side of the ``geometry`` family (GEOMETRY POINT LINESTRING POLYGON MULTIPOINT MULTILINESTRING MULTIPOLYGON GEOMETRYCOLLECTION).

WKB of the column's geometry type (SRID 0): points with 6-decimal coordinates, short line
strings, square polygons, and collections of those.

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from binlogwriter.schema import Column
from binlogwriter.values import Geometry
from generators.columns._common import START_TIME
from generators.hashing import Stream

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal"]

FAMILY = "geometry"
SQL_TYPES = ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION")

_GEOM_CODE = {"POINT": 1, "LINESTRING": 2, "POLYGON": 3, "MULTIPOINT": 4, "MULTILINESTRING": 5,
              "MULTIPOLYGON": 6, "GEOMETRYCOLLECTION": 7}


def _pt(st: Stream) -> tuple[float, float]:
    return (round(st.u() * 360 - 180, 6), round(st.u() * 180 - 90, 6))


def _wkb(kind: str, st: Stream) -> bytes:
    if kind == "POINT":
        x, y = _pt(st)
        return struct.pack("<BIdd", 1, 1, x, y)
    if kind == "LINESTRING":
        pts = [_pt(st) for _ in range(2 + st.below(3))]
        return struct.pack("<BII", 1, 2, len(pts)) + b"".join(struct.pack("<dd", *p) for p in pts)
    if kind == "POLYGON":
        x, y = _pt(st)
        d = 0.01 + st.u()
        ring = [(x, y), (x + d, y), (x + d, y + d), (x, y + d), (x, y)]
        return struct.pack("<BIII", 1, 3, 1, len(ring)) + b"".join(struct.pack("<dd", *p) for p in ring)
    inner = {"MULTIPOINT": "POINT", "MULTILINESTRING": "LINESTRING", "MULTIPOLYGON": "POLYGON"}.get(kind)
    if inner is not None:
        parts = [_wkb(inner, st) for _ in range(1 + st.below(2))]
        return struct.pack("<BII", 1, _GEOM_CODE[kind], len(parts)) + b"".join(parts)
    if kind == "GEOMETRYCOLLECTION":
        parts = [_wkb("POINT", st), _wkb("LINESTRING", st)]
        return struct.pack("<BII", 1, 7, len(parts)) + b"".join(parts)
    return _wkb("POINT", st)  # GEOMETRY


def _geom_gen(col: Column, edge: bool):
    def gen(st, k):
        return Geometry(0, _wkb(col.type, st))
    return gen


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a geometry column: ``fn(stream, key) -> Geometry``."""
    return _geom_gen(col, edge)


# WKB is built per value from a varying number of draws: column_vector_generator replays the
# scalar generator on draws numpy made beforehand
vector_generator = None
# a generated key on a spatial column is not supported (key_generator raises SpecError)
key_generator = None
key_capacity = None
key_vector_generator = None


def coerce(col: Column, v: Any, where: str) -> Any:
    return str(v)  # as before the family split: a spec literal is kept as its text


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    g = v if isinstance(v, Geometry) else Geometry(int.from_bytes(bytes(v)[:4], "little"), bytes(v)[4:])
    return f"ST_GeomFromWKB(X'{g.wkb.hex()}', {g.srid})"

