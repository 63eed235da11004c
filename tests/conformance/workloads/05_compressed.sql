-- Corpus workload, part 5: compressed events (log_bin_compress, docs/mariadb.md
-- "Compression"): QUERY_COMPRESSED (165) and WRITE/UPDATE/DELETE_ROWS_COMPRESSED_EVENT_V1
-- (166-168) above log_bin_compress_min_len; shorter parts and CREATE DATABASE / XA QUERYs
-- stay uncompressed. The first row's packed image decides (THD::binlog_*_row compare its length
-- with log_bin_compress_min_len); later rows join the same event whatever their size.
SET GLOBAL log_bin_compress = ON, log_bin_compress_min_len = 10;
USE bw;
CREATE TABLE t_zip (id INT NOT NULL PRIMARY KEY, v VARCHAR(200), t TEXT, n INT) ENGINE=InnoDB;
INSERT INTO t_zip VALUES (1, REPEAT('compressible ', 10), REPEAT('x', 1000), 1), (2, 'b', NULL, 2);
INSERT INTO t_zip (id) VALUES (3);
INSERT INTO t_zip SELECT seq, CONCAT('bulk ', seq), REPEAT('y', seq % 100), seq FROM seq_10_to_1500;
UPDATE t_zip SET n = n + 1, v = 'updated' WHERE id < 1000;
DELETE FROM t_zip WHERE id > 1200;
CREATE TABLE t_zip_first (id INT NOT NULL PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO t_zip_first VALUES (1, NULL), (2, REPEAT('a', 50)), (3, REPEAT('b', 50));
INSERT INTO t_zip_first VALUES (5, REPEAT('c', 50)), (4, NULL);
DELETE FROM t_zip_first WHERE id IN (1, 2, 3);
DELETE FROM t_zip_first WHERE id IN (4, 5);
-- A wide primary key: under MINIMAL a DELETE's image (the key) is still >= min_len.
CREATE TABLE t_zip_key (k VARCHAR(40) NOT NULL PRIMARY KEY, n INT) ENGINE=InnoDB;
INSERT INTO t_zip_key VALUES ('key-0000000001', 1), ('key-0000000002', 2), ('key-0000000003', 3);
UPDATE t_zip_key SET n = n * 10 WHERE k < 'key-0000000003';
DELETE FROM t_zip_key WHERE k <> 'key-0000000003';
XA START 'zip';
UPDATE t_zip SET n = 0 WHERE id = 1;
XA END 'zip';
XA PREPARE 'zip';
XA COMMIT 'zip';
CREATE DATABASE bw_zip;
SET SESSION binlog_format = STATEMENT;
INSERT INTO t_zip (id, v) VALUES (5000, 'a statement long enough to be compressed');
SET @zv = 'user variable';
INSERT INTO t_zip (id, v) VALUES (5001, @zv);
SET SESSION binlog_format = ROW;
DROP DATABASE bw_zip;
SET GLOBAL log_bin_compress = OFF, log_bin_compress_min_len = DEFAULT;
