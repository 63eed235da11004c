"""CREATE TABLE clauses of MariaDB 10.11 the parser reads (issue #28 item 5) or refuses in one
line naming the clause and the column; the generate-and-replay side is
tests/conformance/test_real_world_schemas.py."""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Check, Table, parse_tables

T = "CREATE TABLE t (id INT PRIMARY KEY, "


def _table(sql: str, flavor: str = "mariadb1011"):
    return parse_tables(sql, "db", flavor)[-1]


def test_period_for_is_kept_as_its_start_before_end_rule() -> None:
    t = _table(T + "s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p (s, e))")
    assert [c.name for c in t.columns] == ["id", "s", "e"]
    assert t.checks == (Check("PERIOD FOR p", "`s` < `e`"),)


def test_system_time_columns_named_by_the_table() -> None:
    t = _table(
        T + "x INT, rs TIMESTAMP(6) GENERATED ALWAYS AS ROW START, re TIMESTAMP(6) GENERATED ALWAYS AS "
        "ROW END, PERIOD FOR SYSTEM_TIME (rs, re)) WITH SYSTEM VERSIONING"
    )
    assert [(c.name, c.generated) for c in t.columns] == [
        ("id", False),
        ("x", False),
        ("rs", True),
        ("re", True),
    ]
    assert t.checks == ()


def test_without_system_versioning_column() -> None:
    t = _table(T + "x INT WITHOUT SYSTEM VERSIONING, y INT WITH SYSTEM VERSIONING)")
    assert [c.name for c in t.columns] == ["id", "x", "y"]


@pytest.mark.parametrize("attr", ["COMPRESSED", "COMPRESSED=zlib"])
def test_compressed_column_is_refused_in_one_line(attr: str) -> None:
    with pytest.raises(SchemaError) as ei:
        _table(T + f"b BLOB {attr}, v INT)")
    assert "COMPRESSED columns" in str(ei.value) and "db.t.b" in str(ei.value)
    assert "\n" not in str(ei.value)


def test_long_unique_on_blob_is_mariadb_only() -> None:
    t = _table(T + "b BLOB, UNIQUE KEY (b) USING HASH)")
    assert [k.kind for k in t.keys] == ["PRIMARY", "UNIQUE"]
    with pytest.raises(SchemaError, match="without a key length"):
        _table(T + "b BLOB, UNIQUE KEY (b))", "mysql80")


def test_on_update_clause_is_kept() -> None:
    """``ON UPDATE CURRENT_TIMESTAMP[(fsp)]`` / ``NOW()`` / ``LOCALTIMESTAMP`` kept as SQL text
    in ``Column.on_update`` (MySQL 8.0 reference 13.2.2 "Automatic Initialization and Updating
    for TIMESTAMP and DATETIME"), beside ``DEFAULT``."""
    from binlogwriter.schema import Table

    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, "
                       "u TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), "
                       "c DATETIME DEFAULT CURRENT_TIMESTAMP, d datetime default now() on update now(), "
                       "e timestamp null on update current_timestamp, f DATETIME(6) ON UPDATE LOCALTIMESTAMP(6))")
    assert [(c.name, c.default, c.on_update) for c in t.columns] == [
        ("id", None, None), ("u", "CURRENT_TIMESTAMP(3)", "CURRENT_TIMESTAMP(3)"), ("c", "CURRENT_TIMESTAMP", None),
        ("d", "NOW()", "NOW()"), ("e", None, "CURRENT_TIMESTAMP"), ("f", None, "LOCALTIMESTAMP(6)")]


_LATIN1_BIN_DB = "CREATE DATABASE e CHARACTER SET latin1 COLLATE latin1_bin; USE e; "


def _collations(sql: str, flavor: str) -> list[str]:
    """The collation of each column of the script's last table but ``id``."""
    t = parse_tables(sql, "db", flavor)[-1]
    return [c.collation_obj(flavor).name for c in t.columns if c.name != "id"]


@pytest.mark.parametrize(
    ("options", "mariadb", "mysql"),
    [
        # MariaDB 10.11 (SHOW CREATE TABLE in a latin1_bin database): the charset's default
        # collation; MySQL: as if the clause were absent (the database's collation)
        ("CHARACTER SET default COLLATE default", "latin1_swedish_ci", "latin1_bin"),
        ("COLLATE default", "latin1_swedish_ci", "latin1_bin"),
        ("DEFAULT CHARSET=default", "latin1_swedish_ci", "latin1_bin"),
        ("DEFAULT CHARSET = utf8mb4 COLLATE = default", "utf8mb4_general_ci", "utf8mb4_0900_ai_ci"),
        ("", "latin1_bin", "latin1_bin"),
    ],
)
def test_table_charset_and_collation_default(options: str, mariadb: str, mysql: str) -> None:
    sql = _LATIN1_BIN_DB + T + "v VARCHAR(5)) " + options
    assert _collations(sql, "mariadb1011") == [mariadb]
    assert _collations(sql, "mysql80") == [mysql]


def test_database_charset_default_is_the_servers() -> None:
    sql = "CREATE DATABASE f CHARACTER SET default; USE f; " + T + "v VARCHAR(5))"
    assert _collations(sql, "mariadb1011") == ["utf8mb4_general_ci"]
    sql = "CREATE DATABASE g CHARACTER SET latin1 COLLATE default; USE g; " + T + "v VARCHAR(5))"
    assert _collations(sql, "mariadb1011") == ["latin1_swedish_ci"]


def test_column_collate_default_is_its_charsets_default_on_mariadb_only() -> None:
    sql = _LATIN1_BIN_DB + T + "v VARCHAR(5) COLLATE default, w ENUM('a') CHARACTER SET utf8mb4 COLLATE default) " \
        "COLLATE latin1_general_cs"
    assert _collations(sql, "mariadb1011") == ["latin1_swedish_ci", "utf8mb4_general_ci"]
    with pytest.raises(SchemaError, match=r"COLLATE DEFAULT on a column is MariaDB syntax .* e\.t\.v"):
        _collations(sql, "mysql80")


def test_column_character_set_default_is_refused() -> None:
    """Both servers' grammars refuse ``CHARACTER SET DEFAULT`` on a column (MariaDB 10.11: ERROR 1064)."""
    with pytest.raises(SchemaError, match=r"unknown character set 'default'.*db\.t\.v"):
        _table(T + "v VARCHAR(5) CHARACTER SET default)")


@pytest.mark.parametrize(
    ("standard", "function"),
    [
        ("NEXT VALUE FOR s1", "nextval(s1)"),
        ("next value for db.s1", "NEXTVAL(db.s1)"),
        ("PREVIOUS VALUE FOR s1", "lastval(s1)"),
    ],
)
def test_sequence_value_default_is_the_function_it_means(standard: str, function: str) -> None:
    """MariaDB's ``NEXT VALUE FOR s`` is ``nextval(s)``, ``PREVIOUS VALUE FOR s`` ``lastval(s)``
    (SHOW CREATE TABLE prints the function): the same column as the function-call form."""
    ddl = "CREATE SEQUENCE s1; CREATE TABLE t (id BIGINT NOT NULL DEFAULT {} PRIMARY KEY, v INT)"
    t = _table(ddl.format(standard))
    assert t.columns == _table(ddl.format(function)).columns
    assert t.columns[0].default.startswith(function[:7].upper())
    assert [k.kind for k in t.keys] == ["PRIMARY"]


@pytest.mark.parametrize("order", ["PERIOD FOR p (s, e), {key}", "{key}, PERIOD FOR p (s, e)"])
def test_without_overlaps_key_ends_with_the_periods_end_and_start(order: str) -> None:
    """MariaDB 10.11 SHOW INDEX of ``PRIMARY KEY (id, p WITHOUT OVERLAPS)``: id, e, s."""
    key = "PRIMARY KEY (id, p WITHOUT OVERLAPS)"
    t = _table("CREATE TABLE t (id INT, s DATE NOT NULL, e DATE NOT NULL, " + order.format(key=key) + ")")
    assert [(k.kind, k.columns, k.period) for k in t.keys] == [("PRIMARY", ("id", "e", "s"), "p")]
    assert t.checks == (Check("PERIOD FOR p", "`s` < `e`"),)


def test_without_overlaps_of_an_unknown_period_is_refused() -> None:
    with pytest.raises(SchemaError, match=r"q WITHOUT OVERLAPS names no PERIOD FOR of the table - at table 't'"):
        _table("CREATE TABLE t (id INT, s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p (s, e), "
               "PRIMARY KEY (id, q WITHOUT OVERLAPS))")


# table options both servers' grammars take (MySQL 8.0 / 8.4 "CREATE TABLE Statement",
# table_option; MariaDB 10.11 "CREATE TABLE", Table Options)
OPTIONS_ACCEPTED = [
    "ENGINE=InnoDB STATS_PERSISTENT=0, STATS_AUTO_RECALC DEFAULT STATS_SAMPLE_PAGES 20",
    "ENGINE InnoDB AUTO_INCREMENT=5 AVG_ROW_LENGTH=10 DEFAULT CHARSET=latin1 COLLATE latin1_bin CHECKSUM=1",
    "COMMENT='a' ROW_FORMAT=DYNAMIC KEY_BLOCK_SIZE=8 MAX_ROWS=10 MIN_ROWS 1 PACK_KEYS=DEFAULT",
    "DATA DIRECTORY='/tmp' INDEX DIRECTORY = '/tmp' DELAY_KEY_WRITE=1 INSERT_METHOD=LAST UNION=(a, b)",
    "TABLESPACE ts STORAGE DISK ENCRYPTION='N' AUTOEXTEND_SIZE=4M COMPRESSION='zlib' START TRANSACTION",
    "ENGINE_ATTRIBUTE='{}' SECONDARY_ENGINE=rapid SECONDARY_ENGINE_ATTRIBUTE='{}' STORAGE MEMORY",
    "STORAGE ENGINE=Aria TRANSACTIONAL=1 PAGE_CHECKSUM=1 TABLE_CHECKSUM=1 CONNECTION='x' PASSWORD='p'",
    "PAGE_COMPRESSED=1 PAGE_COMPRESSION_LEVEL=3 ENCRYPTED=YES ENCRYPTION_KEY_ID=2 SEQUENCE=0 IETF_QUOTES=YES",
    "WITH SYSTEM VERSIONING",
    "ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 2",
    "CHARACTER SET 'utf8mb4' CHAR SET utf8mb4 DEFAULT COLLATE = utf8mb4_bin",
]


@pytest.mark.parametrize("options", OPTIONS_ACCEPTED)
def test_table_options_are_read(options: str) -> None:
    t = _table(T + f"v INT) {options};\n")
    assert [c.name for c in t.columns[:2]] == ["id", "v"]


@pytest.mark.parametrize(("script", "line", "message"), [
    ("CREATE TABLE a (x INT PRIMARY KEY) ENGINE=InnoDB STATS_PERSISTENT=0 FOO BAR;",
     1, "not a table option of MySQL 8.0 / 8.4 or MariaDB 10.11 near 'FOO' - at table 'a'"),
    ("CREATE TABLE a (x INT PRIMARY KEY) ENGINE=InnoDB FOO=1;", 1, "not a table option"),
    ("CREATE TABLE a (x INT PRIMARY KEY)\n ENGINE=InnoDB\n\nCREATE TABLE b (y INT PRIMARY KEY);", 4,
     "a ';' is missing before CREATE (another statement begins) near 'CREATE' - at table 'a'"),
    ("CREATE TABLE a (x INT PRIMARY KEY) INSERT INTO a VALUES (1);", 1, "a ';' is missing before INSERT"),
    ("CREATE TABLE a (x INT PRIMARY KEY) REPLACE INTO a VALUES (1);", 1, "a ';' is missing before REPLACE"),
    ("CREATE TABLE a (x INT PRIMARY KEY) PARTITION BY HASH (x)\nALTER TABLE a ADD y INT;", 2,
     "a ';' is missing before ALTER"),
    ("CREATE TABLE a (x INT PRIMARY KEY, v INT) ENGINE=InnoDB YEAR(4);", 1, "near 'YEAR'"),
    ("CREATE TABLE a (x INT PRIMARY KEY) COMMENT 'a' 'b';", 1, "near 'b'"),  # MariaDB 10.11: ERROR 1064
])
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_words_after_the_options_are_refused_naming_file_line_and_table(script: str, line: int, message: str,
                                                                        flavor: str) -> None:
    """Both servers refuse a word that is no table option (ERROR 1064; MariaDB ``FOO=1``:
    ERROR 1911 "Unknown option"); it was skipped, and copied into snapshot.sql. A second
    CREATE TABLE without the ``;`` between them was dropped."""
    with pytest.raises(SchemaError) as ei:
        parse_tables(script, "db", flavor, source="s.sql")
    msg = str(ei.value)
    assert msg.startswith(f"s.sql:{line}: ") and message in msg and "\n" not in msg, msg


def test_table_options_are_checked_on_both_parser_paths() -> None:
    """sqlglot's path (a statement it reads) and Table.from_sql refuse the same words."""
    for sql in ("CREATE TABLE a (x INT PRIMARY KEY) ENGINE=InnoDB FOO", "CREATE TABLE a (x INT) ROW_FORMAT=DYNAMIC X"):
        with pytest.raises(SchemaError, match="not a table option"):
            Table.from_sql(sql)
        with pytest.raises(SchemaError, match="not a table option"):
            parse_tables(sql, "db", "mysql80", own_parser_first=True)


@pytest.mark.parametrize(("script", "line", "name"), [
    ('CREATE TABLE "t" ("a" INT);', 1, '"t"'),
    ("SET sql_mode='ANSI_QUOTES';\nCREATE TABLE \"t\" (\"a\" INT);", 2, '"t"'),
    ("CREATE TABLE t (\n  id INT PRIMARY KEY,\n  \"b\" INT);", 3, '"b"'),
    ('CREATE TABLE IF NOT EXISTS db."t" (a INT);', 1, '"t"'),
])
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_double_quoted_names_are_refused_naming_the_line(script: str, line: int, name: str, flavor: str) -> None:
    """``"t"`` is a string to both servers unless sql_mode has ANSI_QUOTES (ERROR 1064), and
    snapshot.sql sets its own sql_mode: the script was accepted, and its snapshot refused."""
    with pytest.raises(SchemaError) as ei:
        parse_tables(script, "db", flavor, source="q.sql")
    msg = str(ei.value)
    assert msg.startswith(f"q.sql:{line}: cannot parse CREATE TABLE: double-quoted identifier {name}: ") \
        and "use backquotes" in msg and "\n" not in msg, msg


def test_double_quoted_strings_elsewhere_stay_strings() -> None:
    t = _table('CREATE TABLE `t` (a ENUM("x", "y") DEFAULT "x", b INT) COMMENT "c" SELECT CONCAT("p", "q") AS c')
    assert [c.name for c in t.columns] == ["a", "b"] and t.columns[0].members == ("x", "y")
