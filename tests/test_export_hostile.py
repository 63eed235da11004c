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

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from binlogwriter.read.export import export_parquet
from binlogwriter.read.exportpaths import DATABASE_KEY, TABLE_KEY, encode_name, table_of_dir
from tests.hostile_binlogs import (
    HOSTILE,
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
