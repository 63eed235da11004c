"""binlogwriter/crc.py: the batch encoder's CRC-32 is zlib's, value for value, chained or not."""

from __future__ import annotations

import zlib

from hypothesis import given
from hypothesis import strategies as st

from binlogwriter.crc import crc32


@given(st.binary(max_size=5000), st.integers(0, 2**32 - 1), st.integers(0, 64))
def test_crc32_is_zlibs(data: bytes, start: int, cut: int) -> None:
    assert crc32(data) == zlib.crc32(data)
    assert crc32(data, start) == zlib.crc32(data, start)
    mv = memoryview(data)[cut:]  # the encoder passes memoryview slices
    assert crc32(mv) == zlib.crc32(mv)
    assert crc32(mv, crc32(data[:cut])) == zlib.crc32(data[cut:], zlib.crc32(data[:cut]))
