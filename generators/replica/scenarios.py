"""The replica scenarios of docs/replica.md (WL#4618 scenarios 1, 2, 4; WL#5092): each a
primary schema, a replica schema, the replica's ``slave_type_conversions`` and the row image.
``tests/conformance/test_replica_truth.py`` runs each against a real MariaDB 10.11 replica."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    name: str
    primary: str
    replica: str
    conversions: str = ""
    row_image: str = "FULL"
    what: str = ""
    ddl_every: int = 0


SCENARIOS = (
    Scenario("charset", "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20) CHARACTER SET latin1, "
             "x TEXT CHARACTER SET latin1);",
             "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20) CHARACTER SET utf8mb4, "
             "x TEXT CHARACTER SET utf8mb4);", "ALL_NON_LOSSY",
             what="latin1 -> utf8mb4: bytes land unconverted (VARCHAR needs ALL_NON_LOSSY, TEXT nothing)"),
    Scenario("charset-refused", "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20) CHARACTER SET latin1);",
             "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20) CHARACTER SET utf8mb4);",
             what="20 octets -> 80 octets without ALL_NON_LOSSY: error 1677"),
    Scenario("signedness", "CREATE TABLE t (id INT PRIMARY KEY, a INT UNSIGNED, b TINYINT UNSIGNED);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, b SMALLINT);", "ALL_NON_LOSSY",
             what="bits re-read with the replica's signedness: 4294967295 -> -1, 255 -> -1"),
    Scenario("narrowing", "CREATE TABLE t (id INT PRIMARY KEY, a BIGINT, d DECIMAL(8,3), "
             "c VARCHAR(40) CHARACTER SET utf8mb4);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, d DECIMAL(6,1), c VARCHAR(5) CHARACTER SET utf8mb4);",
             "ALL_LOSSY", what="clamped integers, rounded and clamped DECIMAL, VARCHAR cut"),
    Scenario("widening", "CREATE TABLE t (id INT PRIMARY KEY, a SMALLINT, f FLOAT, d DECIMAL(6,2));",
             "CREATE TABLE t (id INT PRIMARY KEY, a BIGINT, f DOUBLE, d DECIMAL(10,4));", "ALL_NON_LOSSY",
             what="subset -> superset"),
    Scenario("extra-columns", "CREATE TABLE t (id INT PRIMARY KEY, a INT);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, x INT NOT NULL, y VARCHAR(5) DEFAULT 'n/a', "
             "z TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, w DECIMAL(5,2) DEFAULT 1.5);",
             what="extra replica columns take their defaults; CURRENT_TIMESTAMP is not evaluated"),
    Scenario("dropped-columns", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT);", what="columns past the replica's last are ignored"),
    Scenario("reordered-columns", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT);",
             "CREATE TABLE t (id INT PRIMARY KEY, b INT, a INT);",
             what="mapped by position, not by name: a's values land in b"),
    Scenario("enum-reorder", "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('x','y','z'), s SET('p','q','r'));",
             "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('z','y','x','w'), s SET('r','q','p'));",
             what="ENUM index and SET bitmask kept, read against the replica's members"),
    Scenario("minimal-other-key", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10));",
             "CREATE TABLE t (id INT, a INT, b VARCHAR(10), PRIMARY KEY (a, id));", row_image="MINIMAL",
             what="MINIMAL before image holds the primary's key: the replica's key misses it, 1032"),
    Scenario("minimal-no-key", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10));",
             "CREATE TABLE t (id INT, a INT, b VARCHAR(10));", row_image="MINIMAL",
             what="no key on the replica: the scan compares every column, 1032"),
    Scenario("converted-key-collision", "CREATE TABLE t (id INT PRIMARY KEY, a BIGINT);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, UNIQUE KEY (a));", "ALL_LOSSY",
             what="BIGINTs clamped to INT's range collide in a unique key: 1062"),
    Scenario("ddl-same-shape", "CREATE TABLE t (id INT PRIMARY KEY, a INT, c VARCHAR(20));",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, c VARCHAR(20));", ddl_every=12,
             what="the replica runs each ALTER (ADD / DROP COLUMN ddl_P) on its own table: same shape, same rows"),
    Scenario("ddl-after-extra-column", "CREATE TABLE t (id INT PRIMARY KEY, a INT);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, x INT DEFAULT 5);", ddl_every=5,
             what="the replica's ddl_1 lands after its extra column x; the primary's ddl_1 (VARCHAR) maps onto x "
                  "(INT) by position: 1677"),
    Scenario("ddl-duplicate-column", "CREATE TABLE t (id INT PRIMARY KEY, a INT);",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT, ddl_1 INT);", ddl_every=5,
             what="the replica already has ddl_1: its ALTER fails, 1060"),
    Scenario("ddl-replica-charset", "CREATE TABLE t (id INT PRIMARY KEY, a INT) DEFAULT CHARSET=utf8mb4;",
             "CREATE TABLE t (id INT PRIMARY KEY, a INT) DEFAULT CHARSET=latin1;", "ALL_LOSSY", ddl_every=25,
             what="the added VARCHAR(40) takes each table's own charset: 160 octets -> 40, bytes kept"),
)
