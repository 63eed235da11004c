"""Issue #3 acceptance: the Table_map we build from a CREATE TABLE is the one MariaDB writes.

For each ``binlog_row_metadata`` (NO_LOG, MINIMAL, FULL) one throwaway MariaDB 10.11 server
(docs/testing.md) runs the catalogue below — every column type, charset mixes that give
both DEFAULT_CHARSET and COLUMN_CHARSET (collation ids ≥ 251 included), ENUM with 300 members,
SET with 64, a 260-column table, PK / prefix PK / composite PK out of column order /
UNIQUE-NOT-NULL-only / key-less tables, INVISIBLE columns — and one INSERT per table. Then, per
table (format.md §12, §12.1; mariadb.md "TABLE_MAP optional metadata"):

* ``encode_table_map(build_table_map(Table.from_sql(ddl), <server's table id>, "mariadb1011",
  mode))`` equals the server's Table_map event minus its 19-byte header and CRC32;
* ``render_table_metadata`` of the server's event equals the ``# Columns(…)`` /
  ``# Primary Key(…)`` lines of ``mariadb-binlog --print-table-metadata`` for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from binlogwriter.reader import BinlogReader, iter_raw
from binlogwriter.schema import Table
from binlogwriter.table_map.metadata import build_table_map, encode_table_map
from binlogwriter.text.metadata import render_table_metadata
from tests.text.test_print_table_metadata import metadata_block

from .mariadb import MariaDBServer, mariadb_binlog

pytestmark = pytest.mark.conformance

FLAVOR = "mariadb1011"
DB = "tm"
MODES = ("NO_LOG", "MINIMAL", "FULL")

_ENUM300 = "ENUM(" + ",".join(f"'m{i}'" for i in range(300)) + ")"
_SET64 = "SET(" + ",".join(f"'s{i}'" for i in range(64)) + ")"
_WIDE = ", ".join(
    f"c{i} " + ("INT", "VARCHAR(3) CHARACTER SET latin1", "DOUBLE", "INT UNSIGNED NOT NULL",
                "DATETIME(2)")[i % 5] for i in range(260))

# name -> CREATE TABLE (database tm, default charset utf8mb4 = utf8mb4_general_ci)
CATALOGUE: dict[str, str] = {
    "t_int": "CREATE TABLE t_int (id INT NOT NULL PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, "
             "si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, "
             "iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED NOT NULL, bo BOOLEAN, y YEAR, "
             "b1 BIT(1), b17 BIT(17), b64 BIT(64), z INT(5) ZEROFILL)",
    "t_real": "CREATE TABLE t_real (f FLOAT, d DOUBLE, fmd FLOAT(7,3), dmd DOUBLE(12,4) UNSIGNED, "
              "fu FLOAT UNSIGNED, de DECIMAL(10,2), d65 DECIMAL(65,30), d5u DECIMAL(5,0) UNSIGNED, "
              "d30 DECIMAL(30,30), dd DECIMAL)",
    "t_time": "CREATE TABLE t_time (d DATE, t TIME, t3 TIME(3), t6 TIME(6), dt DATETIME, "
              "dt1 DATETIME(1), dt6 DATETIME(6), ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, "
              "ts6 TIMESTAMP(6) NULL DEFAULT NULL, y YEAR(4), "
              "tsn TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00')",
    "t_str": "CREATE TABLE t_str (id INT PRIMARY KEY, c1 CHAR(1), c255 CHAR(255), vc1 VARCHAR(1), "
             "vc VARCHAR(1000), tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, t100 TEXT(100), "
             "nc NATIONAL CHAR(10), cb CHAR(10) BINARY) DEFAULT CHARSET=utf8mb4",
    "t_bin": "CREATE TABLE t_bin (bn1 BINARY(1), bn BINARY(255), vb VARBINARY(3000), tb TINYBLOB, "
             "b BLOB, mb MEDIUMBLOB, lb LONGBLOB, b300 BLOB(300), cbin CHAR(20) CHARACTER SET binary, "
             "vbin VARCHAR(30) CHARACTER SET binary)",
    "t_enum": "CREATE TABLE t_enum (e1 ENUM('a','b','c'), e2 ENUM('x','y') NOT NULL, "
              "s1 SET('p','q','r'), s8 SET('a','b','c','d','e','f','g','h'), "
              "s9 SET('a','b','c','d','e','f','g','h','i'), "
              "el ENUM('a','é','z') CHARACTER SET latin1, "
              "sb SET('M','n') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)",
    "t_enum300": f"CREATE TABLE t_enum300 (id INT PRIMARY KEY, e {_ENUM300}, s {_SET64})",
    "t_json": "CREATE TABLE t_json (id INT PRIMARY KEY, j JSON, j2 JSON NOT NULL DEFAULT '{}', "
              "v VARCHAR(10))",
    "t_geo": "CREATE TABLE t_geo (g GEOMETRY, p POINT, l LINESTRING, pg POLYGON, mp MULTIPOINT, "
             "ml MULTILINESTRING, mpg MULTIPOLYGON, gc GEOMETRYCOLLECTION, "
             "pn POINT NOT NULL DEFAULT ST_GeomFromText('POINT(0 0)'))",
    "t_geo_only": "CREATE TABLE t_geo_only (g GEOMETRY)",
    "t_maria": "CREATE TABLE t_maria (id INT PRIMARY KEY, i6 INET6, u UUID, i4 INET4, v VARCHAR(5))",
    # mostly one collation, a few others: DEFAULT_CHARSET with exception pairs
    "t_cs_default": "CREATE TABLE t_cs_default (a VARCHAR(10), b VARCHAR(10), c VARCHAR(10), "
                    "d VARCHAR(10) CHARACTER SET latin1, e TEXT, "
                    "f CHAR(3) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin) DEFAULT CHARSET=utf8mb4",
    # many charsets: COLUMN_CHARSET
    "t_cs_column": "CREATE TABLE t_cs_column (a VARCHAR(10) CHARACTER SET latin1, "
                   "b VARCHAR(10) CHARACTER SET gbk, c VARCHAR(10) CHARACTER SET ucs2, "
                   "d VARCHAR(10) CHARACTER SET utf16, e VARCHAR(10) CHARACTER SET utf32, "
                   "f VARCHAR(10) CHARACTER SET utf8mb3, g VARCHAR(10) CHARACTER SET utf8mb4, "
                   "h VARBINARY(10), i VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_bin, "
                   "j TEXT CHARACTER SET gbk COLLATE gbk_bin)",
    # a default collation id >= 251 (packed in 3 bytes) with exceptions, one of them >= 251 too
    "t_cs_high": "CREATE TABLE t_cs_high (a VARCHAR(10) COLLATE utf8mb4_uca1400_ai_ci, "
                 "b VARCHAR(10) COLLATE utf8mb4_uca1400_ai_ci, c TEXT COLLATE utf8mb4_uca1400_ai_ci, "
                 "d CHAR(5) COLLATE utf8mb4_unicode_nopad_ci, e VARCHAR(10) CHARACTER SET latin1) "
                 "DEFAULT CHARSET=utf8mb4",
    "t_cs_high_col": "CREATE TABLE t_cs_high_col (a VARCHAR(10) COLLATE utf8mb4_uca1400_ai_ci, "
                     "b VARCHAR(10) COLLATE utf8mb4_unicode_nopad_ci, "
                     "c VARCHAR(10) COLLATE utf8mb4_unicode_ci, "
                     "d VARCHAR(10) COLLATE utf8mb4_uca1400_as_cs, "
                     "e VARCHAR(10) COLLATE utf8mb3_uca1400_ai_ci)",
    "t_cs_latin1": "CREATE TABLE t_cs_latin1 (id INT PRIMARY KEY, a VARCHAR(20), b TEXT, c CHAR(4), "
                   "e ENUM('ä','b'), s SET('x','ÿ')) DEFAULT CHARSET=latin1",
    "t_es_column": "CREATE TABLE t_es_column (e1 ENUM('a') CHARACTER SET latin1, "
                   "e2 ENUM('b') CHARACTER SET utf8mb4, s1 SET('c') CHARACTER SET ascii, "
                   "s2 SET('d') CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci)",
    "t_es_default": "CREATE TABLE t_es_default (e1 ENUM('a'), e2 ENUM('b'), e3 ENUM('c'), "
                    "s1 SET('d') CHARACTER SET latin1) DEFAULT CHARSET=utf8mb4",
    "t_ucs2_enum": "CREATE TABLE t_ucs2_enum (e ENUM('a','b') CHARACTER SET ucs2, "
                   "s SET('x','y') CHARACTER SET utf32, v VARCHAR(5) CHARACTER SET ucs2)",
    "t_wide": f"CREATE TABLE t_wide (id INT PRIMARY KEY, {_WIDE})",
    "t_pk_prefix": "CREATE TABLE t_pk_prefix (name VARCHAR(50) NOT NULL, id INT NOT NULL, "
                   "body TEXT, PRIMARY KEY (name(10), id)) DEFAULT CHARSET=utf8mb4",
    "t_pk_prefix_blob": "CREATE TABLE t_pk_prefix_blob (b BLOB NOT NULL, "
                        "t TEXT CHARACTER SET latin1 NOT NULL, PRIMARY KEY (t(5), b(20)))",
    "t_pk_order": "CREATE TABLE t_pk_order (a INT NOT NULL, b VARCHAR(5) NOT NULL, c INT NOT NULL, "
                  "d INT, PRIMARY KEY (c, a, b))",
    "t_uniq_nn": "CREATE TABLE t_uniq_nn (u INT NOT NULL, code CHAR(4) NOT NULL, v INT, "
                 "UNIQUE KEY uk (u, code))",
    "t_uniq_null": "CREATE TABLE t_uniq_null (u INT, v INT NOT NULL, UNIQUE KEY (u), KEY (v))",
    "t_uniq_second": "CREATE TABLE t_uniq_second (u INT, w INT NOT NULL, UNIQUE KEY a (u), "
                     "UNIQUE KEY b (w))",
    "t_nokey": "CREATE TABLE t_nokey (a INT, b VARCHAR(3))",
    "t_invisible": "CREATE TABLE t_invisible (id INT PRIMARY KEY, a INT INVISIBLE, "
                   "b VARCHAR(4) INVISIBLE DEFAULT 'x', c INT)",
    "t_names": "CREATE TABLE t_names (`we``ird` INT, `café` VARCHAR(3), "
               "`a_column_name_that_is_exactly_sixty_four_characters_long_abcdefg` INT, `sp ace` INT)",
    "t_notnull": "CREATE TABLE t_notnull (a INT NOT NULL, b INT NOT NULL, c INT NOT NULL, "
                 "d INT NOT NULL, e INT NOT NULL, f INT NOT NULL, g INT NOT NULL, h INT NOT NULL, "
                 "i INT, j INT NOT NULL)",
    "t_only_es": "CREATE TABLE t_only_es (e ENUM('a','b'), s SET('c','d'))",
    "t_no_numeric": "CREATE TABLE t_no_numeric (a VARCHAR(3), b BLOB, d DATE)",
}


def workload() -> str:
    """DDL of the catalogue, then one INSERT of defaults per table (sql_mode '' fills NOT NULL
    columns without a default with their implicit defaults)."""
    parts = [f"CREATE DATABASE {DB} CHARACTER SET utf8mb4;", f"USE {DB};"]
    parts += [ddl + ";" for ddl in CATALOGUE.values()]
    parts.append("SET SESSION sql_mode = '';")
    parts += [f"INSERT INTO {name} () VALUES ();" for name in CATALOGUE]
    return "\n".join(parts) + "\n"


@dataclass
class ServerMaps:
    """What one server wrote: per table its Table_map (id, body bytes, decoded event) and the
    ``--print-table-metadata`` lines mariadb-binlog printed for it."""

    bodies: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    events: dict[str, object] = field(default_factory=dict)
    printed: dict[str, list[str]] = field(default_factory=dict)


_TABLE_MAP_LINE = re.compile(r"\tTable_map: `(?P<db>(?:[^`]|``)+)`\.`(?P<t>(?:[^`]|``)+)` mapped to number (\d+)$")


def printed_metadata(text: str) -> dict[str, list[str]]:
    """``# Columns(…)`` … ``# Primary Key(…)`` lines after each Table_map header line, by table."""
    out: dict[str, list[str]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _TABLE_MAP_LINE.search(line)
        if m:
            out.setdefault(m.group("t").replace("``", "`"), metadata_block(lines, i))
    return out


def run_server(template: Path, mode: str, out_dir: Path) -> ServerMaps:
    with MariaDBServer(template, row_metadata=mode) as server:
        server.execute(workload())
        server.shutdown()
        files = server.copy_binlogs(out_dir)
    result = ServerMaps()
    for path in files:
        reader = BinlogReader([path])
        for rec in iter_raw(path):
            if rec.type_code != 19:
                continue
            ev = reader.decode(rec)
            if ev.schema == DB and ev.table not in result.bodies:
                result.bodies[ev.table] = (ev.table_id, rec.data[19:-4])
                result.events[ev.table] = ev
    proc = mariadb_binlog(files, "--print-table-metadata", "--base64-output=decode-rows")
    assert proc.returncode == 0, proc.stderr
    result.printed = printed_metadata(proc.stdout)
    return result


_RUNS: dict[str, ServerMaps] = {}


@pytest.fixture(scope="module")
def server_maps(mariadb_template: Path, tmp_path_factory: pytest.TempPathFactory):
    def get(mode: str) -> ServerMaps:
        if mode not in _RUNS:
            _RUNS[mode] = run_server(mariadb_template, mode, tmp_path_factory.mktemp(f"tm-{mode}"))
        return _RUNS[mode]

    return get


CASES = [(mode, name) for mode in MODES for name in CATALOGUE]


@pytest.mark.parametrize(("mode", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_built_table_map_equals_the_servers(server_maps, mode: str, name: str) -> None:
    maps = server_maps(mode)
    assert name in maps.bodies, f"the server wrote no Table_map for {DB}.{name}"
    table_id, expected = maps.bodies[name]
    table = Table.from_sql(CATALOGUE[name], database=DB, flavor=FLAVOR, database_charset="utf8mb4")
    ours = encode_table_map(build_table_map(table, table_id, FLAVOR, mode))
    assert ours.hex(" ") == expected.hex(" "), f"{mode} {name}: ours differs from the server's Table_map"


@pytest.mark.parametrize(("mode", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_rendered_table_metadata_equals_mariadb_binlog(server_maps, mode: str, name: str) -> None:
    maps = server_maps(mode)
    ev = maps.events[name]
    expected = maps.printed.get(name)
    assert expected, f"mariadb-binlog printed no # Columns lines for {name}"
    ours = render_table_metadata(ev.view(), FLAVOR)
    assert ours == expected


def test_catalogue_covers_both_charset_representations(server_maps) -> None:
    """The catalogue really provokes DEFAULT_CHARSET, COLUMN_CHARSET (also for ENUM/SET),
    3-byte collation ids, both primary-key TLVs, and a packed column count ≥ 251."""
    maps = server_maps("FULL")
    tlv_types = {t for ev in maps.events.values() for t in (f["type"] for f in ev.optional_metadata)}
    assert {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11} <= tlv_types

    def types(name: str) -> set[int]:
        return {f["type"] for f in maps.events[name].optional_metadata}

    assert 2 in types("t_cs_default") and 3 in types("t_cs_column")
    assert 10 in types("t_es_default") and 11 in types("t_es_column")
    assert 9 in types("t_pk_prefix") and 8 in types("t_pk_order") and 8 in types("t_uniq_nn")
    assert not {8, 9} & types("t_uniq_null") and not {8, 9} & types("t_nokey")
    high = maps.events["t_cs_high"].view()._parse_tlv(2)
    assert high.default >= 251 and any(p.collation >= 251 for p in high.pairs)
    assert maps.events["t_wide"].view().column_count == 261
