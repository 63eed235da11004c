"""``WrittenBinlogs.as_sql()`` (binlogwriter/fixtures/_sql.py) reproduces the case: run on a
real MariaDB 10.11 with the case's row image, the server binlogs exactly the row changes the
case holds (its truth, ``case.changes``, but for an UPDATE that changes nothing: a server
does not binlog it), read back from the server's own binlog by our reader.

This is what a failing property test prints (``WrittenBinlogs._repr_pretty_``) and keeps as
``reproduce.sql``: a reader can paste it into a server and get the failing binlog again.
Drawn sets: MariaDB flavor (the server we have), every row image, FULL metadata (the server's
Table_map then names the columns), any tables and transactions :func:`binlogs` draws that
InnoDB can create (a drawn wide table of long fixed-width columns passes its row size limit:
the server's ERROR 1118 rejects that example).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings

from binlogwriter.fixtures import Ddl
from binlogwriter.strategies import binlogs
from binlogwriter.testing import assert_changes_equal, read_changes

from .mariadb import MariaDBError, MariaDBServer

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
def test_as_sql_replayed_binlogs_the_same_changes(mariadb_template: Path, image: str) -> None:
    with MariaDBServer(mariadb_template, row_image=image, annotate=False) as server:

        @settings(max_examples=12, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(case=binlogs("mariadb1011", image, metadata="FULL", max_transactions=3))
        def check(case) -> None:
            with case:
                dbs = dict.fromkeys(t.database for t in case.tables)
                server.execute("".join(f"DROP DATABASE IF EXISTS `{d}`;\n" for d in dbs) + "FLUSH BINARY LOGS;\n")
                before = set(server.binlog_files())
                try:
                    server.execute(case.as_sql() + "FLUSH BINARY LOGS;\n")
                except MariaDBError as e:  # a wide table of long fixed-width columns: InnoDB's row
                    if "ERROR 1118" not in str(e):  # size limit (8126 bytes) refuses it; the strategies
                        raise  # draw tables for the binlog codec, which has no such limit
                    reject()
                files = [f for f in server.binlog_files() if f not in before]
                files += [max(before)]  # the file that was current when the script ran
                files.sort()
                tables = () if any(isinstance(tx, Ddl) for tx in case.transactions) else case.tables
                # a server binlogs no UPDATE that leaves the row as it was (0 rows changed)
                want = [c for c, full in zip(case.changes, case.full_changes, strict=True)
                        if not (full.op == "update" and full.before == full.after)]
                assert_changes_equal(read_changes(files, tables), want)

        check()
