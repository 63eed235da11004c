"""``alltypes``: every column type of values.md, with edge values on purpose.

Tables by family (numeric, temporal, strings in several charsets, blobs, ENUM/SET/JSON/
geometry), plus the shapes of docs/edge-cases.md (numbered as there): a table without a
primary key (8: before images hold every column), one whose primary key is a UNIQUE NOT NULL key (8), one with a
prefix primary key (8), one with 260 columns (22), ENUM with 300 members and SET with
20/64 members (10), CHAR(100) utf8mb4 (12), gbk/latin1/ucs2/utf32 columns (11).
About a quarter of the values are edge values: integer limits, DECIMAL(65,30) maxima,
negative TIME with a fraction and -838:59:59 (13), zero dates and zero DATETIME(4) (14;
replayed as row events, which the server applies whatever its sql_mode), empty strings,
ENUM '' (index 0, 9), empty SET, JSON scalars and empty containers.
"""

from __future__ import annotations

from generators.spec import Spec
from generators.workloads._ddl import create_table, parse_one
from generators.workloads.base import TableDef, WorkloadDef


def _int_cols() -> list[tuple[str, str]]:
    cols = []
    for t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"):
        cols.append((t.lower()[:3] + "_s", f"{t} NULL"))
        cols.append((t.lower()[:3] + "_u", f"{t} UNSIGNED NULL"))
    return cols


def alltypes(spec: Spec) -> WorkloadDef:
    n = spec.initial_rows
    defs: list[tuple[str, list[tuple[str, str]], list[str]]] = [
        ("at_numeric", [("id", "INT NOT NULL")] + _int_cols() + [
            ("f", "FLOAT NULL"), ("fu", "FLOAT UNSIGNED NULL"), ("d", "DOUBLE NULL"),
            ("dec_10_2", "DECIMAL(10,2) NULL"), ("dec_65_30", "DECIMAL(65,30) NULL"),
            ("dec_18_9", "DECIMAL(18,9) NULL"), ("dec_9_0", "DECIMAL(9,0) NULL"),
            ("dec_4_2u", "DECIMAL(4,2) UNSIGNED NULL"), ("dec_30_30", "DECIMAL(30,30) NULL"),
            ("b1", "BIT(1) NULL"), ("b10", "BIT(10) NULL"), ("b64", "BIT(64) NULL"), ("y", "YEAR NULL"),
            ("bo", "BOOLEAN NULL")], ["PRIMARY KEY (`id`)"]),
        ("at_temporal", [("id", "BIGINT NOT NULL"), ("dt0", "DATE NULL"), ("tm0", "TIME NULL"),
                         ("tm2", "TIME(2) NULL"), ("tm6", "TIME(6) NULL"), ("dtm0", "DATETIME NULL"),
                         ("dtm4", "DATETIME(4) NULL"), ("dtm6", "DATETIME(6) NULL"),
                         ("ts0", "TIMESTAMP NULL"), ("ts3", "TIMESTAMP(3) NULL"), ("ts6", "TIMESTAMP(6) NULL")],
         ["PRIMARY KEY (`id`)"]),
        ("at_string", [("id", "INT UNSIGNED NOT NULL"), ("c10", "CHAR(10) NULL"),
                       ("c100", "CHAR(100) NULL"), ("c255", "CHAR(255) CHARACTER SET latin1 NULL"),
                       ("v255", "VARCHAR(255) NULL"), ("v300", "VARCHAR(300) NULL"),
                       ("v_latin1", "VARCHAR(40) CHARACTER SET latin1 NULL"),
                       ("v_gbk", "VARCHAR(40) CHARACTER SET gbk NULL"),
                       ("v_ucs2", "VARCHAR(20) CHARACTER SET ucs2 NULL"),
                       ("v_utf32", "VARCHAR(20) CHARACTER SET utf32 NULL"),
                       ("v_mb3", "VARCHAR(40) CHARACTER SET utf8mb3 NULL"),
                       ("v_bin", "VARCHAR(40) COLLATE utf8mb4_bin NULL"),
                       ("tt", "TINYTEXT NULL"), ("tx", "TEXT NULL"), ("mt", "MEDIUMTEXT NULL"),
                       ("lt", "LONGTEXT NULL")], ["PRIMARY KEY (`id`)"]),
        ("at_binary", [("id", "INT NOT NULL"), ("bn16", "BINARY(16) NULL"), ("vb64", "VARBINARY(64) NULL"),
                       ("vb300", "VARBINARY(300) NULL"), ("tb", "TINYBLOB NULL"), ("bl", "BLOB NULL"),
                       ("mb", "MEDIUMBLOB NULL"), ("lb", "LONGBLOB NULL")], ["PRIMARY KEY (`id`)"]),
        ("at_misc", [("id", "INT NOT NULL"), ("e3", "ENUM('small','medium','large') NULL"),
                     ("e300", "ENUM(" + ",".join(f"'v{i:03d}'" for i in range(300)) + ") NULL"),
                     ("s5", "SET('a','b','c','d','e') NULL"),
                     ("s20", "SET(" + ",".join(f"'f{i}'" for i in range(20)) + ") NULL"),
                     ("s64", "SET(" + ",".join(f"'m{i}'" for i in range(64)) + ") NULL"),
                     ("j", "JSON NULL"), ("g", "GEOMETRY NULL"), ("pt", "POINT NULL"),
                     ("ls", "LINESTRING NULL"), ("pg", "POLYGON NULL"), ("mpt", "MULTIPOINT NULL"),
                     ("gc", "GEOMETRYCOLLECTION NULL")], ["PRIMARY KEY (`id`)"]),
        ("at_nopk", [("a", "INT NULL"), ("b", "VARCHAR(20) NULL"), ("c", "DATETIME(3) NULL"),
                     ("d", "DECIMAL(8,3) NULL")], ["KEY `idx_a` (`a`)"]),
        ("at_uniq", [("code", "VARCHAR(24) NOT NULL"), ("n", "INT NULL"), ("t", "TEXT NULL")],
         ["UNIQUE KEY `uk_code` (`code`)"]),
        ("at_prefix", [("name", "VARCHAR(64) NOT NULL"), ("v", "INT NULL"), ("body", "BLOB NULL")],
         ["PRIMARY KEY (`name`(12))"]),
        ("at_wide", [("id", "INT NOT NULL")] + [(f"c{i:03d}", "TINYINT NULL") for i in range(259)]
         + [("tail", "VARCHAR(10) NULL")], ["PRIMARY KEY (`id`)"]),
    ]
    tables = []
    for name, cols, keys in defs:
        sql = create_table(name, cols, keys, spec)
        t = parse_one(sql, spec)
        groups = None
        if name == "at_wide":
            groups = [tuple(f"c{i:03d}" for i in range(j, j + 3)) for j in range(0, 258, 37)] + [("tail",)]
        tables.append(TableDef(t, sql, initial_count=n, edge=True, update_groups=groups))
    return WorkloadDef("alltypes", spec.database, tables)
