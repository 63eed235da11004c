"""Table names that real schemas have (docs/output.md "Truth file names"): a table called
``a/b``, ``a.b``, ``..``, with spaces, ``:``, ``*``, non-ASCII letters or 64 characters, in a
database whose name holds a dot, is generated and its truth files are named by
binlogwriter/truth_names.py and read back to the same (database, table); ``users`` and
``Users`` are two tables (a server with ``lower_case_table_names=0``), each found by its own
name — by a FOREIGN KEY, an ALTER TABLE, a DROP TABLE, a CREATE TABLE … LIKE."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.testing import final_files, truth_changes, truth_columns, truth_file
from generators.engine import generate
from generators.errors import SpecError
from generators.spec import Spec
from generators.workloads import load_workload

LONG = "abcdefghij" * 6 + "1234"  # 64 characters, the longest identifier
ODD = ["a/b", "a.b", "..", "sp ace:x*y?", "a\\\\b.c", "éß€中文", "@0041", LONG, "Users", "users"]

SCHEMA = "".join(f"CREATE TABLE `{n.replace('`', '``')}` (id INT PRIMARY KEY, `x/y` INT);\n" for n in ODD[:-2]) + """
CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20));
CREATE TABLE Users (uid BIGINT PRIMARY KEY, note VARCHAR(10));
CREATE TABLE orders (id INT PRIMARY KEY, u INT NOT NULL, FOREIGN KEY (u) REFERENCES users (id));
CREATE TABLE Orders (id INT PRIMARY KEY, u BIGINT NOT NULL, CONSTRAINT big_o FOREIGN KEY (u) REFERENCES Users (uid));
ALTER TABLE users ADD COLUMN email VARCHAR(30);
ALTER TABLE Users ADD COLUMN extra INT;
CREATE TABLE `u_like` LIKE users;
CREATE TABLE gone (id INT PRIMARY KEY);
CREATE TABLE Gone (id INT PRIMARY KEY);
DROP TABLE gone;
CREATE DATABASE `we.ird/db`;
CREATE TABLE `we.ird/db`.`x.y` (id INT PRIMARY KEY, v INT);
CREATE TABLE `we.ird/db`.`Users` (id INT PRIMARY KEY, v INT);
"""


def _spec(sql: str, flavor: str = "mariadb1011", **extra) -> Spec:
    return Spec.from_dict(dict(workload=None, schema_sql=sql, schema_file="s.sql", database="test", flavor=flavor,
                               seed=5, transactions=40, initial_rows=6, **extra))


@pytest.fixture(scope="module", params=["mariadb1011", "mysql80"])
def run(request, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("names") / "run"
    generate(_spec(SCHEMA, request.param), out)
    return out


def test_every_table_has_its_truth_file_read_back(run: Path) -> None:
    want = {("test", n) for n in ODD + ["orders", "Orders", "u_like", "Gone"]} | {("we.ird/db", "x.y"),
                                                                                 ("we.ird/db", "Users")}
    finals = final_files(run)
    assert set(finals) == want
    for (db, table), p in finals.items():
        assert p.name == truth_file(db, table, ".jsonl")
        assert (run / "truth" / "final" / "parquet" / truth_file(db, table, ".parquet")).exists()
    assert {tuple(k.split(".", 1)) for k in truth_columns(run) if not k.startswith("we.")} == \
        {k for k in want if k[0] == "test"}  # truth/changes/*.parquet read back too
    assert {(c["database"], c["table"]) for c in truth_changes(run)} <= want


def test_tables_differing_in_case_are_two(run: Path) -> None:
    finals = final_files(run)
    rows = {k: [json.loads(x) for x in p.read_text("utf-8").splitlines()] for k, p in finals.items()}
    assert set(rows[("test", "users")][0]) == {"id", "name", "email"}  # each ALTER went to its own table
    assert set(rows[("test", "Users")][0]) == {"uid", "note", "extra"}
    assert set(rows[("test", "u_like")][0]) == {"id", "name", "email"}  # LIKE users, not Users
    assert ("test", "gone") not in rows and rows[("test", "Gone")]  # DROP TABLE gone left Gone
    # each FOREIGN KEY references rows of its own parent
    assert {r["u"] for r in rows[("test", "orders")]} <= {r["id"] for r in rows[("test", "users")]}
    assert {r["u"] for r in rows[("test", "Orders")]} <= {r["uid"] for r in rows[("test", "Users")]}


def test_same_name_twice_is_still_refused() -> None:
    with pytest.raises(SchemaError, match="table test.Users is defined twice"):
        load_workload(_spec("CREATE TABLE users (id INT PRIMARY KEY);\nCREATE TABLE Users (id INT PRIMARY KEY);\n"
                            "CREATE TABLE Users (id INT PRIMARY KEY);\n"))


def test_a_reference_to_the_other_case_is_not_found() -> None:
    """``REFERENCES Users`` with only ``users`` in the schema: no such table on the server."""
    sql = "CREATE TABLE users (id INT PRIMARY KEY);\nCREATE TABLE o (id INT PRIMARY KEY, u INT NOT NULL, " \
          "FOREIGN KEY (u) REFERENCES Users (id));\n"
    with pytest.raises(SchemaError, match="test.Users, which is not in the schema"):
        load_workload(_spec(sql))


def test_names_too_long_for_a_file_name_are_refused() -> None:
    with pytest.raises(SchemaError, match="too long for its truth file name"):
        load_workload(_spec(f"CREATE TABLE `{'/' * 64}` (id INT PRIMARY KEY);\n"))


def test_a_spec_column_entry_names_a_table_whose_name_holds_a_dot(tmp_path: Path) -> None:
    """``columns: {"a.b.v": …}`` is table ``a.b``'s column ``v``; the values the spec asks for
    are the values written. Where ``a.b.v`` could also be table ``a``'s column ``b.v``, the
    entry is refused in one line."""
    sql = "CREATE TABLE `a.b` (id INT PRIMARY KEY, v INT);\nCREATE TABLE a (id INT PRIMARY KEY, w INT);\n"
    out = tmp_path / "run"
    generate(_spec(sql, columns={"a.b.v": {"gen": "int", "min": 700, "max": 710}}), out)
    rows = [json.loads(x) for x in final_files(out)[("test", "a.b")].read_text().splitlines()]
    assert rows and all(r["v"] is None or 700 <= r["v"] <= 710 for r in rows)
    assert any(r["v"] is not None for r in rows)
    both = sql.replace("w INT", "`b.v` INT")
    with pytest.raises(SpecError, match="names both a's column b.v and a.b's column v"):
        generate(_spec(both, columns={"a.b.v": {"gen": "int", "min": 700, "max": 710}}), tmp_path / "two")
