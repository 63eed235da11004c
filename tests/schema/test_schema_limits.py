"""CREATE TABLE text beyond the servers' limits is refused like the server refuses it
(issue 15): more than 4096 columns (MAX_FIELDS, ER_TOO_MANY_FIELDS) and an integer display
width beyond 255 (ER_TOO_BIG_DISPLAYWIDTH)."""

from __future__ import annotations

import pytest

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table


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
