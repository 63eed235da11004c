-- Corpus workload, part 4: old (MariaDB 5.3 / pre-5.6) temporal columns, logged as TIME (11),
-- DATETIME (12) and TIMESTAMP (7) without metadata (docs/mariadb.md, "Old temporal
-- types"). Only fsp 0 here: mariadb-binlog -vv cannot decode fsp > 0 rows (see
-- 90_old_temporal_hires.sql, a corpus of its own).
USE bw;
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE t_old_time (id INT NOT NULL PRIMARY KEY, t TIME, dt DATETIME, ts TIMESTAMP NULL,
                         d DATE) ENGINE=InnoDB;
SET GLOBAL mysql56_temporal_format = ON;
INSERT INTO t_old_time VALUES
  (1, '-838:59:59', '1000-01-01 00:00:00', '1970-01-01 00:00:01', '1000-01-01'),
  (2, '838:59:59', '9999-12-31 23:59:59', '2038-01-19 03:14:07', '9999-12-31'),
  (3, '00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00'),
  (4, '-00:00:01', '2024-02-29 12:34:56', '2024-02-29 12:34:56', '2024-02-29'),
  (5, NULL, NULL, NULL, NULL);
UPDATE t_old_time SET t = '12:00:00', ts = '2001-01-01 00:00:00' WHERE id = 4;
DELETE FROM t_old_time WHERE id = 5;
