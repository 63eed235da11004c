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
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
from collections.abc import Callable
from decimal import Context, Decimal
from functools import lru_cache
from typing import Any

import numpy as np

from binlogwriter.errors import ValueEncodeError
from binlogwriter.schema import Column, Table
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime
from binlogwriter.values.row import ColumnArray
from generators.hashing import (
    ReplayStream,
    Stream,
    draw_array,
    draws_matrix,
    hash64,
    hash64_array,
    mix64_array,
    salt,
    unit_array,
)
from generators.pools import pool
from generators.spec import ColumnGen, SpecError

__all__ = ["column_generator", "column_vector_generator", "key_vector_generator", "Vec", "key_generator", "key_capacity", "int_range", "mysql_json_text",
           "ValueFn", "EDGE_P"]

ValueFn = Callable[[int, int], Any]
EDGE_P = 0.25  # share of edge values in "edge" mode (alltypes)

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
_TEXT_LIMIT = {"TINYTEXT": 255, "TEXT": 65535, "MEDIUMTEXT": (1 << 24) - 1, "LONGTEXT": (1 << 32) - 1,
               "TINYBLOB": 255, "BLOB": 65535, "MEDIUMBLOB": (1 << 24) - 1, "LONGBLOB": (1 << 32) - 1}
_UTC = dt.UTC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)
_TS_MAX = 2**31 - 1
_ORD_1970 = dt.date(1970, 1, 1).toordinal()


def int_range(col: Column) -> tuple[int, int]:
    """(min, max) of an integer / YEAR / BIT column."""
    if col.type in _INT_BITS:
        b = _INT_BITS[col.type]
        return (0, (1 << b) - 1) if col.unsigned else (-(1 << (b - 1)), (1 << (b - 1)) - 1)
    if col.type == "BIT":
        return (0, (1 << (col.length or 1)) - 1)
    if col.type == "YEAR":
        return (1901, 2155)
    raise ValueError(col.type)


def _char_limit(col: Column, flavor: str) -> tuple[int, int]:
    """(max characters, max bytes) of a character column."""
    mb = col.mbmaxlen(flavor)
    if col.type in ("CHAR", "VARCHAR"):
        n = col.char_length() or 0
        return n, n * mb
    lim = _TEXT_LIMIT[col.type]
    return lim, lim


_FIT: dict[tuple[int, str], tuple[Column, int, int, Any]] = {}


def _fit_info(col: Column, flavor: str) -> tuple[int, int, Any]:
    """(max characters, max bytes, collation) of a column, memoised by column object."""
    hit = _FIT.get((id(col), flavor))
    if hit is not None and hit[0] is col:
        return hit[1], hit[2], hit[3]
    nchars, nbytes = _char_limit(col, flavor)
    coll = col.collation_obj(flavor)
    if len(_FIT) > 4096:
        _FIT.clear()
    _FIT[(id(col), flavor)] = (col, nchars, nbytes, coll)  # keeps col alive: its id is not reused
    return nchars, nbytes, coll


def _fit_text(s: str, col: Column, flavor: str) -> str:
    """Cut ``s`` to the column's character and byte limits, dropping characters its charset lacks."""
    nchars, nbytes, coll = _fit_info(col, flavor)
    if len(s) > nchars:
        s = s[:nchars]
    if coll is not None and coll.charset not in ("utf8mb4", "binary"):
        try:
            coll.encode(s)
        except (UnicodeError, LookupError, ValueError):
            s = "".join(ch for ch in s if _encodable(ch, coll))
    if coll is not None and coll.charset == "utf8mb3":
        s = "".join(ch for ch in s if ord(ch) < 0x10000)
    if nbytes < nchars * 4:
        while len(_enc(s, coll)) > nbytes:
            s = s[:-1]
    if col.type == "CHAR":
        s = s.rstrip(" ")
    return s


def _encodable(ch: str, coll) -> bool:
    try:
        coll.encode(ch)
        return True
    except (UnicodeError, LookupError, ValueError):
        return False


def _enc(s: str, coll) -> bytes:
    if coll is None or coll.charset == "binary":
        return s.encode("utf-8")
    try:
        return coll.encode(s)
    except (UnicodeError, LookupError, ValueError):
        return s.encode("utf-8")


# ------------------------------------------------------------------------------------
# MySQL's JSON text form (docs/output.md: keys by length then bytes, ", " and ": ")
# ------------------------------------------------------------------------------------

def _json_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


_JSON_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False).encode
_JSON_PLAIN = (str, int, float, bool, type(None))


def _mysql_order(v: Any) -> Any:
    """``v`` with every object's keys in MySQL's order (by length, then bytes); TypeError
    for anything :func:`_mysql_json_slow` would not print the same way through ``json``."""
    t = type(v)
    if t is dict:
        if any(type(k) is not str for k in v):
            raise TypeError
        keys = sorted(v, key=lambda k: (len(k.encode("utf-8")), k.encode("utf-8")))
        return {k: _mysql_order(v[k]) for k in keys}
    if t is list or t is tuple:
        return [_mysql_order(x) for x in v]
    if t in _JSON_PLAIN:
        return v
    raise TypeError


def mysql_json_text(v: Any) -> str:
    """A JSON document as MySQL prints it (``JSON_TYPE``-normalised text): one ``json``
    encoder call over the document with its keys reordered (same text as the
    element-by-element printer, which handles anything else)."""
    try:
        return _JSON_DUMPS(_mysql_order(v))
    except (TypeError, ValueError, RecursionError):
        return _mysql_json_slow(v)


def _mysql_json_slow(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return _json_str(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_mysql_json_slow(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode("utf-8")), k.encode("utf-8")))
        return "{" + ", ".join(f"{_json_str(k)}: {_mysql_json_slow(v[k])}" for k in keys) + "}"
    raise TypeError(f"not a JSON value: {v!r}")


# ------------------------------------------------------------------------------------
# key-derived (unique) values
# ------------------------------------------------------------------------------------

def key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    """How many distinct keys :func:`key_generator` can give this column."""
    t = col.type
    if t in _INT_BITS or t in ("BIT", "YEAR"):
        lo, hi = int_range(col)
        return hi - max(lo, 0) if t in _INT_BITS else hi - lo + 1
    if t == "DECIMAL":
        p, s = col.precision or 10, col.scale or 0
        return 10 ** min(p - s, 18) if p > s else 1
    if t == "FLOAT":
        return 1 << 24
    if t == "DOUBLE":
        return 1 << 53
    if t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
        n = _char_limit(col, flavor)[0]
        if prefix:
            n = min(n, prefix)
        return 10 ** max(0, min(n - 1, 18))
    if t in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
        n = col.char_length() or _TEXT_LIMIT[t]
        if prefix:
            n = min(n, prefix)
        return 1 << (8 * min(n, 8))
    if t == "DATE":
        return 3_000_000
    if t in ("DATETIME", "TIMESTAMP"):
        return 2_000_000_000
    if t == "TIME":
        return 3_000_000
    if t == "ENUM":
        return len(col.members)
    if t == "SET":
        return 1 << min(len(col.members), 62)
    return 1


def key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    """``fn(key) -> value``, injective in ``key`` below :func:`key_capacity`."""
    t = col.type
    if t in _INT_BITS:
        lo, hi = int_range(col)
        if primary:
            return lambda k: k + 1
        span = hi - max(lo, 0)
        mult = 0x9E3779B97F4A7C15 | 1
        base = max(lo, 0) + 1
        if span & (span + 1) == 0:  # 2^b - 1: scramble inside the range
            return lambda k: base + ((k * mult) & span) if span > 1 else base + k
        return lambda k: base + k
    if t in ("BIT", "YEAR"):
        lo = int_range(col)[0]
        return lambda k: lo + k
    if t == "DECIMAL":
        s = col.scale or 0
        return lambda k: _q(Decimal(k + 1), s)
    if t in ("FLOAT", "DOUBLE"):
        return lambda k: float(k + 1)
    if t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
        words = pool("word")
        nchars = _char_limit(col, flavor)[0]
        low = col.name.lower()
        if "email" in low:
            firsts, lasts, doms = pool("first_name"), pool("last_name"), pool("email_domain")

            def email(k: int, h: int | None = None) -> str:
                if h is None:
                    h = hash64(salt("key", table, col.name), k)
                tail = f"{k}@{doms[h % 1024]}"
                local = f"{firsts[(h >> 10) % 1024]}.{lasts[(h >> 20) % 1024]}".lower()
                room = nchars - len(tail)
                if room <= 0:
                    return str(k)[:nchars]
                return (local[:room] + tail)[:nchars]
            email.vec = _key_text_vec(email, salt("key", table, col.name))
            return email

        def text_key(k: int, h: int | None = None) -> str:
            if h is None:
                h = hash64(salt("key", table, col.name), k)
            s = f"{k}-{words[h % 1024]}-{words[(h >> 10) % 1024]}"
            return s[:nchars].rstrip(" ")
        text_key.vec = _key_text_vec(text_key, salt("key", table, col.name))
        return text_key
    if t in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
        n = col.char_length() or 8
        w = min(n, 8)
        if t == "BINARY":
            return lambda k: (k + 1).to_bytes(w, "big") + bytes(n - w)
        return lambda k: (k + 1).to_bytes(w, "big")
    if t == "DATE":
        base = dt.date(2000, 1, 1).toordinal()
        return lambda k: dt.date.fromordinal(base + k)
    if t == "DATETIME":
        b = dt.datetime(2000, 1, 1)
        return lambda k: b + dt.timedelta(seconds=k)
    if t == "TIMESTAMP":
        return lambda k: dt.datetime.fromtimestamp(946684800 + k, _UTC)
    if t == "TIME":
        return lambda k: dt.timedelta(seconds=k)
    if t == "ENUM":
        def member(k: int) -> str:
            if k >= len(col.members):
                raise ValueEncodeError(f"ENUM key space holds {len(col.members)} values; key number {k + 1} "
                                       "does not fit (fewer --initial-rows or a wider key column)",
                                       table=table, column=col.name)
            return col.members[k]
        return member
    if t == "SET":
        return lambda k: frozenset(m for i, m in enumerate(col.members) if (k >> i) & 1)
    raise SpecError(f"column {table}.{col.name}: type {t} cannot be part of a generated key")


def _key_text_vec(fn, base: int):
    """``[fn(k) for k in keys]`` with the per-key hashes made by numpy."""
    def vec(keys: np.ndarray) -> list:
        return [fn(k, h) for k, h in zip(keys.tolist(), hash64_array(base, keys).tolist(), strict=True)]
    return vec


# ------------------------------------------------------------------------------------
# type generators: fn(stream, key) -> value
# ------------------------------------------------------------------------------------

_CTX = Context(prec=100)


def _q(d: Decimal, s: int) -> Decimal:
    return d.quantize(Decimal(1).scaleb(-s), context=_CTX)


def _normal(st: Stream) -> float:
    u1 = st.u() or 1e-12
    u2 = st.u()
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)


def _lognormal_price(st: Stream) -> float:
    return math.exp(3.0 + 1.1 * _normal(st))  # median ~20, long tail


def _lognormal_list(h: np.ndarray, j: int) -> list[float]:
    """:func:`_lognormal_price` of ``Stream(h[i])`` from draw ``j + 1`` on (two draws),
    with the same ``math`` functions on the same floats."""
    u1 = unit_array(draw_array(h, j + 1)).tolist()
    u2 = unit_array(draw_array(h, j + 2)).tolist()
    exp, sqrt, log, cos, tau = math.exp, math.sqrt, math.log, math.cos, 2 * math.pi
    return [exp(3.0 + 1.1 * (sqrt(-2.0 * log(a or 1e-12)) * cos(tau * b))) for a, b in zip(u1, u2, strict=True)]


def _int_twin(g):
    return None if g is None else (lambda h, j: ("int", g(h, j), None))


def _int_gen(col: Column, name: str, edge: bool) -> Callable[[Stream, int], Any]:
    lo, hi = int_range(col)
    if col.type == "BIT":
        edges = [lo, hi, 1, 1 << ((col.length or 1) - 1)]
        f = lambda st, k: st.between(lo, hi)  # noqa: E731
        f.vec = _int_twin(_between_vec(lo, hi))
        return _with_edges(f, edges, edge)
    if col.type == "YEAR":
        f = lambda st, k: st.between(1990, 2030)  # noqa: E731
        f.vec = _int_twin(_between_vec(1990, 2030))
        return _with_edges(f, [1901, 2155, 0, 2000], edge)
    a, b = max(lo, 0), min(hi, 1_000_000)
    if any(w in name for w in ("price", "amount", "total", "cost", "balance")):
        def gen(st, k):
            return min(hi, max(a, int(_lognormal_price(st) * 100)))
        if hi < 1 << 63:
            def pvec(h, j):
                cents = np.array([int(x * 100) for x in _lognormal_list(h, j)], dtype=np.int64)
                return "int", np.minimum(hi, np.maximum(a, cents)), None
            gen.vec = pvec
    elif any(w in name for w in ("qty", "quantity", "stock", "count")):
        top = min(hi, 500)

        def gen(st, k):
            return st.between(a, top)
        gen.vec = _int_twin(_between_vec(a, top))
    elif name == "age":
        def gen(st, k):
            return st.between(max(a, min(18, hi)), min(hi, 90))
        gen.vec = _int_twin(_between_vec(max(a, min(18, hi)), min(hi, 90)))
    else:
        def gen(st, k):
            return st.between(a, b)
        gen.vec = _int_twin(_between_vec(a, b))
    edges = sorted({lo, hi, 0, 1} | ({-1} if lo < 0 else set()))
    return _with_edges(gen, edges, edge)


def _with_edges(gen, edges, edge: bool):
    if not edge:
        return gen
    edges = list(edges)

    def g(st: Stream, k: int):
        if st.chance(EDGE_P):
            return edges[st.below(len(edges))]
        return gen(st, k)
    g.edges, g.base = edges, gen  # column_vector_generator builds the vectorised twin from them
    g.draws = getattr(gen, "draws", 8) + 2
    return g


def _decimal_gen(col: Column, name: str, edge: bool):
    p, s = col.precision or 10, col.scale or 0
    unit = Decimal(1).scaleb(-s)
    maxv = _CTX.subtract(_CTX.power(Decimal(10), p - s), unit)
    maxmag = min(p - s, 6)
    neg_ok = not col.unsigned
    money = any(w in name for w in ("price", "amount", "total", "cost", "balance", "salary"))

    def gen(st: Stream, k: int) -> Decimal:
        if money:
            v = Decimal(repr(round(_lognormal_price(st), 4)))
        else:
            units = st.below(10 ** (maxmag + s)) if maxmag + s > 0 else 0
            v = Decimal(units).scaleb(-s)
            if neg_ok and units and st.chance(0.2):
                v = v.copy_negate()
        v = _q(v, s)
        if v > maxv:
            v = maxv
        return v
    if money and s <= 12:
        maxu_m = min(10 ** p - 1, (1 << 63) - 1)

        def dvec(h, j):
            # Decimal(repr(round(x, 4))) read as an int of 1/10^4 (its repr has at most 4
            # fraction digits), then quantized to the scale half-even as _q does
            u4 = []
            for x in _lognormal_list(h, j):
                r = repr(round(x, 4))
                ip, _, fp = r.partition(".")
                if len(fp) > 4 or not ip.isdigit() or not fp.isdigit():
                    v = Decimal(r).scaleb(4)  # exponent form or the like: the exact value
                    u4.append(int(v) if v == v.to_integral_value() else None)
                else:
                    u4.append(int(ip) * 10000 + int(fp.ljust(4, "0")))
            if None in u4 or max(u4, default=0) >= (1 << 62) // 10 ** max(0, s - 4):
                units = [int(min(_q(Decimal(repr(round(x, 4))), s), maxv).scaleb(s)) for x in _lognormal_list(h, j)]
                return "dec", np.array(units, dtype=np.int64), s
            a = np.array(u4, dtype=np.int64)
            if s >= 4:
                units = a * 10 ** (s - 4)
            else:
                d = 10 ** (4 - s)
                q, rem = np.divmod(a, d)
                units = q + ((2 * rem > d) | ((2 * rem == d) & (q % 2 == 1)))
            return "dec", np.minimum(units, maxu_m), s
        gen.vec = dvec
    elif not money and maxmag + s <= 18:
        top = 10 ** (maxmag + s)
        maxu = min(10 ** p - 1, (1 << 63) - 1)

        def dvec(h, j):
            if top > 1:
                units = (draw_array(h, j + 1) % np.uint64(top)).astype(np.int64)
            else:
                units = np.zeros(len(h), dtype=np.int64)
            if neg_ok:
                neg = (units != 0) & (unit_array(draw_array(h, j + 2)) < 0.2)
                units = np.where(neg, -units, units)
            return "dec", np.minimum(units, maxu), s
        gen.vec = dvec
    edges = [maxv, Decimal(0), unit] + ([maxv.copy_negate(), unit.copy_negate()] if neg_ok else [])
    return _with_edges(gen, [_q(e, s) for e in edges], edge)


def _float_gen(col: Column, name: str, edge: bool):
    if col.type == "FLOAT":
        # n/16 with |n| < 2^20: exact in float32 and printed short by every server
        def gen(st: Stream, k: int) -> float:
            n = st.below(1 << 20)
            if not col.unsigned and n and st.chance(0.2):
                n = -n
            return n / 16

        def fvec(h, j):
            n = (draw_array(h, j + 1) % np.uint64(1 << 20)).astype(np.int64)
            if not col.unsigned:
                n = np.where((n != 0) & (unit_array(draw_array(h, j + 2)) < 0.2), -n, n)
            return "float", n / 16, None
        gen.vec = fvec
        edges = [0.0, 3.4028234663852886e38, 1.1754943508222875e-38, 1.0, 0.5]
        if not col.unsigned:
            edges += [-3.4028234663852886e38, -1.5]
        return _with_edges(gen, edges, edge)

    def dgen(st: Stream, k: int) -> float:
        v = _lognormal_price(st)
        if not col.unsigned and st.chance(0.2):
            v = -v
        return float(f"{v:.8g}")

    def dvec(h, j):
        v = _lognormal_list(h, j)
        if not col.unsigned:
            neg = (unit_array(draw_array(h, j + 3)) < 0.2).tolist()
            v = [-x if z else x for x, z in zip(v, neg, strict=True)]
        return "float", np.array([float(f"{x:.8g}") for x in v], dtype=np.float64), None
    dgen.vec = dvec
    edges = [0.0, 1.7976931348623157e308, 2.2250738585072014e-308, 0.1]
    if not col.unsigned:
        edges += [-1.7976931348623157e308, -2.5]
    return _with_edges(dgen, edges, edge)


def _frac(st: Stream, fsp: int) -> int:
    if not fsp:
        return 0
    return st.below(10 ** fsp) * 10 ** (6 - fsp)


def _max_frac(fsp: int) -> int:
    return (10 ** fsp - 1) * 10 ** (6 - fsp) if fsp else 0


def _temporal_gen(col: Column, name: str, edge: bool, start_time: int):
    t = col.type
    fsp = col.fsp or 0
    span = 3 * 365 * 86400
    def frac_vec(h, j):
        if not fsp:
            return 0
        return (draw_array(h, j) % np.uint64(10 ** fsp)).astype(np.int64) * 10 ** (6 - fsp)

    def secs_vec(h, j):
        return start_time - (draw_array(h, j + 1) % np.uint64(span)).astype(np.int64)

    if t == "DATE":
        base = dt.datetime.fromtimestamp(start_time, _UTC).date().toordinal()

        def gen(st, k):
            return dt.date.fromordinal(base - st.below(3650))
        gen.vec = lambda h, j: ("date", base - _ORD_1970 - (draw_array(h, j + 1) % np.uint64(3650)).astype(np.int64),
                                None)
        edges = [dt.date(1000, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29), MysqlDate(0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "DATETIME":
        def gen(st, k):
            sec = start_time - st.below(span)
            d = dt.datetime.fromtimestamp(sec, _UTC).replace(tzinfo=None)
            return d.replace(microsecond=_frac(st, fsp))
        gen.vec = lambda h, j: ("dt", secs_vec(h, j) * 1_000_000 + frac_vec(h, j + 2), None)
        edges = [dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, _max_frac(fsp)),
                 dt.datetime(2024, 2, 29, 12, 34, 56, _max_frac(fsp)), MysqlDateTime(0, 0, 0, 0, 0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "TIMESTAMP":
        def gen(st, k):
            sec = max(1, min(_TS_MAX, start_time - st.below(span)))
            return dt.datetime.fromtimestamp(sec, _UTC).replace(microsecond=_frac(st, fsp))
        gen.vec = lambda h, j: ("ts", np.clip(secs_vec(h, j), 1, _TS_MAX) * 1_000_000 + frac_vec(h, j + 2), None)
        edges = [dt.datetime.fromtimestamp(1, _UTC),
                 dt.datetime.fromtimestamp(_TS_MAX, _UTC).replace(microsecond=_max_frac(fsp)),
                 MysqlDateTime(0, 0, 0, 0, 0, 0, 0)]
        return _with_edges(gen, edges, edge)
    if t == "TIME":
        def gen(st, k):
            us = st.below(48 * 3600) * 1_000_000 + _frac(st, fsp)
            return dt.timedelta(microseconds=-us if st.chance(0.1) else us)

        def tvec(h, j):
            us = (draw_array(h, j + 1) % np.uint64(48 * 3600)).astype(np.int64) * 1_000_000 + frac_vec(h, j + 2)
            neg = unit_array(draw_array(h, j + (3 if fsp else 2))) < 0.1
            return "time", np.where(neg, -us, us), None
        gen.vec = tvec
        edges = [dt.timedelta(hours=838, minutes=59, seconds=59),
                 -dt.timedelta(hours=838, minutes=59, seconds=59), dt.timedelta(0)]
        if fsp:
            edges.append(-dt.timedelta(microseconds=10 ** (6 - fsp)))
            edges.append(-dt.timedelta(hours=15, minutes=4, seconds=5, microseconds=_max_frac(fsp)))
        return _with_edges(gen, edges, edge)
    raise ValueError(t)


def _words(st: Stream, n: int) -> str:
    words = pool("word")
    return " ".join(words[st.below(1024)] for _ in range(n))


def _text_of_length(st: Stream, target: int) -> str:
    paras = pool("paragraph")
    out: list[str] = []
    size = 0
    while size < target:
        p = paras[st.below(1024)]
        out.append(p)
        size += len(p) + 1
    return " ".join(out)[:target]


def _string_by_name(col: Column, name: str, table: str) -> Callable[[Stream, int], str] | None:
    def pick(pool_name: str):
        pl = pool(pool_name)
        f = lambda st, k: pl[st.below(1024)]  # noqa: E731
        f.pool = pl  # a plain pick: _string_gen gives it a vectorised twin
        return f
    if "email" in name:
        fn, ln, dm = pool("first_name"), pool("last_name"), pool("email_domain")
        return lambda st, k: f"{fn[st.below(1024)]}.{ln[st.below(1024)]}{st.below(100)}@{dm[st.below(1024)]}".lower()
    for words, pname in ((("first_name", "firstname", "fname", "given_name"), "first_name"),
                         (("last_name", "lastname", "surname", "lname"), "last_name"),
                         (("username", "user_name", "login", "nick"), "user_name"),
                         (("city", "town"), "city"), (("country_code",), "country_code"),
                         (("country",), "country"), (("state", "region"), "state"),
                         (("zip", "postcode", "postal"), "postcode"),
                         (("street", "address", "addr"), "street_address"),
                         (("phone", "mobile", "tel"), "phone"), (("company", "employer"), "company"),
                         (("job", "occupation"), "job"), (("url", "website", "homepage", "link"), "url"),
                         (("ip",), "ipv4"), (("color", "colour"), "color"), (("currency",), "currency_code"),
                         (("agent",), "user_agent"), (("slogan", "tagline", "title"), "catch_phrase")):
        if any(name == w or name.endswith("_" + w) or name.startswith(w) for w in words):
            return pick(pname)
    if name in ("name", "full_name", "fullname", "customer_name", "contact"):
        if "product" in table or "item" in table:
            ws, cs = pool("word"), pool("color")
            return lambda st, k: f"{cs[st.below(1024)]} {ws[st.below(1024)]} {ws[st.below(1024)]}".title()
        return pick("name")
    if name in ("sku", "code", "ref", "reference"):
        return lambda st, k: f"{chr(65 + st.below(26))}{chr(65 + st.below(26))}-{st.below(10**6):06d}"
    if any(w in name for w in ("description", "comment", "body", "text", "note", "bio", "content",
                               "message", "review", "summary")):
        return lambda st, k: _text_of_length(st, max(20, int(st.exp(280))))
    return None


def _string_gen(col: Column, name: str, table: str, flavor: str, edge: bool):
    nchars, nbytes = _char_limit(col, flavor)
    base = _string_by_name(col, name, table)
    if base is None:
        if col.type in ("CHAR", "VARCHAR"):
            top = min(nchars, 60)

            def base(st, k):
                return _words(st, 1 + st.below(max(1, top // 6)))
        else:
            def base(st, k):
                return _text_of_length(st, max(10, int(st.exp(400))))
    cap = min(nchars, nbytes)

    def gen(st, k):
        s = base(st, k)
        if len(s) > cap:
            s = s[:cap]
        return _fit_text(s, col, flavor)
    pl = getattr(base, "pool", None)
    if pl is not None:  # pl[below(1024)], cut and fitted: a pick among the fitted entries
        gen.vec = _pool_vec(tuple(_fit_text(p[:cap] if len(p) > cap else p, col, flavor) for p in pl))
    if not edge:
        return gen
    wide = _fit_text("é€中" * max(1, min(nchars, 300)), col, flavor)
    edges = ["", _fit_text("x" * min(nchars, 400), col, flavor), wide or "",
             _fit_text("O'Brien \"quoted\" back\\slash\ttab", col, flavor)]
    return _with_edges(gen, edges, edge)


def _bytes_gen(col: Column, name: str, edge: bool):
    t = col.type
    if t == "BINARY":
        n = col.char_length() or 1

        def gen(st, k):
            return b"".join(st.next().to_bytes(8, "little") for _ in range((n + 7) // 8))[:n]
        gen.draws = min(64, (n + 7) // 8)
        gen.vec = lambda h, j: ("list", [r.tobytes() for r in _draw_bytes(h, j, (n + 7) // 8)[:, :n]], None)
        edges = [bytes(n), b"\xff" * n, b"a" + bytes(n - 1)]
        return _with_edges(gen, edges, edge)
    limit = col.char_length() if t == "VARBINARY" else _TEXT_LIMIT[t]
    mean = 16 if t == "VARBINARY" else 200

    def vgen(st, k):
        n = min(limit, int(st.exp(mean)))
        return b"".join(st.next().to_bytes(8, "little") for _ in range((n + 7) // 8))[:n]
    vgen.draws = 1 + (min(limit, 4 * mean) + 7) // 8

    def vvec(h, j):
        log = math.log
        lens = [min(limit, int(-log(1.0 - u) * mean)) for u in unit_array(draw_array(h, j + 1)).tolist()]
        mat = _draw_bytes(h, j + 1, (max(lens, default=0) + 7) // 8)
        return "list", [mat[r, :n].tobytes() for r, n in enumerate(lens)], None
    vgen.vec = vvec
    edges = [b"", b"\x00", b"\xff" * min(limit, 300)]
    return _with_edges(vgen, edges, edge)


def _draw_bytes(h: np.ndarray, j: int, m: int) -> np.ndarray:
    """Draws ``j+1 .. j+m`` of every stream as little-endian bytes: an (n, 8m) uint8 array
    (``b"".join(st.next().to_bytes(8, "little") for _ in range(m))`` per row)."""
    d = np.empty((len(h), m), dtype="<u8")
    for t in range(m):
        d[:, t] = draw_array(h, j + 1 + t)
    return d.view(np.uint8).reshape(len(h), 8 * m)


def _enum_gen(col: Column, edge: bool):
    members = col.members
    n = len(members)
    if col.type == "ENUM":
        def gen(st, k):
            # geometric-ish weights: the first members are the common ones (statuses)
            i = min(n - 1, int(st.exp(max(1.0, n / 3))))
            return members[i]
        mean = max(1.0, n / 3)
        gen.vec = lambda h, j: ("pool", np.array(
            [min(n - 1, int(-math.log(1.0 - u) * mean)) for u in unit_array(draw_array(h, j + 1)).tolist()],
            dtype=np.int64), tuple(members))
        return _with_edges(gen, [members[0], members[-1], ""], edge)

    def sgen(st, k):
        bits = st.next()
        return frozenset(m for i, m in enumerate(members) if (bits >> (i % 64)) & 1 and (i < 64))
    return _with_edges(sgen, [frozenset(), frozenset(members)], edge)


def _json_doc(st: Stream, k: int, table: str) -> Any:
    words = pool("word")
    colors = pool("color")
    doc: dict[str, Any] = {
        "id": k + 1,
        "tags": [words[st.below(1024)] for _ in range(st.below(4))],
        "active": st.chance(0.7),
        "score": st.below(1000),
    }
    if st.chance(0.5):
        doc["attrs"] = {"color": colors[st.below(1024)], "size": ["S", "M", "L", "XL"][st.below(4)],
                        "weight_g": st.between(10, 5000)}
    if st.chance(0.3):
        doc["note"] = None
    if st.chance(0.2):
        doc["name"] = "Zoë \"Q\" Ünïcode ✓"
    return doc


def _json_gen(col: Column, table: str, flavor: str, edge: bool):
    as_text = flavor.startswith("mariadb")

    def gen(st, k):
        d = _json_doc(st, k, table)
        return mysql_json_text(d) if as_text else d
    gen.draws = 13
    edges_obj = [{}, [], "a string", 12345, True, None, [1, [2, [3, {"deep": "x"}]]]]
    edges = [mysql_json_text(e) if as_text else e for e in edges_obj]
    if not as_text:
        edges = [e for e in edges if e is not None]  # a JSON null document is fine but ambiguous in truth
    else:
        edges = [e for e in edges if e != "null"]
    return _with_edges(gen, edges, edge)


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


def type_generator(col: Column, table: str, flavor: str, *, edge: bool = False,
                   start_time: int = 1767225600) -> Callable[[Stream, int], Any]:
    """The default generator of a column from its type and name (see module docstring)."""
    t = col.type
    name = col.name.lower()
    if t in _INT_BITS or t in ("BIT", "YEAR"):
        return _int_gen(col, name, edge)
    if t == "DECIMAL":
        return _decimal_gen(col, name, edge)
    if t in ("FLOAT", "DOUBLE"):
        return _float_gen(col, name, edge)
    if t in ("DATE", "DATETIME", "TIMESTAMP", "TIME"):
        return _temporal_gen(col, name, edge, start_time)
    if t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
        return _string_gen(col, name, table, flavor, edge)
    if t in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
        return _bytes_gen(col, name, edge)
    if t in ("ENUM", "SET"):
        return _enum_gen(col, edge)
    if t == "JSON":
        return _json_gen(col, table, flavor, edge)
    if col.geometry_type is not None:
        return _geom_gen(col, edge)
    raise SpecError(f"column {table}.{col.name}: no value generator for type {t}")


# ------------------------------------------------------------------------------------
# spec-file overrides
# ------------------------------------------------------------------------------------

def coerce(col: Column, v: Any, where: str) -> Any:
    """A spec-file literal as the column's Python type."""
    if v is None:
        return None
    t = col.type
    try:
        if t in _INT_BITS or t in ("BIT", "YEAR"):
            return int(v)
        if t == "DECIMAL":
            return _q(Decimal(str(v)), col.scale or 0)
        if t in ("FLOAT", "DOUBLE"):
            return float(v)
        if t == "DATE":
            return dt.date.fromisoformat(str(v))
        if t == "DATETIME":
            return dt.datetime.fromisoformat(str(v)).replace(tzinfo=None)
        if t == "TIMESTAMP":
            d = dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
            return d.replace(tzinfo=_UTC) if d.tzinfo is None else d.astimezone(_UTC)
        if t == "TIME":
            s = str(v)
            neg = s.startswith("-")
            hh, mm, ss = s.lstrip("-").split(":")
            us = round((int(hh) * 3600 + int(mm) * 60 + float(ss)) * 1_000_000)
            return dt.timedelta(microseconds=-us if neg else us)
        if t == "SET":
            return frozenset(v if isinstance(v, list | tuple) else str(v).split(",")) - {""}
        if t in ("BINARY", "VARBINARY") or t.endswith("BLOB"):
            return bytes.fromhex(v[2:]) if isinstance(v, str) and v.startswith("0x") else str(v).encode()
        if t == "JSON":
            return v
        return str(v)
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
            choice.vec = _weighted_vec(tuple(vals), cum, tot)
            return choice
        f = lambda st, k: vals[st.below(len(vals))]  # noqa: E731
        f.vec = _pool_vec(tuple(vals))
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
                x = (lo + hi) / 2 + _normal(st) * (hi - lo) / 6
            else:
                x = lo + math.exp(_normal(st)) / math.e ** 2 * (hi - lo) / 4
            return min(hi, max(lo, x))
        if g == "int":
            return lambda st, k: coerce(col, int(math.floor(draw(st))), where)
        if g == "decimal":
            s = col.scale or 0
            return lambda st, k: coerce(col, _q(Decimal(repr(draw(st))), s), where)
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
            f.vec = _pool_vec(tuple(coerce(col, p, where) for p in pl))
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
            return lambda st, k: _fit_text(_text_of_length(st, st.between(a, b)), col, flavor)
        return lambda st, k: coerce(col, _text_of_length(st, st.between(a, b)), where)
    if g == "digits":
        groups = cg.param("groups", 10)
        return lambda st, k: "-".join(f"{st.below(10**11):011d}" for _ in range(groups))
    if g == "datetime":
        s0 = coerce(col, cg.param("start", "2020-01-01 00:00:00"), where)
        s1 = coerce(col, cg.param("end", "2025-12-31 23:59:59"), where)
        if not hasattr(s0, "__sub__"):
            raise SpecError(f"spec columns.{where}: datetime needs a temporal column")
        span = int((s1 - s0).total_seconds()) if hasattr(s1 - s0, "total_seconds") else (s1 - s0).days
        if span < 0:
            raise SpecError(f"spec columns.{where}: start after end")
        if col.type == "DATE":
            return lambda st, k: s0 + dt.timedelta(days=st.below(span + 1))
        return lambda st, k: s0 + dt.timedelta(seconds=st.below(span + 1))
    if g == "sequence":
        start, step = cg.param("start", 1), cg.param("step", 1)
        return lambda st, k: coerce(col, start + k * step, where)
    if g == "json":
        return _json_gen(col, table, flavor, False)
    raise SpecError(f"spec columns.{where}: unknown gen {g!r}")


def column_generator(table: Table, col: Column, flavor: str, seed: int, *,
                     override: ColumnGen | None = None, edge: bool = False,
                     null_p: float | None = None, start_time: int = 1767225600) -> ValueFn:
    """``fn(key, version) -> value`` for one non-key column (pure; see module docstring)."""
    base = salt(seed, table.name, col.name)
    if override is not None:
        gen = override_generator(override, col, table.name, flavor, start_time)
        p = override.param("null", None)
        if p is not None:
            null_p = float(p)
    else:
        gen = type_generator(col, table.name, flavor, edge=edge, start_time=start_time)
    if null_p is None:
        null_p = (0.1 if edge else 0.03) if col.nullable else 0.0
    if not col.nullable:
        null_p = 0.0

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
_SAFE = 1 << 52


def _between_vec(lo: int, hi: int):
    n = hi - lo + 1
    if not (-_SAFE < lo <= hi < _SAFE) or n <= 0:
        return None
    return lambda h, j: lo + (draw_array(h, j + 1) % np.uint64(n)).astype(np.int64)


def _digits_vec(groups: int):
    if groups < 1:
        return None
    width = groups * 12 - 1
    js = np.arange(1, groups + 1, dtype=np.uint64)
    # one group ``%011d`` + "-" as 12 bytes: a little-endian u8 then u4 (packed)
    grp = np.dtype([("a", "<u8"), ("b", "<u4")])
    k6, k10, k40, k24, k16 = (np.uint64(x) for x in (1_000_000, 10, 40, 24, 16))
    tail = np.uint64(ord("-") << 24)

    def block(h, j):
        # %011d of below(10**11) = 5 digits of v // 10**6, 5 of (v % 10**6) // 10, then v % 10
        v = mix64_array(h[:, None] ^ (js + np.uint64(j))[None, :]) % np.uint64(10 ** 11)
        hi = v // k6
        lo = v - hi * k6
        m = lo // k10
        d = lo - m * k10 + np.uint64(ord("0"))
        five = _five_digits()
        tm = five[m.astype(np.intp)]
        buf = np.empty(v.shape, dtype=grp)
        buf["a"] = five[hi.astype(np.intp)] | (tm << k40)
        buf["b"] = ((tm >> k24) & np.uint64(0xFFFF)) | (d << k16) | tail
        return buf.view(np.uint8).reshape(len(h), groups * 12)[:, :width]

    def gen(h, j):
        out = np.empty((len(h), width), dtype=np.uint8)
        for s in range(0, len(h), 2048):  # blocks small enough to stay in cache
            out[s:s + 2048] = block(h[s:s + 2048], j)
        return out
    return gen


@lru_cache(maxsize=1)
def _five_digits() -> np.ndarray:
    """ASCII ``%05d`` of 0..99999 in the low 5 bytes of a little-endian uint64."""
    v = np.arange(100_000, dtype=np.uint64)
    out = np.zeros(100_000, dtype=np.uint64)
    for p in range(5):
        out |= ((v // np.uint64(10 ** (4 - p))) % np.uint64(10) + np.uint64(ord("0"))) << np.uint64(8 * p)
    return out


def _uniform_int_vec(col: Column, cg: ColumnGen):
    lo, hi = cg.param("min", 0), cg.param("max", 1000)
    if cg.param("dist", "uniform") != "uniform" or not all(isinstance(x, int) and not isinstance(x, bool)
                                                             and abs(x) < _SAFE for x in (lo, hi)) or lo > hi:
        return None
    span = float(hi - lo)
    rlo, rhi = int_range(col) if col.type in _INT_BITS else (lo, hi)
    if lo < rlo or hi > rhi:
        return None  # the scalar path raises (coerce does not range-check; the codec does)

    def gen(h, j):
        x = lo + unit_array(draw_array(h, j + 1)) * span
        return np.floor(np.minimum(hi, np.maximum(lo, x))).astype(np.int64)
    return gen


def _pool_vec(entries: tuple):
    """Vectorised twin of ``entries[stream.below(len(entries))]`` (None if an entry is NULL)."""
    if not entries or any(e is None for e in entries):
        return None
    n = np.uint64(len(entries))
    return lambda h, j: ("pool", (draw_array(h, j + 1) % n).astype(np.int64), entries)


def _weighted_vec(vals: tuple, cum: list, tot: float):
    """Vectorised twin of a weighted choice: the first ``i`` with ``u * tot < cum[i]``."""
    if any(v is None for v in vals):
        return None
    c = np.asarray(cum, dtype=np.float64)

    def f(h, j):
        u = unit_array(draw_array(h, j + 1)) * tot
        return "pool", np.minimum(np.searchsorted(c, u, side="right"), len(vals) - 1), vals
    return f


def _edge_twin(scalar):
    """Vectorised twin of ``_with_edges(gen, edges)`` from gen's twin, or None: draw ``j+1``
    decides (``chance(EDGE_P)``), draw ``j+2`` picks the edge, gen draws from ``j+2`` on."""
    edges = scalar.edges
    base = getattr(scalar.base, "vec", None)
    if base is None:
        return None
    m = np.uint64(len(edges))

    def f(h, j):
        kind, data, extra = base(h, j + 1)
        e = unit_array(draw_array(h, j + 1)) < EDGE_P
        ei = (draw_array(h, j + 2) % m).astype(np.int64)
        if kind == "pool":
            if any(x is None for x in edges):
                return None
            return "pool", np.where(e, len(extra) + ei, data), tuple(extra) + tuple(edges)
        if kind == "int" and all(type(x) is int and -(1 << 63) <= x < 1 << 63 for x in edges):
            return "int", np.where(e, np.array(edges, dtype=np.int64)[ei], data), None
        if kind == "dec" and all(isinstance(x, Decimal) and x.as_tuple().exponent == -extra for x in edges):
            eu = np.array([int(x.scaleb(extra)) for x in edges], dtype=object)
            if all(-(1 << 63) < int(u) < 1 << 63 for u in eu):
                return "dec", np.where(e, eu.astype(np.int64)[ei], data), extra
        vals = list(data) if kind == "list" else ColumnArray(kind, data, None, None, extra).tolist()
        for r in np.flatnonzero(e).tolist():
            vals[r] = edges[int(ei[r])]
        return "list", vals, None
    return f


def _vec_gen(col: Column, table: str, override: ColumnGen | None, edge: bool, flavor: str = "mysql80",
             start_time: int = 1767225600, scalar=None):
    """fn(h, j0) -> (kind, data, extra) for generators with a vectorised twin (ColumnArray
    kinds, "list" for Python values), else None."""
    if scalar is None:
        scalar = (override_generator(override, col, table, flavor, start_time) if override is not None
                  else type_generator(col, table, flavor, edge=edge, start_time=start_time))
    pv = getattr(scalar, "vec", None)
    if pv is not None:
        return pv
    if getattr(scalar, "edges", None) is not None:
        return _edge_twin(scalar)
    t = col.type
    if override is not None:
        if override.gen == "int" and t in _INT_BITS:
            return _int_twin(_uniform_int_vec(col, override))
        if override.gen == "digits" and t in ("CHAR", "VARCHAR"):
            groups = override.param("groups", 10)
            if not isinstance(groups, int) or isinstance(groups, bool):
                return None
            g = _digits_vec(groups)
            return None if g is None else (lambda h, j: ("ascii", g(h, j), None))
    return None


def _replay(gen, h: np.ndarray, keys: np.ndarray, j0: int, nulls, k: int) -> list:
    """``gen(Stream(h[i]) after j0 draws, key)`` for every row not NULL (None for NULL),
    with the draws computed by numpy beforehand (:class:`~generators.hashing.ReplayStream`)."""
    n = len(h)
    out: list = [None] * n
    rows = np.arange(n) if nulls is None else np.flatnonzero(~nulls)
    if not len(rows):
        return out
    hs = h[rows]
    pre = draws_matrix(hs, j0 + k).tolist()
    for r, b, p, kk in zip(rows.tolist(), hs.tolist(), pre, keys[rows].tolist(), strict=True):
        out[r] = gen(ReplayStream(b, p, j0), kk)
    return out


def column_vector_generator(table: Table, col: Column, flavor: str, seed: int, *,
                            override: ColumnGen | None = None, edge: bool = False,
                            null_p: float | None = None, start_time: int = 1767225600) -> VecFn:
    """``fn(keys, versions) -> Vec | list``: :func:`column_generator`'s values for many rows
    at once (same hashes through :func:`~generators.hashing.hash64_array`, same draws, same
    arithmetic): a :class:`Vec` from the generator's vectorised twin, or — for a generator
    without one — a list of the scalar generator's values computed on streams whose draws
    numpy made beforehand (the same code on the same numbers)."""
    scalar = (override_generator(override, col, table.name, flavor, start_time) if override is not None
              else type_generator(col, table.name, flavor, edge=edge, start_time=start_time))
    vg = _vec_gen(col, table.name, override, edge, flavor, start_time, scalar)
    draws = getattr(scalar, "draws", 8)
    base = salt(seed, table.name, col.name)
    if override is not None:
        p = override.param("null", None)
        if p is not None:
            null_p = float(p)
    if null_p is None:
        null_p = (0.1 if edge else 0.03) if col.nullable else 0.0
    if not col.nullable:
        null_p = 0.0

    def fn(keys: np.ndarray, versions: np.ndarray) -> Vec | list:
        h = hash64_array(base, keys, versions)
        j0 = 0
        nulls = None
        if null_p > 0:
            nulls = unit_array(draw_array(h, 1)) < null_p
            nulls = nulls if nulls.any() else None
            j0 = 1
        got = vg(h, j0) if vg is not None else None
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


def key_vector_generator(col: Column, primary: bool) -> Callable[[np.ndarray], Vec] | None:
    """:func:`key_generator` for many keys at once (integer columns), or None."""
    t = col.type
    if t in _INT_BITS:
        lo, hi = int_range(col)
        if primary:
            return lambda k: Vec("int", k.astype(np.int64) + 1)
        span = hi - max(lo, 0)
        base = max(lo, 0) + 1
        if span & (span + 1) == 0 and span > 1:
            mult = np.uint64(0x9E3779B97F4A7C15 | 1)
            spn = np.uint64(span)
            if base + span >= 1 << 63:
                return None
            return lambda k: Vec("int", base + ((k.astype(np.uint64) * mult) & spn).astype(np.int64))
        return lambda k: Vec("int", base + k.astype(np.int64))
    if t in ("BIT", "YEAR"):
        lo = int_range(col)[0]
        return lambda k: Vec("int", lo + k.astype(np.int64))
    return None
