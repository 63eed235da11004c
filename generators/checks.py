"""CHECK constraints of a custom schema (``--schema FILE.sql``): values the server accepts.

MySQL 8.0.16+ and MariaDB 10.2+ refuse a row for which a CHECK constraint is FALSE (ERROR
3819 / 4025); a NULL (unknown) result passes (MySQL 8.0 reference, "CHECK Constraints";
MariaDB "CONSTRAINT"). ``truth/snapshot.sql`` inserts the initial rows and the replay applies
the row events, so every generated row must pass every constraint of its table
(:attr:`binlogwriter.schema.Table.checks`). Each constraint is read with sqlglot and turned
(generators/check_domains.py) into per-column value generators (the spec's own ``int``, ``decimal``, ``float``,
``choice``, ``text``, ``datetime`` and ``json`` generators, :class:`~generators.spec.ColumnGen`):

* ``col <op> constant`` (``= <> != < <= > >=``, either side), ``col [NOT] BETWEEN a AND b``,
  ``col [NOT] IN (…)``, ``col IS [NOT] NULL``, ``[CHAR_]LENGTH(col) <op> n`` / ``BETWEEN`` /
  ``IN``, ``JSON_VALID(col)``, combined with ``AND``, ``OR`` and ``NOT`` (pushed down):
  a conjunction restricts each column it names; of a disjunction one followable branch
  is made true (a ``col IS NULL`` branch only when no other is);
* a NULL value passes a comparison (UNKNOWN), so nullable columns keep their NULLs unless
  ``IS NOT NULL`` is asked for.

What cannot be followed is a :class:`~binlogwriter.errors.SchemaError` naming the constraint
and the table (and column): two columns compared, other functions, a restriction on a key
column (key columns are derived from the row key, generators/rows.py) other than a lower
bound their values already meet, a range no value of the column's type meets, string
ordering comparisons, …
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import replace
from decimal import Decimal
from typing import Any

import sqlglot

from binlogwriter.errors import SchemaError, first_line
from binlogwriter.schema import Check, Column, Table
from generators.check_domains import Domain, Unfollowable, apply, copy_domains
from generators.partitions import PARTITIONING
from generators.spec import ColumnGen

__all__ = ["check_overrides"]

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
_TEXTS = ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT")
_BYTES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
_TEMPORAL = ("DATE", "DATETIME", "TIMESTAMP")
_WIDE_CHARSETS = ("ucs2", "utf16", "utf16le", "utf32")
# -- per-column domains → generators ------------------------------------------------


def _int_range(col: Column) -> tuple[int, int]:
    if col.type == "YEAR":
        return 1901, 2155
    if col.type == "BIT":
        return 0, (1 << (col.length or 1)) - 1
    b = _INT_BITS[col.type]
    return (0, (1 << b) - 1) if col.unsigned else (-(1 << (b - 1)), (1 << (b - 1)) - 1)


def _int_gen(col: Column, d: Domain) -> dict[str, Any]:
    lo, hi = _int_range(col)
    if d.lo is not None:
        lo = max(lo, math.floor(d.lo[0]) + 1 if d.lo[1] or d.lo[0] != math.floor(d.lo[0]) else int(d.lo[0]))
    if d.hi is not None:
        hi = min(hi, math.ceil(d.hi[0]) - 1 if d.hi[1] or d.hi[0] != math.ceil(d.hi[0]) else int(d.hi[0]))
    bad = {int(x) for x in d.excluded if isinstance(x, int | Decimal) and x == int(x)}
    if d.values is not None:
        vals = sorted(
            {
                int(v)
                for v in d.values
                if isinstance(v, int | Decimal) and v == int(v) and lo <= v <= hi and int(v) not in bad
            }
        )
        if not vals:
            raise Unfollowable("no value of the column's type satisfies it")
        return dict(gen="choice", values=vals)
    bad = sorted(b for b in bad if lo <= b <= hi)
    # the widest run of [lo, hi] without an excluded value
    edges = [lo - 1, *bad, hi + 1]
    a, b = max(((x + 1, y - 1) for x, y in zip(edges, edges[1:], strict=False)), key=lambda r: r[1] - r[0])
    if a > b:
        raise Unfollowable("no value of the column's type satisfies it")
    if b - a > 1 << 52:  # the int generator draws through a double: keep within its exact range
        b = a + (1 << 52) if a >= 0 or b <= 0 else min(b, 1 << 51)
        a = max(a, b - (1 << 52))
    return dict(gen="int", min=a, max=b)


def _decimal_gen(col: Column, d: Domain) -> dict[str, Any]:
    s = col.scale or 0
    p = col.precision if col.precision is not None else 10
    unit = Decimal(1).scaleb(-s)
    top = Decimal(10) ** (p - s) - unit
    lo, hi = (Decimal(0) if col.unsigned else -top), top
    if d.lo is not None:
        v = Decimal(d.lo[0]).quantize(unit, rounding="ROUND_CEILING")
        lo = max(lo, v + unit if d.lo[1] and v == d.lo[0] else v)
    if d.hi is not None:
        v = Decimal(d.hi[0]).quantize(unit, rounding="ROUND_FLOOR")
        hi = min(hi, v - unit if d.hi[1] and v == d.hi[0] else v)
    if d.values is not None:
        vals = [
            str(Decimal(v).quantize(unit))
            for v in d.values
            if isinstance(v, int | Decimal)
            and Decimal(v) == Decimal(v).quantize(unit)
            and lo <= v <= hi
            and v not in d.excluded
        ]
        if not vals:
            raise Unfollowable("no value of the column's type satisfies it")
        return dict(gen="choice", values=vals)
    if d.excluded:
        raise Unfollowable("<> / NOT IN on a DECIMAL column")
    if lo > hi:
        raise Unfollowable("no value of the column's type satisfies it")
    # the decimal generator draws a double: keep to 15 significant digits
    lo, hi = max(lo, Decimal("-1e14")), min(hi, Decimal("1e14"))
    return dict(gen="decimal", min=float(lo), max=float(hi))


def _float_gen(col: Column, d: Domain) -> dict[str, Any]:
    grid = 16.0 if col.type == "FLOAT" else None  # the float generator rounds FLOAT to 1/16
    lo, hi = -1e6, 1e6
    if d.lo is not None:
        v = float(d.lo[0])
        lo = max(lo, math.floor(v * grid) / grid + 1 / grid if grid else v + max(abs(v), 1.0) * 1e-6)
    if d.hi is not None:
        v = float(d.hi[0])
        hi = min(hi, math.ceil(v * grid) / grid - 1 / grid if grid else v - max(abs(v), 1.0) * 1e-6)
    if d.values is not None or d.excluded:
        raise Unfollowable(f"= / <> / IN on a {col.type} column (an approximate type)")
    if lo > hi:
        raise Unfollowable("no value of the column's type satisfies it")
    return dict(gen="float", min=lo, max=hi)


def _text_gen(col: Column, d: Domain, flavor: str) -> dict[str, Any]:
    if d.lo is not None or d.hi is not None:
        raise Unfollowable(f"an ordering comparison on a {col.type} column")
    if d.len_lo or d.len_hi is not None:
        if (col.charset or "") in _WIDE_CHARSETS:
            raise Unfollowable(f"a length bound on a {col.charset} column")
    cap = (
        col.length
        if col.type in ("CHAR", "VARCHAR", "BINARY", "VARBINARY") and col.length is not None
        else None
    )
    if d.values is not None or d.excluded and d.excluded != [""]:
        vals = [
            v
            for v in (d.values or [])
            if isinstance(v, str)
            and v not in d.excluded
            and d.len_lo <= len(v) <= (d.len_hi if d.len_hi is not None else len(v))
            and (cap is None or len(v) <= cap)
            and v == v.rstrip(" ")
        ]
        if not vals:
            raise Unfollowable(
                "no value of the column satisfies it"
                if d.values is not None
                else f"<> / NOT IN on a {col.type} column"
            )
        return dict(gen="choice", values=vals)
    lo = max(d.len_lo, 1 if "" in d.excluded else 0)
    hi = d.len_hi if d.len_hi is not None else max(lo, 200)
    if cap is not None:
        hi = min(hi, cap)
    if col.type == "CHAR" and lo > 1:
        # CHAR drops trailing spaces (CHAR_LENGTH after the cut): the text made may end in one
        raise Unfollowable("a length bound above 1 on a CHAR column")
    if lo > hi:
        raise Unfollowable("no length of the column satisfies it")
    return dict(gen="text", min_len=lo, max_len=hi)


def _temporal_gen(col: Column, d: Domain) -> dict[str, Any]:
    if d.values is not None or d.excluded:
        raise Unfollowable(f"= / <> / IN on a {col.type} column")
    fmt = "%Y-%m-%d" if col.type == "DATE" else "%Y-%m-%d %H:%M:%S"
    step = dt.timedelta(days=1) if col.type == "DATE" else dt.timedelta(seconds=1)
    lo, hi = dt.datetime(2020, 1, 1), dt.datetime(2025, 12, 31, 23, 59, 59)
    if col.type == "TIMESTAMP":
        lo, hi = max(lo, dt.datetime(1970, 1, 2)), min(hi, dt.datetime(2038, 1, 18))

    def parse(v: Any) -> dt.datetime:
        try:
            return dt.datetime.fromisoformat(str(v))
        except ValueError:
            raise Unfollowable(f"{v!r} is not a date or datetime literal") from None

    a = parse(d.lo[0]) + (step if d.lo[1] else dt.timedelta(0)) if d.lo is not None else None
    b = parse(d.hi[0]) - (step if d.hi[1] else dt.timedelta(0)) if d.hi is not None else None
    if col.type == "DATE":  # whole days inside the bounds
        if a is not None and a != dt.datetime(a.year, a.month, a.day):
            a = dt.datetime(a.year, a.month, a.day) + step
        b = b if b is None else dt.datetime(b.year, b.month, b.day)
    span = hi - lo
    lo, hi = max(lo, a) if a is not None else lo, min(hi, b) if b is not None else hi
    if lo > hi:  # the usual window lies outside the bounds: a window at the bound instead
        lo, hi = (a, min(b, a + span) if b is not None else a + span) if a is not None else (b - span, b)
    if lo > hi or (a is not None and lo < a) or (b is not None and hi > b):
        raise Unfollowable("no value of the column satisfies it")
    return dict(gen="datetime", start=lo.strftime(fmt), end=hi.strftime(fmt))


def _generator(t: Table, col: Column, d: Domain) -> dict[str, Any] | None:
    """The ColumnGen settings that make ``col`` satisfy ``d`` (None: every value does)."""
    if d.json:
        if col.type == "JSON":
            d.json = False
        elif col.type in ("TEXT", "MEDIUMTEXT", "LONGTEXT") and d == Domain(json=True, not_null=d.not_null):
            return dict(gen="json")  # MariaDB's JSON is this; MySQL's JSON_VALID takes the same texts
        else:
            raise Unfollowable(f"JSON_VALID on a {col.type} column")
    plain = Domain(not_null=d.not_null)
    if d == plain:
        return None
    ty = col.type
    if ty in _INT_BITS or ty in ("YEAR", "BIT"):
        return _int_gen(col, d)
    if ty == "DECIMAL":
        return _decimal_gen(col, d)
    if ty in ("FLOAT", "DOUBLE"):
        return _float_gen(col, d)
    if ty in _TEXTS or ty in _BYTES:
        return _text_gen(col, d, t.flavor)
    if ty in _TEMPORAL:
        return _temporal_gen(col, d)
    if ty == "ENUM" and d.lo is None and d.hi is None and not d.len_lo and d.len_hi is None:
        vals = [
            v
            for v in (col.members if d.values is None else d.values)
            if v in col.members and v not in d.excluded
        ]
        if vals:
            return dict(gen="choice", values=vals)
    raise Unfollowable(f"a restriction on a {ty} column")


def _describe(t: Table, c: Check) -> str:
    if c.name == PARTITIONING:  # generators/partitions.py: the rows a partition takes
        return f"the partitioning of table {t.database}.{t.name} (rows must meet {c.sql})"
    name = f"CHECK constraint `{c.name}`" if c.name else f"CHECK ({c.sql})"
    where = f"{t.database}.{t.name}" + (f".{c.column}" if c.column else "")
    return f"{name} of table {where}"


def check_overrides(t: Table, key_columns: dict[str, bool], extra: tuple[Check, ...] = (),
                    listable: frozenset[str] = frozenset(),
                    key_limits: dict[str, tuple[str, Any]] | None = None,
                    cappable: frozenset[str] = frozenset()) -> dict[str, ColumnGen]:
    """Per-column generators that make every row of ``t`` pass its CHECK constraints
    (module docstring) and the ``extra`` conditions (its partitioning, generators/partitions.py),
    by column name. ``key_columns`` (lower-case name → whether its values are 1 or more: an
    integer column of the table's own key, generators/columns/integer.py) are derived
    from the row key and may not be restricted beyond what their values already meet, except
    in the two ways :func:`key_limit` names, which go into ``key_limits`` by column name — the
    caller makes their values from the row key (generators/workloads/custom.py): a list of
    values for the ``listable`` ones (part of keys another column keeps unique), a bound
    for the ``cappable`` ones (derived from this table's own key: held among its first keys)."""
    gens: dict[str, ColumnGen] = {}
    doms: dict[str, Domain] = {}
    for c in (*t.checks, *extra):
        try:
            tree = sqlglot.parse_one(c.sql, read="mysql")
        except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:  # one line, never a traceback
            raise SchemaError(f"{_describe(t, c)}: cannot read its expression ({first_line(exc)})") from None
        trial = copy_domains(doms)
        try:
            apply(tree, trial)
            for name in trial:
                if name not in t._positions:
                    raise Unfollowable(f"no column {name!r}")
        except Unfollowable as exc:
            raise SchemaError(f"{_describe(t, c)} cannot be followed by the generator: {exc}") from None
        for name, d in trial.items():
            if (
                name in key_columns
                and d != Domain(not_null=d.not_null)
                and not (key_columns[name] and _key_ok(d))
                and _key_limit_of(t, name, d, listable, cappable) is None
            ):
                raise SchemaError(
                    f"{_describe(t, c)} cannot be followed by the generator: it restricts "
                    f"{t.column(name).name}, a key column (derived from the row key)"
                )
            try:
                if name not in key_columns:
                    _generator(t, t.column(name), replace(d, excluded=list(d.excluded)))
            except Unfollowable as exc:
                raise SchemaError(f"{_describe(t, c)} cannot be followed by the generator: {exc}") from None
        doms = trial
    for name, d in doms.items():
        if name in key_columns:
            limit = _key_limit_of(t, name, d, listable, cappable)
            if limit is not None and key_limits is not None:
                key_limits[t.column(name).name] = limit
            continue
        col = t.column(name)
        params = _generator(t, col, d) or dict(gen="default")
        if d.not_null and col.nullable:
            params["null"] = 0.0
        if params == dict(gen="default"):
            continue
        gen = params.pop("gen")
        gens[col.name] = ColumnGen(
            f"{t.name}.{col.name}", gen, tuple(sorted((k, _freeze(v)) for k, v in params.items()))
        )
    return gens


def _key_limit_of(t: Table, name: str, d: Domain, listable: frozenset[str],
                  cappable: frozenset[str]) -> tuple[str, Any] | None:
    """:func:`key_limit` of a key column that may take it (:func:`check_overrides`), else None."""
    limit = key_limit(t, name, d)
    if limit is None or name not in (listable if limit[0] == "list" else cappable):
        return None
    return limit


def key_limit(t: Table, name: str, d: Domain) -> tuple[str, Any] | None:
    """How a key column's restriction ``d`` can be met from the row key: ``("list", values)``
    for a list of values (``IN``, ``=``: a LIST partitioning; the ``choice`` the column would
    get outside a key), ``("below", (bound, included))`` for a DATE / DATETIME / TIMESTAMP or
    integer column held below a bound (``<``, ``<=``: a RANGE partitioning without MAXVALUE) and
    nothing else but, for an integer, a lower bound its counting values (from 1) meet; None
    for anything else."""
    col = t.column(name)
    if d.hi is not None and (col.type in _TEMPORAL or col.type in _INT_BITS):
        lo = d.lo if col.type in _INT_BITS and d.lo is not None and (d.lo[0], d.lo[1]) <= (1, False) else None
        if d == Domain(lo=lo, hi=d.hi, not_null=d.not_null):
            return "below", (d.hi[0], not d.hi[1])
    try:
        g = _generator(t, col, replace(d, excluded=list(d.excluded)))
    except Unfollowable:
        return None
    return ("list", list(g["values"])) if g is not None and g.get("gen") == "choice" else None


def _freeze(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _key_ok(d: Domain) -> bool:
    """A restriction an integer key column's values (1 or more) meet anyway: a lower bound of
    at most 1."""
    return (
        d.values is None
        and not d.excluded
        and d.hi is None
        and d.len_lo == 0
        and d.len_hi is None
        and d.lo is not None
        and (d.lo[0] < 1 or (d.lo[0] == 1 and not d.lo[1]))
    )
