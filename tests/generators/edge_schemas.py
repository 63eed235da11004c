"""Schemas covering every type family the generator draws by type (one column or more per
family, signed and unsigned integers of every width, multibyte and single-byte charsets),
for the ``--edge-values`` tests (tests/generators/test_edge_values.py,
tests/batch/test_generate_paths.py, tests/conformance/test_edge_values_replay.py)."""

from __future__ import annotations

EVERY_FAMILY_DDL = """
CREATE TABLE nums (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED NOT NULL, si SMALLINT NOT NULL, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED NOT NULL, i INT NOT NULL, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED NOT NULL,
  d DECIMAL(12,3), du DECIMAL(7,0) UNSIGNED NOT NULL, dz DECIMAL(5,5),
  f FLOAT, g DOUBLE NOT NULL, b1 BIT(1), b BIT(13) NOT NULL, y YEAR
);
CREATE TABLE times (
  id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  dt DATE, dtn DATE NOT NULL, tm TIME, tm2 TIME(2) NOT NULL, dtt DATETIME, dtt6 DATETIME(6) NOT NULL,
  ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL
);
CREATE TABLE strs (
  code CHAR(6) NOT NULL,
  c CHAR(10), cn CHAR(4) CHARACTER SET latin1 NOT NULL,
  v VARCHAR(20) CHARACTER SET utf8mb4, v3 VARCHAR(9) CHARACTER SET utf8mb3 NOT NULL,
  vg VARCHAR(7) CHARACTER SET gbk, vl VARCHAR(30) CHARACTER SET latin1,
  tt TINYTEXT, tx TEXT CHARACTER SET utf8mb4,
  bn BINARY(5), vb VARBINARY(12) NOT NULL, tb TINYBLOB, bb BLOB,
  e ENUM('a','bb','ccc') NOT NULL, en ENUM('x','y'), s SET('p','q','r'), sn SET('one','two') NOT NULL,
  PRIMARY KEY (code)
);
"""

JSON_DDL = """
CREATE TABLE docs (id INT NOT NULL PRIMARY KEY, j JSON, jn JSON NOT NULL);
"""
"""MariaDB replays only: MariaDB cannot apply MySQL's binary JSON (docs/generate.md)."""
