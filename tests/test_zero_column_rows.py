"""A rows event whose images hold no column and which has no row bytes is ONE row, as the
server writes it: MariaDB 10.11 under binlog_row_image=MINIMAL logs ``INSERT INTO t () VALUES
()`` on a table whose key takes its default that way (tests/data/row_images, real server
bytes), ``mariadb-binlog -vv`` prints ``### INSERT INTO ... VALUES ()`` and "Number of rows: 1"
for it, and the applier runs its row loop once. Every reader gives that row: the declarative
layout, the fast event decoder, ``decode_rows_body``, ``changes()`` and the export (format.md §13)."""

from __future__ import annotations

import re
from pathlib import Path

from binlogwriter.events import decode_event, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.rows import ROWS_TYPES
from binlogwriter.read.fastdecode import EventDecoder
from binlogwriter.read.rowdecode import decode_rows_body
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.values.base import ABSENT
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

from .conformance.mariadb import mariadb_binlog

SERVER = Path(__file__).parent / "data" / "row_images" / "mariadb-10.11-minimal-inserts.binlog"
# the INSERTs of inserts.sql in order: table, the columns MINIMAL logged
LOGGED = [("nopk", {"a": 1, "b": 4}), ("pkd", {}), ("pka", {"id": 1}), ("uk", {}), ("bpk", {})]


def _rows_events(path: Path) -> list:
    reader = BinlogReader([path])
    out = []
    for rec in reader.records():
        ev = decode_event(rec.data, rec.fmt, file=str(path), offset=rec.offset, verify_checksum=True,
                          columns_for=reader.state.columns_for)
        reader.state.observe(ev)
        if rec.data[4] in ROWS_TYPES:
            cols = reader.state.columns_for(ev.table_id)
            fast = EventDecoder().decode(rec.data, rec.fmt, file=str(path), offset=rec.offset,
                                         verify_checksum=True, columns_for=reader.state.columns_for)
            body = decode_rows_body(rec.data[4], rec.data[19:len(rec.data) - rec.fmt.footer_size], cols)[1]
            out.append((ev, fast, body, rec.data, rec.fmt))
    return out


def test_server_zero_column_inserts_are_one_row_each():
    events = _rows_events(SERVER)
    assert len(events) == len(LOGGED)
    for (ev, fast, body, raw, fmt), (_, logged) in zip(events, LOGGED, strict=True):
        assert len(ev.rows) == 1 and len(fast.rows) == 1 and len(body) == 1
        assert fast.rows == ev.rows and [v for v, _ in body] == ev.rows
        if not logged:
            assert not any(ev.columns_present) and ev.rows == [(ABSENT,) * ev.width]
        assert encode_event(ev, fmt, log_pos=ev.log_pos) == raw  # and it encodes back to the server's bytes


def test_changes_give_every_server_insert():
    got = [(c.op, c.table, c.before, c.after, c.event_row) for c in BinlogReader([SERVER]).changes()]
    assert got == [("insert", t, None, logged, 0) for t, logged in LOGGED]


def test_mariadb_binlog_counts_the_same_rows():
    text = mariadb_binlog([SERVER], "-vv", "--base64-output=decode-rows").stdout
    counts = [int(n) for n in re.findall(r"^# Number of rows: (\d+)$", text, flags=re.M)]
    assert counts == [len(ev.rows) for ev, *_ in _rows_events(SERVER)] == [1] * len(LOGGED)
    assert "### INSERT INTO `d`.`pkd` VALUES ()" in text


def test_written_zero_column_insert_reads_back(tmp_path: Path):
    sql = "CREATE TABLE pkd (id INT PRIMARY KEY DEFAULT 3, a INT DEFAULT 5)"
    for flavor in ("mariadb1011", "mysql80"):
        t = Table.from_sql(sql, database="d", flavor=flavor)
        d = tmp_path / flavor
        with BinlogWriter(d, BinlogFormat.preset(flavor), settings=SessionSettings(row_image="MINIMAL",
                                                                                     row_metadata="FULL")) as w:
            with w.transaction() as tx:
                tx.insert(t, [{}])
                tx.insert(t, [{"id": 4}])
        assert [(c.op, c.after) for c in BinlogReader(w.files).changes()] == [("insert", {}), ("insert", {"id": 4})]
        rows = [e.rows for e in BinlogReader(w.files) if e.type_code in ROWS_TYPES]
        assert rows == [[(ABSENT, ABSENT)], [(4, ABSENT)]]


def test_export_gives_every_server_insert():
    from binlogwriter.read.export import iter_table_batches

    for columnar in (True, False):
        got = [(k, b.num_rows, b.column("op").to_pylist()) for k, b in iter_table_batches([SERVER], columnar=columnar)]
        assert got == [(f"d.{t}", 1, ["insert"]) for t, _ in LOGGED]


UPDATES_DELETES = SERVER.parent / "mariadb-10.11-minimal-updates-deletes.binlog"


def test_row_counts_equal_mariadb_binlog_on_updates_and_deletes():
    """UPDATEs that change nothing are not logged; DELETEs log the key or every column; the
    empty INSERT image is one row: every event's row count is mariadb-binlog's."""
    text = mariadb_binlog([UPDATES_DELETES], "-vv", "--base64-output=decode-rows").stdout
    counts = [int(n) for n in re.findall(r"^# Number of rows: (\d+)$", text, flags=re.M)]
    events = _rows_events(UPDATES_DELETES)
    assert [len(ev.rows) for ev, *_ in events] == [len(fast.rows) for _, fast, *_ in events] == counts
    assert [e.type_code for e, *_ in events] == [23, 23, 25, 25, 23, 23]  # no UPDATE was logged
    changes = list(BinlogReader([UPDATES_DELETES]).changes())
    assert len(changes) == sum(counts)
    assert [(c.op, c.table, c.before, c.after) for c in changes if c.table == "pkd"] == [
        ("insert", "pkd", None, {}), ("insert", "pkd", None, {"id": 7})]
