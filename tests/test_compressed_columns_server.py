"""MariaDB compressed columns (types 141 VARCHAR_COMPRESSED and 140 BLOB_COMPRESSED) on a real
MariaDB 10.11 binlog (tests/data/compressed_columns/README.md): every event re-encodes to its
bytes, ``inspect -vv --print-table-metadata`` prints what mariadb-binlog printed, a value is
the stored bytes (header byte and data, as mariadb-binlog prints it), and the columns after
the compressed ones keep their own charsets (the compressed columns count in the Table_map's
charset list)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from binlogwriter.read.export import changes_tables
from binlogwriter.reader import BinlogReader
from binlogwriter.text import RenderOptions
from binlogwriter.text.listing import write_listing

from .conformance.test_inspect_vs_mariadb_binlog import Sections, first_difference

DATA = Path(__file__).parent / "data" / "compressed_columns"
BINLOG = DATA / "mariadb-10.11-compressed.binlog"


def test_verify_roundtrip() -> None:
    proc = subprocess.run([sys.executable, "-m", "binlogwriter", "verify", "--roundtrip", str(BINLOG)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("23 events: OK")


def test_listing_matches_mariadb_binlog() -> None:
    out = io.StringIO()
    write_listing([str(BINLOG)], out, RenderOptions(verbose=2, print_table_metadata=True))
    ours = Sections.of(out.getvalue())
    theirs = Sections.of((DATA / "mariadb-binlog-vv-print-table-metadata.txt").read_bytes()
                         .decode("utf-8", "surrogateescape"))
    for name in ("rows", "metadata", "counts", "at", "headers", "summaries"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a == b, f"{name} differ at {first_difference(a, b)}"
    assert any("VARSTRING(801) COMPRESSED" in line for line in theirs.rows)


def test_changes_hold_the_stored_bytes_and_the_other_columns_their_charsets() -> None:
    changes = list(BinlogReader([BINLOG]).changes())
    assert [c.op for c in changes] == ["insert", "insert", "insert", "update", "delete"]
    second = changes[1].after
    assert second["v"] == b"\x00x" and second["vb"] == b"\x00\x00" and second["lt"] == b"\x00\xe9"
    assert second["t"] == b"" and second["b"] is None
    assert changes[0].after["l"] == "é" and changes[0].after["u"] == "ü"  # latin1, utf8mb4
    assert changes[3].after["l"] == "ñ" and changes[3].after["v"] == b"\x00short"
    assert changes[0].after["v"][0] & 0x80  # compressed: a non-zero header byte


def test_export_holds_them_as_binary() -> None:
    tab = changes_tables(BINLOG)["d.cc"]
    assert str(tab.schema.field("after.v").type) == "binary"
    assert tab.column("after.v").to_pylist()[1] == b"\x00x"
    assert tab.column("after.l").to_pylist()[0] == "é"
