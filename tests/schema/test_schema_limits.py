"""CREATE TABLE text beyond the servers' limits is refused like the server refuses it
(issue 15): more than 4096 columns (MAX_FIELDS, ER_TOO_MANY_FIELDS) and an integer display
width beyond 255 (ER_TOO_BIG_DISPLAYWIDTH). And an ENUM / SET member of characters its
column's charset lacks: the server keeps '?' for them, not the member the file names."""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table, parse_tables


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_more_than_4096_columns_is_refused(flavor: str) -> None:
    cols = ", ".join(f"c{i} TINYINT" for i in range(4101))
    with pytest.raises(SchemaError, match="too many columns: 4101, a table has at most 4096") as info:
        Table.from_sql(f"CREATE TABLE wide ({cols})", database="db", flavor=flavor)
    assert "db.wide" in str(info.value)
    ok = ", ".join(f"c{i} TINYINT" for i in range(4096))
    assert len(Table.from_sql(f"CREATE TABLE wide ({ok})", database="db", flavor=flavor).columns) == 4096


@pytest.mark.parametrize("ddl", ["INT(300)", "TINYINT(256) UNSIGNED", "BIGINT(1000)", "SMALLINT(999)",
                                 "MEDIUMINT(256)"])
def test_display_width_beyond_255_is_refused(ddl: str) -> None:
    with pytest.raises(SchemaError, match=r"display width out of range \(max 255\)") as info:
        Table.from_sql(f"CREATE TABLE t (id INT PRIMARY KEY, c {ddl})", database="db")
    assert "db.t.c" in str(info.value)


def test_display_widths_up_to_255_are_kept_quiet() -> None:
    t = Table.from_sql("CREATE TABLE t (a INT(11), b TINYINT(1), c BIGINT(255) UNSIGNED, d INT(0))", database="db")
    assert [c.type for c in t.columns] == ["INT", "TINYINT", "BIGINT", "INT"]


@pytest.mark.parametrize(
    ("column", "member", "char"),
    [
        ("n ENUM('я','ж','ü') CHARACTER SET cp1251", "ü", "ü"),
        ("n SET('я','xü') CHARACTER SET cp1251", "xü", "ü"),
        ("n ENUM('a', 'é') CHARACTER SET ascii", "é", "é"),
        ("n ENUM('a😀') CHARACTER SET utf8mb3", "a😀", "😀"),
        ("n ENUM('я') CHARACTER SET latin1", "я", "я"),
    ],
)
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_member_the_columns_charset_cannot_hold_is_refused(column: str, member: str, char: str, flavor: str) -> None:
    """A server stores such a character as '?' (MariaDB 10.11: ``ENUM('ü') CHARACTER SET cp1251``
    is ``enum('?')``): one line naming the file's line, the column and the member, no traceback."""
    sql = f"CREATE TABLE t (id INT PRIMARY KEY,\n{column})"
    with pytest.raises(SchemaError) as ei:
        parse_tables(sql, "db", flavor, source="f.sql")
    msg = str(ei.value)
    assert msg.startswith("f.sql:2: ") and "db.t.n" in msg and "\n" not in msg
    assert f"member {member!r}: {char!r} is not a character of CHARACTER SET" in msg


def test_members_the_charset_holds_are_kept() -> None:
    t = parse_tables("CREATE TABLE t (n ENUM('я','ж') CHARACTER SET cp1251, s SET('ü','a😀'), "
                     "u ENUM('€') CHARACTER SET latin1)", "db", "mariadb1011")[0]
    assert [c.members for c in t.columns] == [("я", "ж"), ("ü", "a😀"), ("€",)]
    assert t.columns[0].member_bytes("mariadb1011") == ("я".encode("cp1251"), "ж".encode("cp1251"))


def test_members_in_a_charset_python_has_no_codec_for_take_the_servers_bytes() -> None:
    """keybcs2 and armscii8 have no Python codec; their members are the bytes of the server's
    own tables (docs/charsets.md rule 6: keybcs2 0x87 is 'č', armscii8 0xB2 is 'Ա'), and a
    character such a table lacks is refused like any other."""
    t = parse_tables("CREATE TABLE t (n ENUM('a','č') CHARACTER SET keybcs2, "
                     "m SET('Ա','x') CHARACTER SET armscii8)", "db", "mariadb1011")[0]
    assert t.columns[0].member_bytes("mariadb1011") == (b"a", b"\x87")
    assert t.columns[1].member_bytes("mariadb1011") == (b"\xb2", b"x")
    with pytest.raises(SchemaError, match=r"member 'я': 'я' is not a character of CHARACTER SET keybcs2 "):
        parse_tables("CREATE TABLE t (n ENUM('a','я') CHARACTER SET keybcs2)", "db", "mariadb1011")
