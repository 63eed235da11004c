"""A dump asked to start where no event starts, and event lengths a file cannot hold (issue #27).

Over every sample run: a position Hypothesis picks inside an event is refused with one of the
reasons MariaDB's sender gives (tests/conformance/test_serve_positions.py compares the messages
with a real MariaDB), where an event starts nothing is refused; an event_length over 1 GiB in a
damaged file is an error naming the file and offset, never an allocation of that size.
"""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import LimitError
from binlogwriter.reader import iter_raw
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.dump import DumpError, DumpRequest, Streamer
from binlogwriter.serve.dump_files import BAD_CRC, BOGUS, TOO_LARGE, TRUNCATED, start_error
from binlogwriter.serve.protocol import PacketIO
from binlogwriter.serve.queries import Identity, answer
from binlogwriter.serve.session import Session

SAMPLES = sorted(Path(__file__).resolve().parents[2].glob("samples/*/binlog.000001"))
REASONS = (BOGUS, TOO_LARGE, TRUNCATED, BAD_CRC)


@settings(max_examples=200, deadline=None)
@given(path=st.sampled_from(SAMPLES), data=st.data())
def test_a_position_inside_an_event_is_refused(path: Path, data) -> None:
    starts = [r.offset for r in iter_raw(path)]
    size = path.stat().st_size
    pos = data.draw(st.integers(5, size - 1).filter(lambda p: p not in starts), label="pos")
    f = BinlogSet([path]).files[0]
    why = start_error(f, pos, follow=False)
    assert why is not None and why.startswith(REASONS), why
    assert f"the first event '{path.name}' at {pos}" in why


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.parent.name)
def test_an_event_start_is_accepted(path: Path) -> None:
    f = BinlogSet([path]).files[0]
    for r in iter_raw(path):
        assert start_error(f, r.offset, follow=False) is None, r.offset
    assert start_error(f, path.stat().st_size, follow=False) is None


def _dump(run: Path, pos: int) -> None:
    a, b = socket.socketpair()

    def drain() -> None:
        while b.recv(1 << 16):
            pass

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    try:
        session = Session(1, "test", user_vars={"master_binlog_checksum": "CRC32"})
        Streamer(PacketIO(a), BinlogSet([run]), session, DumpRequest("binlog.000001", pos, 0x01, 9)).run()
    finally:
        a.close()
        t.join(10)


def test_a_dump_inside_an_event_is_refused_after_rotate_and_fde() -> None:
    run = SAMPLES[0].parent
    starts = [r.offset for r in iter_raw(SAMPLES[0])]
    with pytest.raises(DumpError, match="the first event 'binlog.000001' at 330"):
        _dump(run, 330 if 330 not in starts else 331)


def test_an_event_length_over_1_gib_is_an_error_not_an_allocation(tmp_path: Path) -> None:
    src = SAMPLES[0]
    recs = list(iter_raw(src))
    victim = recs[3].offset
    data = bytearray(src.read_bytes())
    data[victim + 9 : victim + 13] = (3_900_000_000).to_bytes(4, "little")  # issue #27: 3.9 GB
    (tmp_path / src.name).write_bytes(data)
    shutil.copy(src.parent / "binlog.index", tmp_path / "binlog.index")
    with pytest.raises(LimitError, match="beyond the 1073741824-byte maximum event size") as e:
        _dump(tmp_path, 4)
    assert e.value.file == src.name and e.value.offset == victim


def test_binlog_gtid_pos_is_mariadb_only() -> None:
    mysql = next(p for p in SAMPLES if "mysql" in p.parent.name)
    resp = answer(
        BinlogSet([mysql]), Identity("u"), Session(1, "h"), "SELECT binlog_gtid_pos('binlog.000001', 4)"
    )
    assert resp[0][:3] == b"\xff" + (1305).to_bytes(2, "little")
