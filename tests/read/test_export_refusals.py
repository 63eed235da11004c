"""What the export refuses, located (issue 30): a PARTIAL_UPDATE_ROWS_EVENT (format.md §14) is
not exported — outside a compressed transaction and inside one (TRANSACTION_PAYLOAD, format.md
§15: it was skipped there, its rows missing from the export without a word) — and an event
longer than ``max_event_size`` is a LimitError naming file:offset, as ``changes()`` says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.errors import DecodeError, LimitError
from binlogwriter.format import BinlogFormat, EventType
from binlogwriter.read.changes import iter_changes
from binlogwriter.read.export import changes_tables, export_parquet, iter_table_batches
from binlogwriter.reader import iter_raw
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

SQL = "CREATE TABLE t (id INT PRIMARY KEY, j JSON, s VARCHAR(20))"


def _binlog(tmp: Path, *, compressed: bool, partial: bool) -> Path:
    """A MySQL 8.0 binlog (FULL metadata, MINIMAL images): an INSERT, then an UPDATE (as PARTIAL_UPDATE_ROWS_EVENT when
    ``partial``), each a transaction of its own (in a TRANSACTION_PAYLOAD when ``compressed``)."""
    table = Table.from_sql(SQL, database="d", flavor="mysql80")
    settings = SessionSettings(row_metadata="FULL", row_image="MINIMAL", transaction_compression=compressed)
    with BinlogWriter(tmp, BinlogFormat.preset("mysql80"), settings=settings) as w:
        w.ddl("CREATE DATABASE d")
        w.ddl(SQL, "d")
        with w.transaction() as tx:
            tx.insert(table, [{"id": 1, "j": {"a": 1}, "s": "é"}])
        with w.transaction() as tx:
            upd = tx.partial_update if partial else tx.update
            upd(table, [({"id": 1, "j": {"a": 1}, "s": "é"}, {"j": {"a": 2}, "s": "ü"})])
    return w.files[0]


def _offset_of(path: Path, code: int) -> int:
    """Offset of the last event of type ``code`` (read by the declarative reader)."""
    return [r.offset for r in iter_raw(path) if r.type_code == code][-1]


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "compressed"])
def test_a_partial_update_is_refused_at_its_event(tmp_path: Path, compressed: bool) -> None:
    path = _binlog(tmp_path / "in", compressed=compressed, partial=True)
    where = _offset_of(path, EventType.TRANSACTION_PAYLOAD_EVENT if compressed
                       else EventType.PARTIAL_UPDATE_ROWS_EVENT)
    for run in (lambda: changes_tables(path), lambda: export_parquet([path], tmp_path / "out")):
        with pytest.raises(DecodeError) as exc:
            run()
        assert "PARTIAL_UPDATE_ROWS_EVENT" in str(exc.value)
        assert exc.value.file == str(path) and exc.value.offset == where
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "compressed"])
def test_the_same_binlog_with_a_full_update_exports_both_changes(tmp_path: Path, compressed: bool) -> None:
    path = _binlog(tmp_path / "in", compressed=compressed, partial=False)
    t = changes_tables(path)["d.t"]
    assert t.column("op").to_pylist() == ["insert", "update"]
    assert t.column("after.s").to_pylist() == ["é", "ü"]


def test_an_event_above_max_event_size_is_a_limit_error_at_its_offset(tmp_path: Path) -> None:
    path = _binlog(tmp_path / "in", compressed=False, partial=False)
    events = list(iter_raw(path))
    big = max(events[1:], key=lambda r: len(r.data))  # not the FDE: the first bigger one fails
    limit = len(big.data) - 1
    first = next(r for r in events[1:] if len(r.data) > limit)
    with pytest.raises(LimitError) as ref:
        list(iter_changes([path], max_event_size=limit))
    for run in (lambda: export_parquet([path], tmp_path / "out", max_event_size=limit),
                lambda: changes_tables(path, max_event_size=limit),
                lambda: list(iter_table_batches([path], max_event_size=limit))):
        with pytest.raises(LimitError) as exc:
            run()
        assert (exc.value.file, exc.value.offset) == (str(path), first.offset) == (ref.value.file, ref.value.offset)
    assert not (tmp_path / "out").exists()
    assert export_parquet([path], tmp_path / "out", max_event_size=len(big.data)) == {"d.t": 2}


def test_a_malformed_rows_event_in_a_transaction_of_two_tables_is_located(tmp_path: Path) -> None:
    """The ``row`` numbering of a transaction touching two tables counts each event's rows
    when it is read: a value running past its event's end is the error changes() gives, at
    that event's file:offset (it was raised without a place)."""
    import zlib

    from binlogwriter.read.changes import iter_changes

    sql = ["CREATE TABLE a (id INT PRIMARY KEY, s VARCHAR(20))", "CREATE TABLE b (id INT PRIMARY KEY, s VARCHAR(20))"]
    a, b = (Table.from_sql(s, database="d", flavor="mysql80") for s in sql)
    with BinlogWriter(tmp_path / "in", BinlogFormat.preset("mysql80"), settings=SessionSettings(row_metadata="FULL")) as w:
        w.ddl("CREATE DATABASE d")
        for s in sql:
            w.ddl(s, "d")
        with w.transaction() as tx:
            tx.insert(a, [{"id": 1, "s": "x"}])
            tx.insert(b, [{"id": 2, "s": "yy"}])
            tx.insert(a, [{"id": 3, "s": "z"}])
    path = w.files[0]
    raw = bytearray(path.read_bytes())
    bad = [r for r in iter_raw(path) if r.type_code == EventType.WRITE_ROWS_EVENT][1]  # table b's
    end = bad.offset + len(bad.data)
    assert raw[end - 7:end - 4] == b"\x02yy"  # the last value: its length byte, then 'yy', then the CRC32
    raw[end - 7] = 200
    raw[end - 4:end] = zlib.crc32(bytes(raw[bad.offset:end - 4])).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(DecodeError) as ref:
        list(iter_changes([path]))
    for run in (lambda: changes_tables(path), lambda: export_parquet([path], tmp_path / "out")):
        with pytest.raises(DecodeError) as exc:
            run()
        assert (exc.value.file, exc.value.offset) == (str(path), bad.offset) == (ref.value.file, ref.value.offset)
        assert str(exc.value) == str(ref.value)
