-- Corpus workload, part 1: every column type MariaDB 10.11 logs, written as row events.
-- Run by tests/conformance/corpus.py in one client session (docs/values.md,
-- docs/mariadb.md). The server's row_metadata / row_image vary per corpus.
CREATE DATABASE bw CHARACTER SET utf8mb4;
USE bw;

-- Integers at their limits, BIT widths, YEAR, BOOLEAN.
CREATE TABLE t_int (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED, b1 BIT(1), b10 BIT(10), b64 BIT(64), y YEAR, bo BOOLEAN
) ENGINE=InnoDB;
INSERT INTO t_int VALUES
  (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
   b'0', b'0', b'0', 1901, FALSE),
  (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807,
   18446744073709551615, b'1', b'1111111111', 0xFFFFFFFFFFFFFFFF, 2155, TRUE),
  (3, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, b'1', b'1010101010', 0x8000000000000001, 0, NULL),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_int SET ti = ti + 1, bu = 42, y = 2024 WHERE id = 3;
UPDATE t_int SET ti = 5 WHERE id IN (1, 4);
DELETE FROM t_int WHERE id = 4;

-- FLOAT / DOUBLE: zero, negative zero, extremes, denormals, FLOAT(M,D).
CREATE TABLE t_real (
  id INT NOT NULL PRIMARY KEY, f FLOAT, d DOUBLE, fmd FLOAT(7,3), dmd DOUBLE(12,4), fu FLOAT UNSIGNED
) ENGINE=InnoDB;
INSERT INTO t_real VALUES
  (1, 0.1, 0.1, 1234.567, -12345678.1234, 3.5),
  (2, -3.40282e38, 1.7976931348623157e308, -9999.999, 99999999.9999, 0),
  (3, 1.17549e-38, -2.2250738585072014e-308, 0, 0, 1e-30),
  (4, -0.0, -0.0, NULL, NULL, NULL),
  (5, 1.4e-45, 4.9e-324, 0.001, -0.0001, 1),
  (6, NULL, NULL, NULL, NULL, NULL);
UPDATE t_real SET f = f * 2, d = -d WHERE id IN (1, 3);
DELETE FROM t_real WHERE id = 6;

-- DECIMAL at each 9-digit group boundary, negatives, UNSIGNED, scale = precision.
CREATE TABLE t_dec (
  id INT NOT NULL PRIMARY KEY,
  d1 DECIMAL(1,0), d9 DECIMAL(9,0), d10 DECIMAL(10,0), d18 DECIMAL(18,9), d19 DECIMAL(19,10),
  d65 DECIMAL(65,30), d65i DECIMAL(65,0), d42u DECIMAL(4,2) UNSIGNED, d104 DECIMAL(10,4),
  d3838 DECIMAL(38,38), d2010 DECIMAL(20,10)
) ENGINE=InnoDB;
INSERT INTO t_dec VALUES
  (1, 9, 999999999, 9999999999, 999999999.999999999, 999999999.9999999999,
   99999999999999999999999999999999999.999999999999999999999999999999,
   99999999999999999999999999999999999999999999999999999999999999999, 99.99, 123456.7890,
   0.99999999999999999999999999999999999999, 1234567890.0123456789),
  (2, -9, -999999999, -9999999999, -999999999.999999999, -999999999.9999999999,
   -99999999999999999999999999999999999.999999999999999999999999999999,
   -99999999999999999999999999999999999999999999999999999999999999999, 0, -0.0100,
   -0.00000000000000000000000000000000000001, -1.0000000001),
  (3, 0, 0, 1000000000, 0.000000001, -100000000.0000000001, 0, 1, 0.01, -1234.5678,
   0, 0),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_dec SET d104 = d104 + 1, d18 = -d18 WHERE id < 4;
DELETE FROM t_dec WHERE id = 4;

-- Temporals: DATE, TIME / DATETIME / TIMESTAMP with fsp 0-6, negative TIME with a fraction,
-- zero dates, TIMESTAMP limits (the server runs with time zone +00:00).
CREATE TABLE t_time (
  id INT NOT NULL PRIMARY KEY, d DATE,
  t0 TIME, t1 TIME(1), t2 TIME(2), t3 TIME(3), t4 TIME(4), t5 TIME(5), t6 TIME(6),
  dt0 DATETIME, dt1 DATETIME(1), dt2 DATETIME(2), dt3 DATETIME(3), dt4 DATETIME(4),
  dt5 DATETIME(5), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL, ts2 TIMESTAMP(2) NULL, ts3 TIMESTAMP(3) NULL,
  ts4 TIMESTAMP(4) NULL, ts5 TIMESTAMP(5) NULL, ts6 TIMESTAMP(6) NULL
) ENGINE=InnoDB;
INSERT INTO t_time VALUES
  (1, '2024-02-29',
   '-838:59:59', '-00:00:00.1', '-00:00:00.01', '-12:34:56.789', '-838:59:58.9999',
   '-00:00:01.00001', '-838:59:58.999999',
   '1000-01-01 00:00:00', '9999-12-31 23:59:59.9', '2020-01-02 03:04:05.01',
   '2020-01-02 03:04:05.123', '2020-01-02 03:04:05.0001', '2020-01-02 03:04:05.99999',
   '9999-12-31 23:59:59.999999',
   '1970-01-01 00:00:01', '1970-01-01 00:00:01.1', '2000-02-29 12:00:00.99',
   '2038-01-19 03:14:07.999', '2001-01-01 00:00:00.0001', '2010-10-10 10:10:10.00001',
   '2038-01-19 03:14:07.999999'),
  (2, '0000-00-00',
   '00:00:00', '00:00:00.0', '00:00:00.00', '00:00:00.000', '00:00:00.0000', '00:00:00.00000',
   '00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00.0', '0000-00-00 00:00:00.00',
   '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.0000', '0000-00-00 00:00:00.00000',
   '0000-00-00 00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00.0', '0000-00-00 00:00:00.00',
   '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.0000', '0000-00-00 00:00:00.00000',
   '0000-00-00 00:00:00.000000'),
  (3, '2024-00-00',
   '838:59:59', '838:59:58.9', '00:00:00.99', '23:59:59.999', '100:00:00.0001',
   '-00:00:00.00001', '838:59:58.000001',
   '2024-00-00 00:00:00', '1999-12-31 23:59:59.5', '2024-02-29 12:34:56.78',
   '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.7891', '2024-02-29 12:34:56.78912',
   '2024-02-29 12:34:56.789123',
   '2024-02-29 12:34:56', '2024-02-29 12:34:56.7', '2024-02-29 12:34:56.78',
   '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.7891', '2024-02-29 12:34:56.78912',
   '2024-02-29 12:34:56.789123'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_time SET t6 = '-00:00:00.000001', dt6 = '2024-01-01 00:00:00.000001' WHERE id = 3;
DELETE FROM t_time WHERE id = 4;

-- Strings in many character sets (1 to 4 bytes per character, fixed-width ucs2/utf16/utf32),
-- CHAR whose byte length exceeds 255 (metadata high bits), BINARY padding, TEXT and BLOB sizes.
CREATE TABLE t_str (
  id INT NOT NULL PRIMARY KEY,
  c_latin1 CHAR(10) CHARACTER SET latin1, vc_latin1 VARCHAR(300) CHARACTER SET latin1,
  c_utf8mb3 CHAR(10) CHARACTER SET utf8mb3, vc_utf8mb3 VARCHAR(20) CHARACTER SET utf8mb3,
  c_utf8mb4 CHAR(100) CHARACTER SET utf8mb4, vc_utf8mb4 VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  c_gbk CHAR(5) CHARACTER SET gbk, vc_gbk VARCHAR(20) CHARACTER SET gbk,
  c_ucs2 CHAR(5) CHARACTER SET ucs2, vc_ucs2 VARCHAR(10) CHARACTER SET ucs2,
  c_utf16 CHAR(3) CHARACTER SET utf16, vc_utf16 VARCHAR(10) CHARACTER SET utf16,
  c_utf32 CHAR(3) CHARACTER SET utf32, vc_utf32 VARCHAR(10) CHARACTER SET utf32,
  c_ascii CHAR(4) CHARACTER SET ascii, vc_latin2 VARCHAR(8) CHARACTER SET latin2,
  c_bin CHAR(6) CHARACTER SET binary, bn BINARY(8), vb VARBINARY(300),
  tt TINYTEXT CHARACTER SET latin1, tx TEXT CHARACTER SET utf8mb3,
  mt MEDIUMTEXT CHARACTER SET utf8mb4, lt LONGTEXT CHARACTER SET utf16,
  tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO t_str VALUES
  (1, 'ab  ', REPEAT('z', 299), 'Ŝ€', 'ünïcödé', REPEAT('😀', 100), 'Ωmega 😀',
   '中文', '汉字测试', 'é€', 'Ωμέγα', '€€', '𝄞 x', '😀', '𝄞😀', 'ABC', 'Łódź',
   'a\0b', 'a\0\0', 'bin\0\0\0', 'tiny', 'text ☃', 'medium 😀', 'long 𝄞',
   x'00', x'0102', x'FF00FF', x'DEADBEEF'),
  (2, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '',
   '', '', '', ''),
  (3, 'é', 'ä', 'ß', 'x ', ' lead', 'trail  ', '码', '字', 'ÿ', 'ſ', '🀄', 'ⓐ', 'ｱ', 'Ω',
   '~', 'Ż', x'FF', x'0000000000000001', x'00', REPEAT('t', 255), REPEAT('é', 300),
   REPEAT('m', 1000), REPEAT('Ω', 100), REPEAT(x'AB', 255), REPEAT(x'CD', 3000),
   REPEAT(x'EF', 20000), REPEAT(x'01', 300)),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_str SET vc_utf8mb4 = 'changed', tx = 'new text', bl = x'CAFE' WHERE id = 1;
UPDATE t_str SET c_gbk = '改' WHERE id IN (2, 3);
DELETE FROM t_str WHERE id = 4;

-- ENUM with 300 members (2-byte index), SET with 64 members (8 bytes), SET sizes 1/2/3/4/8,
-- ENUM index 0 (the invalid-value empty string, allowed outside strict mode).
CREATE TABLE t_enum (
  id INT NOT NULL PRIMARY KEY,
  e3 ENUM('a','b','c') CHARACTER SET latin1,
  e300 ENUM('v000','v001','v002','v003','v004','v005','v006','v007','v008','v009','v010','v011','v012','v013','v014','v015','v016','v017','v018','v019','v020','v021','v022','v023','v024','v025','v026','v027','v028','v029','v030','v031','v032','v033','v034','v035','v036','v037','v038','v039','v040','v041','v042','v043','v044','v045','v046','v047','v048','v049','v050','v051','v052','v053','v054','v055','v056','v057','v058','v059','v060','v061','v062','v063','v064','v065','v066','v067','v068','v069','v070','v071','v072','v073','v074','v075','v076','v077','v078','v079','v080','v081','v082','v083','v084','v085','v086','v087','v088','v089','v090','v091','v092','v093','v094','v095','v096','v097','v098','v099','v100','v101','v102','v103','v104','v105','v106','v107','v108','v109','v110','v111','v112','v113','v114','v115','v116','v117','v118','v119','v120','v121','v122','v123','v124','v125','v126','v127','v128','v129','v130','v131','v132','v133','v134','v135','v136','v137','v138','v139','v140','v141','v142','v143','v144','v145','v146','v147','v148','v149','v150','v151','v152','v153','v154','v155','v156','v157','v158','v159','v160','v161','v162','v163','v164','v165','v166','v167','v168','v169','v170','v171','v172','v173','v174','v175','v176','v177','v178','v179','v180','v181','v182','v183','v184','v185','v186','v187','v188','v189','v190','v191','v192','v193','v194','v195','v196','v197','v198','v199','v200','v201','v202','v203','v204','v205','v206','v207','v208','v209','v210','v211','v212','v213','v214','v215','v216','v217','v218','v219','v220','v221','v222','v223','v224','v225','v226','v227','v228','v229','v230','v231','v232','v233','v234','v235','v236','v237','v238','v239','v240','v241','v242','v243','v244','v245','v246','v247','v248','v249','v250','v251','v252','v253','v254','v255','v256','v257','v258','v259','v260','v261','v262','v263','v264','v265','v266','v267','v268','v269','v270','v271','v272','v273','v274','v275','v276','v277','v278','v279','v280','v281','v282','v283','v284','v285','v286','v287','v288','v289','v290','v291','v292','v293','v294','v295','v296','v297','v298','v299'),
  eu ENUM('é','ü','😀') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  s3 SET('x','y','z') CHARACTER SET ascii,
  s9 SET('a','b','c','d','e','f','g','h','i'),
  s17 SET('a','b','c','d','e','f','g','h','i','j','k','l','m','n','o','p','q'),
  s25 SET('a','b','c','d','e','f','g','h','i','j','k','l','m','n','o','p','q','r','s','t','u',
          'v','w','x','y'),
  s64 SET('f00','f01','f02','f03','f04','f05','f06','f07','f08','f09','f10','f11','f12','f13','f14','f15','f16','f17','f18','f19','f20','f21','f22','f23','f24','f25','f26','f27','f28','f29','f30','f31','f32','f33','f34','f35','f36','f37','f38','f39','f40','f41','f42','f43','f44','f45','f46','f47','f48','f49','f50','f51','f52','f53','f54','f55','f56','f57','f58','f59','f60','f61','f62','f63')
) ENGINE=InnoDB;
INSERT INTO t_enum VALUES
  (1, 'a', 'v000', 'é', '', 'a', 'a', 'a', ''),
  (2, 'c', 'v299', '😀', 'x,y,z', 'a,i', 'a,q', 'a,y', 'f00,f31,f32,f63'),
  (3, 'b', 'v255', 'ü', 'z', 'i', 'h,i,p,q', 'x,y', 'f63'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SET SESSION sql_mode = '';
INSERT INTO t_enum (id, e3, e300) VALUES (5, 'not-a-member', 'nope');
SET SESSION sql_mode = DEFAULT;
UPDATE t_enum SET e300 = 'v256', s64 = 'f01,f62' WHERE id = 1;
DELETE FROM t_enum WHERE id = 4;

-- An ENUM whose member '' is not index 0: an invalid value (index 0) and the member '' (index 2)
-- must stay apart when read and written back.
CREATE TABLE t_enum_empty (id INT NOT NULL PRIMARY KEY, e ENUM('a','') ) ENGINE=InnoDB;
SET SESSION sql_mode = '';
INSERT INTO t_enum_empty VALUES (1, 'bogus'), (2, ''), (3, 'a');
SET SESSION sql_mode = DEFAULT;
UPDATE t_enum_empty SET e = 'a' WHERE id = 1;

-- JSON (a LONGTEXT in MariaDB), every geometry type, MariaDB-only INET6 / UUID / INET4.
CREATE TABLE t_misc (
  id INT NOT NULL PRIMARY KEY, j JSON,
  g GEOMETRY, p POINT, ls LINESTRING, pg POLYGON, mp MULTIPOINT, mls MULTILINESTRING,
  mpg MULTIPOLYGON, gc GEOMETRYCOLLECTION,
  ip6 INET6, u UUID, ip4 INET4
) ENGINE=InnoDB;
INSERT INTO t_misc VALUES
  (1, '{"k": [1, true, null, "v"], "n": {"x": 1.5}}',
   ST_GeomFromText('POINT(1 2)', 4326), POINT(1.5, -2), ST_GeomFromText('LINESTRING(0 0,1 1,2 0)'),
   ST_GeomFromText('POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 1))'),
   ST_GeomFromText('MULTIPOINT(0 0,1 1)'), ST_GeomFromText('MULTILINESTRING((0 0,1 1),(2 2,3 3))'),
   ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))'),
   ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))'),
   '2001:db8::ff00:42:8329', '123e4567-e89b-12d3-a456-426655440000', '192.168.0.1'),
  (2, '[]', NULL, POINT(0, 0), NULL, NULL, NULL, NULL, NULL, NULL, '::', '00000000-0000-0000-0000-000000000000', '0.0.0.0'),
  (3, '"\\u00e9 string"', ST_GeomFromText('POINT(-1e300 1e-300)'), NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, '::ffff:1.2.3.4', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '255.255.255.255'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_misc SET j = JSON_SET(j, '$.added', 'yes'), p = POINT(3, 4) WHERE id = 1;
DELETE FROM t_misc WHERE id = 4;

-- Keys that decide MINIMAL / NOBLOB images: no key at all, a UNIQUE NOT NULL key (the PKE),
-- a UNIQUE key on a nullable column (not a PKE), a prefix primary key, an INVISIBLE column,
-- AUTO_INCREMENT and DEFAULT columns an INSERT leaves out.
CREATE TABLE t_nokey (a INT, b VARCHAR(10), c TEXT) ENGINE=InnoDB;
INSERT INTO t_nokey VALUES (1, 'one', 'text1'), (1, 'one', 'text1'), (2, NULL, NULL);
UPDATE t_nokey SET b = 'uno' WHERE a = 1 LIMIT 1;
DELETE FROM t_nokey WHERE a = 2;
CREATE TABLE t_uniq (u INT NOT NULL, v VARCHAR(10), w BLOB, UNIQUE KEY (u)) ENGINE=InnoDB;
INSERT INTO t_uniq VALUES (1, 'a', 'blob-a'), (2, 'b', NULL);
UPDATE t_uniq SET v = 'bb' WHERE u = 2;
DELETE FROM t_uniq WHERE u = 1;
CREATE TABLE t_nullu (u INT NULL, v INT, UNIQUE KEY (u)) ENGINE=InnoDB;
INSERT INTO t_nullu VALUES (1, 1), (NULL, 2);
UPDATE t_nullu SET v = 3 WHERE u = 1;
CREATE TABLE t_pk (a VARCHAR(50), b INT NOT NULL, c TEXT, d INT INVISIBLE DEFAULT 9,
                   PRIMARY KEY (b, a(10))) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO t_pk (a, b, c, d) VALUES ('key', 7, 'ccc', 42);
INSERT INTO t_pk (a, b) VALUES ('other', 8);
UPDATE t_pk SET c = 'ddd' WHERE b = 7;
UPDATE t_pk SET a = 'key2', c = c WHERE b = 8;
DELETE FROM t_pk WHERE b = 7;
CREATE TABLE t_auto (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 7, b VARCHAR(10),
                     t TEXT, ts TIMESTAMP(3) NOT NULL DEFAULT '2001-02-03 04:05:06.789') ENGINE=InnoDB;
INSERT INTO t_auto (b) VALUES ('x'), ('y');
INSERT INTO t_auto (b, t) VALUES ('z', 'with text');
UPDATE t_auto SET a = 7, b = 'xx' WHERE id = 1;
UPDATE t_auto SET t = 'updated text' WHERE id = 3;
REPLACE INTO t_auto (id, b) VALUES (2, 'replaced');
INSERT INTO t_auto (id, b) VALUES (3, 'dup') ON DUPLICATE KEY UPDATE b = 'odku';
DELETE FROM t_auto WHERE id = 1;
