"""``changes()`` (binlogwriter.read.changes: compiled change builders over the compiled row
decoders, GTID / XID / Query read from their bytes) yields exactly what the declarative
reader gives (docs/design.md principle 5): for binlogs written by BinlogWriter from
generated tables and workloads (binlogwriter.strategies), every flavor × row image × row
metadata, each change's operation, database, table, ``before`` / ``after`` (names, values
and their types, absent columns absent), GTID, XID, file, position, timestamp and row index
equal those built from the declarative ``BinlogReader``'s events.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.events import (
    GtidBase,
    MariadbGtidEvent,
    QueryEvent,
    XidEvent,
    decode_event,
)
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import BinlogReader
from binlogwriter.strategies import roundtrip_tables, roundtrip_transactions
from binlogwriter.values.base import ABSENT
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.test_rows_roundtrip_props import write_workload

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
COMBOS = [(f, i, m) for f in FLAVORS for i in ("FULL", "MINIMAL", "NOBLOB") for m in ("MINIMAL", "FULL")]
DB = "db"


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type, recursively (str is not bytes, 1 is not 1.0, dict keys in order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def reference(files: list, schemas: Any) -> list[tuple]:
    """The changes, built from the events the declarative path decodes (decode_event)."""
    reader = BinlogReader(files, schemas=schemas)
    out: list[tuple] = []
    txn: list[list] = []
    gtid = None
    for rec in reader.records():
        ev = decode_event(rec.data, rec.fmt, file=rec.file, offset=rec.offset, verify_checksum=True,
                          columns_for=reader.state.columns_for)
        reader.state.observe(ev)
        if isinstance(ev, GtidBase):  # an AnonymousGtidEvent's gtid is None (gtid_mode OFF)
            gtid = ev.gtid
        elif isinstance(ev, MariadbGtidEvent):
            gtid = f"{ev.domain_id}-{ev.server_id}-{ev.seq_no}"
        elif isinstance(ev, XidEvent):
            out += [(*r, ev.xid) for r in txn]
            txn, gtid = [], None
        elif isinstance(ev, QueryEvent) and ev.query.strip().upper() in ("COMMIT", "ROLLBACK"):
            out += [(*r, None) for r in txn]
            txn, gtid = [], None
        elif hasattr(ev, "rows") and ev.type_code != 19 and ev.rows is not None:
            tm = reader.state.tables[ev.table_id]
            names = [c.name for c in reader.state.columns_for(ev.table_id)]

            def named(vals, names=names):
                return {n: v for n, v in zip(names, vals, strict=True) if v is not ABSENT}

            where = (str(ev.origin.file), ev.origin.offset, ev.timestamp)
            for i, r in enumerate(ev.rows):
                b, a = r if ev.KIND == "update" else (None, r) if ev.KIND == "insert" else (r, None)
                txn.append([ev.KIND, tm.schema, tm.table, b if b is None else named(b),
                            a if a is None else named(a), gtid, *where, i])
    return out + [(*r, None) for r in txn]


@pytest.mark.parametrize("flavor,image,metadata", COMBOS, ids=["-".join(c) for c in COMBOS])
@settings(max_examples=5, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_changes_equal_declarative(flavor: str, image: str, metadata: str, data) -> None:
    gt = data.draw(roundtrip_tables(flavor, database=DB), label="table")
    txs = data.draw(roundtrip_transactions(gt, flavor, image), label="workload")
    st_ = SessionSettings(row_metadata=metadata, row_image=image,
                          row_event_max_size=data.draw(st.sampled_from([8192, 200])))
    partial = flavor.startswith("mysql") and image != "FULL" and data.draw(st.booleans(), label="partial")
    with tempfile.TemporaryDirectory() as d:
        with BinlogWriter(Path(d), BinlogFormat.preset(flavor), settings=st_) as w:
            # MySQL: some updates as PARTIAL_UPDATE_ROWS_EVENT (full values)
            write_workload(w, gt, txs, DB, partial=partial)
        schemas = {f"{DB}.{gt.table.name}": gt.table} if metadata == "MINIMAL" else None
        want = reference(w.files, schemas)
        got = [(c.op, c.database, c.table, c.before, c.after, c.gtid, c.file, c.position, c.timestamp, c.event_row,
                c.xid) for c in BinlogReader(w.files, schemas=schemas).changes()]
    assert want, "the workload wrote no rows"
    assert len(got) == len(want)
    for g, x in zip(got, want, strict=True):
        assert same(g, x), (g, x)
