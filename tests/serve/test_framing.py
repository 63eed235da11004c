"""The serving fast paths frame files exactly as the declarative reader does.

read.framing.iter_blocks (block-wise framing) and the dump's fast path (packets built with
array operations) against :func:`binlogwriter.reader.iter_raw` and the dump's general path, over every
sample run in samples/ (real generator output, all flavors) and block sizes Hypothesis picks
(small blocks force events across block boundaries and events larger than a block).
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from binlogwriter.read.framing import iter_blocks
from binlogwriter.reader import iter_raw
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.dump import DumpRequest, Streamer
from binlogwriter.serve.pacing import Pacer
from binlogwriter.serve.protocol import PacketIO
from binlogwriter.serve.session import Session

SAMPLES = sorted(Path(__file__).resolve().parents[2].glob("samples/*/binlog.0*"))


def test_samples_exist() -> None:
    assert len(SAMPLES) >= 9


@settings(max_examples=60)
@given(
    path=st.sampled_from(SAMPLES),
    block=st.integers(min_value=1, max_value=1 << 16),
    skip=st.integers(min_value=0, max_value=30),
)
def test_blocks_frame_like_iter_raw(path: Path, block: int, skip: int) -> None:
    want = [(r.offset, r.data) for r in iter_raw(path)]
    start_i = min(skip, len(want) - 1)
    start = want[start_i][0]
    got = []
    with open(path, "rb") as fh:
        for base, buf, bounds in iter_blocks(fh, start, name=path.name, block=block):
            got += [(base + bounds[i], bytes(buf[bounds[i] : bounds[i + 1]])) for i in range(len(bounds) - 1)]
    assert got == want[start_i:]


def _dump_bytes(run_dir: Path, *, paced: bool, annotate: bool, pos: int = 4, block: int = 256 << 10) -> bytes:
    """Everything a non-blocking dump from binlog.000001:pos sends, as raw packets."""
    binlogs = BinlogSet([run_dir])
    a, b = socket.socketpair()
    received = bytearray()

    def drain() -> None:
        while chunk := b.recv(1 << 16):
            received.extend(chunk)

    t = threading.Thread(target=drain)
    t.start()
    session = Session(1, "test", user_vars={"master_binlog_checksum": "CRC32"})
    req = DumpRequest("binlog.000001", pos, 0x01 | (0x02 if annotate else 0), 9)
    pacer = Pacer("bytes", 1e12) if paced else None  # forces the general path, never sleeps
    Streamer(PacketIO(a), binlogs, session, req, pacer=pacer, fast_block=block).run()
    a.close()
    t.join()
    return bytes(received)


@pytest.mark.parametrize("run_dir", sorted({p.parent for p in SAMPLES}), ids=lambda p: p.name)
@pytest.mark.parametrize("annotate", [True, False])
def test_fast_path_sends_what_the_general_path_sends(run_dir: Path, annotate: bool) -> None:
    fast = _dump_bytes(run_dir, paced=False, annotate=annotate)
    general = _dump_bytes(run_dir, paced=True, annotate=annotate)
    assert fast == general
    assert len(fast) > sum(p.stat().st_size for p in run_dir.glob("binlog.0*")) // 2


@settings(max_examples=25)
@given(
    run_dir=st.sampled_from(sorted({p.parent for p in SAMPLES})),
    block=st.integers(1, 1 << 15),
    annotate=st.booleans(),
)
def test_fast_path_with_any_block_size(run_dir: Path, block: int, annotate: bool) -> None:
    """Small blocks put events across block boundaries and make events larger than a block."""
    assert _dump_bytes(run_dir, paced=False, annotate=annotate, block=block) == _dump_bytes(
        run_dir, paced=True, annotate=annotate
    )


@settings(max_examples=80)
@given(
    path=st.sampled_from(SAMPLES),
    at=st.integers(min_value=1, max_value=40),
    length=st.one_of(st.integers(0, 400), st.integers(0, 2**32 - 1)),
    block=st.integers(min_value=19, max_value=1 << 14),
)
def test_blocks_fail_where_iter_frames_fails(tmp_path_factory, path: Path, at: int, length: int, block: int) -> None:
    """A corrupted event_length: the block framer (serve, the manifest scan) raises the error
    :func:`iter_frames` raises, same type, text and offset — or, where iter_frames finds the file
    cut inside an event, stops before that event (a file being written may still grow)."""
    from binlogwriter.errors import DecodeError, TruncatedError
    from binlogwriter.read.framing import iter_frames

    data = bytearray(path.read_bytes())
    offsets = [r.offset for r in iter_raw(path)]
    victim = offsets[min(at, len(offsets) - 1)]
    data[victim + 9 : victim + 13] = length.to_bytes(4, "little")
    bad = tmp_path_factory.mktemp("cut") / path.name
    bad.write_bytes(data)
    want: DecodeError | None = None
    starts = []
    try:
        starts = [off for off, _, _ in iter_frames(bad, check_crc=False)]
    except DecodeError as exc:
        want = exc
    # garbage framed as a FORMAT_DESCRIPTION_EVENT fails in its decoding, which is not framing
    assume(want is None or isinstance(want, TruncatedError) or want.reason.startswith("event_length"))
    got: DecodeError | None = None
    reached = 4
    with open(bad, "rb") as fh:
        try:
            for base, _buf, bounds in iter_blocks(fh, 4, name=str(bad), block=block):
                reached = base + bounds[-1]
        except DecodeError as exc:
            got = exc
    if want is None or isinstance(want, TruncatedError):
        assert got is None
        assert reached == (want.offset if want is not None else len(data))
        assert starts == [o for o in offsets if o < reached][: len(starts)]
    else:
        assert got is not None and (type(got), str(got)) == (type(want), str(want))
