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

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.values import Geometry
from generators.columns._common import START_TIME
from generators.hashing import Stream, unit_array

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

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


_DRAWS = {"POINT": 2, "GEOMETRY": 2, "LINESTRING": 9, "POLYGON": 3, "MULTIPOINT": 5, "MULTILINESTRING": 19,
          "MULTIPOLYGON": 7, "GEOMETRYCOLLECTION": 11}
"""The most draws :func:`_wkb` takes for each type (a count draw, then two per point)."""
_TIE_ULPS = 64.0


def round6(v: np.ndarray) -> np.ndarray:
    """Python's ``round(x, 6)`` of every float: ``rint(x * 1e6) / 1e6`` (the nearest float to
    the integer of millionths, as Python's correctly rounded result is), except products
    within ``_TIE_ULPS`` ulps of a half, which Python rounds (the exact value decides)."""
    f = v * 1e6
    out = np.rint(f) / 1e6
    for i in np.flatnonzero(np.abs(f - np.floor(f) - 0.5) <= _TIE_ULPS * np.spacing(np.abs(f))).tolist():
        out[i] = round(float(v[i]), 6)
    return out


def _points(pre: np.ndarray, cur: np.ndarray, m: int) -> np.ndarray:
    """:func:`_pt` ``m`` times from draw column ``cur`` of each row: an (n, m, 2) array."""
    rows = np.arange(len(cur))
    out = np.empty((len(cur), m, 2), dtype="<f8")
    for t in range(m):
        out[:, t, 0] = round6(unit_array(pre[rows, cur + 2 * t]) * 360 - 180)
        out[:, t, 1] = round6(unit_array(pre[rows, cur + 2 * t + 1]) * 180 - 90)
    return out


def _rows_bytes(head: bytes, coords: np.ndarray) -> list[bytes]:
    """``head`` then each row's coordinates as little-endian doubles, one bytes per row."""
    n = len(coords)
    mat = np.empty((n, len(head) + coords[0].nbytes if n else 0), dtype=np.uint8)
    if not n:
        return []
    mat[:, :len(head)] = np.frombuffer(head, dtype=np.uint8)
    mat[:, len(head):] = coords.reshape(n, -1).view(np.uint8)
    flat, w = mat.tobytes(), mat.shape[1]
    return [flat[i:i + w] for i in range(0, n * w, w)]


def _wkb_many(kind: str, pre: np.ndarray, cur: np.ndarray) -> tuple[list[bytes], np.ndarray]:
    """:func:`_wkb` of many rows of a draws matrix (``pre[:, t]`` = draw ``t + 1``) whose next
    draw is column ``cur`` of each row: (WKB per row, each row's next draw column). The same
    draws in the same order, the same float arithmetic."""
    n = len(cur)
    rows = np.arange(n)
    if kind in ("POINT", "GEOMETRY"):
        return _rows_bytes(struct.pack("<BI", 1, 1), _points(pre, cur, 1)), cur + 2
    if kind == "LINESTRING":
        npts = 2 + (pre[rows, cur] % np.uint64(3)).astype(np.int64)
        cur = cur + 1
        out: list = [None] * n
        for m in (2, 3, 4):
            sel = np.flatnonzero(npts == m)
            if len(sel):
                got = _rows_bytes(struct.pack("<BII", 1, 2, m), _points(pre[sel], cur[sel], m))
                for r, b in zip(sel.tolist(), got, strict=True):
                    out[r] = b
        return out, cur + 2 * npts
    if kind == "POLYGON":
        xy = _points(pre, cur, 1)[:, 0, :]
        d = 0.01 + unit_array(pre[rows, cur + 2])
        x, y = xy[:, 0], xy[:, 1]
        ring = np.stack([np.stack(p, axis=1) for p in ((x, y), (x + d, y), (x + d, y + d), (x, y + d), (x, y))],
                        axis=1)
        return _rows_bytes(struct.pack("<BIII", 1, 3, 1, 5), ring), cur + 3
    if kind == "GEOMETRYCOLLECTION":
        pts, cur = _wkb_many("POINT", pre, cur)
        lines, cur = _wkb_many("LINESTRING", pre, cur)
        head = struct.pack("<BII", 1, 7, 2)
        return [head + a + b for a, b in zip(pts, lines, strict=True)], cur
    inner = {"MULTIPOINT": "POINT", "MULTILINESTRING": "LINESTRING", "MULTIPOLYGON": "POLYGON"}[kind]
    count = 1 + (pre[rows, cur] % np.uint64(2)).astype(np.int64)
    first, cur = _wkb_many(inner, pre, cur + 1)
    two = np.flatnonzero(count == 2)
    second, cur2 = _wkb_many(inner, pre[two], cur[two])
    cur[two] = cur2
    heads = (struct.pack("<BII", 1, _GEOM_CODE[kind], 1), struct.pack("<BII", 1, _GEOM_CODE[kind], 2))
    out = [heads[0] + w for w in first]
    for r, w in zip(two.tolist(), second, strict=True):
        out[r] = heads[1] + out[r][9:] + w
    return out, cur


def _geom_gen(col: Column, edge: bool):
    kind = col.type

    def gen(st, k):
        return Geometry(0, _wkb(kind, st))
    gen.draws = _DRAWS.get(kind, 2)
    # generators/values.py _replay: the same values from the same draws, as arrays
    gen.many = lambda pre, keys, j: [Geometry(0, w) for w in _wkb_many(
        kind if kind in _DRAWS else "GEOMETRY", pre, np.full(len(pre), j, dtype=np.int64))[0]]
    return gen


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a geometry column: ``fn(stream, key) -> Geometry``."""
    return _geom_gen(col, edge)


# WKB takes a varying number of draws: no twin of its own; column_vector_generator gives the
# generator's ``many`` face (_wkb_many) the draws numpy made beforehand
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


sql_literals = None  # value by value: geometries are few and their WKB hex is one call
