"""``binlogwriter serve`` answers every statement go-mysql v1.13.0's ``replication.BinlogSyncer``
sends before a dump (issue #31 §4), without Go: the statements are copied from its
``replication/binlogsyncer.go`` (registerSlave, enableSemiSync, killConnection,
writeBinlogDumpMariadbGTIDCommand). The end-to-end run with the real go-mysql is
tests/conformance/consumers/go_mysql/test_go_mysql.py.

What go-mysql does with the answers, and so what they must say:

- ``SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'``: row 0 column 1 non-empty makes it send
  ``SET @master_binlog_checksum='NONE', @source_binlog_checksum='NONE'`` — the served files'
  algorithm (CRC32 in the samples; the FDE of the files says so);
- ``SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled';`` (with its ``;``): anything but ``ON``
  and it goes on without semi-sync — serve has none, so ``OFF``;
- the user variables it sets are kept per connection (the dump reads
  ``@master_binlog_checksum`` and, on MariaDB, ``@slave_connect_state``);
- ``KILL <previous connection id>`` on a reconnect: accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.queries import Identity, answer
from binlogwriter.serve.session import Session

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

REGISTER = [
    "SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'",
    "SET @master_binlog_checksum='NONE', @source_binlog_checksum='NONE'",
    "SET @master_heartbeat_period = 1000000000, @source_heartbeat_period = 1000000000",
    "SET @slave_uuid = '0b8f3c3e-d2c4-11f0-9a0b-0242ac120002', "
    "@replica_uuid = '0b8f3c3e-d2c4-11f0-9a0b-0242ac120002'",
    "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled';",
    "KILL 7",
]
MARIADB = [
    "SET @mariadb_slave_capability=4",
    "SET @slave_connect_state='0-1-5'",
    "SET @slave_gtid_strict_mode=1",
]


def _lenenc(buf: bytes, i: int) -> tuple[int | None, int]:
    b = buf[i]
    if b < 0xFB:
        return b, i + 1
    if b == 0xFB:
        return None, i + 1
    size = {0xFC: 2, 0xFD: 3, 0xFE: 8}[b]
    return int.from_bytes(buf[i + 1:i + 1 + size], "little"), i + 1 + size


def _rows(resp: list[bytes]) -> list[list[str | None]]:
    """The rows of a text result set (count, column definitions, EOF, rows, EOF)."""
    ncols, _ = _lenenc(resp[0], 0)
    assert ncols is not None and resp[ncols + 1][:1] == b"\xfe", resp
    rows = []
    for pkt in resp[ncols + 2:]:
        if pkt[:1] == b"\xfe" and len(pkt) < 9:
            break
        row: list[str | None] = []
        i = 0
        for _ in range(ncols):
            n, i = _lenenc(pkt, i)
            row.append(None if n is None else pkt[i:i + n].decode())
            i += 0 if n is None else n
        rows.append(row)
    return rows


@pytest.mark.parametrize("sample", ["mysql80-full-full-ecommerce", "mariadb1011-full-full-ecommerce"])
def test_binlog_syncer_statements_are_answered(sample: str) -> None:
    binlogs = BinlogSet([SAMPLES / sample])
    session = Session(8, "127.0.0.1", "repl")
    ident = Identity("3e11fa47-71ca-11e1-9e33-c80aa9429562")
    statements = REGISTER + (MARIADB if sample.startswith("mariadb") else [])
    answers = {sql: answer(binlogs, ident, session, sql) for sql in statements}
    for sql, resp in answers.items():
        assert resp[0][:1] != b"\xff", f"{sql!r}: {resp[0][9:].decode(errors='replace')}"
    assert _rows(answers[REGISTER[0]]) == [["binlog_checksum", "CRC32"]]
    assert _rows(answers["SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled';"]) == [
        ["rpl_semi_sync_master_enabled", "OFF"]]
    assert session.checksum_aware and session.checksum_value == "NONE"
    assert session.var("slave_uuid") == "0b8f3c3e-d2c4-11f0-9a0b-0242ac120002"
    if sample.startswith("mariadb"):
        assert session.var("mariadb_slave_capability") == 4
        assert session.var("slave_connect_state") == "0-1-5"
        assert session.var("slave_gtid_strict_mode") == 1
