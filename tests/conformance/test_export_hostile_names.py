"""``binlogwriter export`` on a binlog a real MariaDB 10.11 wrote for tables with hostile names
(issue 27): a database called ``/tmp/<abs>``, a table called ``../../y``, names holding
``.``, ``%``, a tab, a backslash, a device name and a non-ASCII letter. MariaDB accepts them
all as quoted identifiers. Every file the export writes is inside its output directory, one
folder per table named by the percent-encoding of docs/read.md, each folder's names decode
back to the table's, and the rows are the ones inserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from binlogwriter.read.exportpaths import DATABASE_KEY, TABLE_KEY, table_of_dir

pytestmark = pytest.mark.conformance

REPO_ROOT = Path(__file__).resolve().parents[2]


def _tables(abs_db: str) -> list[tuple[str, str, str]]:
    """(database, table, the folder name docs/read.md gives it), worked out by hand."""
    enc_abs = abs_db.replace("/", "%2F")
    return [
        (abs_db, "../../y", f"{enc_abs}.%2E%2E%2F%2E%2E%2Fy"),
        ("a.b", "c", "a%2Eb.c"),  # with b.c below: one "a.b.c" if names were joined as they are
        ("a", "b.c", "a.b%2Ec"),
        ("a", "con", "a.%63on"),
        ("a", "t\tab\\le %2F é", "a.t%09ab%5Cle%20%252F%20%C3%A9"),
    ]


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def test_real_mariadb_hostile_names_stay_inside_the_output(tmp_path: Path, mariadb_server_factory) -> None:
    abs_db = f"/tmp/binlogwriter-abs-{uuid.uuid4().hex[:8]}"
    tables = _tables(abs_db)
    server = mariadb_server_factory(row_metadata="FULL", compress=True)
    sql = []
    for db in dict.fromkeys(db for db, _, _ in tables):
        sql.append(f"CREATE DATABASE {_quote(db)};")
    for i, (db, table, _) in enumerate(tables):
        sql.append(f"CREATE TABLE {_quote(db)}.{_quote(table)} (id INT PRIMARY KEY, v VARCHAR(40));")
        sql.append(
            f"INSERT INTO {_quote(db)}.{_quote(table)} VALUES ({i}, 'row {i}'), ({i + 10}, REPEAT('x', 40));"
        )
    server.execute("\n".join(sql))
    server.shutdown()
    files = server.copy_binlogs(tmp_path / "binlogs")
    work = tmp_path / "work"
    (work / "deep" / "er").mkdir(parents=True)
    before = {p for p in tmp_path.rglob("*")}
    out = work / "deep" / "er" / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "binlogwriter", "export", *map(str, files), "--to", "parquet", str(out)],
        cwd=work / "deep" / "er",
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert not os.path.lexists(abs_db), "the export wrote at the database name's absolute path"
    written = {p for p in tmp_path.rglob("*")} - before
    assert written, "nothing written"
    for p in written:
        assert p == out or out in p.parents, f"{p} is outside {out}"
    assert sorted(p.name for p in out.iterdir()) == sorted(folder for _, _, folder in tables)
    for i, (db, table, folder) in enumerate(tables):
        assert table_of_dir(folder) == (db.encode(), table.encode())
        part = out / folder / "part-00000.parquet"
        meta = pq.read_schema(part).metadata
        assert (meta[DATABASE_KEY], meta[TABLE_KEY]) == (
            folder.split(".")[0].encode(),
            folder.split(".")[1].encode(),
        )
        rows = pq.read_table(part).to_pylist()
        assert [(r["op"], r["after.id"], r["after.v"]) for r in rows] == [
            ("insert", i, f"row {i}"),
            ("insert", i + 10, "x" * 40),
        ]
        assert f"{db}.{table}".replace("\t", "\\t") + ": 2 rows" in proc.stdout
