"""Binlogs written by BinlogWriter replay into a real MariaDB 10.11 and leave exactly the rows
the catalogue's Python model expects (docs/output.md ground-truth contract).

For each flavor in {mysql80, mariadb1011} x binlog_row_image in {FULL, MINIMAL, NOBLOB}: the
catalogue (catalogue.py: every column type, edge values, multi-row inserts, updates assigning
some columns, deletes, a 3,000-row transaction) is written — DDL inside the binlog via
``w.ddl`` — replayed with ``mariadb-binlog --verify-binlog-checksum FILES | mariadb`` into a
fresh server, and every table's canonical dump is compared with the model's canonical rows.

Known limit (docs/output.md): MySQL's binary JSON (type 245) cannot be applied by MariaDB, so the
mysql80 run leaves ``t_json`` out of the replayed binlog; test_mysql_event_stream.py checks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.format import BinlogFormat
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

from .catalogue import DB, Catalogue, build, expected_dump

FLAVORS = ("mysql80", "mariadb1011")
IMAGES = ("FULL", "MINIMAL", "NOBLOB")


def write_catalogue(directory: Path, cat: Catalogue, image: str, *, replayable: bool,
                    row_metadata: str = "FULL", row_event_max_size: int = 8192,
                    kinds: tuple[str, ...] = ("insert", "update", "delete")) -> list[Path]:
    """Write the catalogue's DDL and transactions; ``replayable`` leaves out what MariaDB
    cannot apply (MySQL binary JSON); ``kinds`` selects the statement kinds written."""
    skip = {n for n, t in cat.tables.items() if replayable and t.mysql_binary_json}
    settings = SessionSettings(row_metadata=row_metadata, row_image=image,
                               row_event_max_size=row_event_max_size)
    with BinlogWriter(directory, BinlogFormat.preset(cat.flavor), settings=settings,
                      max_binlog_size=1 << 18) as w:
        w.ddl(f"CREATE DATABASE {DB}")
        for name, t in cat.tables.items():
            if name not in skip:
                w.ddl(t.sql, DB)
        for stmts in cat.transactions:
            w.advance(1)
            with w.transaction() as tx:
                for kind, name, payload in stmts:
                    if name in skip or kind not in kinds:
                        continue
                    table = cat.tables[name].table
                    if kind == "insert":
                        tx.insert(table, payload)
                    elif kind == "update":
                        tx.update(table, payload)
                    else:
                        tx.delete(table, payload)
    return w.files


@pytest.mark.parametrize("image", IMAGES)
@pytest.mark.parametrize("flavor", FLAVORS)
def test_replay_matches_model(tmp_path: Path, mariadb_server_factory, flavor: str, image: str) -> None:
    cat = build(flavor)
    files = write_catalogue(tmp_path / "out", cat, image, replayable=True)
    assert len(files) >= 2  # max_binlog_size 256 KiB: rotation between transactions
    server = mariadb_server_factory(row_image=image)
    server.replay(files)
    mismatches = []
    for name, t in cat.tables.items():
        if t.mysql_binary_json:
            continue
        got = server.dump_table(DB, name)
        want = expected_dump(cat, name)
        if got != want:
            extra = [r for r in got if r not in want][:3]
            missing = [r for r in want if r not in got][:3]
            mismatches.append(f"{name}: {len(got)} rows, expected {len(want)}; "
                              f"unexpected {_short(extra)}; missing {_short(missing)}")
    assert not mismatches, "\n".join(mismatches)


def _short(rows) -> str:
    return repr([tuple((v[:60] + "…") if isinstance(v, str) and len(v) > 60 else v for v in r)
                 for r in rows])
