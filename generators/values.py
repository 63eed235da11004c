"""Pure value generation: every value is a function of (seed, table, column, key, version).

:func:`column_generator` compiles one column into ``fn(key, version) -> value`` (the Python
types of ``docs/python-types.md``: int, Decimal, float, date/datetime/timedelta, Mysql*
for zero dates, str, bytes, ENUM str, SET frozenset, JSON objects, Geometry). It draws
from a :class:`~generators.hashing.Stream` seeded by ``hash64(salt(seed, table, column),
key, version)`` and from the Faker pools of :mod:`generators.pools`; numbers and times
come from inverse-CDF transforms (uniform, normal, log-normal) of those hashes — no
sequential RNG anywhere, so any partition of the keys gives the same values.

Every value fits its column (values.md §1): integers in range, DECIMAL rounded to its
scale and below its precision, FLOAT exactly representable in float32 with a short decimal
form, strings at most the declared characters and the byte limit in the column's charset
(characters the charset cannot hold are dropped), ENUM/SET members, temporal fsp.

Key columns (PRIMARY KEY and UNIQUE parts) are derived from the key alone
(:func:`key_generator`): ``id = key + 1`` for an integer primary key, a bijective scramble
for other integer keys, the key's digits inside strings — so they stay unique whatever
the row's version.

The per-type code lives in one module per type family (:mod:`generators.columns`); this
module dispatches to them (:func:`type_generator`, :func:`coerce`, :func:`key_generator`,
:func:`key_capacity`, :func:`key_vector_generator`) and applies spec-file overrides, NULLs
and the vectorised path.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from binlogwriter.schema import Column, Table
from binlogwriter.values.json_text import mysql_json_text
from binlogwriter.values.row import ColumnArray
from generators.columns import family_of_type
from generators.columns._common import EDGE_P, START_TIME, ValueFn, normal, quantize, with_edges
from generators.columns._fit import fit_text
from generators.columns._strings import text_of_length
from generators.columns._vec import digits_vec, edge_twin, int_twin, pool_vec, weighted_vec
from generators.columns.decimal import override_vec
from generators.columns.integer import INT_BITS, int_range, uniform_int_vec
from generators.columns.json import json_gen
from generators.edge_values import ValueMode, edge_values
from generators.hashing import (
    ReplayStream,
    Stream,
    draw_array,
    draws_matrix,
    hash64,
    hash64_array,
    salt,
    unit_array,
)
from generators.pools import pool
from generators.spec import ColumnGen, SpecError

# re-exported (moved to generators.columns, values.json_text): int_range, mysql_json_text, ValueFn, EDGE_P
__all__ = ["column_generator", "column_vector_generator", "type_generator", "override_generator", "coerce",
           "key_vector_generator", "Vec", "key_generator", "key_capacity", "int_range", "mysql_json_text",
           "ValueFn", "EDGE_P"]


def type_generator(col: Column, table: str, flavor: str, *, edge: bool | ValueMode = False,
                   start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name: its family's ``generator``.
    ``edge``: True for the family's own edge values at ``EDGE_P`` (alltypes), or a
    :class:`~generators.edge_values.ValueMode` (the share of :func:`edge_values`, the
    integers' whole range). ``charset_stress``: the share of a text column's values drawn
    from the multilingual pool (``--charset-stress``, generators/columns/_stress.py), under
    the edge values."""
    fam = family_of_type(col.type)
    if fam is None or fam.generator is None:
        raise SpecError(f"column {table}.{col.name}: no value generator for type {col.type}")
    if not isinstance(edge, ValueMode):
        return fam.generator(col, table, flavor, edge=edge, start_time=start_time, charset_stress=charset_stress)
    if edge.full_range and fam.FAMILY == "integer":
        gen = fam.full_range_generator(col)
    else:
        gen = fam.generator(col, table, flavor, start_time=start_time, charset_stress=charset_stress)
    if edge.edge_share <= 0:
        return gen
    own = getattr(fam.generator(col, table, flavor, edge=True, start_time=start_time), "edges", [])
    edges = edge_values(col, flavor, own)  # none (spatial) and NOT NULL: nothing to draw
    return with_edges(gen, edges, True, edge.edge_share) if edges or col.nullable else gen


def _null_p(col: Column, edge: bool | ValueMode, gen: Any, null_p: float | None) -> tuple[float, Any]:
    """The NULL share of a column and its generator. With a :class:`ValueMode`'s edge share
    ``f`` NULL is one more edge value: of ``n`` others, NULL takes ``f / (n + 1)`` of the rows
    (plus the usual 3% of the rest) and the edge share among the non-NULL values is set so
    that each of the ``n`` keeps ``f / (n + 1)`` of all rows."""
    if not col.nullable:
        return 0.0, gen
    if null_p is not None:
        return null_p, gen
    if not isinstance(edge, ValueMode):
        return (0.1 if edge else 0.03), gen
    f = edge.edge_share
    edges = getattr(gen, "edges", None)
    if f <= 0 or edges is None:
        return 0.03, gen
    n = len(edges)
    p = (1 - f) * 0.03 + f / (n + 1)
    if p >= 1:  # no edge but NULL at share 1 (a type without edge values): every value NULL
        return 1.0, gen
    return p, with_edges(gen.base, edges, True, min(1.0, f * n / (n + 1) / (1 - p)))


# ------------------------------------------------------------------------------------
# key-derived (unique) values
# ------------------------------------------------------------------------------------

def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column (1 for a type that
    cannot be a generated key)."""
    fam = family_of_type(col.type)
    if fam is None or fam.key_capacity is None:
        return 1
    return fam.key_capacity(col, flavor, prefix)


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``, injective in ``key`` below :func:`key_capacity`."""
    fam = family_of_type(col.type)
    if fam is None or fam.key_generator is None:
        raise SpecError(f"column {table}.{col.name}: type {col.type} cannot be part of a generated key")
    return fam.key_generator(col, flavor, table, primary)


def key_vector_generator(col: Column, primary: bool) -> Callable[[np.ndarray], Vec] | None:
    """:func:`key_generator` for many keys at once (integer columns), or None."""
    fam = family_of_type(col.type)
    if fam is None or fam.key_vector_generator is None:
        return None
    return fam.key_vector_generator(col, primary)


# ------------------------------------------------------------------------------------
# spec-file overrides
# ------------------------------------------------------------------------------------

def coerce(col: Column, v: Any, where: str) -> Any:
    """A spec-file literal as the column's Python type (its family's ``coerce``)."""
    if v is None:
        return None
    t = col.type
    try:
        fam = family_of_type(t)
        return str(v) if fam is None else fam.coerce(col, v, where)
    except (ValueError, TypeError, ArithmeticError) as e:
        raise SpecError(f"spec columns.{where}: value {v!r} does not suit {t}: {e}") from None


def override_generator(cg: ColumnGen, col: Column, table: str, flavor: str,
                       start_time: int) -> Callable[[Stream, int], Any]:
    where = cg.target
    g = cg.gen
    if g == "default":
        return type_generator(col, table, flavor, start_time=start_time)
    if g == "const":
        v = coerce(col, cg.param("value"), where)
        return lambda st, k: v
    if g == "choice":
        vals = [coerce(col, x, where) for x in (cg.param("values") or ())]
        if not vals:
            raise SpecError(f"spec columns.{where}: choice needs a non-empty 'values' list")
        w = cg.param("weights")
        if w is not None:
            if len(w) != len(vals) or any(not isinstance(x, int | float) or x < 0 for x in w) or sum(w) <= 0:
                raise SpecError(f"spec columns.{where}: weights must be {len(vals)} numbers >= 0")
            cum, tot = [], 0.0
            for x in w:
                tot += x
                cum.append(tot)

            def choice(st, k):
                u = st.u() * tot
                for i, c in enumerate(cum):
                    if u < c:
                        return vals[i]
                return vals[-1]
            choice.vec = weighted_vec(tuple(vals), cum, tot)
            return choice
        f = lambda st, k: vals[st.below(len(vals))]  # noqa: E731
        f.vec = pool_vec(tuple(vals))
        return f
    if g in ("int", "float", "decimal"):
        lo, hi = cg.param("min", 0), cg.param("max", 1000)
        if not isinstance(lo, int | float) or not isinstance(hi, int | float) or lo > hi:
            raise SpecError(f"spec columns.{where}: needs numeric min <= max")
        dist = cg.param("dist", "uniform")
        if dist not in ("uniform", "normal", "lognormal"):
            raise SpecError(f"spec columns.{where}: dist must be uniform, normal or lognormal")

        def draw(st):
            if dist == "uniform":
                x = lo + st.u() * (hi - lo)
            elif dist == "normal":
                x = (lo + hi) / 2 + normal(st) * (hi - lo) / 6
            else:
                x = lo + math.exp(normal(st)) / math.e ** 2 * (hi - lo) / 4
            return min(hi, max(lo, x))
        if g == "int":
            return lambda st, k: coerce(col, int(math.floor(draw(st))), where)
        if g == "decimal":
            s = col.scale or 0
            return lambda st, k: coerce(col, quantize(Decimal(repr(draw(st))), s), where)
        if col.type == "FLOAT":
            return lambda st, k: round(draw(st) * 16) / 16
        return lambda st, k: coerce(col, float(f"{draw(st):.8g}"), where)
    if g == "faker":
        name = cg.param("provider", "word")
        try:
            pl = pool(name)
        except KeyError:
            from generators.pools import POOL_NAMES
            raise SpecError(f"spec columns.{where}: unknown faker pool {name!r} "
                            f"(one of {', '.join(POOL_NAMES)})") from None
        f = lambda st, k: coerce(col, pl[st.below(len(pl))], where)  # noqa: E731
        try:
            f.vec = pool_vec(tuple(coerce(col, p, where) for p in pl))
        except SpecError:
            pass  # some entries do not suit the column: per value, raising when one is drawn
        return f
    if g == "text":
        a, b = cg.param("min_len", 10), cg.param("max_len", 200)
        if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= b):
            raise SpecError(f"spec columns.{where}: text needs integers 0 <= min_len <= max_len")
        if col.type in ("CHAR", "VARCHAR") and col.length is not None and a > col.length:
            # every value would be cut to the column: refused rather than silently shortened
            raise SpecError(f"spec columns.{where}: text min_len {a} is longer than the column's "
                            f"{col.type}({col.length})")
        if col.type in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
            return lambda st, k: fit_text(text_of_length(st, st.between(a, b)), col, flavor)
        return lambda st, k: coerce(col, text_of_length(st, st.between(a, b)), where)
    if g == "digits":
        groups = cg.param("groups", 10)
        return lambda st, k: "-".join(f"{st.below(10**11):011d}" for _ in range(groups))
    if g == "datetime":
        s0 = coerce(col, cg.param("start", "2020-01-01 00:00:00"), where)
        s1 = coerce(col, cg.param("end", "2025-12-31 23:59:59"), where)
        if not hasattr(s0, "__sub__"):
            raise SpecError(f"spec columns.{where}: datetime needs a temporal column")
        # whole days for DATE (the values step by days), seconds otherwise
        span = (s1 - s0).days if col.type == "DATE" else int((s1 - s0).total_seconds())
        if span < 0:
            raise SpecError(f"spec columns.{where}: start after end")
        if col.type == "DATE":
            return lambda st, k: s0 + dt.timedelta(days=st.below(span + 1))
        return lambda st, k: s0 + dt.timedelta(seconds=st.below(span + 1))
    if g == "sequence":
        start, step = cg.param("start", 1), cg.param("step", 1)
        return lambda st, k: coerce(col, start + k * step, where)
    if g == "json":
        return json_gen(col, table, flavor, False)
    raise SpecError(f"spec columns.{where}: unknown gen {g!r}")


def _scalar_generator(table: Table, col: Column, flavor: str, override: ColumnGen | None,
                      edge: bool | ValueMode, null_p: float | None, start_time: int,
                      charset_stress: float = 0.0) -> tuple[Any, float]:
    """A column's scalar generator ``fn(stream, key)`` and its NULL share: the spec's
    generator (``gen: default`` under a :class:`ValueMode` is the type's, edge values
    included), else the type's; ``null_p`` the caller's, the spec's ``null`` or
    :func:`_null_p`'s."""
    if override is not None and not (override.gen == "default" and isinstance(edge, ValueMode)):
        gen = override_generator(override, col, table.name, flavor, start_time)
    else:
        gen = type_generator(col, table.name, flavor, edge=edge, start_time=start_time, charset_stress=charset_stress)
    if override is not None:
        p = override.param("null", None)
        if p is not None:
            null_p = float(p)
    null_p, gen = _null_p(col, edge, gen, null_p)
    return gen, null_p


def column_generator(table: Table, col: Column, flavor: str, seed: int, *,
                     override: ColumnGen | None = None, edge: bool | ValueMode = False,
                     null_p: float | None = None, start_time: int = START_TIME, charset_stress: float = 0.0) -> ValueFn:
    """``fn(key, version) -> value`` for one non-key column (pure; see module docstring)."""
    base = salt(seed, table.name, col.name)
    gen, null_p = _scalar_generator(table, col, flavor, override, edge, null_p, start_time, charset_stress)

    if null_p > 0:
        def fn(key: int, version: int) -> Any:
            st = Stream(hash64(base, key, version))
            if st.u() < null_p:
                return None
            return gen(st, key)
    else:
        def fn(key: int, version: int) -> Any:
            return gen(Stream(hash64(base, key, version)), key)
    return fn


# ------------------------------------------------------------------------------------
# the same values for many (key, version) pairs at once
# ------------------------------------------------------------------------------------

Vec = ColumnArray  # values of one column for many rows (binlogwriter.values.row)


VecFn = Callable[[np.ndarray, np.ndarray], Vec]
def vec_gen(col: Column, table: str, override: ColumnGen | None, edge: bool | ValueMode, flavor: str = "mysql80",
            start_time: int = START_TIME, scalar=None):
    """fn(h, j0) -> (kind, data, extra) for generators with a vectorised twin (ColumnArray
    kinds, "list" for Python values), else None."""
    if scalar is None:
        scalar = (override_generator(override, col, table, flavor, start_time) if override is not None
                  else type_generator(col, table, flavor, edge=edge, start_time=start_time))
    pv = getattr(scalar, "vec", None)
    if pv is not None:
        return pv
    if getattr(scalar, "edges", None) is not None:
        return edge_twin(scalar)
    t = col.type
    if override is not None:
        if override.gen == "int" and t in INT_BITS:
            return int_twin(uniform_int_vec(col, override))
        if override.gen == "decimal" and t == "DECIMAL":
            return override_vec(col, override)
        if override.gen == "digits" and t in ("CHAR", "VARCHAR"):
            groups = override.param("groups", 10)
            if not isinstance(groups, int) or isinstance(groups, bool):
                return None
            g = digits_vec(groups)
            return None if g is None else (lambda h, j: ("ascii", g(h, j), None))
    return None


def _replay(gen, h: np.ndarray, keys: np.ndarray, j0: int, nulls, k: int) -> list:
    """``gen(Stream(h[i]) after j0 draws, key)`` for every row not NULL (None for NULL),
    with the draws computed by numpy beforehand (:class:`~generators.hashing.ReplayStream`).
    A generator with a ``many(pre, keys, j0)`` face (``pre``: the (rows, j0 + draws) matrix
    of draws, column ``t`` = draw ``t + 1``) gives the same list in one call."""
    n = len(h)
    out: list = [None] * n
    rows = np.arange(n) if nulls is None else np.flatnonzero(~nulls)
    if not len(rows):
        return out
    hs = h[rows]
    many = getattr(gen, "many", None)
    if many is not None:  # the generator's batch form: same values from the same draws
        vals = many(draws_matrix(hs, j0 + k), keys[rows], j0)
        if nulls is None:
            return vals
        for r, v in zip(rows.tolist(), vals, strict=True):
            out[r] = v
        return out
    pre = draws_matrix(hs, j0 + k).tolist()
    for r, b, p, kk in zip(rows.tolist(), hs.tolist(), pre, keys[rows].tolist(), strict=True):
        out[r] = gen(ReplayStream(b, p, j0), kk)
    return out


def column_vector_generator(table: Table, col: Column, flavor: str, seed: int, *,
                            override: ColumnGen | None = None, edge: bool | ValueMode = False,
                            null_p: float | None = None, start_time: int = START_TIME,
                            charset_stress: float = 0.0) -> VecFn:
    """``fn(keys, versions) -> Vec | list``: :func:`column_generator`'s values for many rows
    at once (same hashes through :func:`~generators.hashing.hash64_array`, same draws, same
    arithmetic): a :class:`Vec` from the generator's vectorised twin, or — for a generator
    without one — a list of the scalar generator's values computed on streams whose draws
    numpy made beforehand (the same code on the same numbers)."""
    scalar, null_p = _scalar_generator(table, col, flavor, override, edge, null_p, start_time, charset_stress)
    vg = vec_gen(col, table.name, override, edge, flavor, start_time, scalar)
    draws = getattr(scalar, "draws", 8)
    many_array = getattr(scalar, "many_array", None)
    base = salt(seed, table.name, col.name)

    def fn(keys: np.ndarray, versions: np.ndarray) -> Vec | list:
        h = hash64_array(base, keys, versions)
        j0 = 0
        nulls = None
        if null_p > 0:
            nulls = unit_array(draw_array(h, 1)) < null_p
            nulls = nulls if nulls.any() else None
            j0 = 1
        got = vg(h, j0) if vg is not None else None
        if got is None and many_array is not None:  # every row's value from its draws, as arrays
            kind, data = many_array(draws_matrix(h, j0 + draws), keys, j0)
            return Vec(kind, data, nulls)
        if got is None:
            return _replay(scalar, h, keys, j0, nulls, draws)
        kind, data, extra = got
        if kind == "list":
            if nulls is not None:
                data = [None if z else v for v, z in zip(data, nulls.tolist(), strict=True)]
            return data
        if kind == "pool":
            return Vec("pool", data, nulls, extra)
        return Vec(kind, data, nulls, None, extra)
    return fn

