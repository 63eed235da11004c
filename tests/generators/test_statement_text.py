"""Rows_query / Annotate_rows text of generated statements (generators/statement_text.py):
the real statement with its values, valid SQL for every column type and charset.

Property test: over tables and rows drawn by binlogwriter.strategies (every type, charset and
key shape), the INSERT / UPDATE / DELETE text parses with sqlglot's MySQL dialect into one
statement of the right kind, naming the table, with one VALUES tuple of literals per
inserted row. Executing the texts on a real MariaDB is
tests/conformance/test_statement_text_replay.py.
"""

from __future__ import annotations

import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from binlogwriter.schema import FLAVORS
from binlogwriter.strategies import rows, tables
from generators.statement_text import statement_sql


@st.composite
def _case(draw):
    flavor = draw(st.sampled_from(FLAVORS))
    t = draw(tables(flavor, max_columns=8))
    n = draw(st.integers(1, 4))
    before = [draw(rows(t, flavor)) for _ in range(n)]
    key = {i for i, _ in t.effective_primary_key()}
    free = [i for i in range(len(t.columns)) if i not in key] or list(range(len(t.columns)))
    assigned = []
    for _ in range(n):
        cols = draw(st.lists(st.sampled_from(free), min_size=1, unique=True))
        new = draw(rows(t, flavor))
        assigned.append({i: new[i] for i in cols})
    return flavor, t, before, assigned


def _parse(text: str) -> exp.Expression:
    trees = sqlglot.parse(text, read="mysql")
    assert len(trees) == 1 and trees[0] is not None, text
    return trees[0]


@settings(max_examples=60, deadline=None)
@given(_case())
def test_statement_text_is_valid_mysql(case) -> None:
    flavor, t, before, assigned = case
    ins = statement_sql(t, "insert", before, flavor)
    upd = statement_sql(t, "update", list(zip(before, assigned, strict=True)), flavor)
    dele = statement_sql(t, "delete", before, flavor)
    tree = _parse(ins)
    assert isinstance(tree, exp.Insert), ins
    assert tree.this.this.name == t.name
    values = tree.expression
    assert isinstance(values, exp.Values) and len(values.expressions) == len(before), ins
    assert all(len(v.expressions) == len(t.columns) for v in values.expressions), ins
    tree = _parse(upd)
    assert isinstance(tree, exp.Update) and tree.args.get("where") is not None, upd
    assert {e.this.name for e in tree.expressions} == {t.columns[i].name for a in assigned for i in a}, upd
    tree = _parse(dele)
    assert isinstance(tree, exp.Delete) and tree.args.get("where") is not None, dele


def test_sysbench_style_statements() -> None:
    """The shapes a server logs for sysbench's statements, with values."""
    from binlogwriter.schema import Table

    t = Table.from_sql("CREATE TABLE sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, "
                       "c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL)", database="sbtest")
    assert statement_sql(t, "update", [((123, 5, "c", "p"), {"k": 6})], "mariadb1011") == \
        "UPDATE `sbtest`.`sbtest1` SET `k` = 6 WHERE `id` = 123"
    assert statement_sql(t, "delete", [(5, 1, "c", "p")], "mysql80") == \
        "DELETE FROM `sbtest`.`sbtest1` WHERE `id` = 5"
    assert statement_sql(t, "insert", [(1, 2, "it's", "\\"), (2, 3, "y", "z")], "mysql80") == \
        "INSERT INTO `sbtest`.`sbtest1` (`id`, `k`, `c`, `pad`) VALUES (1, 2, 'it\\'s', '\\\\'), (2, 3, 'y', 'z')"


@settings(max_examples=60, deadline=None)
@given(_case())
def test_fast_literals_are_sql_literal(case) -> None:
    """The translate-quoted text literals of statement_text are exactly columns.sql_literal's."""
    from generators.columns import sql_literal
    from generators.statement_text import literal

    flavor, t, before, _ = case
    for row in before:
        for c, v in zip(t.columns, row, strict=True):
            assert literal(c, v, flavor) == sql_literal(c, v, flavor), (c, v)
