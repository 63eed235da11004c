"""A ``--schema`` script is read as a server runs it (generators/workloads/custom.py
``_final_tables``): the tables it leaves are the ones generated — ``CREATE TABLE IF NOT
EXISTS`` of a table made already does nothing, ``DROP TABLE`` then ``CREATE`` (and
MariaDB's ``CREATE OR REPLACE TABLE``) make it anew, a table dropped for good is gone; a
second plain CREATE is refused, as the server refuses it."""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from generators.spec import Spec
from generators.workloads import load_workload


def _tables(sql: str) -> dict[str, list[str]]:
    spec = Spec.from_dict(dict(workload=None, schema_sql=sql, schema_file="s.sql", database="db"))
    return {td.name: [c.name for c in td.table.columns] for td in load_workload(spec).tables}


def test_if_not_exists_keeps_the_first_definition() -> None:
    sql = ("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, a INT);\n"
           "CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, b INT);\nCREATE TABLE u (id INT PRIMARY KEY);\n")
    assert _tables(sql) == {"t": ["id", "a"], "u": ["id"]}


@pytest.mark.parametrize("between", ["DROP TABLE t;", "DROP TABLE IF EXISTS `db`.`t`, u;", "/*!40101 DROP TABLE t */;"])
def test_a_dropped_table_made_again_is_the_new_one(between: str) -> None:
    sql = (f"CREATE TABLE t (id INT PRIMARY KEY, a INT);\nCREATE TABLE u (id INT PRIMARY KEY);\n{between}\n"
           "CREATE TABLE t (id BIGINT PRIMARY KEY, b VARCHAR(3));\n")
    got = _tables(sql)
    assert got["t"] == ["id", "b"] and ("u" in got) == ("u;" not in between)


def test_or_replace_makes_it_anew() -> None:
    sql = "CREATE TABLE t (id INT PRIMARY KEY, a INT);\nCREATE OR REPLACE TABLE t (id INT PRIMARY KEY, c INT);\n"
    assert _tables(sql) == {"t": ["id", "c"]}


def test_a_table_dropped_for_good_is_gone() -> None:
    sql = "CREATE TABLE t (id INT PRIMARY KEY);\nCREATE TABLE tmp (x INT);\nDROP TABLE tmp;\n"
    assert _tables(sql) == {"t": ["id"]}


@pytest.mark.parametrize(("sql", "message"), [
    ("CREATE TABLE t (id INT PRIMARY KEY);\nCREATE TABLE t (id INT PRIMARY KEY);\n", "table db.t is defined twice"),
    ("CREATE TABLE t (id INT PRIMARY KEY);\nDROP TABLE t;\n", "drops every table it creates"),
])
def test_what_a_server_refuses_or_leaves_empty_is_a_schema_error(sql: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        _tables(sql)


def test_bytes_that_are_not_utf8_outside_what_is_read_are_left(tmp_path) -> None:
    """mysqldump writes BLOB values as raw bytes: the INSERT is not read, the file loads
    (as the ``mariadb`` client loads it); a CREATE TABLE that is not UTF-8 is refused with
    its line."""
    from click.testing import CliRunner

    from binlogwriter.cli import main as cli_main
    from generators.spec_file import schema_text

    dump = (b"-- caf\xe9 (latin1)\nCREATE TABLE t (id INT PRIMARY KEY, b BLOB);\n-- a comment \xe9\n"
            b"INSERT INTO t VALUES (1, _binary '\xff\xfe');\n/*!40000 ALTER TABLE t ENABLE KEYS */;\n")
    text = schema_text(dump, "d.sql")
    assert "CREATE TABLE t (id INT PRIMARY KEY, b BLOB);" in text and "'??'" in text
    (tmp_path / "d.sql").write_bytes(dump)
    r = CliRunner().invoke(cli_main, ["generate", "--schema", str(tmp_path / "d.sql"), "--out", str(tmp_path / "o"),
                                      "--transactions", "5", "--no-progress"])
    assert r.exit_code == 0, r.output
    (tmp_path / "bad.sql").write_bytes(b"CREATE TABLE t (id INT PRIMARY KEY);\nCREATE TABLE u (\n c VARCHAR(9) "
                                       b"COMMENT 'caf\xe9');\n")
    r = CliRunner().invoke(cli_main, ["generate", "--schema", str(tmp_path / "bad.sql"), "--out", str(tmp_path / "p")])
    assert r.exit_code == 2 and "bad.sql:2: the statement is not UTF-8 text" in r.output, r.output


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_without_overlaps_key_is_refused_naming_the_clause(flavor: str) -> None:
    """A MariaDB ``WITHOUT OVERLAPS`` key needs periods that do not overlap per key: refused
    before the CHECK of its PERIOD FOR (a replay of unchecked rows would fail on the server)."""
    sql = ("CREATE TABLE wo (id INT, s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p(s, e), "
           "PRIMARY KEY (id, p WITHOUT OVERLAPS));\n")
    spec = Spec.from_dict(dict(workload=None, schema_sql=sql, schema_file="s.sql", database="db", flavor=flavor))
    with pytest.raises(SchemaError) as ei:
        load_workload(spec)
    msg = str(ei.value)
    assert "PRIMARY KEY (id, p WITHOUT OVERLAPS) of table db.wo cannot be followed by the generator" in msg
    assert "\n" not in msg
