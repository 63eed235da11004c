"""Which columns an INSERT's row image holds under MINIMAL and NOBLOB, judged against a
real MariaDB 10.11 (tests/data/row_images/README.md): a table without a key logs every
column; ``INSERT INTO t () VALUES ()`` on a table whose key takes its default logs an image
with no column (no bit set, no row bytes) — the writer writes the same bytes, and refuses
two such rows in one event (zero-byte rows: no reader could count them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import iter_raw
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

DATA = Path(__file__).parent / "data" / "row_images"
SQL = (DATA / "inserts.sql").read_text()
TABLES = {t.name: t for t in (Table.from_sql(stmt, database="d") for stmt in SQL.split(";")
                              if stmt.strip().startswith("CREATE TABLE"))}
# the values each INSERT of inserts.sql stores (defaults filled in), in statement order
ROWS = [("nopk", {"a": 1, "b": 4}), ("pkd", {"id": 3, "a": 5}), ("pka", {"id": 1, "a": 5}),
        ("uk", {"u": 9, "a": 5}), ("bpk", {"x": None, "id": 1})]
# what each statement gave: the columns a MINIMAL image may keep (pka's id is generated)
GIVEN = {"nopk": {"a"}, "pkd": set(), "pka": {"id"}, "uk": set(), "bpk": set()}


def _server_rows_bodies(image: str) -> list[bytes]:
    """Write_rows bodies after the 6-byte table id, in file order."""
    path = DATA / f"mariadb-10.11-{image.lower()}-inserts.binlog"
    return [bytes(r.data[19 + 6:-4]) for r in iter_raw(path) if r.type_code == 23]


def _ours(tmp_path: Path, image: str, given_only: bool) -> list[bytes]:
    st = SessionSettings(row_image=image, row_metadata="FULL")
    with BinlogWriter(tmp_path, BinlogFormat.mariadb1011(), settings=st) as w:
        for name, row in ROWS:
            t = TABLES[name]
            if given_only and image == "MINIMAL":
                keep = GIVEN[name] if t.effective_primary_key() else set(row)
                row = {k: v for k, v in row.items() if k in keep}
            elif given_only:  # NOBLOB: a blob not given is not logged
                row = {k: v for k, v in row.items() if k in GIVEN[name] or t.column(k).binlog_type("mariadb") != 252}
            with w.transaction() as tx:
                tx.insert(t, [row])
    return [bytes(r.data[19 + 6:-4]) for r in iter_raw(tmp_path / "binlog.000001") if r.type_code == 23]


@pytest.mark.parametrize("image", ["MINIMAL", "NOBLOB"])
def test_insert_images_as_the_server_logs_them(tmp_path: Path, image: str) -> None:
    server = _server_rows_bodies(image)
    assert len(server) == len(ROWS)
    ours = _ours(tmp_path, image, given_only=True)
    for (name, _), s, o in zip(ROWS, server, ours, strict=True):
        assert o.hex(" ") == s.hex(" "), f"{image} INSERT into {name}"


def test_a_table_without_key_needs_every_column(tmp_path: Path) -> None:
    """The server logs the default of ``b`` too (first statement): a row giving only ``a``
    is refused, naming the column, rather than written with a narrower image."""
    st = SessionSettings(row_image="MINIMAL")
    with pytest.raises(ValueEncodeError, match=r"binlog_row_image=MINIMAL logs this column.*d\.nopk\.b"):
        with BinlogWriter(tmp_path, BinlogFormat.mariadb1011(), settings=st) as w:
            with w.transaction() as tx:
                tx.insert(TABLES["nopk"], [{"a": 1}])


def test_the_server_logs_zero_column_images() -> None:
    """The shape itself: width 2, a bitmap byte of 0, nothing after (3 statements)."""
    bodies = _server_rows_bodies("MINIMAL")
    assert [b.hex() for b in bodies[1::2]] == ["01000200"] * 2 and bodies[4].hex() == "01000200"


def test_two_zero_column_rows_in_one_event_are_refused(tmp_path: Path) -> None:
    st = SessionSettings(row_image="MINIMAL")
    with pytest.raises(ValueEncodeError, match=r"2 rows whose MINIMAL image holds no column.*d\.pkd"):
        with BinlogWriter(tmp_path, BinlogFormat.mariadb1011(), settings=st) as w:
            with w.transaction() as tx:
                tx.insert(TABLES["pkd"], [{}, {}])
