"""Hostile MariaDB 10.11 binlogs for the export tests (issue 27): written by the project's own
writer with hostile database / table names, and byte-patched where the writer refuses (each
event re-framed: event_length, log_pos and CRC32 recomputed)."""

from __future__ import annotations

import dataclasses
import zlib
from decimal import Decimal
from pathlib import Path

from binlogwriter.events import decode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.values import bind_column
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.fuzz.seeds import fix_event

FMT = BinlogFormat.mariadb1011()
T = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))", database="d")

HOSTILE = [
    ("/tmp/binlogwriter-export-abs", "../../y"),  # an absolute path, a relative one going up
    ("a/b\\c", "..\\..\\z"),  # separators of both kinds
    ("..", "."),
    ("a\x00b", "t"),  # NUL: "embedded null byte" from os.mkdir before the fix
    ("d", "t\udcff"),  # the byte 0xFF (not UTF-8): UnicodeEncodeError from pyarrow before
    ("CON", "nul"),  # Windows device names
    ("AUX", "com1"),
    ("", ""),  # empty names
    ("é" * 64, "ü" * 64),  # 64-character names: a folder name too long for any file system
    ("é" * 64, "ü" * 63 + "u"),  # ... and one sharing its first 200 encoded characters
    ("a.b", "c"),  # "a.b.c" both, joined as they are
    ("a", "b.c"),
    ("T", "x"),  # case-sensitive names (distinct folders on this file system)
    ("t", "x"),
]


def write(
    out: Path, tables: list[tuple[str, str]], table: Table = T, rows=None, fmt: BinlogFormat = FMT, **settings
) -> Path:
    """One binlog (FULL row metadata): a transaction inserting ``rows`` (default two rows of
    their own) into each ``(database, table)``."""
    out.mkdir(parents=True, exist_ok=True)
    with BinlogWriter(out, fmt, settings=SessionSettings(row_metadata="FULL", **settings)) as w:
        for i, (db, name) in enumerate(tables):
            with w.transaction() as tx:
                tx.insert(
                    dataclasses.replace(table, name=name, database=db),
                    rows if rows is not None else [(i, f"row {i}"), (100 + i, "b")],
                )
    return w.files[0]


def events(path: Path) -> list[bytes]:
    data, pos, out = path.read_bytes(), 4, []
    while pos < len(data):
        n = int.from_bytes(data[pos + 9 : pos + 13], "little")
        out.append(data[pos : pos + n])
        pos += n
    return out


def rebuild(path: Path, evs: list[bytes]) -> Path:
    """The events re-framed: event_length, log_pos and CRC32 recomputed."""
    out = bytearray(b"\xfebin")
    for ev in evs:
        out += fix_event(ev, True, len(out))
    path.write_bytes(bytes(out))
    return path


def tree(root: Path) -> set[Path]:
    return set(root.rglob("*"))


WIDE = "-12345678901234." + "9" * 223 + "1"
"""A DECIMAL(238,224) value: 14 integer digits, 224 fraction digits."""


def decimal_238(tmp_path: Path) -> Path:
    """A Table_map declaring DECIMAL(238,224) (no server declares more than (65,30), but the
    metadata is a byte each: values.md §1), a row holding NULL and one holding :data:`WIDE`."""
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(65,30))", database="d")
    path = write(tmp_path, [("d", "t")], t, [(1, None), (2, Decimal("1.5"))])
    evs = events(path)
    at = [e[4] for e in evs].index(19)
    k = evs[at].index(bytes((65, 30)), 19)
    evs[at] = fix_event(evs[at][:k] + bytes((238, 224)) + evs[at][k + 2 :], True)
    col = decode_event(evs[at], FMT).column_descs()[1]
    assert bytes(col.meta) == bytes((238, 224))
    value = bind_column(col).encode(Decimal(WIDE))
    assert len(value) == 107  # 14 digits in 7 bytes, 224 in 24 * 4 + 4 (values.md §3)
    w = [e[4] for e in evs].index(23)  # WRITE_ROWS_EVENT_V1: table id 6, flags 2, width 1, bitmap 1
    rows = b"\x02" + (1).to_bytes(4, "little") + b"\x00" + (2).to_bytes(4, "little") + value
    evs[w] = evs[w][:29] + rows + evs[w][-4:]
    return rebuild(path, evs)


def short_gtid(tmp_path: Path, flavor: str = "mariadb1011") -> tuple[Path, int]:
    """A GTID event whose body is 5 bytes: MARIADB_GTID_EVENT (seq_no alone needs 8) or
    MySQL's GTID_LOG_EVENT (flags and 16 bytes of source id first)."""
    if flavor == "mariadb1011":
        path, code = write(tmp_path, [("d", "t")]), 162
    else:
        sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
        path, code = write(tmp_path, [("d", "t")], fmt=BinlogFormat.preset(flavor), gtid=sid), 33
    evs = events(path)
    g = [e[4] for e in evs].index(code)
    evs[g] = evs[g][: 19 + 5] + evs[g][-4:]
    rebuild(path, evs)
    return path, 4 + sum(len(e) for e in evs[:g])


def recompressed(tmp_path: Path, level: int) -> Path:
    """The WRITE_ROWS_EVENT_V1 turned into a WRITE_ROWS_COMPRESSED_EVENT_V1 (166) whose rows
    are a MariaDB compressed blob (mariadb.md "Compression"): ``0x80 | 1``, the length in one
    byte, then zlib at ``level`` instead of the server's default."""
    path = write(tmp_path, [("d", "t")], rows=[(i, f"value {i % 3}") for i in range(16)])
    evs = events(path)
    w = [e[4] for e in evs].index(23)
    rows = evs[w][29:-4]
    assert len(rows) < 256
    blob = bytes((0x81, len(rows))) + zlib.compress(rows, level)
    assert zlib.compress(rows) != blob[2:]
    evs[w] = evs[w][:4] + bytes((166,)) + evs[w][5:29] + blob + evs[w][-4:]
    return rebuild(path, evs)


def duplicate_columns(tmp_path: Path) -> Path:
    """A Table_map whose COLUMN_NAME metadata names both columns ``aa`` (the writer refuses
    such a table; the second name ``bb`` is patched to ``aa``)."""
    t = Table.from_sql("CREATE TABLE t (aa INT, bb VARCHAR(20))", database="d")
    path = write(tmp_path, [("d", "t")], t, [(1, "x"), (2, None)])
    evs = events(path)
    at = [e[4] for e in evs].index(19)
    assert evs[at].count(b"\x02bb") == 1
    evs[at] = evs[at].replace(b"\x02bb", b"\x02aa")
    return rebuild(path, evs)
