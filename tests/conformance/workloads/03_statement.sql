-- Corpus workload, part 3: statement format. QUERY status variables (docs/mariadb.md
-- "Query events"), INTVAR / RAND / USER_VAR events, LOAD DATA (BEGIN_LOAD_QUERY, APPEND_BLOCK,
-- EXECUTE_LOAD_QUERY), two-phase ALTER (Q_GTID_FLAGS3). @FILES_DIR@ is replaced by the
-- server's --secure-file-priv directory, where corpus.py writes the LOAD DATA files.
USE bw;
SET SESSION binlog_format = STATEMENT;
CREATE TABLE t_stmt (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(100), ts TIMESTAMP(6) NULL,
                     n BIGINT) ENGINE=InnoDB;

-- INTVAR INSERT_ID (auto-increment) and LAST_INSERT_ID, RAND seeds.
INSERT INTO t_stmt (v) VALUES ('auto');
INSERT INTO t_stmt (v) VALUES (CONCAT('last=', LAST_INSERT_ID()));
INSERT INTO t_stmt (v, n) VALUES (CONCAT('rand=', RAND()), FLOOR(RAND() * 1000));
INSERT INTO t_stmt (v) VALUES (CONCAT(LAST_INSERT_ID(), '/', RAND(7)));

-- USER_VAR of every value type: string (two charsets), integer, negative, unsigned, decimal,
-- real, binary string, NULL.
SET @s = 'héllo', @s1 = _latin1 'latin', @i = 42, @neg = -9223372036854775808,
    @u = CAST(18446744073709551615 AS UNSIGNED), @dec = 12345.6789, @r = 1.5e300,
    @bin = x'00FF', @n = NULL;
INSERT INTO t_stmt (v, n) VALUES (CONCAT_WS(',', @s, @s1, @dec, @r, HEX(@bin), @n), @i);
INSERT INTO t_stmt (v, n) VALUES (@u, @neg);
INSERT INTO t_stmt (v, n) VALUES (@n, @n);

-- Status variables: Q_AUTO_INCREMENT (3), Q_LC_TIME_NAMES (7), Q_CHARSET_DATABASE (8),
-- Q_TIME_ZONE (5, a TIMESTAMP string converted in a non-default zone), Q_HRNOW (128),
-- Q_TABLE_MAP_FOR_UPDATE (9, multi-table UPDATE), Q_INVOKER (11), Q_FLAGS2 bits,
-- another client charset (Q_CHARSET 4).
SET SESSION auto_increment_increment = 5, auto_increment_offset = 2;
INSERT INTO t_stmt (v) VALUES ('inc5 off2'), ('inc5 off2 b');
SET SESSION auto_increment_increment = 1, auto_increment_offset = 1;
SET SESSION lc_time_names = 'de_DE';
INSERT INTO t_stmt (v) VALUES (DATE_FORMAT('2024-03-01', '%W %M'));
SET SESSION lc_time_names = DEFAULT;
SET SESSION collation_database = latin1_swedish_ci;
INSERT INTO t_stmt (v) VALUES ('collation_database');
SET SESSION collation_database = DEFAULT;
SET SESSION time_zone = '+05:00';
INSERT INTO t_stmt (v, ts) VALUES ('tz', '2024-01-01 00:00:00.5');
SET SESSION time_zone = DEFAULT;
INSERT INTO t_stmt (v, ts) VALUES ('now6', NOW(6));
UPDATE t_stmt a, t_int b SET a.n = b.id, b.ti = 1 WHERE a.id = 1 AND b.id = 1;
CREATE PROCEDURE p_invoker() SQL SECURITY INVOKER SELECT 1;
CREATE DEFINER = CURRENT_USER VIEW v_stmt AS SELECT id, v FROM t_stmt;
SET SESSION sql_auto_is_null = 1, foreign_key_checks = 0, unique_checks = 0, check_constraint_checks = 0;
INSERT INTO t_stmt (v) VALUES ('flags2');
SET SESSION sql_auto_is_null = 0, foreign_key_checks = 1, unique_checks = 1, check_constraint_checks = 1;
SET NAMES latin1;
INSERT INTO t_stmt (v) VALUES ('latin1 client');
SET NAMES utf8mb4;
SET SESSION sql_mode = 'ANSI_QUOTES,NO_ZERO_DATE';
INSERT INTO t_stmt (v) VALUES ('sql_mode');
SET SESSION sql_mode = DEFAULT;

-- MyISAM in statement format, and a statement-format transaction over several statements.
INSERT INTO t_myisam VALUES (10, 'stmt');
BEGIN;
INSERT INTO t_stmt (v) VALUES ('in trx 1');
UPDATE t_stmt SET n = 7 WHERE v = 'in trx 1';
COMMIT;

-- LOAD DATA: a file larger than the 128 kB block gives BEGIN_LOAD_QUERY + APPEND_BLOCK +
-- EXECUTE_LOAD_QUERY; a small one BEGIN_LOAD_QUERY + EXECUTE_LOAD_QUERY.
CREATE TABLE t_load (id INT NOT NULL PRIMARY KEY, v VARCHAR(200), n INT) ENGINE=InnoDB;
LOAD DATA INFILE '@FILES_DIR@/big.tsv' INTO TABLE t_load;
LOAD DATA INFILE '@FILES_DIR@/small.csv' REPLACE INTO TABLE t_load CHARACTER SET utf8mb4
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\n' IGNORE 1 LINES
  (id, @v, n) SET v = UPPER(@v);

-- Two-phase ALTER (binlog_alter_two_phase): START ALTER and COMMIT ALTER groups.
SET SESSION binlog_alter_two_phase = 1;
ALTER TABLE t_load ADD COLUMN extra INT DEFAULT 0;
SET SESSION binlog_alter_two_phase = 0;

SET SESSION binlog_format = ROW;
