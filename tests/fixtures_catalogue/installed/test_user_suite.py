"""A user's test suite: only the installed plugin's fixtures and binlogwriter.strategies.

Run by test_installed_package.py against binlogwriter installed with pip (no repository on
sys.path, the plugin loaded from its pytest11 entry point). Random tables and rows round-trip
through BinlogWriter and BinlogReader in every flavor and row image.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.strategies import table_sql, tables, transactions
from binlogwriter.testing import read_changes

FLAVORS = ["mysql80", "mysql84", "mariadb1011"]
IMAGES = ["FULL", "MINIMAL", "NOBLOB"]


@pytest.mark.parametrize("image", IMAGES)
@pytest.mark.parametrize("flavor", FLAVORS)
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_tables_round_trip(binlog_writer, assert_binlog_changes, flavor, image, data):
    table = data.draw(tables(flavor, max_columns=6), label="table")
    txs = data.draw(transactions([table], image=image), label="transactions")
    w = binlog_writer(flavor, row_image=image, row_metadata="FULL")
    w.ddl(f"CREATE DATABASE {table.database}")
    w.ddl(table_sql(table), table.database)
    truth = []
    for stmts in txs:
        with w.transaction() as tx:
            for s in stmts:
                s.write(tx)
                for c in s.changes:
                    before, after = c.images(image, flavor)
                    truth.append((c.op, f"{table.database}.{table.name}", before, after))
    w.close()
    assert_binlog_changes(read_changes(w.files), truth)


@pytest.mark.parametrize("binlog_case", ["negative_time:mysql84", "enum_300_set_64:mariadb1011"], indirect=True)
def test_catalogue_case(binlog_case, assert_binlog_changes):
    assert_binlog_changes(read_changes(binlog_case.files), binlog_case.changes)


def test_seeded_sample(binlog_sample, binlogwriter_seed, assert_binlog_changes):
    case = binlog_sample(metadata="FULL")
    assert binlogwriter_seed == 0
    assert_binlog_changes(read_changes(case.files), case.changes)
