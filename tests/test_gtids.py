"""GTIDs the writer assigns: anonymous, UUID and (8.3+) tagged; transaction_length;
PREVIOUS_GTIDS of rotated files (format.md §7, §8; docs/edge-cases.md 18)."""

from __future__ import annotations

import pytest

from binlogwriter.errors import BinlogError
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _write(tmp_path, fmt, gtid, n=40):
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(30))", database="test", flavor=fmt.flavor)
    with BinlogWriter(tmp_path, fmt, max_binlog_size=4096, settings=SessionSettings(gtid=gtid)) as w:
        for i in range(n):
            with w.transaction() as tx:
                tx.insert(t, [{"id": i, "v": "x" * (i % 30)}])
    return w


@pytest.mark.parametrize("fmt,gtid,code", [
    (BinlogFormat.mysql80(), "anonymous", 34),
    (BinlogFormat.mysql80(), SID, 33),
    (BinlogFormat.mysql84(), SID, 33),
    (BinlogFormat.mysql84(), SID + ":load_test", 42),
])
def test_transaction_length_counts_the_whole_group(tmp_path, fmt, gtid, code):
    w = _write(tmp_path, fmt, gtid)
    for f in w.files:
        evs = list(BinlogReader([f]))
        starts = [i for i, e in enumerate(evs) if e.type_code == code]
        assert starts
        for k, i in enumerate(starts):
            end = next(j for j in range(i, len(evs)) if evs[j].type_code == 16)
            assert evs[i].transaction_length == sum(e.origin.length for e in evs[i:end + 1])
            # MySQL's logical clock restarts in every file
            assert evs[i].sequence_number == k + 1 and evs[i].last_committed == k


@pytest.mark.parametrize("gtid,text", [(SID, SID + ":1-{n}"), (SID + ":load_test", SID + ":load_test:1-{n}")])
def test_previous_gtids_of_rotated_files(tmp_path, gtid, text):
    w = _write(tmp_path, BinlogFormat.mysql84(), gtid)
    assert len(w.files) > 2
    seen = 0
    for f in w.files:
        evs = list(BinlogReader([f]))
        prev = evs[1]
        assert prev.type_code == 35
        assert prev.text == ("" if seen == 0 else text.format(n=seen))
        assert prev.gtid_set["tagged"] == (":" in gtid and seen > 0)
        seen += sum(1 for e in evs if e.type_code in (33, 42))


@pytest.mark.parametrize("fmt,gtid", [
    (BinlogFormat.mysql80(), SID + ":tag"),          # tags exist from 8.3 on
    (BinlogFormat.mariadb1011(), SID + ":tag"),
    (BinlogFormat.mysql84(), SID + ":9tag"),          # must not start with a digit
    (BinlogFormat.mysql84(), SID + ":" + "a" * 33),   # at most 32 characters
    (BinlogFormat.mysql84(), "not-a-uuid"),
])
def test_bad_gtid_settings(tmp_path, fmt, gtid):
    with pytest.raises(BinlogError):
        BinlogWriter(tmp_path, fmt, settings=SessionSettings(gtid=gtid))
