-- Old-temporal corpus: columns created with mysql56_temporal_format=OFF and fsp 1-6 hold
-- MariaDB 5.3 "hires" values whose width the binlog does not carry (docs/mariadb.md,
-- "Old temporal types"); mariadb-binlog -vv exits 1 on these rows, so this is a corpus of its
-- own, checked by our decoder (raw round trip) and by mariadb-binlog without -v.
CREATE DATABASE bw_old CHARACTER SET utf8mb4;
USE bw_old;
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE t_hires (
  id INT NOT NULL PRIMARY KEY,
  t0 TIME, t1 TIME(1), t2 TIME(2), t3 TIME(3), t4 TIME(4), t5 TIME(5), t6 TIME(6),
  dt0 DATETIME, dt1 DATETIME(1), dt2 DATETIME(2), dt3 DATETIME(3), dt4 DATETIME(4),
  dt5 DATETIME(5), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL, ts2 TIMESTAMP(2) NULL, ts3 TIMESTAMP(3) NULL,
  ts4 TIMESTAMP(4) NULL, ts5 TIMESTAMP(5) NULL, ts6 TIMESTAMP(6) NULL
) ENGINE=InnoDB;
SET GLOBAL mysql56_temporal_format = ON;
INSERT INTO t_hires VALUES
  (1, '-838:59:59', '-00:00:00.1', '-00:00:00.01', '-12:34:56.789', '-838:59:58.9999',
   '-00:00:01.00001', '-838:59:58.999999',
   '1000-01-01 00:00:00', '9999-12-31 23:59:59.9', '2020-01-02 03:04:05.01',
   '2020-01-02 03:04:05.123', '2020-01-02 03:04:05.0001', '2020-01-02 03:04:05.99999',
   '9999-12-31 23:59:59.999999',
   '1970-01-01 00:00:01', '1970-01-01 00:00:01.1', '2000-02-29 12:00:00.99',
   '2038-01-19 03:14:07.999', '2001-01-01 00:00:00.0001', '2010-10-10 10:10:10.00001',
   '2038-01-19 03:14:07.999999'),
  (2, '00:00:00', '00:00:00.0', '00:00:00.00', '00:00:00.000', '00:00:00.0000', '00:00:00.00000',
   '00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00.0', '0000-00-00 00:00:00.00',
   '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.0000', '0000-00-00 00:00:00.00000',
   '0000-00-00 00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00.0', '0000-00-00 00:00:00.00',
   '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.0000', '0000-00-00 00:00:00.00000',
   '0000-00-00 00:00:00.000000'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_hires SET t6 = '12:00:00.000001', dt3 = '2024-02-29 00:00:00.001' WHERE id = 1;
DELETE FROM t_hires WHERE id = 3;
FLUSH BINARY LOGS;
INSERT INTO t_hires (id, t3) VALUES (4, '01:02:03.004');
