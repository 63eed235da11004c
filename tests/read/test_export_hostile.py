"""``export`` on hostile MariaDB 10.11 binlogs (issue 27, found by an independent fuzzer).

The files are written by the project's own writer with hostile database / table names, and
byte-patched (each event re-framed and re-CRC'd) where the writer refuses: a Table_map
declaring DECIMAL(238,224), a MariaDB GTID event with a 5-byte body, a compressed rows event
whose zlib stream is valid but not at the default level. For each: every file written is
inside the output directory (names are data, never paths), the export succeeds with the
right rows, or raises the located typed error ``inspect`` / ``verify --roundtrip`` report
for the same bytes; the CLI never prints a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from binlogwriter.errors import BinlogError, DecodeError
from binlogwriter.events import RawEvent
from binlogwriter.read.export import changes_tables, export_parquet, iter_table_batches
from binlogwriter.read.exportpaths import DATABASE_KEY, TABLE_KEY, encode_name, table_of_dir
from binlogwriter.reader import BinlogReader
from tests.hostile_binlogs import (
    HOSTILE,
    WIDE,
    decimal_238,
    duplicate_columns,
    recompressed,
    short_gtid,
    tree,
    write,
)


def test_hostile_names_stay_inside_the_output_directory(tmp_path: Path) -> None:
    path = write(tmp_path / "in", HOSTILE)
    work = tmp_path / "work"
    work.mkdir()
    before = tree(tmp_path)
    out = work / "out"
    counts = export_parquet([path], out)
    assert not Path("/tmp/binlogwriter-export-abs").exists()
    new = tree(tmp_path) - before
    assert new and all(p == out or out in p.parents for p in new), sorted(new - {out})
    folders = sorted(p for p in out.iterdir())
    assert all(p.is_dir() and p.parent == out for p in folders)
    assert len(folders) == len(HOSTILE) == len(counts)
    assert set(counts.values()) == {2}
    for i, (db, table) in enumerate(HOSTILE):
        raw = (db.encode("utf-8", "surrogateescape"), table.encode("utf-8", "surrogateescape"))
        found = []
        for f in folders:
            part = f / "part-00000.parquet"
            meta = pq.read_schema(part).metadata
            if (meta[DATABASE_KEY], meta[TABLE_KEY]) == (
                encode_name(db).encode(),
                encode_name(table).encode(),
            ):
                found.append(part)
                if "~" not in f.name:
                    assert table_of_dir(f.name) == raw
        assert len(found) == 1, (db, table)
        rows = pq.read_table(found[0]).to_pylist()
        assert [(r["after.id"], r["after.v"]) for r in rows] == [(i, f"row {i}"), (100 + i, "b")]


def test_cli_prints_hostile_names_on_one_line_each(tmp_path: Path) -> None:
    path = write(tmp_path / "in", HOSTILE[:8])
    proc = subprocess.run(
        [sys.executable, "-m", "binlogwriter", "export", str(path), "--to", "parquet", str(tmp_path / "out")],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 9 and lines[-1] == "8 tables, 16 rows"
    assert "\x00" not in proc.stdout.decode() and proc.stderr == b""
    assert "a\\x00b.t: 2 rows -> " in proc.stdout.decode()
    assert "d.t\\udcff: 2 rows -> " in proc.stdout.decode()
    assert (
        f"/tmp/binlogwriter-export-abs.../../y: 2 rows -> {tmp_path / 'out'}/%2Ftmp%2F"
        in proc.stdout.decode()
    )


# -- byte-patched files -----------------------------------------------------------------------


def test_decimal_beyond_arrow_precision_is_exported_as_its_text(tmp_path: Path) -> None:
    path = decimal_238(tmp_path / "in")
    assert [c.after["d"] for c in BinlogReader([path]).changes()] == [None, Decimal(WIDE)]
    tab = changes_tables(path)["d.t"]
    assert tab.schema.field("after.d").type == pa.string()
    assert tab.column("after.d").to_pylist() == [None, WIDE]
    ref = pa.Table.from_batches([b for _, b in iter_table_batches([path], columnar=False)])
    assert ref.equals(tab)
    assert export_parquet([path], tmp_path / "out") == {"d.t": 2}
    assert pq.read_table(tmp_path / "out" / "d.t").column("after.d").to_pylist() == [None, WIDE]


@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
def test_a_short_gtid_body_is_the_located_error_the_reader_gives(tmp_path: Path, flavor: str) -> None:
    path, offset = short_gtid(tmp_path / "in", flavor)
    with pytest.raises(DecodeError) as want:
        list(BinlogReader([path]))
    with pytest.raises(DecodeError) as got:
        export_parquet([path], tmp_path / "out")
    assert type(got.value) is type(want.value)
    assert (got.value.file, got.value.offset) == (str(path), offset) == (want.value.file, want.value.offset)
    assert got.value.event_type == ("MARIADB_GTID_EVENT" if flavor == "mariadb1011" else "GTID_LOG_EVENT")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("level", [1, 9])
def test_a_compressed_rows_event_at_another_zlib_level_is_exported(tmp_path: Path, level: int) -> None:
    path = recompressed(tmp_path / "in", level)
    rows_event = [e for e in BinlogReader([path]) if e.type_code == 166]
    assert len(rows_event) == 1 and isinstance(rows_event[0], RawEvent)  # kept raw: it re-encodes otherwise
    tab = changes_tables(path)["d.t"]
    assert [(r["op"], r["after.id"], r["after.v"]) for r in tab.to_pylist()] == [
        ("insert", i, f"value {i % 3}") for i in range(16)
    ]
    assert export_parquet([path], tmp_path / "out") == {"d.t": 16}


def test_a_column_name_given_twice_keeps_both_columns(tmp_path: Path) -> None:
    path = duplicate_columns(tmp_path / "in")
    assert export_parquet([path], tmp_path / "out") == {"d.t": 2}
    tab = pq.read_table(tmp_path / "out" / "d.t")
    assert tab.column_names == [
        "seq",
        "row",
        "op",
        "database",
        "table",
        "gtid",
        "xid",
        "file",
        "position",
        "transaction_position",
        "timestamp",
        "before_columns",
        "after_columns",
        "before.aa",
        "before.aa#2",
        "after.aa",
        "after.aa#2",
    ]
    assert tab.column("after.aa").to_pylist() == [1, 2]
    assert tab.column("after.aa#2").to_pylist() == ["x", None]


HOSTILE_FILES = {
    "names": lambda d: write(d, HOSTILE),
    "decimal-238": decimal_238,
    "gtid-5-bytes": lambda d: short_gtid(d)[0],
    "zlib-level-1": lambda d: recompressed(d, 1),
    "zlib-level-9": lambda d: recompressed(d, 9),
    "duplicate-columns": duplicate_columns,
}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "binlogwriter", *args],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
    )


@pytest.mark.parametrize("name", list(HOSTILE_FILES))
def test_export_agrees_with_inspect_and_verify(tmp_path: Path, name: str) -> None:
    """Export succeeds, or fails with the located error class and place the declarative
    reader (what ``inspect`` and ``verify --roundtrip`` decode with) gives; every command
    ends with one line, never a traceback."""
    path = HOSTILE_FILES[name](tmp_path / "in")
    try:
        list(BinlogReader([path]))
        read_error = None
    except BinlogError as exc:
        read_error = exc
    try:
        export_parquet([path], tmp_path / "out")
        export_error = None
    except BinlogError as exc:
        export_error = exc
    if export_error is not None:
        assert read_error is not None, f"export fails where the reader does not: {export_error}"
        assert type(export_error) is type(read_error)
        assert (export_error.offset, export_error.file) == (read_error.offset, read_error.file)
    procs = [
        _cli("inspect", "-vv", str(path)),
        _cli("verify", "--roundtrip", str(path)),
        _cli("export", str(path), "--to", "parquet", str(tmp_path / "cli-out")),
    ]
    for proc in procs:
        assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) <= 1, proc.stderr
    assert (procs[2].returncode == 0) == (export_error is None)
    if read_error is not None:
        where = f"{path}:{read_error.offset}"
        assert procs[0].returncode == procs[1].returncode == procs[2].returncode == 1
        assert where in procs[0].stderr and where in procs[1].stdout and where in procs[2].stderr


def test_paths_that_are_not_utf8(tmp_path: Path) -> None:
    """A binlog path and an output directory whose names hold the byte 0xFF (a Linux file name
    is bytes): the export writes there, and its ``file`` column shows the byte as ``\\xff``
    (a pyarrow UnicodeEncodeError before)."""
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/in\xff"))
    path = write(odd, [("d", "t")])
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/out\xff"))
    assert export_parquet([path], out) == {"d.t": 2}
    got = pq.read_table(pa.OSFile(os.fsencode(out / "d.t" / "part-00000.parquet"))).column("file").to_pylist()
    assert got == [f"{tmp_path}/in\\xff/binlog.000001"] * 2
    assert changes_tables(path)["d.t"].column("file").to_pylist() == got
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "binlogwriter",
            "export",
            os.fsencode(path),
            "--to",
            "parquet",
            os.fsencode(out) + b"2",
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (odd, out, Path(f"{out}2")))


def test_tables_whose_db_table_text_is_the_same_are_kept_apart(tmp_path: Path) -> None:
    """Database ``a.b`` table ``c`` and database ``a`` table ``b.c``: ``changes_tables`` keyed
    both as ``a.b.c`` and concatenated their rows into one table; now that is a located
    error, and the export writes two folders."""
    path = write(tmp_path / "in", [("a.b", "c"), ("a", "b.c")])
    with pytest.raises(DecodeError) as info:
        changes_tables(path)
    assert "database 'a.b' table 'c' and database 'a' table 'b.c' are both a.b.c" in str(info.value)
    second = [c.position for c in BinlogReader([path]).changes() if c.database == "a"][0]
    assert (info.value.file, info.value.offset) == (str(path), second)
    assert export_parquet([path], tmp_path / "out") == {"a%2Eb.c": 2, "a.b%2Ec": 2}


@pytest.mark.parametrize(
    ("meta", "want"),
    [
        ((18, 4), pa.decimal128(18, 4)),
        ((38, 0), pa.decimal128(38, 0)),
        ((39, 2), pa.decimal256(39, 2)),
        ((76, 76), pa.decimal256(76, 76)),
        ((77, 0), pa.string()),
        ((238, 224), pa.string()),
    ],
)
def test_decimal_arrow_types_at_the_limits(meta: tuple[int, int], want: pa.DataType) -> None:
    from binlogwriter.read.arrowcols import arrow_type
    from binlogwriter.values.base import ColumnDesc

    assert arrow_type(ColumnDesc(type_code=246, meta=bytes(meta))) == want
