"""A MariaDB system-versioned table read with ``schemas=`` its ``SHOW CREATE TABLE`` text, from a
real MariaDB 10.11 binlog without column metadata (tests/data/system_versioning/README.md):
the text lists two columns, the rows events carry four (the implicit invisible ``row_start``
and ``row_end``), and a schema given as SQL text has them too."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from binlogwriter.read.export import changes_tables
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table, parse_tables

DATA = Path(__file__).parent / "data" / "system_versioning"
BINLOG = DATA / "mariadb-10.11-no-log-versioned.binlog"
SCHEMA = DATA / "show-create-table.sql"
FOREVER = dt.datetime(2038, 1, 19, 3, 14, 7, 999999, tzinfo=dt.UTC)


def test_changes_with_the_show_create_table_text() -> None:
    changes = list(BinlogReader([BINLOG], schemas=SCHEMA).changes())
    assert [c.op for c in changes] == ["insert", "insert", "update", "insert", "update"]
    assert all(list(c.after or c.before) == ["id", "v", "row_start", "row_end"] for c in changes)
    current: dict[int, list] = {}
    for c in changes:
        # a row is current while its row_end is the end of time; an UPDATE that ends it is a
        # DELETE; an INSERT with an ended row_end is the history of an UPDATE
        if c.after["row_end"] == FOREVER:
            current[c.after["id"]] = [c.after["id"], c.after["v"]]
        elif c.op == "update":
            del current[c.after["id"]]
    assert {"d.sv": sorted(current.values())} == json.loads((DATA / "final-tables.json").read_text())


def test_export_with_the_schema_text() -> None:
    tab = changes_tables([BINLOG], schemas=SCHEMA)["d.sv"]
    assert "after.row_end" in tab.column_names and tab.num_rows == 5


def test_only_reading_adds_the_implicit_columns() -> None:
    """The table model of the text (generation, Table.from_sql) keeps the columns it lists."""
    text = SCHEMA.read_text()
    assert [c.name for c in parse_tables(text, flavor="mariadb1011")[0].columns] == ["id", "v"]
    read = parse_tables(text, flavor="mariadb1011", binlog_columns=True)[0]
    assert [(c.name, c.type, c.invisible) for c in read.columns][2:] == [
        ("row_start", "TIMESTAMP", True), ("row_end", "TIMESTAMP", True)]
    assert [c.name for c in parse_tables(text, flavor="mysql80", binlog_columns=True)[0].columns] == ["id", "v"]
    assert len(Table.from_sql(text.split(";\n", 1)[1], flavor="mariadb1011").columns) == 2
