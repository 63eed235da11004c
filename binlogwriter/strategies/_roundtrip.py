"""Writer-level round-trip strategies: tables with their key and BLOB columns worked out from
the DDL rules, and statements the *writer* must encode exactly — not only what a server
would log.

:func:`transactions` draws changes a real server accepts (unique keys, live rows). A codec
round trip wants more: an INSERT naming any subset of columns under MINIMAL/NOBLOB, an UPDATE
assigning any columns (keys too), rows repeated — everything ``BinlogWriter`` takes and
``BinlogReader`` must read back. These strategies draw that:

``roundtrip_tables(flavor)``
    a :class:`RoundTripTable`: a :func:`tables` table plus, per column, a strategy of
    ``(value written, value read back)`` pairs, nullability, the primary key equivalent and
    the BLOB columns (binlog type 252: TEXT/BLOB, and MariaDB's JSON) — worked out from the
    DDL rules of docs/row-images.md, independently of :mod:`binlogwriter.images`.
``roundtrip_rows(rt)``
    one ``(written row, expected row)`` pair, NULL in a nullable column one time in five.
``roundtrip_transactions(rt, flavor, image)``
    1–3 transactions of 1–3 :class:`WriterStatement` s (1–6 rows each).

Example — a reader against the writer, with your own image model::

    from hypothesis import given, strategies as st
    from binlogwriter.strategies import roundtrip_tables, roundtrip_transactions

    @given(st.data())
    def test_roundtrip(data):
        rt = data.draw(roundtrip_tables("mysql80"))
        txs = data.draw(roundtrip_transactions(rt, "mysql80", "MINIMAL"))
        ...  # write with BinlogWriter, read with BinlogReader, compare
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from binlogwriter.schema import Table

from ._schema import WIDE_MIN, repeats, table_sql, tables
from ._values import values

__all__ = ["RoundTripTable", "ColSpec", "WriterStatement", "roundtrip_tables", "roundtrip_rows",
           "roundtrip_transactions", "BLOB_TYPES"]

BLOB_TYPES = ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
"""SQL types whose binlog type is 252 (MariaDB's JSON, a LONGTEXT, counts too)."""


@dataclass
class ColSpec:
    """One column of a :class:`RoundTripTable`: its name and a strategy of ``(value written,
    value read back)`` pairs."""

    name: str
    values: st.SearchStrategy


@dataclass
class RoundTripTable:
    """A drawn table and what a round trip needs to know about it (module docstring)."""

    table: Table
    specs: list[ColSpec]
    nullable: list[bool]
    pke: list[int] | None  # primary key equivalent (column indexes), None = none
    sql: str = ""
    blobs: set[int] = field(default_factory=set)


@dataclass
class WriterStatement:
    """One statement for the writer. ``rows``: INSERT/DELETE ``[(written, expected)]`` full
    rows; UPDATE ``[((written, expected) before, (written, expected) new values)]``.
    ``given``: INSERT the columns named, UPDATE the columns assigned, DELETE all."""

    kind: str
    rows: list
    given: set[int]

    def write(self, tx: Any, rt: RoundTripTable, *, partial: bool = False) -> None:
        """Log this statement in writer transaction ``tx`` on ``rt``'s table: the written values
        of the columns given; ``partial``: an UPDATE as MySQL's PARTIAL_UPDATE_ROWS_EVENT."""
        given = sorted(self.given)
        if self.kind == "insert":
            tx.insert(rt.table, [{rt.specs[i].name: r[0][i] for i in given} for r in self.rows])
        elif self.kind == "delete":
            tx.delete(rt.table, [r[0] for r in self.rows])
        else:
            update = tx.partial_update if partial else tx.update
            update(rt.table, [(b[0], {rt.specs[i].name: a[0][i] for i in given}) for b, a in self.rows])


def _pke(table: Table) -> list[int] | None:
    """PRIMARY KEY, else the first UNIQUE key whose columns are all NOT NULL (format.md §12.1)."""
    for kind in ("PRIMARY", "UNIQUE"):
        for k in table.keys:
            cols = [table.index_of(p.column) for p in k.parts]
            if k.kind == kind and not any(table.columns[i].nullable for i in cols):
                return sorted(cols)
    return None


def _same(v):
    return (v, v)


@st.composite
def roundtrip_tables(draw, flavor: str, *, database: str = "db",
                     max_columns: int | None = None) -> RoundTripTable:
    """A :class:`RoundTripTable` for ``flavor`` (up to ``max_columns`` columns; by default 8
    or 14, and a wide table in the share of :data:`~binlogwriter.strategies._schema.WIDE_SHARE`)."""
    narrow = draw(st.sampled_from([8, 14]))
    table = draw(tables(flavor, max_columns=max_columns, database=database, max_narrow=narrow))
    in_key = {p.column for k in table.keys for p in k.parts}
    specs = [ColSpec(c.name, values(c, flavor, key=c.name in in_key).map(_same)) for c in table.columns]
    nullable = [c.nullable for c in table.columns]
    blobs = {i for i, c in enumerate(table.columns)
             if c.type in BLOB_TYPES or (c.type == "JSON" and flavor.startswith("mariadb"))}
    return RoundTripTable(table, specs, nullable, _pke(table), table_sql(table), blobs)


@st.composite
def roundtrip_rows(draw, rt: RoundTripTable) -> tuple[tuple, tuple]:
    """``(written row, expected row)``: NULL in a nullable column one time in five."""
    written: list = []
    expected: list = []
    same = repeats(rt.table) if len(rt.specs) >= WIDE_MIN else {}
    for i, s in enumerate(rt.specs):
        if i in same:  # a repeated definition (a wide table): the values of its original
            w, e = written[same[i]], expected[same[i]]
        elif rt.nullable[i] and draw(st.integers(0, 4)) == 0:
            w = e = None
        else:
            w, e = draw(s.values)
        written.append(w)
        expected.append(e)
    return tuple(written), tuple(expected)


@st.composite
def roundtrip_transactions(draw, rt: RoundTripTable, flavor: str, image: str) -> list[list[WriterStatement]]:
    """Transactions of INSERT / UPDATE / DELETE statements the writer must encode under
    ``image`` (module docstring). Under MINIMAL an INSERT names 1+ columns; under NOBLOB every
    non-BLOB column plus some BLOBs (MariaDB without a key: all); FULL names all."""
    n = len(rt.specs)
    allc = set(range(n))
    txs = []
    for _ in range(draw(st.integers(1, 3))):
        stmts = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["insert", "update", "delete"]))
            rows = [draw(roundtrip_rows(rt)) for _ in range(draw(st.integers(1, 6)))]
            if kind == "insert":
                if image == "FULL" or (image != "FULL" and flavor.startswith("mariadb") and rt.pke is None):
                    given = allc
                elif image == "MINIMAL":
                    given = set(draw(st.lists(st.sampled_from(sorted(allc)), min_size=1, unique=True)))
                else:
                    # at least one column: an empty image has zero-byte rows (not decodable)
                    given = (allc - rt.blobs) | set(draw(st.lists(st.sampled_from(sorted(allc)), unique=True,
                                                                  min_size=0 if allc - rt.blobs else 1)))
                stmts.append(WriterStatement("insert", rows, given))
            elif kind == "delete":
                stmts.append(WriterStatement("delete", rows, allc))
            else:
                assigned = set(draw(st.lists(st.sampled_from(sorted(allc)), min_size=1, unique=True)))
                pairs = [(r, draw(roundtrip_rows(rt))) for r in rows]
                stmts.append(WriterStatement("update", pairs, assigned))
        txs.append(stmts)
    return txs
