"""WriterState: a writer stopped after K transactions and resumed from its (pickled) state
writes exactly the bytes of one writer doing everything — every K, so across rotations;
with a DDL changing a table's definition (new table id, mariadb.md "Table ids") mid-way."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from pathlib import Path

import pytest

from binlogwriter.errors import BinlogError
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.state import WriterState
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
N = 48  # transactions; about 6 files of 4 KiB
DDL_AT = 20

CASES = {
    "mysql80-anonymous": (BinlogFormat.mysql80, SessionSettings(gtid="anonymous")),
    "mysql80-uuid": (BinlogFormat.mysql80, SessionSettings(gtid=SID)),
    "mysql84-tagged": (BinlogFormat.mysql84, SessionSettings(gtid=SID + ":load_test", rows_query=True)),
    "mariadb1011": (BinlogFormat.mariadb1011, SessionSettings(domain_id=3)),
}


def _tables(flavor: str) -> tuple[Table, Table, Table]:
    def t(sql: str) -> Table:
        return Table.from_sql(sql, database="test", flavor=flavor)
    return (t("CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(40))"),
            t("CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(40), extra BIGINT)"),
            t("CREATE TABLE t2 (k BIGINT PRIMARY KEY, d DOUBLE, note TEXT)"))


def _step(w: BinlogWriter, i: int, flavor: str) -> None:
    """Transaction ``i`` of the script (fresh Table objects each time: ids go by definition)."""
    t1, t1x, t2 = _tables(flavor)
    w.advance(1 + i % 3)
    if i == DDL_AT:
        w.ddl("ALTER TABLE t1 ADD COLUMN extra BIGINT", "test")
        return
    with w.transaction() as tx:
        if i < DDL_AT:
            tx.insert(t1, [{"id": i, "v": "x" * (i % 37)}])
        else:
            tx.insert(t1x, [{"id": i, "v": "y" * (i % 29), "extra": i * 1000}])
            tx.update(t1x, [((i - 1, "y" * ((i - 1) % 29), (i - 1) * 1000) if i > DDL_AT + 1
                             else (i - 2, "x" * ((i - 2) % 37), None), {"v": "z"})])
        if i % 4 == 1:
            tx.insert(t2, [(i, i / 7, "n" * (i * 13 % 200))])


def _writer(d: Path, case: str, state: WriterState | None = None) -> BinlogWriter:
    fmt, settings = CASES[case]
    kw = dict(max_binlog_size=4096, server_id=7, settings=settings)
    if state is None:
        return BinlogWriter(d, fmt(), **kw)
    return BinlogWriter.resume(d, fmt(), state, **kw)


def _digest(d: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, dict[str, str]]:
    out = {}
    for case, (fmt, _) in CASES.items():
        d = tmp_path_factory.mktemp(f"ref-{case}")
        w = _writer(d, case)  # opened by its first write, like the stopped ones
        for i in range(N):
            _step(w, i, fmt().flavor)
        w.close()
        assert len(w.files) >= 4  # several rotations
        out[case] = _digest(d)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_resume_at_every_transaction_gives_the_same_bytes(tmp_path: Path, case: str, reference) -> None:
    flavor = CASES[case][0]().flavor
    for k in range(N + 1):
        d = tmp_path / f"k{k}"
        w = _writer(d, case)
        for i in range(k):
            _step(w, i, flavor)
        taken = w.state()
        state = pickle.loads(pickle.dumps(w.suspend()))
        assert state == taken
        assert state.transactions == k and state.header_written == (k > 0)
        if state.header_written:  # the default sink leaves the unfinished file for the resumer
            assert (d / (state.current_file + ".part")).stat().st_size == state.offset
        w2 = _writer(d, case, state)
        assert w2.state() == state
        for i in range(k, N):
            _step(w2, i, flavor)
        w2.close()
        assert _digest(d) == reference[case], f"resumed after {k} transactions"


def test_state_contents_after_rotation_and_ddl(tmp_path: Path) -> None:
    w = _writer(tmp_path, "mysql84-tagged")
    for i in range(N - 4):
        _step(w, i, "mysql84")
    st = w.state()
    assert st.files and st.previous_file == st.files[-1] and st.current_file == f"binlog.{st.next_index - 1:06d}"
    assert st.offset == w.position and st.gno == N - 4 == st.xid == st.transactions
    assert st.mysql_gtids.text() == f"{SID}:load_test:1-{N - 4}"
    assert st.last_gtid == f"{SID}:load_test:{N - 4}"
    # t1 got a new id when its definition changed; t2 kept its first one
    ids = {key: tid for key, _table, tid in st.tables}
    assert ids == {("test", "t1"): 102, ("test", "t2"): 101} and st.next_table_id == 103
    # the logical clock counts the groups of the current file only (format.md §8)
    assert 0 < st.seq_in_file < st.transactions
    _step(w, N - 4, "mysql84")
    assert st.mysql_gtids.text() == f"{SID}:load_test:1-{N - 4}"  # the state's own copy
    w.close()
    last = list(BinlogReader([w.files[-1]]))
    seqs = [e.sequence_number for e in last if e.type_code == 42]
    assert seqs == list(range(1, len(seqs) + 1))


def test_mariadb_state_and_frozen(tmp_path: Path) -> None:
    w = _writer(tmp_path, "mariadb1011")
    for i in range(30):
        _step(w, i, "mariadb1011")
    st = w.state()
    assert st.mariadb_gtids.text() == "3-7-30" and st.mariadb_seq == 30 and st.last_gtid == "3-7-30"
    with pytest.raises(dataclasses.FrozenInstanceError):
        st.now = 0  # type: ignore[misc]
    _step(w, 30, "mariadb1011")
    # a snapshot: the writer going on does not change it (its GTID sets are the state's own copies)
    assert st.transactions == 30 and st.mariadb_gtids.text() == "3-7-30"
    w.close()
    with pytest.raises(BinlogError):
        w.state()


def test_resume_needs_the_unfinished_file(tmp_path: Path) -> None:
    w = _writer(tmp_path / "a", "mysql80-uuid")
    _step(w, 0, "mysql80")
    st = w.suspend()
    w2 = _writer(tmp_path / "b", "mysql80-uuid", st)
    with pytest.raises(BinlogError, match="does not exist"):
        _step(w2, 1, "mysql80")
    with pytest.raises(BinlogError):
        WriterState(offset=10)  # an offset needs a current file
