"""What MariaDB 10.11 logs for UPDATE / DELETE under MINIMAL and NOBLOB, against the writer
given just the columns those images need (issue 14, item 5; binlogwriter/images.py).

A throwaway server (binlog_row_image MINIMAL, then NOBLOB) runs INSERTs, UPDATEs and
DELETEs over tables with a primary key, a composite key, a prefix primary key, a UNIQUE NOT
NULL key (the primary key equivalent), a nullable UNIQUE key (none) and no key, each with a TEXT/BLOB column. Our
writer is then handed the same statements with UPDATE/DELETE rows that name only the columns
of the row before that the images log; every rows event it writes must equal the server's
byte for byte after the table id (flags, width, column bitmaps, row images).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter import images
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import BinlogReader, iter_raw
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

pytestmark = pytest.mark.conformance

FLAVOR = "mariadb1011"
DB = "ko"
ROWS_EVENTS = {23, 24, 25}  # MariaDB writes v1 rows events

TABLES = {
    "pk": "CREATE TABLE pk (id INT NOT NULL, a INT NULL, b VARCHAR(10) NULL, x TEXT NULL, PRIMARY KEY (id))",
    "comp": "CREATE TABLE comp (a INT NOT NULL, b INT NOT NULL, c INT NULL, x BLOB NULL, PRIMARY KEY (a, b))",
    "pke": "CREATE TABLE pke (u INT NOT NULL, a INT NULL, x TEXT NULL, UNIQUE KEY uk (u))",
    "uniq_null": "CREATE TABLE uniq_null (u INT NULL, a INT NULL, x TEXT NULL, UNIQUE KEY uk (u))",
    "nokey": "CREATE TABLE nokey (a INT NULL, b VARCHAR(10) NULL, x TEXT NULL)",
    "pfx": "CREATE TABLE pfx (name VARCHAR(20) NOT NULL, id INT NOT NULL, a INT NULL, x TEXT NULL, "
           "PRIMARY KEY (name(3), id))",
}
# (table, full rows inserted, assigned column -> new value for the UPDATE of the first row)
DATA = {
    "pk": ([(1, 10, "p", "tx1"), (2, 20, "q", None)], {"a": 11}),
    "comp": ([(1, 1, 5, b"b1"), (1, 2, 6, None)], {"c": 7, "x": b"new"}),
    "pke": ([(1, 10, "t1"), (2, 20, "t2")], {"a": 12}),
    "uniq_null": ([(1, 10, "t1"), (None, 20, None)], {"a": 13}),
    "nokey": ([(1, "r", "t1"), (2, "s", None)], {"b": "z"}),
    "pfx": ([("alpha", 1, 10, "t1"), ("betamax", 1, 20, None)], {"a": 11}),
}


def _lit(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "0x" + v.hex() if v else "''"
    if isinstance(v, str):
        return "'" + v + "'"
    return str(v)


def _where(t: Table, row: tuple) -> str:
    return " AND ".join(f"`{c.name}` <=> {_lit(v)}" for c, v in zip(t.columns, row, strict=True))


def _sql(tables: dict[str, Table]) -> str:
    out = [f"CREATE DATABASE {DB};", f"USE {DB};"]
    out += [ddl + ";" for ddl in TABLES.values()]
    for name, (rows, assign) in DATA.items():
        t = tables[name]
        for r in rows:
            out.append(f"INSERT INTO {name} VALUES ({', '.join(_lit(v) for v in r)});")
        sets = ", ".join(f"`{k}` = {_lit(v)}" for k, v in assign.items())
        out.append(f"UPDATE {name} SET {sets} WHERE {_where(t, rows[0])};")
        out.append(f"DELETE FROM {name} WHERE {_where(t, rows[1])};")
    return "\n".join(out)


def _needed_before(t: Table, image: str, op: str, assigned: set[int]) -> list[int]:
    if op == "delete":
        mask = images.delete_columns(t, image, FLAVOR)
        return [i for i, k in enumerate(mask) if k]
    b, a = images.update_columns(t, image, assigned, FLAVOR)
    return [i for i in range(len(t.columns)) if b[i] or (a[i] and i not in assigned)]


def _ours(out: Path, tables: dict[str, Table], image: str) -> list[Path]:
    with BinlogWriter(out, BinlogFormat.preset(FLAVOR),
                      settings=SessionSettings(row_image=image, rows_query=False)) as w:
        for name, (rows, assign) in DATA.items():
            t = tables[name]
            names = [c.name for c in t.columns]
            for r in rows:
                with w.transaction() as tx:
                    tx.insert(t, [r])
            assigned = {t.index_of(k) for k in assign}
            keep = _needed_before(t, image, "update", assigned)
            with w.transaction() as tx:
                tx.update(t, [({names[i]: rows[0][i] for i in keep}, dict(assign))])
            keep = _needed_before(t, image, "delete", set())
            with w.transaction() as tx:
                tx.delete(t, [{names[i]: rows[1][i] for i in keep}])
    return list(w.files)


def _rows_bodies(files: list[Path]) -> list[tuple[int, bytes]]:
    """(type code, event body after the 6-byte table id, without the CRC32) of every rows event."""
    out = []
    for f in files:
        for rec in iter_raw(f):
            if rec.type_code in ROWS_EVENTS:
                out.append((rec.type_code, rec.data[19 + 6:-4]))
    return out


@pytest.mark.parametrize("image", ["MINIMAL", "NOBLOB"])
def test_key_only_rows_equal_what_mariadb_logs(tmp_path: Path, mariadb_server_factory, image: str) -> None:
    tables = {n: Table.from_sql(s, database=DB, flavor=FLAVOR) for n, s in TABLES.items()}
    server = mariadb_server_factory(row_image=image, annotate=False)
    server.execute(_sql(tables))
    server.flush_logs()
    theirs = _rows_bodies(server.copy_binlogs(tmp_path / "server"))
    ours = _rows_bodies(_ours(tmp_path / "ours", tables, image))
    assert len(theirs) == len(ours) == sum(len(r) + 2 for r, _ in DATA.values())
    # the server's images are the ones images.py predicts (decoded bitmaps), and the bytes agree
    for k, ((tc, body), (oc, obody)) in enumerate(zip(theirs, ours, strict=True)):
        assert tc == oc and body == obody, f"rows event {k} (type {tc}): server {body.hex()} ours {obody.hex()}"
    # a sanity check that key-only really was key-only somewhere: the PK table's DELETE logged 1 column
    deletes = [ev for ev in BinlogReader(_ours(tmp_path / "again", tables, image)) if ev.type_code == 25]
    assert deletes[0].columns_present.count(True) == (1 if image == "MINIMAL" else 3)
