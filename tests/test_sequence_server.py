"""A MariaDB sequence read with ``schemas=`` its ``SHOW CREATE SEQUENCE`` text, from a real
MariaDB 10.11 binlog without column metadata (tests/data/sequence/README.md): the text
gives the sequence's table (eight columns), and the last change holds the server's row."""

from __future__ import annotations

import json
from pathlib import Path

from binlogwriter.reader import BinlogReader
from binlogwriter.schema import parse_tables

DATA = Path(__file__).parent / "data" / "sequence"
BINLOG = DATA / "mariadb-10.11-no-log-sequence.binlog"
SCHEMA = DATA / "show-create-sequence.sql"


def test_changes_of_a_sequence_with_its_create_sequence_text() -> None:
    changes = list(BinlogReader([BINLOG], schemas=SCHEMA).changes())
    assert changes and all(c.op == "insert" and (c.database, c.table) == ("d", "s1") for c in changes)
    final = json.loads((DATA / "final-sequence.json").read_text())
    assert [list(changes[-1].after.values())] == final
    assert list(changes[-1].after)[0] == "next_not_cached_value"


def test_create_sequence_is_a_table_only_for_reading() -> None:
    text = SCHEMA.read_text()
    assert parse_tables(text, flavor="mariadb1011") == []
    (seq,) = parse_tables(text, flavor="mariadb1011", binlog_columns=True)
    assert (seq.database, seq.name, len(seq.columns)) == ("d", "s1", 8)
    assert [c.unsigned for c in seq.columns][5:7] == [True, True]
