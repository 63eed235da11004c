"""Compressed transactions (TRANSACTION_PAYLOAD_EVENT, format.md §15; docs/edge-cases.md 17)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from binlogwriter.events import TransactionPayloadEvent, decode_event, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.payload import inner_events
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

VECTORS = Path(__file__).resolve().parent / "data" / "vectors"


def _vector(kind: str) -> dict:
    entries = json.loads((VECTORS / "transaction_payload.json").read_text())
    return next(e for e in entries if e["kind"] == kind)


def test_real_payload_inner_events_decode_and_reencode():
    """MySQL 8.0.28 payload: BEGIN, TABLE_MAP, UPDATE_ROWS v2, XID as the upstream test says."""
    e = _vector("event_body")
    exp = e["expected"]
    ev = decode_event(bytes.fromhex(_vector("event")["hex"]), BinlogFormat.mysql80())
    assert isinstance(ev, TransactionPayloadEvent)
    fmt = BinlogFormat.mysql80()
    inner = list(inner_events(ev, fmt))
    assert [i.type_code for _, _, i in inner] == exp["inner_event_types"]
    assert len(inner) == exp["inner_event_count"]
    for _, chunk, i in inner:
        assert encode_event(i, fmt, footer=False) == chunk
        assert i.log_pos == 0
    rows = inner[2][2].rows
    assert rows[0][1][4] == exp["update_row_after_col5"]
    assert inner[3][2].xid == exp["xid"]


def test_writer_compression_reads_back(tmp_path):
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, j JSON, s VARCHAR(10))", database="test")
    rows = [{"id": i, "j": {"k": [i, None]}, "s": f"v{i}"} for i in range(20)]
    st = SessionSettings(transaction_compression=True, row_metadata="FULL",
                         gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562")
    with BinlogWriter(tmp_path, BinlogFormat.mysql80(), settings=st) as w:
        w.ddl("CREATE TABLE t (id INT PRIMARY KEY, j JSON, s VARCHAR(10))", "test")
        with w.transaction() as tx:
            tx.insert(t, rows)
            tx.delete(t, [rows[0]])
    evs = list(BinlogReader(w.files))
    payloads = [e for e in evs if isinstance(e, TransactionPayloadEvent)]
    assert len(payloads) == 1
    gtid = evs[evs.index(payloads[0]) - 1]
    # transaction_length counts the GTID event and the on-disk payload event (format.md §8)
    assert gtid.transaction_length == gtid.origin.length + payloads[0].origin.length
    fmt = BinlogFormat.mysql80()
    inner = [i for _, _, i in inner_events(payloads[0], fmt)]
    assert [i.type_name for i in inner] == ["QUERY_EVENT", "TABLE_MAP_EVENT", "WRITE_ROWS_EVENT",
                                            "TABLE_MAP_EVENT", "DELETE_ROWS_EVENT", "XID_EVENT"]
    assert [r[0] for r in inner[2].rows] == list(range(20))
    assert inner[2].rows[3][1] == {"k": [3, None]}
    out = subprocess.run([sys.executable, "-m", "binlogwriter", "verify", "--roundtrip", *map(str, w.files)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().splitlines()[-1].endswith("events: OK")
    shown = subprocess.run([sys.executable, "-m", "binlogwriter", "inspect", "-v", *map(str, w.files)],
                           capture_output=True, text=True)
    assert shown.returncode == 0
    assert "Transaction_Payload" in shown.stdout and "### INSERT INTO `test`.`t`" in shown.stdout


def test_mariadb_ignores_transaction_compression(tmp_path):
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY)", database="test", flavor="mariadb1011")
    with BinlogWriter(tmp_path, BinlogFormat.mariadb1011(),
                      settings=SessionSettings(transaction_compression=True)) as w:
        with w.transaction() as tx:
            tx.insert(t, [{"id": 1}])
    assert not any(isinstance(e, TransactionPayloadEvent) for e in BinlogReader(w.files))
