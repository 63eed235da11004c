"""The replica model's rules (generators/replica/, docs/replica.md) on values read from a real
MariaDB 10.11 replica (slave_type_conversions as given) by hand while writing the model: every
expected value below is what that replica printed, not what the model computes.
tests/conformance/test_replica_truth.py checks whole runs against a live replica."""

from __future__ import annotations

import pytest

from binlogwriter.schema import parse_tables
from generators.replica.classes import UnsupportedConversion, map_columns
from generators.replica.convert import convert, default_value


def _pairs(primary: str, replica: str):
    p = parse_tables(f"CREATE TABLE t (id INT PRIMARY KEY, {primary});", "d", "mariadb1011")[0]
    r = parse_tables(f"CREATE TABLE t (id INT PRIMARY KEY, {replica});", "d", "mariadb1011")[0]
    return map_columns("d.t", list(p.columns), list(r.columns))


@pytest.mark.parametrize("primary, replica, value, stored", [
    ("a INT UNSIGNED", "a INT", 4294967295, -1),                 # exact: bits re-read
    ("a TINYINT UNSIGNED", "a SMALLINT", 236, -20),
    ("a MEDIUMINT UNSIGNED", "a INT", 16777215, -1),
    ("a TINYINT", "a SMALLINT UNSIGNED", -128, 128),
    ("a BIGINT", "a INT UNSIGNED", -8388608, 4294967295),
    ("a BIGINT", "a INT", 4294967295, 2147483647),
    ("a BIGINT", "a INT", -717643273520, -2147483648),
    ("a INT UNSIGNED", "a SMALLINT", 65535, 32767),
    ("a DECIMAL(8,3)", "a DECIMAL(6,1)", "99999.999", "99999.9"),
    ("a DECIMAL(8,3)", "a DECIMAL(6,1)", "-0.001", "0.0"),
    ("a DECIMAL(8,3)", "a DECIMAL(6,1)", "20636.465", "20636.5"),
    ("a DECIMAL(5,0)", "a DECIMAL(6,4)", "18493", "99.9999"),
    ("a DECIMAL(1,0)", "a DECIMAL(1,1)", "3", "0.9"),
    ("a VARCHAR(20) CHARACTER SET latin1", "a VARCHAR(5) CHARACTER SET utf8mb4",
     "xxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxx"),              # 20 octets both: exact
    ("a VARCHAR(20) CHARACTER SET latin1", "a VARCHAR(20) CHARACTER SET utf8mb4",
     "é€é€é€é€é€é€é€", {"hex": "e980e980e980e980e980e980e980"}),
    ("a VARCHAR(40) CHARACTER SET latin1", "a VARCHAR(5) CHARACTER SET utf8mb4",
     "agree economic popular candidate talk st", "agree"),
    ("a VARCHAR(40) CHARACTER SET latin1", "a VARCHAR(5) CHARACTER SET utf8mb4", "é€é€é€é€", ""),
    ("a VARCHAR(20) CHARACTER SET utf8mb4", "a VARCHAR(5) CHARACTER SET utf8mb4", "know once brother", "know "),
    ("a CHAR(10) CHARACTER SET utf8mb4", "a CHAR(3) CHARACTER SET utf8mb4", "é€中é€中é€中é", "é€中"),
    ("a ENUM('x','y','z')", "a ENUM('z','y','x','w')", "x", "z"),
    ("a ENUM('c','b','a','d')", "a ENUM('a','b','c')", "d", ""),
    ("a SET('p','q','r')", "a SET('r','q','p')", "p,q", "r,q"),
    ("a SET('a','b','c','d')", "a SET('a','b')", "c,d", ""),
    ("a FLOAT", "a DOUBLE", 0.10000000149011612, 0.10000000149011612),
])
def test_value_as_the_replica_stores_it(primary: str, replica: str, value, stored) -> None:
    assert convert(_pairs(primary, replica)[1], value) == stored


@pytest.mark.parametrize("primary, replica, allowed_with, message", [
    ("a SMALLINT", "a INT", "ALL_NON_LOSSY", "from type 'smallint' to type 'int(11)'"),
    ("a INT UNSIGNED", "a SMALLINT UNSIGNED", "ALL_LOSSY", "from type 'int' to type 'smallint(5) unsigned'"),
    ("a TINYINT UNSIGNED", "a BIGINT UNSIGNED", "ALL_NON_LOSSY", "from type 'tinyint' to type 'bigint(20) unsigned'"),
    ("a DECIMAL(8,3)", "a DECIMAL(6,1)", "ALL_LOSSY", "from type 'decimal(8,3)' to type 'decimal(6,1)'"),
    ("a DECIMAL(8,3)", "a DECIMAL(10,3)", "ALL_NON_LOSSY", "from type 'decimal(8,3)' to type 'decimal(10,3)'"),
    ("a FLOAT", "a DOUBLE", "ALL_NON_LOSSY", "from type 'float' to type 'double'"),
    ("a VARCHAR(20) CHARACTER SET latin1", "a VARCHAR(20) CHARACTER SET utf8mb4", "ALL_NON_LOSSY",
     "from type 'varchar(20 octets)' to type 'varchar(80 octets) character set utf8mb4'"),
    ("a VARCHAR(10) CHARACTER SET utf8mb4", "a VARCHAR(20) CHARACTER SET latin1", "ALL_LOSSY",
     "from type 'varchar(40 octets)' to type 'varchar(20 octets) character set latin1'"),
    ("a CHAR(10) CHARACTER SET latin1", "a CHAR(10) CHARACTER SET utf8mb4", "ALL_NON_LOSSY",
     "from type 'char(10 octets)' to type 'char(40 octets) character set utf8mb4'"),
    ("a INT", "a VARCHAR(20)", None, "from type 'int' to type 'varchar(80 octets) character set utf8mb4'"),
])
def test_conversion_needs_its_setting_else_1677(primary, replica, allowed_with, message) -> None:
    pair = _pairs(primary, replica)[1]
    assert not pair.allowed(())
    assert pair.error_1677() == f"Column 1 of table 'd.t' cannot be converted {message}"
    assert pair.allowed(("ALL_LOSSY", "ALL_NON_LOSSY")) == (allowed_with is not None)
    if allowed_with is not None:
        assert pair.allowed((allowed_with,))


@pytest.mark.parametrize("primary, replica", [
    ("a INT UNSIGNED", "a INT"), ("a TEXT CHARACTER SET latin1", "a TEXT CHARACTER SET utf8mb4"),
    ("a ENUM('x','y')", "a ENUM('y','x','z')"), ("a SET('x','y')", "a SET('y','x','z')"),
    ("a VARCHAR(20) CHARACTER SET latin1", "a VARCHAR(5) CHARACTER SET utf8mb4"),
])
def test_exact_pairs_need_no_setting(primary: str, replica: str) -> None:
    assert _pairs(primary, replica)[1].allowed(())


def test_extra_columns_defaults() -> None:
    t = parse_tables("CREATE TABLE t (x INT NOT NULL, y VARCHAR(5) NOT NULL, z TIMESTAMP NOT NULL DEFAULT "
                     "CURRENT_TIMESTAMP, w DATETIME DEFAULT '2020-01-01 00:00:00', v DECIMAL(5,2) DEFAULT 1.5, "
                     "u ENUM('q','r') NOT NULL, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP, e INT DEFAULT 7);",
                     "d", "mariadb1011")[0]
    got = [default_value("d.t", c) for c in t.columns]
    assert got == [0, "", "0000-00-00 00:00:00", "2020-01-01 00:00:00", "1.50", "q", None, 7]


def test_extra_column_string_default_read_with_its_escapes() -> None:
    """``DEFAULT 'a\\\\b''c'`` is the text ``a\\b'c`` (a backslash escapes under the default sql_mode)."""
    t = parse_tables(r"CREATE TABLE t (x INT, y VARCHAR(9) DEFAULT 'a\\b''c', z CHAR(3) DEFAULT '\\');", "d",
                     "mariadb1011")[0]
    assert [default_value("d.t", c) for c in t.columns[1:]] == ["a\\b'c", "\\"]


def test_unknown_pair_is_one_line_naming_the_column() -> None:
    with pytest.raises(UnsupportedConversion, match=r"^unsupported conversion: d\.t\.a: "):
        _pairs("a CHAR(5)", "a VARCHAR(5)")
