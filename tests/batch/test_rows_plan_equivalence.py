"""The batch planner (binlogwriter/batch/columnar.py ``plan_rows_batch`` -> ``RowsPlan``)
writes exactly the bytes of the declarative construct path for every setting the
generator can ask for — MySQL ``binlog_transaction_compression`` (one zstd
TRANSACTION_PAYLOAD per group, format.md §15), anonymous, numbered and (mysql84) tagged
GTIDs, every flavor, checksum on/off, FULL/MINIMAL/NOBLOB images, every metadata mode,
rows-query events, rotation inside a batch, ``row_event_max_size`` splits.

The reference is tests/batch/test_batch_equivalence.py's ``DeclarativeWriter``: each
transaction committed through ``writer.transaction()`` (``transaction_events``; the
payload built by ``binlogwriter.payload.compress_transaction``), every event encoded on its
own by ``encode_event``, ``transaction_length`` by re-encoding. The batch side is given
the same transactions as columns (a :class:`RowsBatch`: one row change per op, its images
from ``statement_rows`` — value encoding is not what is compared here) and writes them
with ``plan_rows`` / ``write_planned`` segment by segment between rotations, as
generators/run_batched.py does. Tables come from ``binlogwriter.strategies``
(every column type family, utf8mb4 text, NULLs, keyless and composite keys, wide tables of
60–300 columns in a share of the examples).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st

from binlogwriter.batch.columnar import KIND_CODES, RowsBatch
from binlogwriter.errors import ValueEncodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.write.statement_rows import statement_rows
from binlogwriter.write.transaction import SessionSettings, Transaction, default_statement_text
from binlogwriter.write.writer import BinlogWriter
from tests.batch.test_batch_equivalence import (
    FLAVORS,
    UUID,
    DeclarativeWriter,
    MemorySink,
    assert_same_files,
    statements,
)
from tests.test_rows_roundtrip_props import DB, tables, workloads


def _distinct_kinds(stmts: list) -> list:
    """Consecutive statements of one kind on the one table are one statement in a batch
    (generators' transactions never have two): keep the first of such a run."""
    out = []
    for s in stmts:
        if not out or out[-1].kind != s.kind:
            out.append(s)
    return out


def _reference(fmt, settings_, max_size, gt, txs) -> dict[str, bytearray]:
    sink = MemorySink()
    w = DeclarativeWriter(Path("."), fmt, settings=settings_, max_binlog_size=max_size, sink=sink,
                          write_index=False)
    w.open()
    w.ddl(f"CREATE DATABASE {DB}")
    w.ddl(gt.sql, DB)
    for stmts in txs:
        with w.transaction() as tx:
            statements(tx, gt, stmts)
        w.advance(1)
    w.close()
    return sink.files


def _rows_batch(w: BinlogWriter, gt, txs) -> RowsBatch:
    """``txs`` as columns: per row change its transaction, table 0, kind, image shape and
    image bytes (``statement_rows``' groups in their order, as ``split_rows_events`` lays
    them out); the statements' texts when rows-query events are on."""
    op_txn, op_kind, op_shape, op_len, data, shapes, sql = [], [], [], [], [], [], []
    shape_ix: dict = {}
    for t, stmts in enumerate(txs):
        tx = Transaction(w)
        statements(tx, gt, stmts)
        for stmt in tx.statements:
            groups = statement_rows(w, stmt)
            if not groups:
                continue
            sql.append(stmt.sql or default_statement_text(stmt))
            for bb, ab, rows in groups:
                k = shape_ix.setdefault((bb, ab), len(shapes))
                if k == len(shapes):
                    shapes.append((bb, ab))
                for r in rows:
                    op_txn.append(t)
                    op_kind.append(KIND_CODES[stmt.kind])
                    op_shape.append(k)
                    op_len.append(len(r))
                    data.append(r)
    n = len(op_txn)
    return RowsBatch(clock=np.asarray([w.now + t for t in range(len(txs))], dtype=np.int64),
                     op_txn=np.asarray(op_txn, dtype=np.int64), op_table=np.zeros(n, dtype=np.int64),
                     op_kind=np.asarray(op_kind, dtype=np.int64), op_shape=np.asarray(op_shape, dtype=np.int64),
                     op_len=np.asarray(op_len, dtype=np.int64),
                     data=np.frombuffer(b"".join(data), dtype=np.uint8), tables=[gt.table], shapes=shapes,
                     stmt_sql=sql if w.rows_query else None)


def _batched(fmt, settings_, max_size, gt, txs) -> dict[str, bytearray]:
    sink = MemorySink()
    w = BinlogWriter(Path("."), fmt, settings=settings_, max_binlog_size=max_size, sink=sink, write_index=False)
    w.open()
    w.ddl(f"CREATE DATABASE {DB}")
    w.ddl(gt.sql, DB)
    now0 = w.now
    plan = w.plan_rows(_rows_batch(w, gt, txs))
    assert plan is not None
    n, i = len(txs), 0
    while i < n:  # segment by segment: a rotation after a segment uses its last transaction's clock
        w.prepare_planned(plan, i)
        ends = np.cumsum(plan.sizes[i:n]) + w.position
        stop = min(n, i + int(np.searchsorted(ends, w.max_binlog_size, side="left")) + 1)
        w.now = now0 + stop - 1
        w.write_planned(plan, i, stop)
        i = stop
    w.now = now0 + n
    w.close()
    return sink.files


@settings(max_examples=120, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_rows_plan_equals_declarative_path(data) -> None:
    flavor = data.draw(st.sampled_from(FLAVORS), label="flavor")
    maria = flavor.startswith("mariadb")
    checksum = data.draw(st.sampled_from(["CRC32", "NONE"]), label="checksum")
    image = data.draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), label="image")
    metadata = data.draw(st.sampled_from(["NO_LOG", "MINIMAL", "FULL"] if maria else ["MINIMAL", "FULL"]),
                         label="metadata")
    rows_query = data.draw(st.booleans(), label="rows_query")
    gtid = "anonymous" if maria else data.draw(st.sampled_from(
        ["anonymous", UUID] + ([f"{UUID}:tag_1"] if flavor == "mysql84" else [])), label="gtid")
    compress = (not maria) and data.draw(st.booleans(), label="compress")
    max_size = data.draw(st.sampled_from([4096, 4300, 5000, 8192, 1 << 30]), label="max_binlog_size")
    ev_max = data.draw(st.sampled_from([8192, 64, 300]), label="row_event_max_size")
    gt = data.draw(tables(flavor), label="table")
    txs = data.draw(workloads(gt, flavor, image), label="workload")
    txs = [_distinct_kinds(t) for t in txs] * data.draw(st.integers(1, 4), label="repeat")
    fmt = BinlogFormat.preset(flavor, checksum=checksum)
    s = SessionSettings(row_metadata=metadata, row_image=image, rows_query=rows_query, gtid=gtid,
                        row_event_max_size=ev_max, transaction_compression=compress)
    try:
        want = _reference(fmt, s, max_size, gt, txs)
    except ValueEncodeError:  # e.g. several rows whose image holds no column: nothing to compare
        assume(False)
    got = _batched(fmt, s, max_size, gt, txs)
    event(f"compress={compress} gtid={'tagged' if ':tag' in gtid else gtid[:4]} files={len(want)}")
    assert_same_files(got, want)


def test_compressed_groups_are_payloads() -> None:
    """With compression every DML group is ``GTID · TRANSACTION_PAYLOAD`` (type 40) and the
    payload inflates to BEGIN … XID with the XIDs in order: the property above compares with
    the declarative path; this pins what that path writes, independently of it."""
    import zstandard

    from binlogwriter.schema import Table

    fmt = BinlogFormat.preset("mysql80")
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))", database="d")
    s = SessionSettings(gtid=UUID, transaction_compression=True)
    sink = MemorySink()
    w = BinlogWriter(Path("."), fmt, settings=s, sink=sink, write_index=False)
    w.open()
    ops = [(0, 0, b"\x00\x01\x00\x00\x00\x02h\xc3"), (1, 0, b"\x00\x02\x00\x00\x00\x00")]
    rb = RowsBatch(clock=np.array([w.now, w.now], dtype=np.int64), op_txn=np.array([o[0] for o in ops]),
                   op_table=np.zeros(2, dtype=np.int64), op_kind=np.zeros(2, dtype=np.int64),
                   op_shape=np.zeros(2, dtype=np.int64), op_len=np.array([len(o[2]) for o in ops]),
                   data=np.frombuffer(b"".join(o[2] for o in ops), dtype=np.uint8), tables=[t],
                   shapes=[((True, True), None)])
    w.write_planned(w.plan_rows(rb), 0, 2)
    w.close()
    from tests.batch.test_batch_equivalence import split_events

    evs = split_events(sink.files["binlog.000001"])
    types = [e[4] for e in evs]
    assert types == [15, 35, 33, 40, 33, 40, 3]
    for k, xid in ((3, 1), (5, 2)):
        body = evs[k][19:-4]
        # header fields: type 2 (compression) = 0, type 3 (uncompressed size), type 1 (payload size), end 0
        assert body[:3] == b"\x02\x01\x00"
        inner = zstandard.ZstdDecompressor().decompressobj().decompress(body[body.index(b"\x28\xb5\x2f\xfd"):])
        pos, inner_types = 0, []
        while pos < len(inner):
            n = int.from_bytes(inner[pos + 9:pos + 13], "little")
            assert inner[pos + 13:pos + 17] == b"\0\0\0\0"  # log_pos 0 inside a payload
            inner_types.append(inner[pos + 4])
            last = inner[pos:pos + n]
            pos += n
        assert inner_types == [2, 19, 30, 16]
        assert int.from_bytes(last[19:27], "little") == xid


@settings(max_examples=40, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_tagged_gtids_equal_declarative_path(data) -> None:
    """Tagged GTIDs (mysql84 ``UUID:tag``) over many transactions and small files: the
    GTID's varlen ``sequence_number`` / ``last_committed`` / GNO / ``transaction_length``
    cross their one- to two-byte boundaries (sequence_number 64, GNO 64: zig-zag) inside a
    batch and restart at each rotation, so the planned sizes are re-planned per file
    (``BinlogWriter.prepare_planned``); with and without compression."""
    checksum = data.draw(st.sampled_from(["CRC32", "NONE"]), label="checksum")
    image = data.draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), label="image")
    compress = data.draw(st.booleans(), label="compress")
    rows_query = data.draw(st.booleans(), label="rows_query")
    max_size = data.draw(st.sampled_from([4096, 6000, 20_000, 1 << 30]), label="max_binlog_size")
    gt = data.draw(tables("mysql84"), label="table")
    txs = data.draw(workloads(gt, "mysql84", image), label="workload")
    txs = [_distinct_kinds(t) for t in txs]
    txs = (txs * (160 // max(1, len(txs)) + 1))[:data.draw(st.integers(1, 160), label="transactions")]
    fmt = BinlogFormat.preset("mysql84", checksum=checksum)
    s = SessionSettings(row_image=image, rows_query=rows_query, gtid=f"{UUID}:tag_1",
                        transaction_compression=compress)
    try:
        want = _reference(fmt, s, max_size, gt, txs)
    except ValueEncodeError:
        assume(False)
    got = _batched(fmt, s, max_size, gt, txs)
    event(f"compress={compress} files={min(len(want), 5)}")
    assert_same_files(got, want)
