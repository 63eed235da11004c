"""MariaDB's compressed event blobs (mariadb.md "Compression").

blob = ``u8 (0x80 | n)``, the uncompressed length big-endian in n bytes (the fewest that
hold it), then ``zlib.compress(data)`` at the default level.
"""

from __future__ import annotations

import zlib

from binlogwriter.errors import DecodeError

__all__ = ["mariadb_compress", "mariadb_decompress"]


def mariadb_compress(data: bytes) -> bytes:
    n = max(1, (len(data).bit_length() + 7) // 8)
    return bytes((0x80 | n,)) + len(data).to_bytes(n, "big") + zlib.compress(data)


def mariadb_decompress(blob: bytes) -> bytes:
    if not blob or not blob[0] & 0x80 or not 1 <= blob[0] & 0x07 <= 4:
        raise DecodeError("bad compressed-event header byte")
    n = blob[0] & 0x07
    size = int.from_bytes(blob[1:1 + n], "big")
    try:
        out = zlib.decompress(blob[1 + n:])
    except zlib.error as exc:
        raise DecodeError(f"corrupt zlib stream: {exc}") from None
    if len(out) != size:
        raise DecodeError(f"decompressed {len(out)} bytes, header says {size}")
    return out
