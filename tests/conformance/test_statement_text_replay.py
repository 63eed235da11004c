"""Annotate_rows texts of a generated MariaDB run are real statements (issue 14, item 5).

A small ``alltypes`` run (every column type; DDL and initial rows in the binlog), a custom
schema (composite key, UNIQUE NOT NULL key, no key, latin1 text), a schema of every type family
with ``--edge-values``, a hot-spot sysbench run and an oltp_write_only one (its initial
rows in ``sysbench prepare``'s bulk INSERTs) with rows_query on: every
statement the binlogs hold — the DDL QUERY events and each Annotate_rows text — is executed in
order on a fresh MariaDB 10.11; none may fail, and the tables with a key must then equal
truth/final (a keyless table's statements find rows by every column, and FLOAT equality with
a decimal literal does not hold on the server, so only their execution is checked).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.testing import final_files
from generators.engine import generate
from generators.spec import Spec
from tests.generators.edge_schemas import EVERY_FAMILY_DDL, JSON_DDL

from .test_generate_replay import CUSTOM_DDL

pytestmark = pytest.mark.conformance

QUERY, ANNOTATE_ROWS = 2, 160


def _script(out: Path) -> str:
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    lines = ["SET NAMES utf8mb4;", "SET SESSION time_zone = '+00:00';",
             "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';"]
    n = 0
    for ev in BinlogReader(files):
        if ev.type_code == QUERY:
            if ev.db and not ev.query.upper().startswith("CREATE DATABASE"):
                lines.append(f"USE `{ev.db}`;")
            lines.append(ev.query + ";")
        elif ev.type_code == ANNOTATE_ROWS:
            lines.append(ev.query + ";")
            n += 1
    assert n > 10
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("workload", ["alltypes", "custom", "sysbench", "sysbench-write-only", "edge-values"])
def test_annotate_rows_texts_replay_to_truth(mariadb_server_factory, tmp_path: Path, workload: str) -> None:
    db = f"st_{workload}"
    base = dict(flavor="mariadb1011", row_metadata="FULL", row_image="FULL", rows_query=True, database=db,
                seed=11, transactions=30, initial_rows=8, ddl_every=9, ddl_in_binlog=True)
    if workload == "custom":
        base.update(workload=None, schema_sql=CUSTOM_DDL, schema_file="custom.sql")
    elif workload == "edge-values":  # every type family's limits as SQL literals, keyed tables
        base.update(workload=None, schema_sql=EVERY_FAMILY_DDL + JSON_DDL, schema_file="e.sql", edge_values=0.3,
                    database="st_edge")
    elif workload == "sysbench":
        # a hot spot, mostly UPDATEs, several rows per transaction: one statement updates a key
        # twice (the later assignment must win)
        base.update(workload="sysbench", tables=1, key_dist="hotspot:0.05:0.9", rows_per_txn="3-9",
                    mix="insert=0.1,update=0.8,delete=0.1", transactions=60, initial_rows=20)
    elif workload == "sysbench-write-only":  # oltp_write_only's own texts; the initial rows in bulk INSERTs
        base.update(workload="sysbench", tables=2, database="st_write_only", initial_rows=150)
    else:
        base["workload"] = workload
    out = tmp_path / "run"
    generate(Spec.from_dict(base), out)
    server = mariadb_server_factory()
    server.execute(_script(out))
    checked = 0
    for (tdb, table), p in final_files(out).items():
        ddl = server.query(f"SHOW CREATE TABLE `{tdb}`.`{table}`")[0][1]
        if not Table.from_sql(ddl, database=tdb, flavor="mariadb1011").effective_primary_key():
            continue
        want = [tuple(json.loads(line).values()) for line in p.read_text("utf-8").splitlines()]
        assert server.dump_table(tdb, table) == want, f"{tdb}.{table}"
        checked += 1
    assert checked


def test_a_key_updated_twice_in_one_statement(mariadb_server_factory) -> None:
    """One UPDATE text for several row changes, a key among them twice: executed, the later
    assignment wins, as the rows events apply them in order."""
    from generators.statement_text import statement_sql

    t = Table.from_sql("CREATE TABLE t2 (id INT NOT NULL PRIMARY KEY, k INT NULL, c VARCHAR(8) NULL)",
                       database="st_twice", flavor="mariadb1011")
    r1, r2 = (1, 10, "a"), (2, 20, "b")
    pairs = [(r1, {1: 11}), ((1, 11, "a"), {1: 12, 2: "x"}), (r2, {2: "y"}), ((1, 12, "x"), {2: "z"})]
    server = mariadb_server_factory()
    server.execute("CREATE DATABASE st_twice; CREATE TABLE st_twice.t2 (id INT NOT NULL PRIMARY KEY, "
                   "k INT NULL, c VARCHAR(8) NULL); INSERT INTO st_twice.t2 VALUES (1, 10, 'a'), (2, 20, 'b');\n"
                   + statement_sql(t, "update", pairs, "mariadb1011") + ";\n")
    assert server.dump_table("st_twice", "t2") == [(1, 12, "z"), (2, 20, "y")]
