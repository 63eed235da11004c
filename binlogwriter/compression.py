"""MariaDB's compressed event blobs (mariadb.md "Compression").

blob = ``u8 (0x80 | n)``, the uncompressed length big-endian in n bytes (the fewest that
hold it), then ``zlib.compress(data)`` at the default level.

Decompression never trusts the declared length for allocation: the zlib stream is inflated
with ``max_length`` = declared length + 1, so a stream that inflates to more than it
declares stops there (a "decompression bomb" costs at most what it declares), and a
declared length beyond :data:`MAX_DECOMPRESSED` — or beyond what deflate can produce from
the bytes present (at most 1032 bytes out per byte in) — is refused before inflating.
"""

from __future__ import annotations

import zlib

from binlogwriter.errors import DecodeError, LimitError

__all__ = ["mariadb_compress", "mariadb_decompress", "MAX_DECOMPRESSED"]

MAX_DECOMPRESSED = 1 << 30
"""Largest uncompressed size accepted (1 GiB: no event a server writes is larger)."""

_DEFLATE_RATIO = 1032
"""deflate's largest expansion: one 258-byte match per 2 bits, about 1032:1."""


def mariadb_compress(data: bytes) -> bytes:
    n = max(1, (len(data).bit_length() + 7) // 8)
    return bytes((0x80 | n,)) + len(data).to_bytes(n, "big") + zlib.compress(data)


def mariadb_decompress(blob: bytes, *, max_size: int = MAX_DECOMPRESSED, exact: bool = False) -> bytes:
    """The bytes a compressed blob holds; DecodeError if it is malformed or if it inflates
    to another size than it declares, LimitError if it declares more than ``max_size``.

    ``exact``: also require the blob to be what :func:`mariadb_compress` writes for those
    bytes (the server's ``compress()`` at the default level); another zlib stream for the
    same bytes (other header level bits, other blocks) raises ``NonCanonical``, which keeps
    the event raw instead of handing out one that would re-encode to other bytes."""
    if not blob or blob[0] & 0xF8 != 0x80 or not 1 <= blob[0] & 0x07 <= 4:
        # 0x80 | n, n in 1..4; the servers write the other bits 0
        raise DecodeError(f"bad compressed-event header byte 0x{blob[0]:02x}" if blob else
                          "empty compressed-event blob")
    n = blob[0] & 0x07
    if len(blob) < 1 + n:
        raise DecodeError(f"compressed-event header needs {1 + n} bytes, has {len(blob)}")
    size = int.from_bytes(blob[1:1 + n], "big")
    stream = blob[1 + n:]
    if size > max_size:
        raise LimitError(f"compressed event declares {size} uncompressed bytes, more than the "
                         f"{max_size}-byte limit")
    if size > _DEFLATE_RATIO * len(stream) + 64:
        raise DecodeError(f"compressed event declares {size} uncompressed bytes; "
                          f"{len(stream)} compressed bytes cannot hold that many")
    d = zlib.decompressobj()
    try:
        out = d.decompress(stream, size + 1)
        if len(out) <= size and not d.eof:
            out += d.flush()
    except zlib.error as exc:
        raise DecodeError(f"corrupt zlib stream: {exc}") from None
    if len(out) != size:
        more = " or more" if len(out) > size else ""
        raise DecodeError(f"decompressed {len(out)}{more} bytes, header says {size}")
    if not d.eof or d.unused_data:
        raise DecodeError("zlib stream does not end where the event ends")
    if exact and zlib.compress(out) != stream:
        from binlogwriter.layouts.control import NonCanonical

        raise NonCanonical("compressed rows: the zlib stream is not the one the server's compress() "
                           "writes for these bytes")
    return out
