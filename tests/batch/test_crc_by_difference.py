"""``columnar.crc_by_difference`` (the CRC32 of events that differ from another only in
their first bytes, from that event's CRC and per-byte terms) equals ``zlib.crc32`` of
every message, for any lengths, differing prefixes and buffer offsets."""

from __future__ import annotations

import zlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.columnar import crc_by_difference


@settings(max_examples=300, deadline=None)
@given(data=st.data(), length=st.integers(1, 600), count=st.integers(1, 12), offset=st.integers(0, 9))
def test_crc_by_difference_equals_zlib(data, length: int, count: int, offset: int) -> None:
    k = data.draw(st.integers(1, min(length, 40)))
    body = data.draw(st.binary(min_size=length, max_size=length))
    heads = [data.draw(st.binary(min_size=k, max_size=k)) for _ in range(count)]
    if data.draw(st.booleans()):  # some bytes equal in all: the common case of header fields
        fixed = data.draw(st.integers(0, k))
        heads = [heads[0][:fixed] + h[fixed:] for h in heads]
    msgs = [h + body[k:] for h in heads]
    buf = np.frombuffer(bytes(offset) + msgs[0] + b"\xaa", dtype=np.uint8)
    got = crc_by_difference(memoryview(buf), offset, length,
                            np.frombuffer(b"".join(heads), dtype=np.uint8).reshape(count, k))
    assert got.tolist() == [zlib.crc32(m) for m in msgs]
