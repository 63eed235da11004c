"""The DDL parser and `generate --schema` on CREATE TABLE statements as applications write
them (issue #28 item 5): each is either accepted — generated, and, when MariaDB 10.11 accepts
the statement, `truth/snapshot.sql` plus the replay give `truth/final` — or refused with one
line (exit status 2) naming the clause and the table or column.

tests/data/real_world_schemas/ holds whole schemas written for this test in the style of
WordPress, Magento, Drupal, Redmine and MediaWiki dumps; CLAUSES one statement per clause
of MySQL 8.0 / 8.4 and MariaDB 10.11 CREATE TABLE. ``replay`` is False for MySQL-only syntax
(MariaDB refuses it; the run is still generated and read back).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main

from .mariadb import MariaDBServer
from .schema_runs import replay_matches_truth
from .test_generate_replay import check_readers

pytestmark = pytest.mark.conformance

SCHEMAS = Path(__file__).parent.parent / "data" / "real_world_schemas"

T = "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, "
# (id, flavor, DDL, replay into MariaDB, None = accepted | what the one-line error says)
CLAUSES = [
    ("default-expr", "mariadb1011", T + "u VARCHAR(36) DEFAULT (UUID()), n INT DEFAULT (1 + 2))", True, None),
    (
        "default-expr-mysql",
        "mysql84",
        T + "u BINARY(16) DEFAULT (UUID_TO_BIN(UUID())), d DATE DEFAULT (CURRENT_DATE + INTERVAL 1 DAY))",
        False,
        None,
    ),
    (
        "default-hex-bit",
        "mariadb1011",
        T + "flags BIT(64) NOT NULL DEFAULT b'0', h VARBINARY(4) DEFAULT X'00ff', "
        "b BIT(3) DEFAULT 0b101, y YEAR)",
        True,
        None,
    ),
    ("invisible", "mariadb1011", T + "x INT INVISIBLE, y INT)", True, None),
    (
        "float-double-m-d",  # the deprecated (M,D) form: the server rounds and clips what SQL gives it
        "mariadb1011",
        T + "f FLOAT(7,3), d DOUBLE(10,4) UNSIGNED, r REAL(5,2) NOT NULL, g FLOAT(4,0), "
        "p DOUBLE PRECISION(3,3), w DOUBLE(30,20), k FLOAT(10,2) UNSIGNED NOT NULL)",
        True,
        None,
    ),
    (
        "float-double-m-d-keyless",  # no key: a replayed UPDATE / DELETE finds its row by every value, so
        # each double must be the one the server stored for snapshot.sql's INSERT (zabbix's history tables)
        "mariadb1011",
        "CREATE TABLE h (itemid BIGINT UNSIGNED NOT NULL, d DOUBLE(16,4) NOT NULL, e DOUBLE(17,17), "
        "g DOUBLE(30,20), f FLOAT(7,3), u DOUBLE(10,2) UNSIGNED)",
        True,
        None,
    ),
    (
        "float-double-m-d-keyless-mysql",
        "mysql80",
        "CREATE TABLE h (d DOUBLE(16,4) NOT NULL, e DOUBLE(12,6), n DOUBLE(8,3) NOT NULL)",
        True,
        None,
    ),
    (
        "narrow-and-prefix-keys",  # keys that hold fewer values than --initial-rows asks, and prefix keys:
        # each table holds what its keys tell apart, the prefixes differ (binary keys little-endian)
        "mariadb1011",
        "CREATE TABLE t1 (b BINARY(1) NOT NULL, v INT, PRIMARY KEY (b));\n"
        "CREATE TABLE t2 (id INT PRIMARY KEY, d DECIMAL(3,2) NOT NULL, UNIQUE KEY (d));\n"
        "CREATE TABLE t3 (d DECIMAL(5,3) NOT NULL PRIMARY KEY, v INT);\n"
        "CREATE TABLE t4 (id INT PRIMARY KEY, b VARBINARY(50) NOT NULL, UNIQUE KEY (b(1)));\n"
        "CREATE TABLE t5 (b BLOB NOT NULL, v INT, PRIMARY KEY (b(7)));\n"
        "CREATE TABLE t6 (c CHAR(2) NOT NULL PRIMARY KEY, e ENUM('x', 'y') NOT NULL, UNIQUE KEY (e, c))",
        True,
        None,
    ),
    (
        "sequence-default",  # MariaDB sequences a column's DEFAULT reads: snapshot.sql makes them first
        "mariadb1011",
        "CREATE SEQUENCE s1;\nCREATE TABLE t (id BIGINT NOT NULL DEFAULT nextval(s1) PRIMARY KEY, v INT);\n"
        "CREATE SEQUENCE IF NOT EXISTS s2 START WITH 100 INCREMENT BY 10;\n"
        "CREATE TABLE u (id INT NOT NULL PRIMARY KEY, w BIGINT DEFAULT (NEXTVAL(s2)));\n"
        "CREATE TABLE n (id BIGINT NOT NULL DEFAULT NEXT VALUE FOR s2 PRIMARY KEY, "
        "p BIGINT DEFAULT PREVIOUS VALUE FOR s1, q BIGINT DEFAULT lastval(s2))",
        True,
        None,
    ),
    (
        "alter-partition-by",  # the partitioning given after CREATE TABLE (the employees sample): folded,
        # and its DATE key column held below the last bound
        "mariadb1011",
        "CREATE TABLE titles (emp_no INT NOT NULL, title VARCHAR(50) NOT NULL, from_date DATE NOT NULL, "
        "PRIMARY KEY (emp_no, title, from_date));\n/*!50510 ALTER TABLE titles PARTITION BY RANGE COLUMNS "
        "(from_date) (PARTITION p01 VALUES LESS THAN ('1985-12-31'), PARTITION p02 VALUES LESS THAN "
        "('2000-03-01')) */",
        True,
        None,
    ),
    (
        "fk-to-absent-table",  # a dump made with foreign_key_checks=0 refers to a table it does not hold
        "mariadb1011",
        "CREATE TABLE c (id INT PRIMARY KEY, gone_id INT NULL, v INT, KEY (gone_id), "
        "CONSTRAINT fk_gone FOREIGN KEY (gone_id) REFERENCES gone (id))",
        True,
        None,
    ),
    (
        "charset-collate-default",  # DEFAULT: the database's charset, its default collation (MariaDB)
        "mariadb1011",
        "CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL, UNIQUE KEY (v)) CHARACTER SET default "
        "COLLATE default;\nCREATE TABLE t2 (id INT PRIMARY KEY, v VARCHAR(20)) DEFAULT CHARSET=default;\n"
        "CREATE TABLE t3 (id INT PRIMARY KEY, v VARCHAR(20) COLLATE default, w VARCHAR(9) CHARACTER SET latin1 "
        "COLLATE default NOT NULL, UNIQUE KEY (w)) CHARACTER SET latin1 COLLATE latin1_bin",
        True,
        None,
    ),
    (
        "geometry-prefix-key",  # a geometry value is stored as a BLOB: a plain key takes a prefix of it
        "mariadb1011",
        T + "p POLYGON NOT NULL, g GEOMETRY, KEY k (p(32)), KEY k2 (g(100), id))",
        True,
        None,
    ),
    (
        "geometry-prefix-unique",
        "mariadb1011",
        T + "g GEOMETRY, UNIQUE KEY k (g(32)))",
        False,
        "column t.g: type GEOMETRY cannot be part of a generated key",
    ),
    ("comment", "mariadb1011", T + "x INT COMMENT 'the x' NOT NULL) COMMENT = 'a table'", True, None),
    (
        "collate-first",
        "mysql80",
        T + "s VARCHAR(10) COLLATE utf8mb4_bin CHARACTER SET utf8mb4 NOT NULL)",
        False,  # MariaDB wants CHARACTER SET first
        None,
    ),
    (
        "charset-after-null",
        "mysql80",
        T + "c CHAR(3) NOT NULL CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'a')",
        False,  # MariaDB wants the charset right after the type
        None,
    ),
    (
        "charset-quoted",
        "mariadb1011",
        T + "s VARCHAR(5) CHARACTER SET 'utf8mb4' COLLATE 'utf8mb4_bin')",
        True,
        None,
    ),
    ("partition-hash", "mariadb1011", T + "x INT) PARTITION BY HASH (id) PARTITIONS 3", True, None),
    (
        "partition-range-sub",
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) "
        "PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2 "
        "(PARTITION p0 VALUES LESS THAN (2000), PARTITION p1 VALUES LESS THAN MAXVALUE)",
        True,
        None,
    ),
    (
        "partition-list-key",  # the listed column is in the key: its values cycle through the lists, the
        # key's other column keeps the rows apart (generators/workloads/custom.py listed_key)
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, r CHAR(2) NOT NULL, v INT, PRIMARY KEY (id, r)) "
        "PARTITION BY LIST COLUMNS (r) (PARTITION pe VALUES IN ('EU'), PARTITION pa VALUES IN ('US', 'CA'));\n"
        "CREATE TABLE u (id BIGINT NOT NULL AUTO_INCREMENT, kind TINYINT NOT NULL, at DATETIME NOT NULL, "
        "UNIQUE KEY uk (kind, at, id), PRIMARY KEY (id, kind)) "
        "PARTITION BY LIST (kind) (PARTITION a VALUES IN (1, 2, 3), PARTITION b VALUES IN (7))",
        True,
        None,
    ),
    (
        "partition-range-key",  # a DATE / DATETIME partitioning column in the key, no MAXVALUE: its values stay
        # below the last bound (the first N its key generator gives, generators/key_space.py key_wraps)
        "mariadb1011",
        "CREATE TABLE logs (id BIGINT NOT NULL AUTO_INCREMENT, created DATETIME NOT NULL, msg VARCHAR(40), "
        "PRIMARY KEY (id, created)) PARTITION BY RANGE COLUMNS (created) "
        "(PARTITION p23 VALUES LESS THAN ('2024-01-01'), PARTITION p24 VALUES LESS THAN ('2025-01-01'));\n"
        "CREATE TABLE daily (d DATE NOT NULL, shop INT NOT NULL, total DECIMAL(12,2), PRIMARY KEY (shop, d)) "
        "PARTITION BY RANGE COLUMNS (d) (PARTITION p0 VALUES LESS THAN ('2000-03-01'))",
        True,
        None,
    ),
    (
        "partition-range-int-key",  # an integer key column below a bound: its values count up from 1 and
        # wrap at the bound (generators/key_space.py counts_up); the sole key column caps the table's rows
        # (29 here, fewer than the run inserts: the later INSERTs of a full table are skipped)
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, k INT NOT NULL, PRIMARY KEY (id, k)) "
        "PARTITION BY RANGE (k) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN (200));\n"
        "CREATE TABLE s (id INT UNSIGNED NOT NULL PRIMARY KEY, v VARCHAR(10), CHECK (id >= 1)) "
        "PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (30));\n"
        "CREATE TABLE o (id BIGINT NOT NULL, region SMALLINT NOT NULL, at DATE NOT NULL, amount DECIMAL(8,2), "
        "PRIMARY KEY (id, region), UNIQUE KEY (region, at, id)) /*!50100 PARTITION BY RANGE (region) "
        "(PARTITION p0 VALUES LESS THAN (4) ENGINE = InnoDB, PARTITION p1 VALUES LESS THAN (8) ENGINE = InnoDB) */",
        True,
        None,
    ),
    (
        "check-key-referenced",  # a FOREIGN KEY refers to key columns a CHECK restricts (InnoDB refuses one
        # on a partitioned table): the children take the values the parent's rows have, listed or below a bound
        "mariadb1011",
        "CREATE TABLE acct (id INT NOT NULL, r CHAR(2) NOT NULL, PRIMARY KEY (id, r), "
        "CONSTRAINT r_known CHECK (r IN ('EU', 'US', 'CA')));\n"
        "CREATE TABLE shop (id SMALLINT NOT NULL PRIMARY KEY, name VARCHAR(20), CHECK (id BETWEEN 1 AND 49));\n"
        "CREATE TABLE payment (id INT NOT NULL PRIMARY KEY, acct_id INT NOT NULL, acct_r CHAR(2) NOT NULL, "
        "shop_id SMALLINT, KEY (acct_id, acct_r), FOREIGN KEY (acct_id, acct_r) REFERENCES acct (id, r), "
        "FOREIGN KEY (shop_id) REFERENCES shop (id))",
        True,
        None,
    ),
    (
        "partition-range-int-key-negative",  # the last bound below the first counting value
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, k INT NOT NULL, PRIMARY KEY (id, k)) "
        "PARTITION BY RANGE (k) (PARTITION p0 VALUES LESS THAN (-5))",
        False,
        "the partitioning of table c_partition_range_int_key_negative.t.k cannot be followed by the generator: "
        "its key values start at 1",
    ),
    (
        "partition-list-key-capped",  # the key's other column held below a bound: the rows cannot be kept apart
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, r CHAR(2) NOT NULL, PRIMARY KEY (id, r), CHECK (id < 10)) "
        "PARTITION BY LIST COLUMNS (r) (PARTITION pe VALUES IN ('EU'), PARTITION pa VALUES IN ('US', 'CA'))",
        False,
        "the CHECK constraints and partitioning of table c_partition_list_key_capped.t",
    ),
    (
        "partition-list-whole-key",  # the listed column is a whole key: three values cannot tell rows apart
        "mariadb1011",
        "CREATE TABLE t (r CHAR(2) NOT NULL PRIMARY KEY, v INT) "
        "PARTITION BY LIST COLUMNS (r) (PARTITION pe VALUES IN ('EU'), PARTITION pa VALUES IN ('US', 'CA'))",
        False,
        "the partitioning of table c_partition_list_whole_key.t",
    ),
    (
        "partition-list",  # rows only with the listed values (NULL where a list holds it)
        "mariadb1011",
        "CREATE TABLE t (id INT, r CHAR(2) NOT NULL, v INT, w INT) "
        "PARTITION BY LIST COLUMNS (r) (PARTITION pe VALUES IN ('EU'), PARTITION pa VALUES IN ('US', 'CA'));\n"
        "CREATE TABLE u (a INT, b INT) PARTITION BY LIST (a) (PARTITION p0 VALUES IN (1, 2, NULL), "
        "PARTITION p1 VALUES IN (3, 4))",
        True,
        None,
    ),
    (
        "partition-range-no-maxvalue",  # rows below the last bound
        "mariadb1011",
        "CREATE TABLE t (id INT, created DATETIME NOT NULL, n INT) PARTITION BY RANGE COLUMNS (created) "
        "(PARTITION p0 VALUES LESS THAN ('2024-01-01'), PARTITION p1 VALUES LESS THAN ('2026-06-01'));\n"
        "CREATE TABLE u (id INT, k SMALLINT NOT NULL) /*!50100 PARTITION BY RANGE (k) "
        "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (500)) */",
        True,
        None,
    ),
    (
        "partition-range-expression",  # not a column, nor a function growing with time
        "mariadb1011",
        "CREATE TABLE t (id INT, d DATE NOT NULL) PARTITION BY RANGE (MONTH(d)) "
        "(PARTITION p0 VALUES LESS THAN (6), PARTITION p1 VALUES LESS THAN (12))",
        True,
        "the partitioning of table c_partition_range_expression.t (rows must meet MONTH",
    ),
    *[
        (f"partition-range-time-functions-{fl}", fl,  # bounded: each is the column below an instant
         "CREATE TABLE logs (id INT NOT NULL, created DATE NOT NULL, msg VARCHAR(20), PRIMARY KEY (id, created)) "
         "PARTITION BY RANGE (YEAR(created)) (PARTITION p0 VALUES LESS THAN (2001), "
         "PARTITION p1 VALUES LESS THAN (2003));\n"
         "CREATE TABLE days (id INT NOT NULL, d DATETIME NOT NULL, PRIMARY KEY (id, d)) PARTITION BY RANGE "
         "(TO_DAYS(d)) (PARTITION a VALUES LESS THAN (730500), PARTITION b VALUES LESS THAN (731000));\n"
         "CREATE TABLE secs (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) PARTITION BY RANGE "
         "(TO_SECONDS(d)) (PARTITION a VALUES LESS THAN (63113904000), PARTITION b VALUES LESS THAN (63145440001));\n"
         "CREATE TABLE ts (id INT NOT NULL, t TIMESTAMP NOT NULL, PRIMARY KEY (id, t)) PARTITION BY RANGE "
         "(UNIX_TIMESTAMP(t)) (PARTITION a VALUES LESS THAN (1000000000), PARTITION b VALUES LESS THAN (1200000000));\n"
         "CREATE TABLE plain (id INT NOT NULL, d DATETIME(3) NOT NULL, KEY (id)) PARTITION BY RANGE (YEAR(d)) "
         "(PARTITION a VALUES LESS THAN (2030))", True, None)
        for fl in ("mariadb1011", "mysql80")
    ],
    ("storage-column-format", "mysql80", T + "x INT STORAGE MEMORY COLUMN_FORMAT DYNAMIC)", False, None),
    (
        "table-options",
        "mariadb1011",
        T + "x INT) ENGINE = InnoDB AUTO_INCREMENT = 42 ROW_FORMAT = DYNAMIC "
        "DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci STATS_PERSISTENT = 1 PACK_KEYS = DEFAULT "
        "CHECKSUM = 1 MAX_ROWS = 100 AVG_ROW_LENGTH = 10",
        True,
        None,
    ),
    (
        "index-options",
        "mariadb1011",
        T + "x INT, s VARCHAR(20), KEY ix USING BTREE (x) COMMENT 'c', "
        "KEY iy (x DESC) KEY_BLOCK_SIZE = 4, UNIQUE KEY us (s(10)) USING HASH)",
        True,
        None,
    ),
    (
        "index-visibility-mysql",
        "mysql80",
        T + "x INT, KEY (x) INVISIBLE, KEY k2 (x) VISIBLE, KEY ((x + 1)))",
        False,
        None,
    ),
    ("index-ignored-mariadb", "mariadb1011", T + "x INT, KEY (x) IGNORED)", True, None),
    ("srid", "mysql84", T + "g POINT NOT NULL SRID 4326, SPATIAL KEY (g))", False, None),
    (
        "fulltext-spatial",
        "mariadb1011",
        T + "body TEXT, g GEOMETRY NOT NULL, FULLTEXT KEY (body), SPATIAL INDEX (g)) ENGINE=InnoDB",
        True,
        None,
    ),
    (
        "engine-attribute",
        "mysql80",
        T + "x INT ENGINE_ATTRIBUTE = '{}') SECONDARY_ENGINE_ATTRIBUTE = '{}'",
        False,
        None,
    ),
    (
        "check-followed",
        "mariadb1011",
        T + "a INT CHECK (a BETWEEN 1 AND 9), s VARCHAR(8) NOT NULL, "
        "CONSTRAINT s_kind CHECK (s IN ('x', 'y')))",
        True,
        None,
    ),
    ("check-not-enforced", "mysql80", T + "a INT, CONSTRAINT c CHECK (a < id) NOT ENFORCED)", False, None),
    (
        "national-serial",
        "mariadb1011",
        "CREATE TABLE t (id SERIAL, s NATIONAL VARCHAR(10), c NCHAR(3))",
        True,
        None,
    ),
    (
        "mariadb-show-create",
        "mariadb1011",
        "CREATE TABLE `t` (`id` int(11) NOT NULL AUTO_INCREMENT, "
        "`ts` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(), "
        "PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
        True,
        None,
    ),
    # refused: what the generator cannot follow, named
    (
        "generated-virtual",
        "mariadb1011",
        T + "a INT, b INT GENERATED ALWAYS AS (a + 1) VIRTUAL)",
        True,
        "generated columns (GENERATED ALWAYS AS",
    ),
    ("generated-stored", "mysql80", T + "a INT, b INT AS (a * 2) STORED)", False, ".t.b"),
    ("system-versioning", "mariadb1011", T + "x INT) WITH SYSTEM VERSIONING", True, None),
    (
        "system-time-columns",
        "mariadb1011",
        T + "x INT, rs TIMESTAMP(6) GENERATED ALWAYS AS ROW START, "
        "re TIMESTAMP(6) GENERATED ALWAYS AS ROW END, PERIOD FOR SYSTEM_TIME (rs, re)) WITH SYSTEM VERSIONING",
        True,
        ".t.rs",
    ),
    (
        "period-for",
        "mariadb1011",
        T + "s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p (s, e))",
        True,
        "CHECK constraint `PERIOD FOR p`",
    ),
    (
        "compressed",
        "mariadb1011",
        T + "b BLOB COMPRESSED, v VARCHAR(100) COMPRESSED)",
        True,
        "COMPRESSED columns (MariaDB",
    ),
    ("long-unique-blob", "mariadb1011", T + "b BLOB, UNIQUE KEY (b))", True, None),
    (
        "check-two-columns",
        "mariadb1011",
        T + "a INT, b INT, CONSTRAINT a_lt_b CHECK (a < b))",
        True,
        "CHECK constraint `a_lt_b` of table c_check_two_columns.t",
    ),
    (
        "uuid-inet-types",  # MariaDB's UUID / INET4 / INET6: drawn values, and keys (a UUID primary key)
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, u UUID DEFAULT uuid(), i INET4, j INET6 NOT NULL);\n"
        "CREATE TABLE k (u UUID NOT NULL PRIMARY KEY, ip INET6 NOT NULL, a INET4 NOT NULL, UNIQUE KEY (ip), "
        "UNIQUE KEY (a));\nCREATE TABLE n (u UUID, i INET4, j INET6)",
        True,
        None,
    ),
    (
        "enum-member-not-in-charset",  # MariaDB would keep '?' for the 'ü', not the member the file names
        "mariadb1011",
        T + "n ENUM('я','ж','ü') CHARACTER SET cp1251)",
        False,
        "ENUM member 'ü': 'ü' is not a character of CHARACTER SET cp1251 - at c_enum_member_not_in_charset.t.n",
    ),
    (
        "without-overlaps",  # MariaDB application-time period key: the generator makes no such periods
        "mariadb1011",
        "CREATE TABLE t (id INT NOT NULL, s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p(s, e), "
        "PRIMARY KEY (id, p WITHOUT OVERLAPS))",
        False,
        "PRIMARY KEY (id, p WITHOUT OVERLAPS) of table c_without_overlaps.t cannot be followed by the generator",
    ),
    # table names with '/', '\\' and '.' (their truth files are named by binlogwriter/truth_names.py) and
    # names that differ only in case: two tables on a server with lower_case_table_names=0
    *[
        (f"table-names-{kind}-{fl}", fl, ddl, True, None)
        for fl in ("mariadb1011", "mysql80")
        for kind, ddl in (
            ("slash", "CREATE TABLE `a/b` (id INT PRIMARY KEY, v INT);\nCREATE TABLE `a\\\\b.c` (id INT PRIMARY KEY, "
                      "`x/y` INT)"),
            ("case", "CREATE TABLE users (id INT PRIMARY KEY);\nCREATE TABLE Users (id INT PRIMARY KEY, "
                     "u INT NOT NULL, FOREIGN KEY (u) REFERENCES users (id))"),
        )
    ],
    *[
        (f"stamp-in-unique-key-{fl}", fl,  # stamped in one second, the key would repeat (ERROR 1062)
         T + "a TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
         "b DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), v INT, "
         "UNIQUE KEY (a), UNIQUE KEY (b, v))", True, None)
        for fl in ("mariadb1011", "mysql80")
    ],
    *[
        (f"tpcc-shaped-{fl}", fl,  # the TPC-C schema's keys: orders' key holds part of its FOREIGN KEY to
         # customer and its own o_id; order_line's key holds all of its FOREIGN KEY to orders
         "CREATE TABLE warehouse (w_id SMALLINT NOT NULL PRIMARY KEY, w_name VARCHAR(10));\n"
         "CREATE TABLE district (d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10), "
         "PRIMARY KEY (d_w_id, d_id), FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id));\n"
         "CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL, "
         "c_last VARCHAR(16), c_balance DECIMAL(12,2), PRIMARY KEY (c_w_id, c_d_id, c_id), "
         "FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id));\n"
         "CREATE TABLE orders (o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, "
         "o_c_id INT, o_entry_d DATETIME, PRIMARY KEY (o_w_id, o_d_id, o_id), "
         "FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id));\n"
         "CREATE TABLE new_orders (no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id SMALLINT NOT NULL, "
         "PRIMARY KEY (no_w_id, no_d_id, no_o_id), "
         "FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id));\n"
         "CREATE TABLE item (i_id INT NOT NULL PRIMARY KEY, i_name VARCHAR(24), i_price DECIMAL(5,2));\n"
         "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT, "
         "PRIMARY KEY (s_w_id, s_i_id), FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id), "
         "FOREIGN KEY (s_i_id) REFERENCES item (i_id));\n"
         "CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id SMALLINT NOT NULL, "
         "ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id SMALLINT, ol_amount DECIMAL(6,2), "
         "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number), "
         "FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id), "
         "FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id))", True, None)
        for fl in ("mariadb1011", "mysql80")
    ],
    (
        "fts-doc-id",  # InnoDB wants a larger FTS_DOC_ID on each UPDATE of the indexed text (MariaDB ERROR 182)
        "mariadb1011",
        "CREATE TABLE t1 (FTS_DOC_ID BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, t VARCHAR(10), "
        "FULLTEXT KEY f (t)) ENGINE=InnoDB",
        False,
        "column c_fts_doc_id.t1.FTS_DOC_ID beside a FULLTEXT index cannot be followed by the generator",
    ),
    # a backslash escape in a CHECK / LIST COLUMNS value: read as the server reads it (was a sqlglot traceback)
    *[
        (f"backslash-check-in-{fl}", fl, T + r"a VARCHAR(5), CHECK (a IN ('\\', 'x\\y', 'it\'s')))", True, None)
        for fl in ("mariadb1011", "mysql80")
    ],
    (
        "backslash-partition-list",
        "mariadb1011",
        r"CREATE TABLE t1 (a VARCHAR(5)) PARTITION BY LIST COLUMNS(a) (PARTITION p0 VALUES IN ('\\'), "
        r"PARTITION p1 VALUES IN ('b'))",
        True,
        None,
    ),
    (
        "backslash-check-not-equal",  # followed only by refusing it (<> on a string column), in one line
        "mariadb1011",
        T + r"a VARCHAR(5), CHECK (a <> '\\'))",
        False,
        r"CHECK (a <> '\\') of table c_backslash_check_not_equal.t cannot be followed by the generator",
    ),
    # ENUM / SET members written as hex or bit literals: the bytes they spell, in the column's charset
    *[
        (f"enum-hex-bit-members-{fl}", fl,
         "CREATE TABLE t1 (id INT PRIMARY KEY, c ENUM(0x61,0x62) NOT NULL, e ENUM(X'61', b'01100010', 'c'), "
         "s SET(0x61, 0x62, X'63') NOT NULL);\nCREATE TABLE t2 (id INT PRIMARY KEY, c ENUM(0x93fa, 0x9373) "
         "CHARACTER SET sjis NOT NULL, l ENUM(0xE4, 0x20) CHARACTER SET latin1)", True, None)
        for fl in ("mariadb1011", "mysql80")
    ],
    # MariaDB 10.11 takes it as enum('a','?'): not the member the file names
    ("enum-hex-not-in-charset", "mariadb1011", T + "c ENUM(0x61, 0xE4))", False,
     "ENUM member 0xE4: not text of CHARACTER SET utf8mb4 (a server keeps it as '?') - at "
     "c_enum_hex_not_in_charset.t.c"),
    # table options: each word one of the servers' table options, else refused naming it (was skipped,
    # and copied into snapshot.sql); a CREATE without its ';' before it was dropped
    (
        "table-options-each",
        "mariadb1011",
        T + "v INT) ENGINE=InnoDB STATS_PERSISTENT=0, STATS_AUTO_RECALC DEFAULT STATS_SAMPLE_PAGES 20 "
        "AUTO_INCREMENT=5 COMMENT='a' ROW_FORMAT=DYNAMIC PAGE_COMPRESSED=0 CHECKSUM=1 MAX_ROWS=100 "
        "DEFAULT CHARSET=latin1",
        True,
        None,
    ),
    ("table-options-trailing-words", "mariadb1011", T + "v INT) ENGINE=InnoDB STATS_PERSISTENT=0 FOO BAR", False,
     "schema.sql:1: cannot parse CREATE TABLE: not a table option of MySQL 8.0 / 8.4 or MariaDB 10.11 near 'FOO'"),
    ("table-options-no-semicolon", "mysql80", "CREATE TABLE a (x INT PRIMARY KEY) ENGINE=InnoDB\n"
     "CREATE TABLE b (y INT PRIMARY KEY)", False,
     "schema.sql:2: cannot parse CREATE TABLE: a ';' is missing before CREATE (another statement begins)"),
    # "t" is a string to the servers unless sql_mode has ANSI_QUOTES, which snapshot.sql does not set
    *[
        (f"ansi-quotes-{i}", "mariadb1011", ddl, False,
         f"schema.sql:{i + 1}: cannot parse CREATE TABLE: double-quoted identifier \"t\": the servers read it as a "
         "string unless sql_mode has ANSI_QUOTES")
        for i, ddl in enumerate(('CREATE TABLE "t" ("a" INT)', "SET sql_mode='ANSI_QUOTES';\nCREATE TABLE \"t\" (a INT)"))
    ],
    ("unique-text-mysql", "mysql80", T + "b TEXT, UNIQUE KEY (b))", False, "without a key length"),
    ("inet6-on-mysql", "mysql80", T + "ip INET6)", False, "exists only in MariaDB"),
]

FILES = sorted(p.name for p in SCHEMAS.glob("*.sql"))


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


def _generate(tmp_path: Path, ddl: str, flavor: str, db: str):
    schema = tmp_path / "schema.sql"
    schema.write_text(ddl + ";\n")
    out = tmp_path / "out"
    meta = "FULL" if flavor.startswith("mariadb") else "MINIMAL"
    r = CliRunner().invoke(
        cli_main,
        [
            "generate",
            "--schema",
            str(schema),
            "--out",
            str(out),
            "--flavor",
            flavor,
            "--database",
            db,
            "--row-metadata",
            meta,
            "--transactions",
            "60",
            "--initial-rows",
            "15",
        ],
    )
    return r, out


@pytest.mark.parametrize(("case", "flavor", "ddl", "replay", "refused"), CLAUSES, ids=[c[0] for c in CLAUSES])
def test_clause_is_accepted_or_refused_in_one_line(
    server: MariaDBServer, tmp_path: Path, case: str, flavor: str, ddl: str, replay: bool, refused: str | None
) -> None:
    db = "c_" + case.replace("-", "_")
    r, out = _generate(tmp_path, ddl, flavor, db)
    if refused is not None:
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert r.exit_code == 2 and len(lines) == 1 and refused in lines[0], r.output
        assert "Traceback" not in r.output
        return
    assert r.exit_code == 0, r.output
    check_readers(out)
    if replay:
        replay_matches_truth(server, out)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
def test_application_schema_generates_and_replays(
    server: MariaDBServer, tmp_path: Path, name: str, flavor: str
) -> None:
    db = f"app_{name.split('_')[0]}_{flavor}"
    r, out = _generate(tmp_path, (SCHEMAS / name).read_text(), flavor, db)
    assert r.exit_code == 0, r.output
    check_readers(out)
    truth = replay_matches_truth(server, out)
    assert len(truth) >= 2 and all(truth.values())
