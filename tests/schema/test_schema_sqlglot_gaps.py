"""What sqlglot cannot read in CREATE TABLE, case by case (binlogwriter/schema/lexer.py).

sqlglot's MySQL dialect parses CREATE TABLE first; the fallback parser
(binlogwriter/schema/fallback.py) reads a statement when sqlglot would be silently wrong
(a word of ``_LOSSY``, an executable comment) or when sqlglot's tree holds something our
mapping does not know (``_parse_with_sqlglot`` returns None). The expected tables are the
MySQL / MariaDB meaning of each type (their manuals' "data type" and "CREATE TABLE" pages).
"""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table
from binlogwriter.schema.fallback import parse_create_fallback
from binlogwriter.schema.lexer import LOSSY, sqlglot_lossy, tokenize
from binlogwriter.schema.parse import table_from_spec
from binlogwriter.schema.sqlglot_parse import parse_with_sqlglot


def via_sqlglot(sql: str, flavor: str = "mysql80") -> Table | None:
    spec = parse_with_sqlglot(sql)
    return None if spec is None else table_from_spec(spec, "test", flavor, None, None)


def via_fallback(sql: str, flavor: str = "mysql80") -> Table:
    return table_from_spec(parse_create_fallback(tokenize(sql)), "test", flavor, None, None)


# --- sqlglot reads these without complaint, but wrongly: the words of _LOSSY --------------

SILENTLY_WRONG = [
    ("a LONG", "MEDIUMTEXT"),           # MySQL: LONG = LONG VARCHAR = MEDIUMTEXT
    ("a INT8 UNSIGNED", "BIGINT"),      # MySQL: INT8 = BIGINT (8 bytes, not 8 bits)
]


def test_lossy_words_are_exactly_the_silently_wrong_cases() -> None:
    assert {c.split()[1] for c, _ in SILENTLY_WRONG} == set(LOSSY)


@pytest.mark.parametrize(("column", "server_type"), SILENTLY_WRONG)
def test_sqlglot_is_silently_wrong_so_the_fallback_reads_it(column: str, server_type: str) -> None:
    sql = f"CREATE TABLE t ({column})"
    wrong = via_sqlglot(sql)
    assert wrong is not None and wrong.columns[0].type != server_type
    assert sqlglot_lossy(tokenize(sql), sql)
    assert Table.from_sql(sql).columns[0].type == server_type


def test_executable_comment_is_sql() -> None:
    """``/*!40101 … */`` is run by the server; sqlglot drops it as a comment."""
    sql = "CREATE TABLE t (a CHAR(3)) /*!40101 DEFAULT CHARSET=latin1 */"
    assert via_sqlglot(sql).columns[0].charset != "latin1"  # type: ignore[union-attr]
    assert sqlglot_lossy(tokenize(sql), sql)
    assert Table.from_sql(sql).columns[0].charset == "latin1"


# --- sqlglot's tree holds something our mapping does not know: it says None -------------

UNMAPPED = [
    ("a REAL", "mysql80", dict(type="DOUBLE")),
    ("a FLOAT(30)", "mysql80", dict(type="DOUBLE")),
    ("a FLOAT(7,3) UNSIGNED", "mysql80", dict(type="FLOAT", precision=7, scale=3, unsigned=True)),
    ("a DOUBLE PRECISION", "mysql80", dict(type="DOUBLE")),
    ("a FLOAT4", "mysql80", dict(type="FLOAT")),
    ("a FLOAT8", "mysql80", dict(type="DOUBLE")),
    ("a INT3", "mysql80", dict(type="MEDIUMINT")),
    ("a MIDDLEINT", "mysql80", dict(type="MEDIUMINT")),
    ("a BOOL", "mysql80", dict(type="TINYINT")),
    ("a YEAR(4)", "mysql80", dict(type="YEAR")),
    ("a LONG VARBINARY", "mysql80", dict(type="MEDIUMBLOB")),
    ("a POINT SRID 4326", "mysql80", dict(type="POINT")),
    ("a GEOMCOLLECTION", "mysql80", dict(type="GEOMETRYCOLLECTION")),
    ("a NATIONAL CHAR(3)", "mysql80", dict(type="CHAR", length=3, charset="utf8mb3")),
    ("a NVARCHAR(3)", "mysql80", dict(type="VARCHAR", length=3, charset="utf8mb3")),
    ("a VARCHARACTER(5)", "mysql80", dict(type="VARCHAR", length=5)),
    ("a CHAR(3) BYTE", "mysql80", dict(type="BINARY", length=3)),
    ("a CHAR(4) BINARY", "mysql80", dict(type="CHAR", collation="utf8mb4_bin")),
    ("a SERIAL", "mysql80", dict(type="BIGINT", unsigned=True, nullable=False, auto_increment=True)),
    ("a INT VISIBLE", "mysql80", dict(type="INT", invisible=False)),
    ("a INET6", "mariadb1011", dict(type="INET6")),
    ("a UUID", "mariadb1011", dict(type="UUID")),
]


@pytest.mark.parametrize(("column", "flavor", "expected"), UNMAPPED)
def test_sqlglot_unmapped_falls_back(column: str, flavor: str, expected: dict) -> None:
    sql = f"CREATE TABLE t ({column})"
    assert parse_with_sqlglot(sql) is None
    col = Table.from_sql(sql, flavor=flavor).columns[0]
    for attr, value in expected.items():
        assert getattr(col, attr) == value, (attr, col)


@pytest.mark.parametrize("sql", [
    "CREATE TABLE t (a INT, b INT AS (a + 1) STORED)",
    "CREATE TABLE t (a INT, b INT AS (a + 1) PERSISTENT)",
    "CREATE TABLE t (a INT CHECK (a > 0))",
    "CREATE TABLE t (a INT, FOREIGN KEY (a) REFERENCES u (b))",
    "CREATE TABLE t (a INT) IGNORE SELECT 1",
])
def test_sqlglot_unmapped_statements_fall_back(sql: str) -> None:
    assert parse_with_sqlglot(sql) is None
    assert Table.from_sql(sql).columns[0].name == "a"


# --- everything else: sqlglot reads it, and the same as the fallback would -----------------

SAME = [
    "a INT1 UNSIGNED", "a INT2(4) ZEROFILL", "a INT4 NOT NULL DEFAULT 3", "a DEC(10)", "a FIXED(6,1) UNSIGNED",
    "a NUMERIC(4,2)", "a CHARACTER(5) CHARACTER SET latin1 COLLATE latin1_bin", "a VARCHAR(5) ASCII",
    "a CHAR(5) UNICODE", "a CHAR VARYING(5) CHARSET utf8", "a BINARY(4) NOT NULL",
    "a VARCHAR(4) CHARACTER SET binary", "a TEXT CHARACTER SET binary", "a ENUM('x','y') CHARACTER SET latin1",
    "a INT, b VARCHAR(10), PRIMARY KEY (a), UNIQUE KEY u (b(3)), KEY k (a, b)",
    "a DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6)", "a DECIMAL(65,30)", "a TEXT(300)", "a BLOB(70000)",
    "a CHAR(3) COMMENT 'LONG INT8'", "`long` INT",
]


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("column", SAME)
def test_sqlglot_and_fallback_agree(column: str, flavor: str) -> None:
    sql = f"CREATE TABLE t ({column})"
    assert not sqlglot_lossy(tokenize(sql), sql)
    got = via_sqlglot(sql, flavor)
    assert got is not None
    assert got == via_fallback(sql, flavor)


def test_errors_are_the_same_on_both_paths() -> None:
    sql = "CREATE TABLE t (a DECIMAL(66,2))"
    msgs = []
    for path in (via_sqlglot, via_fallback):
        with pytest.raises(SchemaError) as exc:
            path(sql)
        msgs.append(str(exc.value))
    assert msgs[0] == msgs[1]
