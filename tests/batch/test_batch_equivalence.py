"""The batch encoder writes exactly the bytes of the declarative construct path, event by
event (docs/design.md principle 5; binlogwriter/batch).

The reference here is the writer as it was before the batch encoder: row images encoded
row by row by the scalar codecs, every event encoded on its own by ``encode_event`` (the construct declaration, header by ``Header.build``),
``transaction_length`` found by re-encoding the GTID until it settles, ``log_pos`` from the
running offset, the CRC32 of each event computed by ``encode_event``. It runs the same
transactions as the real :class:`BinlogWriter` (whose ids, table maps and row images are
shared: they are not what is compared) and both files are split into events and compared
one by one.

Hypothesis draws random schemas (every column type family, charsets, keys, NULLs — the
strategies of tests/test_rows_roundtrip_props.py) and workloads, over 3 flavors × checksum
CRC32/NONE × FULL/MINIMAL/NOBLOB × NO_LOG/MINIMAL/FULL metadata × rows-query on/off ×
GTID mode × compression × rotation sizes (4 KiB upwards: rotation inside and between
batches) × ``row_event_max_size``; groups written one at a time (staged, encoded together
every ``stage_bytes``) or many per ``write_groups`` call; row images column by column
(``VECTOR_MIN_ROWS``) or row by row.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.events import AnonymousGtidEvent, GtidEvent, GtidTaggedEvent, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.write import statement_rows
from binlogwriter.write.transaction import SessionSettings, transaction_events
from binlogwriter.write.writer import BinlogWriter
from tests.test_rows_roundtrip_props import DB, tables, workloads

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


class MemorySink:
    """A Sink keeping each file's bytes in memory (final bytes patched in at finish)."""

    def __init__(self) -> None:
        self.files: dict[str, bytearray] = {}
        self.name = ""
        self.final: list[tuple[int, bytes]] = []

    def open(self, name: str, offset: int) -> None:
        self.name = name
        self.files.setdefault(name, bytearray())
        self.final = []

    def write(self, data: bytes) -> None:
        self.files[self.name] += data

    def set_final(self, pos: int, data: bytes) -> None:
        self.final.append((pos, data))

    def finish(self) -> Path:
        for pos, data in self.final:
            self.files[self.name][pos:pos + len(data)] = data
        return Path(self.name)

    def suspend(self) -> None:
        pass

    def abort(self) -> None:
        self.files.pop(self.name, None)


class DeclarativeWriter(BinlogWriter):
    """BinlogWriter whose groups are encoded one event at a time by the declarative path."""

    def write_group(self, events):
        return self.write_groups([events])[0]

    def write_groups(self, groups, timestamps=None):
        firsts = []
        for g, events in enumerate(groups):
            events = list(events)
            self.open()
            ts = self.now if timestamps is None else timestamps[g]
            encoded = []
            for ev in events:
                if ev.server_id is None:
                    ev.server_id = self.server_id
                self._own(ev)
                encoded.append(encode_event(ev, self.fmt, log_pos=0, timestamp=ts if ev.timestamp is None
                                            else ev.timestamp))
            if events and isinstance(events[0], GtidEvent | AnonymousGtidEvent | GtidTaggedEvent) \
                    and events[0].transaction_length is not None:
                g0 = events[0]
                rest = sum(len(b) for b in encoded[1:])
                g0.transaction_length = 0  # from below: MySQL's (least) value
                encoded[0] = encode_event(g0, self.fmt, log_pos=0,
                                          timestamp=ts if g0.timestamp is None else g0.timestamp)
                total = len(encoded[0]) + rest
                while total != g0.transaction_length:
                    g0.transaction_length = total
                    encoded[0] = encode_event(g0, self.fmt, log_pos=0,
                                              timestamp=ts if g0.timestamp is None else g0.timestamp)
                    total = len(encoded[0]) + rest
            firsts.append(self._offset)
            for ev in events:  # encode again at its final offset: log_pos and CRC by encode_event
                data = encode_event(ev, self.fmt, offset=self._offset,
                                    timestamp=ts if ev.timestamp is None else ev.timestamp)
                self.sink.write(data)
                self._offset += len(data)
                self.events_in_file += 1
            self.maybe_rotate()
        return firsts


def split_events(data: bytes) -> list[bytes]:
    assert data[:4] == b"\xfebin"
    out, pos = [], 4
    while pos < len(data):
        n = int.from_bytes(data[pos + 9:pos + 13], "little")
        out.append(bytes(data[pos:pos + n]))
        pos += n
    return out


def assert_same_files(got: dict[str, bytearray], want: dict[str, bytearray]) -> None:
    assert list(got) == list(want)
    for name in want:
        g, w = split_events(got[name]), split_events(want[name])
        for k, (a, b) in enumerate(zip(g, w, strict=False)):
            assert a == b, f"{name} event {k} (type {b[4]}): batch {a.hex()} != declarative {b.hex()}"
        assert len(g) == len(w), f"{name}: {len(g)} events, declarative {len(w)}"
        assert got[name] == want[name]


def statements(tx, gt, stmts) -> None:
    for s in stmts:
        s.write(tx, gt)


def run(cls, fmt, settings_, max_size, gt, txs, batched: bool, stage: int = 0) -> dict[str, bytearray]:
    sink = MemorySink()
    w = cls(Path("."), fmt, settings=settings_, max_binlog_size=max_size, sink=sink, write_index=False,
            stage_bytes=stage)
    w.open()
    w.ddl(f"CREATE DATABASE {DB}")
    w.ddl(gt.sql, DB)
    if batched:
        # many groups in one batch: ids allocated first (as the writer's commit does), then
        # one write_groups call; rotation happens inside the batch
        from binlogwriter.write.transaction import Transaction

        groups = []
        for stmts in txs:
            tx = Transaction(w)
            statements(tx, gt, stmts)
            groups.append(transaction_events(w, tx))
        w.write_groups(groups)
    else:
        for stmts in txs:
            with w.transaction() as tx:
                statements(tx, gt, stmts)
            w.advance(1)
    w.close()
    return sink.files


@settings(max_examples=60, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_batch_encoder_equals_declarative_path(data) -> None:
    flavor = data.draw(st.sampled_from(FLAVORS), label="flavor")
    maria = flavor.startswith("mariadb")
    checksum = data.draw(st.sampled_from(["CRC32", "NONE"]), label="checksum")
    image = data.draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), label="image")
    metadata = data.draw(st.sampled_from(["NO_LOG", "MINIMAL", "FULL"] if maria else ["MINIMAL", "FULL"]),
                         label="metadata")
    rows_query = data.draw(st.booleans(), label="rows_query")
    gtid = "anonymous" if maria else data.draw(st.sampled_from(
        ["anonymous", UUID] + ([f"{UUID}:tag_1"] if flavor == "mysql84" else [])), label="gtid")
    compress = (not maria) and data.draw(st.integers(0, 4), label="compress") == 0
    max_size = data.draw(st.sampled_from([4096, 4300, 5000, 8192, 1 << 30]), label="max_binlog_size")
    ev_max = data.draw(st.sampled_from([8192, 64, 300]), label="row_event_max_size")
    batched = data.draw(st.booleans(), label="batched")
    gt = data.draw(tables(flavor), label="table")
    txs = data.draw(workloads(gt, flavor, image), label="workload")
    txs = txs * data.draw(st.integers(1, 4), label="repeat")  # more bytes: rotation happens
    fmt = BinlogFormat.preset(flavor, checksum=checksum)
    s = SessionSettings(row_metadata=metadata, row_image=image, rows_query=rows_query, gtid=gtid,
                        row_event_max_size=ev_max, transaction_compression=compress)
    stage = data.draw(st.sampled_from([0, 700, 4 << 20]), label="stage_bytes")  # staged groups per buffer
    vector_min = data.draw(st.sampled_from([1, 3, 10**9]), label="vector_min_rows")  # column-wise images
    saved = statement_rows.VECTOR_MIN_ROWS
    try:
        statement_rows.VECTOR_MIN_ROWS = vector_min
        got = run(BinlogWriter, fmt, s, max_size, gt, txs, batched, stage)
        statement_rows.VECTOR_MIN_ROWS = 10**9  # the reference: rows one by one
        want = run(DeclarativeWriter, fmt, s, max_size, gt, txs, batched)
    finally:
        statement_rows.VECTOR_MIN_ROWS = saved
    assert_same_files(got, want)


def test_a_group_that_cannot_be_encoded_leaves_the_writer_as_it_was() -> None:
    """An encoding error raises a BinlogError before the group is staged: position, staged
    groups and the file bytes are those of the groups before it."""
    from binlogwriter.errors import BinlogError
    from binlogwriter.events import XidEvent

    fmt = BinlogFormat.preset("mysql80")
    sink = MemorySink()
    w = BinlogWriter(Path("."), fmt, sink=sink, write_index=False)
    w.open()
    w.write_group([GtidEvent(sid=UUID, gno=1, transaction_length=0), XidEvent(xid=1)])
    pos = w.position
    for bad in ([GtidEvent(sid=UUID, gno=1 << 64, transaction_length=0), XidEvent(xid=2)],
                [GtidEvent(sid=UUID, gno=2, transaction_length=0), XidEvent(xid=-1)],
                [GtidEvent(sid="not-a-uuid", gno=2, transaction_length=0), XidEvent(xid=2)],
                [XidEvent(xid=3, server_id=1 << 40)]):
        try:
            w.write_group(bad)
        except BinlogError:
            pass
        else:
            raise AssertionError(f"no error for {bad}")
        assert w.position == pos
    w.close()
    ref = MemorySink()
    r = DeclarativeWriter(Path("."), fmt, sink=ref, write_index=False)
    r.open()
    r.write_group([GtidEvent(sid=UUID, gno=1, transaction_length=0), XidEvent(xid=1)])
    r.close()
    assert_same_files(sink.files, ref.files)


def test_unstaged_writer_hands_each_group_to_the_sink_at_once() -> None:
    """stage_bytes=0 (the default): after write_group returns the sink holds every byte up to
    :attr:`position` (a serving sink sees each transaction when it is written); a staging
    writer holds them back until ``stage_bytes`` or the next flush."""
    from binlogwriter.events import XidEvent

    fmt = BinlogFormat.preset("mysql80")
    for stage in (0, 1 << 20):
        sink = MemorySink()
        w = BinlogWriter(Path("."), fmt, sink=sink, write_index=False, stage_bytes=stage)
        w.open()
        for gno in range(1, 4):
            w.write_group([GtidEvent(sid=UUID, gno=gno, transaction_length=0), XidEvent(xid=gno)])
            held = len(sink.files["binlog.000001"])
            assert (held == w.position) if stage == 0 else (held < w.position)
        w.flush()
        assert len(sink.files["binlog.000001"]) == w.position
        w.close()
