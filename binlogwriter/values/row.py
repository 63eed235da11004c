"""Row images: null bitmap over the present columns, then their non-NULL values (format.md §13).

One row image is ``null_bits`` — ceil(present/8) bytes, LSB-first, 1 = NULL, one bit per column
**present in the image** — followed by the values of the present non-NULL columns in column
order (values.md). Padding bits of the null bitmap are 0 in MySQL 8 and 1 in MySQL 5.x and
MariaDB (format.md §13, mariadb.md); ``null_pad`` is their raw value (the padding bits in place
in the last byte, as :func:`binlogwriter.layouts.primitives.encode_bitmap` takes it;
``-1`` = all ones) and decoding returns what it read so a re-encode is byte-exact.

Python side: ``values`` is always full width (one entry per table column). ``None`` = SQL
NULL; :data:`~binlogwriter.values.base.ABSENT` = not in this image (decoding puts ABSENT for
columns whose ``present`` flag is false; encoding ignores those entries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from binlogwriter.errors import DecodeError, ValueEncodeError
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row_many import ColumnArray, ManyRowImages

__all__ = ["RowImageCodec", "row_codec", "encode_row_image", "encode_row_images", "decode_row_image",
           "ColumnArray", "encode_column_images", "column_image_lengths"]


class RowImageCodec(ManyRowImages):
    """Encoder/decoder of row images for one table's columns, with per-column closures ready.

    One row at a time here; many at once (:meth:`encode_many`, :meth:`encode_columns`) in
    :class:`~binlogwriter.values.row_many.ManyRowImages`."""

    __slots__ = ("cols", "_enc", "_many", "_arr", "_dec", "_nullable", "_n", "_pools")

    def __init__(self, cols: Sequence[ColumnDesc]) -> None:
        self.cols = tuple(cols)
        bounds = [bind_column(c) for c in self.cols]
        self._enc = [b.encode for b in bounds]
        self._many = [b.encode_many for b in bounds]
        self._arr = [b.encode_array for b in bounds]
        self._pools: dict[tuple, tuple] = {}  # (column, id(pool)) -> (pool, lengths, bytes) of its encoded entries
        self._dec = [b.decode for b in bounds]
        self._nullable = [c.nullable for c in self.cols]
        self._n = len(self.cols)

    def _check_width(self, what: str, n: int) -> None:
        if n != self._n:
            table = self.cols[0].table if self.cols else None
            raise ValueEncodeError(f"row image needs {self._n} {what}, got {n}", table=table)

    def encode(self, present: Sequence[bool], values: Sequence[Any], null_pad: int = 0) -> bytes:
        """Bytes of one row image; ValueEncodeError (naming the column) for a value that does not fit."""
        self._check_width("present flags", len(present))
        self._check_width("values", len(values))
        enc = self._enc
        parts: list[bytes] = []
        bits = 0
        k = 0
        for i in range(self._n):
            if not present[i]:
                continue
            v = values[i]
            if v is None:
                if not self._nullable[i]:
                    c = self.cols[i]
                    raise ValueEncodeError("column is NOT NULL, got None", table=c.table, column=c.name)
                bits |= 1 << k
            elif v is ABSENT:
                c = self.cols[i]
                raise ValueEncodeError("column is present in the image but its value is ABSENT",
                                       table=c.table, column=c.name)
            else:
                parts.append(enc[i](v))
            k += 1
        return null_bitmap(bits, k, null_pad) + b"".join(parts)

    def decode(self, present: Sequence[bool], buf: bytes | memoryview, pos: int) -> tuple[tuple, int, int]:
        """(full-width values with ABSENT, raw null-bitmap padding, position after the image)."""
        if len(present) != self._n:
            raise DecodeError(f"row image needs {self._n} present flags, got {len(present)}")
        idx, bits, pad, pos = read_null_bitmap(present, buf, pos)
        out: list[Any] = [ABSENT] * self._n
        dec = self._dec
        for j, i in enumerate(idx):
            if bits >> j & 1:
                out[i] = None
            else:
                out[i], pos = dec[i](buf, pos)
        return tuple(out), pad, pos


def null_bitmap(bits: int, k: int, null_pad: int = 0) -> bytes:
    """The null bitmap of a row image of ``k`` present columns (format.md §13: one bit per
    present column, LSB first, set for NULL): ``bits``, and in the unused high bits of the last
    byte ``null_pad``'s (-1: all set), as :func:`read_null_bitmap` returns them."""
    nb = (k + 7) >> 3
    rem = k & 7
    if rem and null_pad:
        mask = (0xFF << rem) & 0xFF
        bits |= (mask if null_pad == -1 else null_pad & mask) << (8 * (nb - 1))
    return bits.to_bytes(nb, "little")


def read_null_bitmap(present: Sequence[bool], buf: bytes | memoryview, pos: int) -> tuple[list[int], int, int, int]:
    """A row image's null bitmap (format.md §13: one bit per present column, LSB first):
    (indexes of the present columns, the bits as an int, the raw padding bits of the last
    byte, the position after the bitmap)."""
    idx = [i for i in range(len(present)) if present[i]]
    k = len(idx)
    nb = (k + 7) >> 3
    if pos + nb > len(buf):
        raise DecodeError(f"row image null bitmap needs {nb} bytes at {pos}, {max(0, len(buf) - pos)} left")
    bits = int.from_bytes(buf[pos:pos + nb], "little")
    pos += nb
    rem = k & 7
    return idx, bits, (buf[pos - 1] & ((0xFF << rem) & 0xFF)) if rem else 0, pos


_CACHE: dict[int, tuple[Sequence[ColumnDesc], RowImageCodec]] = {}
_CACHE_MAX = 512


def row_codec(cols: Sequence[ColumnDesc]) -> RowImageCodec:
    """The (cached) :class:`RowImageCodec` of ``cols``; pass the same tuple object to hit the cache."""
    key = id(cols)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is cols and isinstance(cols, tuple):
        return hit[1]
    codec = RowImageCodec(cols)
    if isinstance(cols, tuple):
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = (cols, codec)  # keeps cols alive, so the id cannot be reused meanwhile
    return codec


def encode_row_image(cols: Sequence[ColumnDesc], present: Sequence[bool], values: Sequence[Any],
                     null_pad: int = 0) -> bytes:
    """One row image (format.md §13). ``values`` is full width; None = NULL; entries of columns
    not present are ignored. ``null_pad``: raw null-bitmap padding bits (0 MySQL 8; -1 = ones:
    MariaDB, MySQL 5.x). Errors name the column; the caller adds the row index with
    ``ValueEncodeError.located(row=...)``."""
    return row_codec(cols).encode(present, values, null_pad)


def encode_row_images(cols: Sequence[ColumnDesc], present: Sequence[bool], rows: Sequence[Sequence[Any]],
                      null_pad: int = 0) -> tuple[bytes, np.ndarray]:
    """Many row images with the same ``present`` columns at once (vectorised, see
    :meth:`RowImageCodec.encode_many`): (the images back to back, each one's length)."""
    return row_codec(cols).encode_many(present, rows, null_pad)


def decode_row_image(cols: Sequence[ColumnDesc], present: Sequence[bool], buf: bytes | memoryview,
                     pos: int) -> tuple[tuple, int, int]:
    """(values full width with ABSENT for columns not present, raw null padding, new position)."""
    return row_codec(cols).decode(present, buf, pos)


def encode_column_images(cols: Sequence[ColumnDesc], present: Sequence[bool], columns: Sequence[Any], n: int,
                         null_pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Row images from columns (see :meth:`RowImageCodec.encode_columns`)."""
    return row_codec(cols).encode_columns(present, columns, n, null_pad)


def column_image_lengths(cols: Sequence[ColumnDesc], present: Sequence[bool], columns: Sequence[Any],
                         n: int) -> np.ndarray:
    """The lengths :func:`encode_column_images` gives, without the images
    (:meth:`RowImageCodec.image_lengths`)."""
    return row_codec(cols).image_lengths(present, columns, n)
