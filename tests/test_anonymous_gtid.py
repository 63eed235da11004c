"""An anonymous transaction (MySQL ``gtid_mode=OFF``: ANONYMOUS_GTID_LOG_EVENT, zero source id
and number) has no GTID, the way mysqlbinlog (``GTID_NEXT= 'ANONYMOUS'``) and
python-mysql-replication present it: ``AnonymousGtidEvent.gtid``, ``Change.gtid`` and the
export's ``gtid`` column are None, on a real server's event and on written files, by the
declarative and the fast decoders alike (docs/read.md "Changes")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binlogwriter.events import ANONYMOUS_SID, AnonymousGtidEvent, GtidEvent, decode_event, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.read.fastdecode import EventDecoder
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

VECTORS = Path(__file__).parent / "data" / "vectors" / "gtid.json"
SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _server_anonymous_gtid() -> bytes:
    """The 8.0-shaped ANONYMOUS_GTID event MySQL 8.0.28 wrote (tests/data/vectors, gtid.json)."""
    for v in json.loads(VECTORS.read_text()):
        if "8.0.28" in v.get("context", {}).get("origin", "") and v["hex"][8:10] == "22":
            return bytes.fromhex(v["hex"])
    raise AssertionError("no MySQL 8.0 anonymous GTID vector in gtid.json")


def test_server_anonymous_gtid_has_no_gtid():
    raw = _server_anonymous_gtid()
    fmt = BinlogFormat.preset("mysql80")
    slow = decode_event(raw, fmt, verify_checksum=True)
    fast = EventDecoder().decode(raw, fmt, file=None, offset=None, verify_checksum=True, columns_for=None)
    for ev in (slow, fast):
        assert type(ev) is AnonymousGtidEvent
        assert ev.gtid is None
        assert (ev.sid, ev.gno) == (ANONYMOUS_SID, 0)  # the bytes are kept
    assert slow == fast
    assert encode_event(slow, fmt) == raw


def _write(tmp: Path, flavor: str, gtid: str) -> list[Path]:
    sql = "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"
    table = Table.from_sql(sql, database="d", flavor=flavor)
    with BinlogWriter(tmp, BinlogFormat.preset(flavor), settings=SessionSettings(gtid=gtid, row_metadata="FULL")) as w:
        w.ddl("CREATE DATABASE d")
        w.ddl(sql, "d")
        for i in range(3):
            with w.transaction() as tx:
                tx.insert(table, [{"id": i, "v": "x"}])
                tx.update(table, [({"id": i, "v": "x"}, {"id": i, "v": "y"})])
    return list(w.files)


@pytest.mark.parametrize("flavor", ["mysql80", "mysql84"])
@pytest.mark.parametrize("gtid", ["anonymous", SID])
def test_changes_gtid_of_anonymous_and_gtid_transactions(tmp_path, flavor, gtid):
    files = _write(tmp_path, flavor, gtid)
    events = [e for e in BinlogReader(files) if isinstance(e, AnonymousGtidEvent | GtidEvent)]
    assert events and all(type(e) is (AnonymousGtidEvent if gtid == "anonymous" else GtidEvent) for e in events)
    changes = list(BinlogReader(files).changes())
    assert len(changes) == 6
    if gtid == "anonymous":
        assert all(e.gtid is None for e in events)
        assert [c.gtid for c in changes] == [None] * 6
    else:
        assert [c.gtid for c in changes] == [e.gtid for e in events[-3:] for _ in range(2)]
        assert all(c.gtid.startswith(SID + ":") for c in changes)
