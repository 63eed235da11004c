"""``rows(table)`` and ``transactions(tables, image=...)``: row changes a real server could log.

:func:`transactions` keeps a model of every table's live rows while it draws, so each change
is one a server would accept and log: INSERTs never repeat a unique key (prefix parts compared
on their prefix; UNIQUE keys with a NULL part never collide), UPDATEs and DELETEs name a live
row, UPDATEs assign only non-key columns. Under MINIMAL or NOBLOB an INSERT may name only some
columns: the others are nullable columns without a default, so the server stores NULL and the
full row is still known. The truth of every change is kept twice: the full rows (``before``,
``after``) and the images the binlog carries for the row image in force (:meth:`RowChange.images`,
docs/row-images.md), with :data:`binlogwriter.values.ABSENT` for columns left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from binlogwriter import images
from binlogwriter.fixtures._model import RowChange, Statement, unique_key_values
from binlogwriter.schema import Table

from ._schema import WIDE_MIN, repeats
from ._values import values

__all__ = ["rows", "transactions", "RowChange", "Statement", "unique_key_values"]

ROW_IMAGES = ("FULL", "MINIMAL", "NOBLOB")


@st.composite
def rows(draw, table: Table, flavor: str | None = None, *, null_probability: float = 0.2) -> tuple:
    """One full row of ``table`` (a tuple in column order), every value from
    :func:`~binlogwriter.strategies.values`; nullable columns are NULL (``None``) with
    ``null_probability``. Key columns hold key-safe values. In a table of ``WIDE_MIN`` (60) or
    more columns a column defined as an earlier one (all but its name) holds that column's
    value (the wide tables of :func:`~binlogwriter.strategies.tables` repeat a few definitions).

    >>> from binlogwriter.schema import Table
    >>> t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(8))")
    >>> rows(t).example()  # doctest: +SKIP
    (-5, 'xé')
    """
    flavor = flavor or table.flavor
    in_key = {p.column for k in table.keys for p in k.parts}
    same = repeats(table) if len(table.columns) >= WIDE_MIN else {}
    out: list = []
    for i, c in enumerate(table.columns):
        if i in same:
            out.append(out[same[i]])  # a repeated definition (a wide table): the value of its original
        elif c.nullable and null_probability and draw(st.floats(0, 1)) < null_probability:
            out.append(None)
        else:
            out.append(draw(values(c, flavor, key=c.name in in_key)))
    return tuple(out)


class _Model:
    """Live rows per table (a list: tables without a key may hold equal rows)."""

    def __init__(self, tables: Sequence[Table]) -> None:
        self.rows: dict[str, list[tuple]] = {t.name: [] for t in tables}

    def taken(self, table: Table, row: tuple, ignore: tuple | None = None) -> bool:
        mine = set(unique_key_values(table, row))
        if not mine:
            return False
        skipped = False
        for r in self.rows[table.name]:
            if r == ignore and not skipped:
                skipped = True
                continue
            if mine & set(unique_key_values(table, r)):
                return True
        return False


def _key_columns(table: Table) -> set[int]:
    return {table.index_of(p.column) for k in table.keys for p in k.parts}


@st.composite
def _statement(draw, model: _Model, tables: Sequence[Table], image: str, flavor: str,
               max_rows: int) -> Statement | None:
    table = draw(st.sampled_from(list(tables)))
    live = model.rows[table.name]
    ops = ["insert"] + (["update", "delete"] if live else [])
    op = draw(st.sampled_from(ops))
    n = len(table.columns)
    changes: list[RowChange] = []
    if op == "insert":
        optional = [i for i, c in enumerate(table.columns) if c.nullable and i not in _key_columns(table)]
        for _ in range(draw(st.integers(1, max_rows))):
            row = draw(rows(table, flavor))
            given = set(range(n))
            if image != "FULL" and optional:
                left_out = set(draw(st.lists(st.sampled_from(optional), unique=True)))
                given -= left_out
                row = tuple(None if i in left_out else v for i, v in enumerate(row))
            # a column the image needs anyway is logged: name it (its value is NULL already)
            mask = images.insert_columns(table, image, given, flavor)
            given |= {i for i, keep in enumerate(mask) if keep}
            if not given or model.taken(table, row):
                continue
            live.append(row)
            changes.append(RowChange("insert", table, None, row, frozenset(given)))
    elif op == "delete":
        for _ in range(draw(st.integers(1, min(max_rows, len(live))))):
            row = live.pop(draw(st.integers(0, len(live) - 1)))
            changes.append(RowChange("delete", table, row, None, frozenset(range(n))))
            if not live:
                break
    else:
        assignable = [i for i in range(n) if i not in _key_columns(table)]
        if not assignable:
            return None
        assigned = frozenset(draw(st.lists(st.sampled_from(assignable), min_size=1, unique=True)))
        for _ in range(draw(st.integers(1, min(max_rows, len(live))))):
            pos = draw(st.integers(0, len(live) - 1))
            before = live[pos]
            fresh = draw(rows(table, flavor))
            after = tuple(fresh[i] if i in assigned else v for i, v in enumerate(before))
            live[pos] = after
            changes.append(RowChange("update", table, before, after, assigned))
    if not changes:
        return None
    return Statement(op, table, tuple(changes))


@st.composite
def transactions(draw, tables: Sequence[Table] | Table, image: str = "FULL", flavor: str | None = None, *,
                 min_transactions: int = 1, max_transactions: int = 3, max_statements: int = 3,
                 max_rows: int = 5) -> list[list[Statement]]:
    """A sequence of transactions over ``tables`` (each a list of :class:`Statement`), valid
    for a real server starting from empty tables (see module docs), for the row ``image``
    (FULL, MINIMAL or NOBLOB: which columns an INSERT may leave out).

    >>> from hypothesis import given
    >>> from binlogwriter.strategies import tables, transactions
    >>> @given(tables().flatmap(lambda t: transactions([t], image="MINIMAL")))  # doctest: +SKIP
    ... def test_consumer(txs): ...
    """
    if isinstance(tables, Table):
        tables = [tables]
    tables = list(tables)
    if not tables:
        raise ValueError("transactions(): no tables")
    image = image.upper()
    if image not in ROW_IMAGES:
        raise ValueError(f"transactions(image=...): {image!r}; expected one of {', '.join(ROW_IMAGES)}")
    flavor = flavor or tables[0].flavor
    model = _Model(tables)
    out: list[list[Statement]] = []
    for _ in range(draw(st.integers(min_transactions, max_transactions))):
        stmts = []
        for _ in range(draw(st.integers(1, max_statements))):
            s = draw(_statement(model, tables, image, flavor, max_rows))
            if s is not None:
                stmts.append(s)
        if stmts:
            out.append(stmts)
    return out
