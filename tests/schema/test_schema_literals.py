"""Hexadecimal and bit-value literals in column DEFAULTs (MySQL 8.0 reference "Hexadecimal
Literals" / "Bit-Value Literals"; MariaDB 10.11 the same), through both CREATE TABLE
parsers: sqlglot's and the fallback the lexer sends a statement to (issue #28 step 0:
``flags BIT(64) NOT NULL DEFAULT b'0'``, which both servers accept, was refused whenever
the statement went to the fallback, e.g. because of a YEAR or CHECK elsewhere in it).
"""

from __future__ import annotations

import re

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table
from tests.schema.test_schema_sqlglot_gaps import via_fallback, via_sqlglot

# (DEFAULT as written, the text both parsers keep: sqlglot's spelling)
LITERALS = [
    ("b'0'", "B'0'"),
    ("B'101'", "B'101'"),
    ("0b101", "B'101'"),
    ("b''", "B''"),
    ("0x1F", "X'1F'"),
    ("0x1f", "X'1F'"),
    ("X'1f'", "X'1F'"),
    ("x'1F'", "X'1F'"),
    ("X''", "X''"),
    ("0xABC", "X'ABC'"),  # 0x… may have an odd number of digits, X'…' may not
    ("_binary 0x1F", "_BINARY X'1F'"),
    ("-0x1", "-X'1'"),
    ("(b'1')", "(B'1')"),
]


@pytest.mark.parametrize(("written", "kept"), LITERALS)
@pytest.mark.parametrize("column_type", ["BIT(64)", "BIT(8)", "VARBINARY(8)"])
def test_hex_and_bit_defaults_parse_on_both_paths(column_type: str, written: str, kept: str) -> None:
    sql = f"CREATE TABLE t (id INT PRIMARY KEY, flags {column_type} NOT NULL DEFAULT {written})"
    for table in (via_sqlglot(sql), via_fallback(sql)):
        assert table is not None
        assert table.columns[1].default == kept
        assert table.columns[1].nullable is False


def test_issue_statement_with_a_fallback_column() -> None:
    """The reported definition next to a column only the fallback reads (YEAR(4))."""
    t = Table.from_sql(
        "CREATE TABLE t (id INT PRIMARY KEY, flags BIT(64) NOT NULL DEFAULT b'0', y YEAR(4),"
        " h VARBINARY(4) DEFAULT X'00ff', g BIT(3) DEFAULT 0b101)"
    )
    assert [(c.name, c.type, c.length, c.default) for c in t.columns[1:]] == [
        ("flags", "BIT", 64, "B'0'"),
        ("y", "YEAR", None, None),
        ("h", "VARBINARY", 4, "X'00FF'"),
        ("g", "BIT", 3, "B'101'"),
    ]


@pytest.mark.parametrize("bad", ["X'1'", "x'ABC'"])
def test_odd_hex_string_literal_is_refused(bad: str) -> None:
    """``X'…'`` needs an even number of digits (both servers: a syntax error)."""
    with pytest.raises(SchemaError, match="even number of digits"):
        Table.from_sql(f"CREATE TABLE t (v VARBINARY(4) DEFAULT {bad})")


def test_names_that_look_like_literals_stay_names() -> None:
    t = Table.from_sql("CREATE TABLE t (b INT, x INT, `0x1F` INT, b2 CHAR(1) DEFAULT 'b')")
    assert [c.name for c in t.columns] == ["b", "x", "0x1F", "b2"]
    assert t.columns[3].default == "'b'"


# (the SQL as written, the text a CHECK keeps: the same escapes, so sqlglot and the server read
# the same string; a backslash is an escape character under the default sql_mode)
ESCAPED = [
    (r"a <> '\\'", r"a <> '\\'"),
    (r"a IN ('\\', 'x\\y', 'it''s', 'it\'s')", r"a IN ( '\\' , 'x\\y' , 'it''s' , 'it''s' )"),
    (r"a <> 'tab\there'", "a <> 'tab\there'"),
    (r"a <> '\0'", r"a <> '\0'"),
    (r"a LIKE 'x\%'", r"a LIKE 'x\\%'"),  # \% keeps its backslash: the same two characters
]


@pytest.mark.parametrize(("written", "kept"), ESCAPED)
def test_check_text_keeps_string_escapes(written: str, kept: str) -> None:
    """A CHECK's text is what the file says, escapes and all (issue: ``CHECK (a <> '\\\\')``
    was kept as ``a <> '\\'``, an unterminated string sqlglot could not read)."""
    t = Table.from_sql(f"CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(9), CHECK ({written}))")
    assert t.checks[0].sql == kept
    import sqlglot

    want = [s.this for s in sqlglot.parse_one(f"SELECT {written}", read="mysql").find_all(sqlglot.exp.Literal)]
    got = [s.this for s in sqlglot.parse_one(f"SELECT {kept}", read="mysql").find_all(sqlglot.exp.Literal)]
    assert got == want


def test_string_defaults_keep_their_escapes_on_both_paths() -> None:
    sql = r"CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(9) DEFAULT 'a\\b''c')"
    for table in (via_sqlglot(sql), via_fallback(sql)):
        assert table is not None and table.columns[1].default == r"'a\\b''c'"


# (members as written, charset, the members: the bytes each hex / bit literal spells, in the charset)
HEX_MEMBERS = [
    ("0x61,0x62", "utf8mb4", ("a", "b")),
    ("X'61',x'62'", "utf8mb4", ("a", "b")),
    ("b'01100001',0b1100010", "utf8mb4", ("a", "b")),
    ("0x6120,'b '", "utf8mb4", ("a", "b")),  # trailing spaces dropped, as of any member
    ("0xC3A4,0x616263", "utf8mb4", ("ä", "abc")),
    ("0x93fa,0x9373", "sjis", ("日", "都")),
    ("0xE4,0x41", "latin1", ("ä", "A")),
    ("0x616", "utf8mb4", ("\x06\x16",)),  # an odd number of 0x digits: a leading 0
]


@pytest.mark.parametrize(("members", "charset", "want"), HEX_MEMBERS)
@pytest.mark.parametrize("kind", ["ENUM", "SET"])
def test_hex_and_bit_members_are_the_text_their_bytes_spell(members: str, charset: str, want: tuple,
                                                            kind: str) -> None:
    """MariaDB 10.11 SHOW CREATE TABLE of ``ENUM(0x61,0x62)`` is ``enum('a','b')``; ``ENUM(0x93fa)
    CHARACTER SET sjis`` holds 日 (was: the members ``X'61'``, ``X'62'``, which snapshot.sql
    then inserted and the server refused)."""
    t = Table.from_sql(f"CREATE TABLE t (id INT PRIMARY KEY, c {kind}({members}) CHARACTER SET {charset})",
                       flavor="mariadb1011")
    assert t.columns[1].members == want


@pytest.mark.parametrize(("ddl", "message"), [
    ("c ENUM(0xE4)", "ENUM member 0xE4: not text of CHARACTER SET utf8mb4"),
    ("c SET(0x61, 0xFF80) CHARACTER SET sjis", "SET member 0xFF80: not text of CHARACTER SET sjis"),
    ("c ENUM(0x61, X'61')", "duplicate value 'a' in ENUM"),
    ("c SET(0x612C62)", "SET member 'a,b' contains ','"),
    ("c VARCHAR(0x10)", "VARCHAR(0x10): '0x10' is not a whole number"),
])
def test_hex_members_the_server_would_not_keep_are_refused(ddl: str, message: str) -> None:
    with pytest.raises(SchemaError, match=re.escape(message)) as ei:
        Table.from_sql(f"CREATE TABLE t (id INT PRIMARY KEY, {ddl})", flavor="mariadb1011")
    assert "\n" not in str(ei.value) and "column 'c'" in str(ei.value)
