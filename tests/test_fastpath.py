"""The fast encoders equal the declarative construct path byte for byte (docs/design.md
principle 5), for every shape they accept, in every flavor and checksum."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from binlogwriter.events import (
    AnonymousGtidEvent,
    GtidEvent,
    MariadbGtidEvent,
    QueryEvent,
    XidEvent,
    encode_event,
)
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.primitives import BitmapValue
from binlogwriter.rows_events import rows_event_class
from binlogwriter.schema import Table
from binlogwriter.table_map_event import TableMapEvent

FORMATS = [BinlogFormat.preset(f, checksum=c) for f in ("mysql80", "mysql84", "mariadb1011")
           for c in ("CRC32", "NONE")]
fmts = st.sampled_from(FORMATS)
u64 = st.integers(0, 2**63 - 1)


def both(ev, fmt):
    fast = encode_event(ev, fmt, offset=1000, fast=True)
    slow = encode_event(ev, fmt, offset=1000, fast=False)
    assert fast == slow


@given(fmts, u64, st.integers(0, 2**32 - 1), st.integers(0, 2**16 - 1))
def test_xid(fmt, xid, server_id, flags):
    both(XidEvent(xid=xid, server_id=server_id, flags=flags, timestamp=5), fmt)


@given(fmts, st.booleans(), st.integers(0, 1), st.uuids(), st.integers(1, 2**62), u64, u64,
       st.integers(0, 2**55 - 1), st.none() | st.integers(0, 2**55 - 1), st.integers(0, 2**40),
       st.integers(0, 2**31 - 1), st.none() | st.integers(0, 2**31 - 1), st.none() | u64)
def test_gtid(fmt, anonymous, flags, sid, gno, lc, seq, ict, oct_, tlen, isv, osv, ticket):
    cls = AnonymousGtidEvent if anonymous else GtidEvent
    both(cls(gtid_flags=flags, sid=str(sid), gno=gno, last_committed=lc, sequence_number=seq,
             immediate_commit_timestamp=ict, original_commit_timestamp=oct_, transaction_length=tlen,
             immediate_server_version=isv, original_server_version=osv, commit_group_ticket=ticket,
             timestamp=1), fmt)


@given(fmts, u64, st.integers(0, 2**32 - 1), st.sampled_from([0x0C, 0x29, 0x08, 0x0E, 0x2B]),
       st.integers(0, 2**63))
def test_mariadb_gtid(fmt, seq, domain, flags2, cid):
    both(MariadbGtidEvent(seq_no=seq, domain_id=domain, flags2=flags2,
                          commit_id=cid if flags2 & 2 else None, flags=8), fmt)


@given(fmts, st.sampled_from(["insert", "update", "delete"]), st.integers(1, 300), st.data(),
       st.integers(0, 2**48 - 1), st.integers(0, 15), st.binary(max_size=300))
def test_rows_raw(fmt, kind, width, data, table_id, flags, rows):
    bits = data.draw(st.lists(st.booleans(), min_size=width, max_size=width))
    pad = data.draw(st.sampled_from([0, -1]))
    after = data.draw(st.lists(st.booleans(), min_size=width, max_size=width))
    cls = rows_event_class(kind, version=fmt.rows_version)
    ev = cls(table_id=table_id, rows_flags=flags, width=width, columns_present=BitmapValue(bits, pad),
             columns_after=BitmapValue(after, 0) if kind == "update" else None, rows=None, rows_raw=rows,
             extra_info=data.draw(st.sampled_from([b"", b"\x01\x03\x00"])) if fmt.rows_version == 2 else b"")
    both(ev, fmt)


@given(fmts, st.text(max_size=40), st.text(max_size=200), st.integers(0, 2**32 - 1))
def test_query_memo(fmt, db, sql, thread):
    ev = QueryEvent(thread_id=thread, db=db, query=sql,
                    status_vars=[(0, 0), (1, 5), (6, "std"), (4, {"client": 45, "connection": 45, "server": 45})])
    both(ev, fmt)
    both(ev, fmt)  # the memoised second encoding too


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.flavor}-{f.checksum.name}")
@pytest.mark.parametrize("meta", ["MINIMAL", "FULL"])
def test_table_map_memo(fmt, meta):
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10) CHARSET latin1, "
                       "e ENUM('x','y'), g POINT, j JSON)", flavor=fmt.flavor)
    ev = TableMapEvent.from_table(t, 77, fmt, meta)
    both(ev, fmt)
    both(ev, fmt)
