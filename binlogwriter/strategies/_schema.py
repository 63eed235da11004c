"""``columns()`` and ``tables()``: column definitions and tables valid for a flavor.

A drawn table is a :class:`binlogwriter.schema.Table` (``flavor`` set) and :func:`table_sql`
gives its CREATE TABLE text, which both MySQL 8 and MariaDB 10.11 accept and which
:meth:`Table.from_sql` parses back to the same table. Keys follow the servers' primary key
equivalent rule (format.md §12.1, docs/row-images.md): a PRIMARY KEY (one column, composite, or
with a prefix part), a UNIQUE key over NOT NULL columns (the PKE then), a UNIQUE key with a
nullable column (no PKE) or no key at all.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import replace

from hypothesis import strategies as st

from binlogwriter.fixtures._table_sql import TIMESTAMP_NOT_NULL_DEFAULT, table_sql
from binlogwriter.schema import FLAVORS, Column, Key, KeyPart, Table

from ._values import CHARSETS

__all__ = ["columns", "tables", "table_sql", "COLUMN_TYPES", "KEY_KINDS", "key_safe", "WIDE_SHARE",
           "VERY_WIDE_SHARE", "WIDE_DRAWN", "WIDE_MIN", "repeats"]

COLUMN_TYPES = (
    "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE", "BIT",
    "YEAR", "DATE", "TIME", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR", "BINARY", "VARBINARY",
    "TINYTEXT", "TEXT", "MEDIUMTEXT", "TINYBLOB", "BLOB", "MEDIUMBLOB", "ENUM", "SET", "JSON",
    "GEOMETRY", "POINT",
)
"""The SQL types :func:`columns` draws (``types=`` picks a subset)."""

KEY_KINDS = ("primary", "composite", "prefix", "unique_not_null", "unique_nullable", "none")
"""Key shapes :func:`tables` draws (``keys=`` picks a subset)."""

_KEYABLE = frozenset(("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "BIT", "YEAR",
                      "DATE", "TIME", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR", "BINARY",
                      "VARBINARY", "ENUM"))
_PREFIXABLE = frozenset(("CHAR", "VARCHAR", "BINARY", "VARBINARY"))


def key_safe(column: Column) -> bool:
    """Whether :func:`tables` may put ``column`` in a key (whole column; never FLOAT/DOUBLE,
    TEXT/BLOB, JSON, GEOMETRY or SET)."""
    return column.type in _KEYABLE


def _check_flavor(flavor: str) -> None:
    if flavor not in FLAVORS:
        raise ValueError(f"unknown flavor {flavor!r} (one of {', '.join(FLAVORS)})")


@st.composite
def _column(draw, t: str, name: str) -> Column:
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "FLOAT", "DOUBLE"):
        return Column(name, t, unsigned=t not in ("FLOAT", "DOUBLE") and draw(st.booleans()))
    if t == "DECIMAL":
        p = draw(st.one_of(st.integers(1, 65), st.sampled_from((9, 10, 18, 19, 27, 28, 65))))
        s = draw(st.integers(0, min(p, 30)))
        return Column(name, t, precision=p, scale=s, unsigned=draw(st.integers(0, 4)) == 0)
    if t == "BIT":
        return Column(name, t, length=draw(st.sampled_from((1, 2, 7, 8, 9, 17, 33, 63, 64))))
    if t in ("TIME", "DATETIME", "TIMESTAMP"):
        return Column(name, t, fsp=draw(st.integers(0, 6)))
    if t in ("CHAR", "VARCHAR"):
        cs = draw(st.sampled_from(CHARSETS))
        sizes = (1, 5, 20, 64, 100, 255) if t == "CHAR" else (1, 10, 60, 64, 85, 300)
        return Column(name, t, length=draw(st.sampled_from(sizes)), charset=cs)
    if t == "BINARY":
        return Column(name, t, length=draw(st.sampled_from((1, 4, 16, 255))))
    if t == "VARBINARY":
        return Column(name, t, length=draw(st.sampled_from((1, 10, 255, 256, 1000))))
    if t.endswith("TEXT"):
        return Column(name, t, charset=draw(st.sampled_from(CHARSETS)))
    if t in ("ENUM", "SET"):
        sizes = (1, 2, 3, 255, 256, 300) if t == "ENUM" else (1, 8, 9, 16, 17, 24, 25, 32, 33, 64)
        n = draw(st.sampled_from(sizes))
        prefix = "e" if t == "ENUM" else "s"
        return Column(name, t, members=tuple(f"{prefix}{i}" for i in range(n)), charset="utf8mb4")
    return Column(name, t)  # YEAR, DATE, BLOBs, JSON, GEOMETRY, POINT


def _explicit_default(c: Column) -> Column:
    """TIMESTAMP NOT NULL carries the explicit default :func:`table_sql` writes for it, so the
    table parses back equal and servers with explicit_defaults_for_timestamp OFF add no
    CURRENT_TIMESTAMP default or ON UPDATE clause."""
    if c.type != "TIMESTAMP":
        return c
    return replace(c, default=None if c.nullable else TIMESTAMP_NOT_NULL_DEFAULT)


def columns(flavor: str = "mysql80", types: Iterable[str] | None = None, *, name: str = "c",
            nullable: bool | None = None) -> st.SearchStrategy[Column]:
    """Column definitions (:class:`binlogwriter.schema.Column`) of the SQL ``types`` (default
    :data:`COLUMN_TYPES`), with their parameters drawn: DECIMAL precision/scale around the
    9-digit group boundaries, fsp 0–6, charsets among latin1/utf8mb3/utf8mb4/gbk/ucs2/utf16/
    utf32, CHAR/VARCHAR lengths whose byte length crosses 255, ENUM up to 300 members (2-byte
    storage), SET up to 64. ``nullable=None`` draws it.

    >>> columns("mariadb1011", types=["DECIMAL", "TIME"]).example()  # doctest: +SKIP
    Column(name='c', type='TIME', ..., fsp=3, ...)
    """
    _check_flavor(flavor)
    chosen = tuple(t.upper() for t in (types or COLUMN_TYPES))
    unknown = [t for t in chosen if t not in COLUMN_TYPES]
    if unknown:
        raise ValueError(f"columns(types=...): unsupported {unknown}; supported: {', '.join(COLUMN_TYPES)}")
    nulls = st.booleans() if nullable is None else st.just(nullable)
    return st.builds(lambda c, n: _explicit_default(replace(c, nullable=n)),
                     st.sampled_from(chosen).flatmap(lambda t: _column(t, name)), nulls)


WIDE_SHARE = 20
"""With ``max_columns`` left out, :func:`tables` draws a wide table (60–300 columns) in about
one example in this many, and one of at least 1,000 columns in about one wide table in
:data:`VERY_WIDE_SHARE`: counts past one 64-bit word and past the 250/251 and 256/257 steps of
the packed column count and the column bitmaps (issue #28: a per-row 64-bit column mask
crashed every table of 64 or more columns and no property test had drawn one)."""
VERY_WIDE_SHARE = 10
SERVER_MAX_COLUMNS = 1017
"""InnoDB's column limit (MySQL 8.0/8.4 and MariaDB 10.11): the widest table drawn, so every
drawn table is one a server creates (ERROR 1005 "Too many columns" past it)."""
WIDE_DRAWN = 8
"""A wide table (:data:`WIDE_MIN` columns or more, whatever the bounds asked for) draws this
many column definitions; column ``i`` repeats column
``i % WIDE_DRAWN`` under its own name, and in a table of :data:`WIDE_MIN` or more columns
:func:`~binlogwriter.strategies.rows` copies the values of such a repeat from its original,
so a wide example costs about what a narrow one costs (a value drawn for each of 1,000
columns would overrun Hypothesis's example buffer and be discarded)."""
WIDE_MIN = 60


@functools.lru_cache(maxsize=16)
def repeats(table: Table) -> dict[int, int]:
    """Column index → the first earlier column of the same definition (all but the name)
    and the same key membership (:func:`tables` builds wide tables of repeats,
    :data:`WIDE_DRAWN`)."""
    in_key = {p.column for k in table.keys for p in k.parts}
    first: dict[tuple, int] = {}
    out: dict[int, int] = {}
    for i, c in enumerate(table.columns):
        j = first.setdefault((replace(c, name=""), c.name in in_key), i)
        if j != i:
            out[i] = j
    return out


def _column_count(draw, min_columns: int, max_columns: int | None, max_narrow: int) -> tuple[int, int]:
    """(columns, definitions drawn) of :func:`tables` (see :data:`WIDE_SHARE`)."""
    if max_columns is not None:
        n = draw(st.integers(min_columns, max_columns))
    elif draw(st.sampled_from(range(WIDE_SHARE))) != WIDE_SHARE - 1:
        n = draw(st.integers(min_columns, max(min_columns, max_narrow)))
    elif draw(st.sampled_from(range(VERY_WIDE_SHARE))) == VERY_WIDE_SHARE - 1:
        n = draw(st.integers(max(min_columns, 1000), max(min_columns, SERVER_MAX_COLUMNS)))
    else:
        n = draw(st.integers(max(min_columns, WIDE_MIN), max(min_columns, 300)))
    return n, (WIDE_DRAWN if n >= WIDE_MIN else n)


@st.composite
def tables(draw, flavor: str = "mysql80", *, min_columns: int = 1, max_columns: int | None = None,
           keys: Sequence[str] = KEY_KINDS, types: Iterable[str] | None = None, name: str = "t",
           database: str = "db", max_narrow: int = 8) -> Table:
    """Tables of ``min_columns``–``max_columns`` columns drawn by :func:`columns` (named
    ``c0``, ``c1``, …), with one of the ``keys`` shapes (:data:`KEY_KINDS`). A key needs a
    key-safe column (:func:`key_safe`); when ``types`` offers none the table gets none.
    ``max_columns`` left out: up to ``max_narrow`` columns, and a wide table in a fixed small
    share of examples (:data:`WIDE_SHARE`: 60–300 columns, sometimes 1,000 or more).

    >>> from hypothesis import given
    >>> @given(tables("mysql84", max_columns=300, keys=["none"]))   # doctest: +SKIP
    ... def test_wide(table): ...
    """
    _check_flavor(flavor)
    keys = tuple(keys)
    bad = [k for k in keys if k not in KEY_KINDS]
    if bad or not keys:
        raise ValueError(f"tables(keys=...): {bad or 'empty'}; choose among {', '.join(KEY_KINDS)}")
    n, drawn = _column_count(draw, min_columns, max_columns, max_narrow)
    cols = [draw(columns(flavor, types, name=f"c{i}")) for i in range(drawn)]
    cols += [replace(cols[i % drawn], name=f"c{i}") for i in range(drawn, n)]
    kind = draw(st.sampled_from(keys))
    keyable = [i for i, c in enumerate(cols) if key_safe(c)]
    if kind == "none" or not keyable:
        return Table(database, name, tuple(cols), flavor=flavor)
    width = 1 if kind == "primary" else draw(st.integers(1, min(3, len(keyable))))
    if kind == "composite":
        width = min(len(keyable), max(2, width))
    picked = draw(st.lists(st.sampled_from(keyable), min_size=width, max_size=width, unique=True))
    prefixable = [i for i in picked if cols[i].type in _PREFIXABLE and (cols[i].length or 0) > 4]
    parts = []
    for i in picked:
        prefix = 3 if kind == "prefix" and prefixable and i == prefixable[0] else None
        parts.append(KeyPart(cols[i].name, prefix))
    if kind in ("primary", "composite", "prefix", "unique_not_null"):
        for i in picked:
            cols[i] = _explicit_default(replace(cols[i], nullable=False))
    elif kind == "unique_nullable":
        cols[picked[0]] = _explicit_default(replace(cols[picked[0]], nullable=True))
    key_type = "PRIMARY" if kind in ("primary", "composite", "prefix") else "UNIQUE"
    key = Key(key_type, tuple(parts), None if key_type == "PRIMARY" else "uk")
    return Table(database, name, tuple(cols), (key,), flavor=flavor)
