"""UPDATE / DELETE rows given as just the columns their images log (issue 14, item 5).

Under binlog_row_image MINIMAL or NOBLOB a DELETE's before image holds the primary key
equivalent (every column when the table has none; NOBLOB adds the non-BLOB columns) and an
UPDATE's after image the assigned columns (NOBLOB: plus the non-BLOB ones, taken from the row
before) — binlogwriter/images.py, docs/row-images.md. A fixture author hands the writer only
those columns; the written files must be byte for byte those of the full-row call, and a
needed column left out must be refused naming db.table.column and the row.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter import images
from binlogwriter.errors import ValueEncodeError
from binlogwriter.fixtures._model import Statement, write_transactions
from binlogwriter.schema import FLAVORS
from binlogwriter.strategies import tables, transactions
from binlogwriter.write.transaction import SessionSettings


def _needed(change, image: str, flavor: str) -> set[int]:
    """Columns of the row before that the images of ``change`` log."""
    if change.op == "delete":
        mask = images.delete_columns(change.table, image, flavor)
        return {i for i, keep in enumerate(mask) if keep}
    bmask, amask = images.update_columns(change.table, image, change.columns, flavor)
    return {i for i, keep in enumerate(bmask) if keep} | {
        i for i, keep in enumerate(amask) if keep and i not in change.columns}


class _KeyOnly(Statement):
    """A statement whose UPDATE/DELETE rows name only the columns of the row before that the
    images log (a mapping), ``drop`` = (change index, column index) to leave out as well."""

    def write_with(self, tx, image: str, flavor: str, drop: tuple[int, int] | None = None) -> None:
        names = [c.name for c in self.table.columns]
        payload = []
        for n, c in enumerate(self.changes):
            if c.op == "insert":
                payload.append(c.given())
                continue
            keep = _needed(c, image, flavor) - ({drop[1]} if drop and drop[0] == n else set())
            before = {names[i]: c.before[i] for i in sorted(keep)}
            payload.append(before if c.op == "delete" else (before, c.given()[1]))
        getattr(tx, self.op)(self.table, payload)


def _write_key_only(out: Path, flavor: str, tabs, txs, sess: SessionSettings, drop=None) -> list[Path]:
    from binlogwriter.fixtures._model import table_sql
    from binlogwriter.format import BinlogFormat
    from binlogwriter.write.writer import BinlogWriter

    with BinlogWriter(out, BinlogFormat.preset(flavor), settings=sess) as w:
        for db in dict.fromkeys(t.database for t in tabs):
            w.ddl(f"CREATE DATABASE `{db}`")
        for t in tabs:
            w.ddl(table_sql(t), t.database)
        for k, stmts in enumerate(txs):
            w.advance(1)
            with w.transaction() as tx:
                for j, s in enumerate(stmts):
                    _KeyOnly(s.op, s.table, s.changes).write_with(
                        tx, sess.row_image, flavor, drop[2:] if drop and drop[:2] == (k, j) else None)
    return list(w.files)


@st.composite
def _cases(draw):
    flavor = draw(st.sampled_from(FLAVORS))
    image = draw(st.sampled_from(("MINIMAL", "NOBLOB")))
    tabs = [draw(tables(flavor, max_columns=6))]
    txs = draw(transactions(tabs, image, flavor, max_transactions=3, max_rows=4))
    return flavor, image, tabs, txs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_cases())
def test_key_only_rows_write_the_full_row_bytes(tmp_path_factory, case) -> None:
    flavor, image, tabs, txs = case
    sess = SessionSettings(row_image=image, rows_query=False)
    full = write_transactions(tmp_path_factory.mktemp("full"), flavor, tabs, txs, sess)
    short = _write_key_only(tmp_path_factory.mktemp("key"), flavor, tabs, txs, sess)
    assert [p.name for p in full] == [p.name for p in short]
    for a, b in zip(full, short, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_cases(), st.data())
def test_a_needed_column_left_out_is_refused(tmp_path_factory, case, data) -> None:
    flavor, image, tabs, txs = case
    spots = [(k, j, n, i)
             for k, stmts in enumerate(txs) for j, s in enumerate(stmts) if s.op != "insert"
             for n, c in enumerate(s.changes) for i in sorted(_needed(c, image, flavor))]
    if not spots:
        return
    k, j, n, i = data.draw(st.sampled_from(spots))
    t = txs[k][j].table
    with pytest.raises(ValueEncodeError) as info:
        _write_key_only(tmp_path_factory.mktemp("bad"), flavor, tabs, txs,
                        SessionSettings(row_image=image, rows_query=False), drop=(k, j, n, i))
    msg = str(info.value)
    assert f"{t.database}.{t.name}.{t.columns[i].name}" in msg and f"row {n}" in msg, msg
    assert f"binlog_row_image={image}" in msg, msg
