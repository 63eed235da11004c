"""binlogwriter.strategies: what they draw is valid and reads back as its truth.

- ``binlogs()`` over every flavor x row image: our reader decodes exactly the truth's images
  (``read_changes`` vs ``WrittenBinlogs.changes``), and ``verify --roundtrip`` passes;
- ``tables()``: the DDL text parses back (``Table.from_sql``) to the same table;
- ``values()``: each value encodes and decodes back equal, for columns from ``columns()``;
- ``transactions()``: UPDATE/DELETE name live rows, unique keys never repeat.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.cli import main as cli_main
from binlogwriter.schema import FLAVORS, Table
from binlogwriter.strategies import binlogs, columns, table_sql, tables, transactions, values
from binlogwriter.strategies._workload import unique_key_values
from binlogwriter.testing import assert_changes_equal, final_rows, read_changes
from binlogwriter.values import decode_value, encode_value

IMAGES = ("FULL", "MINIMAL", "NOBLOB")
SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("image", IMAGES)
@pytest.mark.parametrize("flavor", FLAVORS)
@settings(max_examples=15, **SLOW)
@given(data=st.data())
def test_binlogs_read_back_as_their_truth(flavor: str, image: str, data) -> None:
    with data.draw(binlogs(flavor, image), label="binlogs") as case:
        assert case.files and all(f.is_file() for f in case.files)
        assert_changes_equal(read_changes(case.files, case.tables), case.changes)
        res = CliRunner().invoke(cli_main, ["verify", "--roundtrip", *map(str, case.files)])
        assert res.exit_code == 0, res.output


@pytest.mark.parametrize("flavor", FLAVORS)
@settings(max_examples=60, **SLOW)
@given(data=st.data())
def test_table_sql_parses_back(flavor: str, data) -> None:
    t = data.draw(tables(flavor, max_columns=12))
    assert Table.from_sql(table_sql(t), database=t.database, flavor=flavor) == t


@pytest.mark.parametrize("flavor", FLAVORS)
@settings(max_examples=200, **SLOW)
@given(data=st.data())
def test_values_encode_and_decode_back(flavor: str, data) -> None:
    col = data.draw(columns(flavor))
    t = Table("db", "t", (col,), flavor=flavor)
    desc = t.column_descs(flavor)[0]
    v = data.draw(values(t.columns[0], flavor))
    got, _ = decode_value(desc, encode_value(desc, v), 0)
    # a JSON object/array comes back as its dict/list subclass that keeps the bytes read
    assert got == v and (type(got) is type(v) or (type(v) in (dict, list) and isinstance(got, type(v))))


@settings(max_examples=80, **SLOW)
@given(data=st.data())
def test_transactions_respect_keys_and_live_rows(data) -> None:
    tabs = [data.draw(tables("mysql80", keys=["primary", "prefix", "unique_not_null", "unique_nullable"]))]
    txs = data.draw(transactions(tabs, image=data.draw(st.sampled_from(IMAGES))))
    changes = [(c.op, "db.t", c.before, c.after) for s in (x for tx in txs for x in tx) for c in s.changes]
    rows = final_rows(changes)  # raises if an update/delete names a row that is not live
    live = rows.get("db.t", [])
    keys = [kv for r in live for kv in unique_key_values(tabs[0], r)]
    assert len(keys) == len(set(keys))
