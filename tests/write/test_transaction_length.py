"""``transaction_length`` of MySQL GTID / ANONYMOUS_GTID events near the packed-integer
boundaries (format.md §2, §8): 251 (1 -> 3 bytes), 2^16 (3 -> 4) and 2^24 (4 -> 9).

The value counts the whole transaction including the GTID event, whose size depends on the
packed width of the value itself. MySQL (``Gtid_event::update_untagged_transaction_length``,
``net_length_size_including_self``) takes the smallest width ``n`` such that ``x + n`` packs in
``n`` bytes, ``x`` being the transaction without the field: 250 -> 253, because 251 needs three
bytes. :func:`mysql_rule` restates that rule here, independently of our code, and these tests
compare it with

* the batch encoder's fixed point (:func:`binlogwriter.batch.transaction_length`),
* files written by BinlogWriter (the batch encoder): the value equals the bytes of the group,
  the declarative path (construct) decodes it and re-encodes the same bytes, and re-encoding
  the GTID event until its length settles (the declarative fixed point) gives the same value;
  the fast decoder reads the same event,
* mysql-event-stream (an independent C++ decoder) reading those files: it exposes no
  transaction_length, so what it shows is that the GTID event parses at each packed width and
  the transaction after it decodes (the row and its position).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mysql_event_stream import CdcEngine, EventType

from binlogwriter.batch import transaction_length
from binlogwriter.events import GtidEvent, decode_event, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.read.fastdecode import EventDecoder
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

BOUNDARIES = (251, 1 << 16, 1 << 24)
SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def mysql_rule(without_field: int) -> int:
    """MySQL's transaction_length for a transaction of ``without_field`` bytes without the
    packed field: the smallest width (1, 3, 4, 9 bytes for values below 251, 2^16, 2^24,
    2^64) that holds the total including itself."""
    for width, limit in ((1, 251), (3, 1 << 16), (4, 1 << 24), (9, 1 << 64)):
        if without_field + width < limit:
            return without_field + width
    raise OverflowError(without_field)


def _near_boundaries():
    return st.builds(lambda b, d: b + d, st.sampled_from(BOUNDARIES), st.integers(-12, 12))


def test_mysql_rule_example():
    # the example of MySQL's comment: 250 bytes without the field give 253
    assert mysql_rule(250) == 253 and mysql_rule(249) == 250 and mysql_rule(248) == 249


@settings(max_examples=400, deadline=None)
@given(_near_boundaries() | st.integers(0, 1 << 40))
def test_encoder_fixed_point_is_mysql_rule(without_field):
    assert transaction_length(None, without_field) == mysql_rule(without_field)
    assert transaction_length(0, without_field) == mysql_rule(without_field)


@pytest.mark.parametrize("without_field,stale", [(248, 251), (249, 252), (65532, 65536),
                                                   ((1 << 24) - 6, (1 << 24) + 3)])
def test_a_stale_value_does_not_pick_a_larger_fixed_point(without_field, stale):
    """248 bytes also satisfy ``tl = 248 + width(tl)`` at 251 (3 bytes): MySQL writes 249, and
    so must a GTID event handed to the writer with an old transaction_length."""
    assert stale == without_field + _packed_width(stale)  # a second fixed point
    assert transaction_length(stale, without_field) == mysql_rule(without_field) < stale


def _declarative_length(gtid: GtidEvent, rest: int, fmt: BinlogFormat) -> int:
    """transaction_length found by re-encoding the GTID event until its value is its group's
    size (construct path), starting from 0."""
    ev = GtidEvent(**{k: v for k, v in vars(gtid).items() if k in GtidEvent.__dataclass_fields__})
    ev.transaction_length = 0
    while True:
        total = len(encode_event(ev, fmt, log_pos=0)) + rest
        if total == ev.transaction_length:
            return total
        ev.transaction_length = total


_TABLE = "CREATE TABLE t (id INT PRIMARY KEY, b LONGBLOB)"


def _write(d: Path, flavor: str, pad: int, blob: int) -> list[Path]:
    """CREATE DATABASE; CREATE TABLE with a ``pad``-byte comment (a GTID · Query group, the
    smallest: for the 251 boundary); one INSERT of a ``blob``-byte LONGBLOB."""
    table = Table.from_sql(_TABLE, database="d", flavor=flavor)
    with BinlogWriter(d, BinlogFormat.preset(flavor), settings=SessionSettings(gtid=SID)) as w:
        w.ddl("CREATE DATABASE d")
        w.ddl(_TABLE + " /*" + "p" * pad + "*/", "d")
        with w.transaction() as tx:
            tx.insert(table, [{"id": 1, "b": b"\x5a" * blob}])
    return list(w.files)


def _groups(files: list[Path]):
    """Per transaction: (GTID event, its bytes, bytes of the rest of its group, fmt)."""
    recs = list(BinlogReader(files).records())
    out = []
    starts = [k for k, r in enumerate(recs) if r.data[4] == 33]
    for n, i in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else next(
            k for k in range(i, len(recs)) if recs[k].data[4] == 16) + 1
        fmt = recs[i].fmt
        out.append((decode_event(recs[i].data, fmt, verify_checksum=True), recs[i].data,
                    sum(len(r.data) for r in recs[i + 1:end]), fmt))
    return out


def _mes_rows(files: list[Path]) -> list:
    out = []
    eng = CdcEngine()
    eng.set_max_event_size(64 << 20)
    data = files[-1].read_bytes()[4:]
    pos = 0
    while pos < len(data):
        n = eng.feed(data[pos:])
        pos += n
        while (e := eng.next_event()) is not None:
            out.append(e)
        if n == 0:
            break
    while (e := eng.next_event()) is not None:
        out.append(e)
    eng.close()
    return out


def _packed_width(v: int) -> int:
    return 1 if v < 251 else 3 if v < 1 << 16 else 4 if v < 1 << 24 else 9


_CALIBRATED: dict[str, tuple[int, int]] = {}


def _base(tmp: Path, flavor: str) -> tuple[int, int]:
    """Bytes without the packed field of the CREATE TABLE group with no padding and of the
    INSERT group with an empty blob (each padding or blob byte adds one)."""
    if flavor not in _CALIBRATED:
        groups = _groups(_write(tmp / "calibrate", flavor, 0, 0))
        _CALIBRATED[flavor] = tuple(g[0].transaction_length - _packed_width(g[0].transaction_length)
                                    for g in groups[1:3])
    return _CALIBRATED[flavor]


def _check_written(tmp: Path, flavor: str, without_field: int) -> None:
    ddl0, ins0 = _base(tmp, flavor)
    ddl = without_field < ins0  # a transaction this small is a DDL group
    pad, blob = (without_field - ddl0, 0) if ddl else (0, without_field - ins0)
    assert pad >= 0
    files = _write(tmp / f"w{without_field}", flavor, pad, blob)
    ev, raw, rest, fmt = _groups(files)[1 if ddl else 2]
    want = mysql_rule(without_field)
    assert ev.transaction_length == want, (without_field, ev.transaction_length)
    assert len(raw) + rest == want  # the value is the group's size, GTID event included
    assert encode_event(ev, fmt, log_pos=ev.log_pos) == raw  # the declarative path gives the same bytes
    assert _declarative_length(ev, rest, fmt) == want
    fast = EventDecoder().decode(raw, fmt, file=None, offset=None, verify_checksum=True, columns_for=None)
    assert fast == ev
    # mysql-event-stream reads past this GTID event to the INSERT after it
    rows = [e for e in _mes_rows(files) if e.type == EventType.INSERT]
    assert len(rows) == 1 and rows[0].table == "t" and len(list(rows[0].after.values())[1]) == blob


@pytest.mark.parametrize("flavor", ["mysql80", "mysql84"])
@settings(max_examples=12, deadline=None)
@given(boundary=st.sampled_from(BOUNDARIES[:2]), delta=st.integers(-6, 6))
def test_written_transaction_length_straddling_251_and_65536(tmp_path_factory, flavor, boundary, delta):
    _check_written(tmp_path_factory.mktemp("tl"), flavor, boundary + delta)


@pytest.mark.parametrize("delta", [-5, -4, -1, 0])
def test_written_transaction_length_straddling_2_24(tmp_path, delta):
    """16 MiB transactions: the four values around the 4 -> 9 byte step (2^24 - 5 holds in 4
    bytes; 2^24 - 4 needs 9)."""
    _check_written(tmp_path, "mysql80", (1 << 24) + delta)
