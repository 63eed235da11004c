"""Loading a run's snapshot.sql into the replica's tables (generators/replica/provision.py,
docs/replica.md "Initial rows"). Every expected value is what a real MariaDB 10.11 server
stored (or the error it gave) for the same INSERT under snapshot.sql's session settings
(``SET NAMES utf8mb4; SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'``), read by hand while
writing the model; tests/conformance/test_replica_truth.py loads whole runs into a live replica."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.schema import parse_tables
from generators.replica.lookup import ReplicaTable
from generators.replica.provision import ProvisioningError, provision, write_provision_sql

PRIMARY = ("CREATE TABLE t (id INT PRIMARY KEY, a INT, d DECIMAL(10,3), c VARCHAR(20) CHARACTER SET utf8mb4, "
           "e ENUM('X','Y','zz','2'), s SET('q','z','P','3'), n INT, f DOUBLE, tt TEXT CHARACTER SET utf8mb4);")
REPLICA = ("CREATE TABLE t (id INT PRIMARY KEY, a TINYINT, d DECIMAL(4,1), c VARCHAR(3) CHARACTER SET latin1, "
           "e ENUM('x','y'), s SET('p','q'), n INT NOT NULL, f FLOAT, tt TINYTEXT CHARACTER SET utf8mb4, "
           "x INT NOT NULL, y VARCHAR(3) NOT NULL, w DECIMAL(5,2) DEFAULT 1.5);")


def _load(tmp_path: Path, inserts: str, replica: str = REPLICA) -> list[dict]:
    snap = tmp_path / "snapshot.sql"
    snap.write_text("SET NAMES utf8mb4;\nSET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\n"
                    f"CREATE DATABASE IF NOT EXISTS `d`;\nUSE `d`;\n{PRIMARY}\n{inserts}", "utf-8")
    rt = ReplicaTable(parse_tables(replica, "d", "mariadb1011")[0])
    primary = {"d.t": list(parse_tables(PRIMARY, "d", "mariadb1011")[0].columns)}
    provision(snap, "d", {"d.t": rt}, primary)
    return sorted(rt, key=lambda r: r["id"])


def test_values_as_the_server_stores_them(tmp_path: Path) -> None:
    rows = _load(tmp_path, "INSERT INTO `d`.`t` (`id`, `a`, `d`, `c`, `e`, `s`, `n`, `f`, `tt`) VALUES\n"
                 "(1, 300, 12345.670, 'ab中cdef', 'Y ', 'q,z,P', NULL, 1e40, REPEAT),\n"
                 "(2, -300, -0.050, 'é€x', 'zz', '', 5, 0.1, ''),\n"
                 "(3, 1, 1.005, '中a', '2', '3', 1, 1.0, '中x');\n".replace("REPEAT", "'" + "é" * 200 + "'"))
    common = {"x": 0, "y": "", "w": "1.50"}
    assert rows == [
        {"id": 1, "a": 127, "d": "999.9", "c": "ab?", "e": "y", "s": "p,q", "n": 0, "f": 3.4028234663852886e38,
         "tt": "é" * 127, **common},
        {"id": 2, "a": -128, "d": "-0.1", "c": "é€x", "e": "", "s": "", "n": 5, "f": 0.10000000149011612,
         "tt": "", **common},
        {"id": 3, "a": 1, "d": "1.0", "c": "?a", "e": "y", "s": "p,q", "n": 1, "f": 1.0, "tt": "中x", **common},
    ]


def test_null_into_not_null_is_the_implicit_default_in_a_multi_row_insert(tmp_path: Path) -> None:
    replica = ("CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, d DECIMAL(5,2) NOT NULL, c CHAR(3) NOT NULL, "
               "e ENUM('x','y') NOT NULL, s SET('p','q') NOT NULL, n INT, f FLOAT NOT NULL);")
    rows = _load(tmp_path, "INSERT INTO `d`.`t` (`id`, `a`, `d`, `c`, `e`, `s`, `f`) VALUES\n"
                 "(1, NULL, NULL, NULL, NULL, NULL, NULL),\n(2, 1, 1.005, 'ab ', 'X', 'P', 1.5);\n", replica)
    assert rows == [{"id": 1, "a": 0, "d": "0.00", "c": "", "e": "x", "s": "", "n": None, "f": 0.0},
                    {"id": 2, "a": 1, "d": "1.01", "c": "ab", "e": "x", "s": "p", "n": None, "f": 1.5}]


@pytest.mark.parametrize("inserts, message", [
    ("INSERT INTO `d`.`t` (`id`, `n`) VALUES\n(3, NULL);\n",
     "truth/snapshot.sql:6: d.t.n row 1: error 1048: Column 'n' cannot be null"),
    ("INSERT INTO `d`.`t` (`id`, `a`) VALUES\n(6, 1),\n(6, 1);\n",
     "truth/snapshot.sql:6: d.t row 2: error 1062: Duplicate entry '6' for key 'PRIMARY'"),
    ("INSERT INTO `d`.`t` (`id`, `q`) VALUES\n(6, 1);\n",
     "truth/snapshot.sql:6: d.t.q: error 1054: Unknown column 'q' in 'INSERT INTO'"),
])
def test_where_the_load_stops_is_one_line(tmp_path: Path, inserts: str, message: str) -> None:
    with pytest.raises(ProvisioningError) as e:
        _load(tmp_path, inserts)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_provision_sql_is_the_snapshot_with_the_replica_tables(tmp_path: Path) -> None:
    snap = tmp_path / "snapshot.sql"
    snap.write_text("SET NAMES utf8mb4;\nCREATE DATABASE IF NOT EXISTS `d`;\nUSE `d`;\n"
                    "CREATE TABLE t (id INT PRIMARY KEY,\n  c VARCHAR(5) COMMENT 'a;\nb');\n"
                    "INSERT INTO `d`.`t` (`id`, `c`) VALUES\n(1, 'x;');\n", "utf-8")
    write_provision_sql(snap, "CREATE TABLE t (id INT PRIMARY KEY, c TEXT);", "d", tmp_path / "p.sql")
    body = (tmp_path / "p.sql").read_text("utf-8").split("\n", 2)[2]
    assert body == ("SET NAMES utf8mb4;\nCREATE DATABASE IF NOT EXISTS `d`;\nUSE `d`;\n"
                    "CREATE TABLE t (id INT PRIMARY KEY, c TEXT);\nINSERT INTO `d`.`t` (`id`, `c`) VALUES\n(1, 'x;');\n")
