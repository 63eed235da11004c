"""The one owner of ids (binlogwriter/write/ids.py, issue #28 item 4): a range committed in
one call (the batch path) leaves the allocator exactly as taking its ids one at a time (the
per-transaction path) does — counters, executed GTID sets, last GTID — and ids given to an
encoder cannot be committed once others were taken in between."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError
from binlogwriter.gtids import MysqlGtidSet
from binlogwriter.write.ids import GtidSource, IdAllocator, IdCount

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
SOURCES = [
    GtidSource(mariadb=False, server_id=1, sid=SID),
    GtidSource(mariadb=False, server_id=1, sid=SID, tag="load"),
    GtidSource(mariadb=False, server_id=9),  # anonymous
    GtidSource(mariadb=True, server_id=7, domain_id=3),
]


def _one_at_a_time(ids: IdAllocator, gtids: int, xids: int) -> None:
    for _ in range(xids):
        ids.take_xid()
    for _ in range(gtids):
        if ids.source.mariadb:
            ids.take_mariadb_gtid()
        else:
            ids.take_mysql_gtid()


def _state(ids: IdAllocator) -> tuple:
    return (ids.xid, ids.gno, ids.mariadb_seq, ids.seq_in_file, ids.mysql_gtids, ids.mariadb_gtids, ids.last_gtid)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SOURCES),
       st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 5), st.booleans()), max_size=12))
def test_a_committed_range_equals_one_take_per_id(source: GtidSource, steps: list) -> None:
    batch, single = IdAllocator(source), IdAllocator(source)
    for as_range, gtids, xids, new_file in steps:
        if as_range:
            first = batch.next_ids()
            assert first.xid == batch.xid + 1 and (first.gno == 0) == (not source.sid or source.mariadb)
            batch.commit(first, IdCount(gtids=gtids, xids=xids))
        else:
            _one_at_a_time(batch, gtids, xids)
        _one_at_a_time(single, gtids, xids)
        if new_file:
            batch.new_file()
            single.new_file()
        assert _state(batch) == _state(single)


@pytest.mark.parametrize("source", SOURCES)
def test_ids_taken_after_they_were_given_cannot_be_committed(source: GtidSource) -> None:
    ids = IdAllocator(source, xid=4, gno=2 if source.sid else 0)
    first = ids.next_ids()
    ids.take_xid()
    before = copy.deepcopy(_state(ids))
    with pytest.raises(BinlogError, match="taken in between"):
        ids.commit(first, IdCount(gtids=1, xids=1))
    assert _state(ids) == before


def test_the_executed_set_and_last_gtid_follow_a_range() -> None:
    ids = IdAllocator(SOURCES[1], gno=4, mysql_gtids=MysqlGtidSet({(SID, "load"): [[1, 5]]}))
    ids.commit(ids.next_ids(), IdCount(gtids=3, xids=3))
    assert ids.mysql_gtids.entries() == [(SID, "load", ((1, 8),))] and ids.last_gtid == f"{SID}:load:7"
    maria = IdAllocator(SOURCES[3], mariadb_seq=10)
    first = maria.next_ids()
    maria.commit(first, IdCount(gtids=2, xids=2))
    assert (first.seq, first.gno) == (11, 0) and maria.mariadb_gtids.domains == {3: (7, 12)} and maria.last_gtid == "3-7-12"
