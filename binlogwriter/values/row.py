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
from binlogwriter.values._common import Fixed, Var
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.registry import bind_column

__all__ = ["RowImageCodec", "row_codec", "encode_row_image", "encode_row_images", "decode_row_image",
           "ColumnArray", "encode_column_images", "column_image_lengths"]


class ColumnArray:
    """Values of one column for many rows, as arrays: ``kind`` "int" (``data`` an int64
    array), "ascii" (``data`` an (n, width) uint8 array of ASCII text, one value per row),
    "pool" (``data`` int64 indexes into the tuple ``pool`` of Python values), "dec" (int64
    units of ``10^-meta``: ``Decimal`` with exponent ``-meta``), "dt" (int64 microseconds
    since 1970-01-01: naive ``datetime``), "ts" (the same, as an aware UTC ``datetime``),
    "date" (int64 days since 1970-01-01: ``date``), "time" (signed int64 microseconds:
    ``timedelta``) or "float" (float64); ``nulls`` a bool array (True = SQL NULL) or None.
    :meth:`tolist` gives the Python values (None for NULL)."""

    __slots__ = ("kind", "data", "nulls", "pool", "meta")

    def __init__(self, kind: str, data: Any, nulls: Any = None, pool: tuple | None = None, meta: Any = None) -> None:
        self.kind, self.data, self.nulls, self.pool, self.meta = kind, data, nulls, pool, meta

    def __len__(self) -> int:
        return len(self.data)

    def tolist(self) -> list:
        kind = self.kind
        if kind in ("int", "float"):
            vals: list = self.data.tolist()
        elif kind == "pool":
            pool = self.pool
            vals = [pool[i] for i in self.data.tolist()]
        elif kind == "ascii":
            w = self.data.shape[1]
            vals = ([b.decode("ascii") for b in np.ascontiguousarray(self.data).view(f"S{w}").ravel().tolist()]
                    if w else [""] * len(self.data))
        else:
            vals = _array_values(kind, self.data, self.meta)
        if self.nulls is not None:
            vals = [None if z else v for v, z in zip(vals, self.nulls.tolist(), strict=True)]
        return vals

    def take(self, idx: np.ndarray) -> ColumnArray:
        return ColumnArray(self.kind, self.data[idx], None if self.nulls is None else self.nulls[idx], self.pool,
                           self.meta)


def _array_values(kind: str, data: np.ndarray, meta: Any) -> list:
    """Python values of a "dec" / "dt" / "ts" / "date" / "time" array (see ColumnArray)."""
    if kind == "dec":
        from decimal import Decimal

        e = -int(meta)
        return [Decimal(u).scaleb(e) for u in data.tolist()]
    if kind == "dt":
        return data.astype("M8[us]").tolist()
    if kind == "ts":
        from datetime import UTC

        return [d.replace(tzinfo=UTC) for d in data.astype("M8[us]").tolist()]
    if kind == "date":
        return data.astype("M8[D]").tolist()
    if kind == "time":
        return data.astype("m8[us]").tolist()
    raise ValueError(f"unknown ColumnArray kind {kind!r}")


class RowImageCodec:
    """Encoder/decoder of row images for one table's columns, with per-column closures ready."""

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
        nb = (k + 7) >> 3
        rem = k & 7
        if rem and null_pad:
            mask = (0xFF << rem) & 0xFF
            bits |= (mask if null_pad == -1 else null_pad & mask) << (8 * (nb - 1))
        return bits.to_bytes(nb, "little") + b"".join(parts)

    def encode_many(self, present: Sequence[bool], rows: Sequence[Sequence[Any]],
                    null_pad: int = 0) -> tuple[bytes, np.ndarray]:
        """The row images of many rows with the same ``present`` columns, column by column:
        (all images back to back, each image's length). Same bytes as :meth:`encode` on each
        row (property-tested): null bitmaps by ``np.packbits``, each column by its type's
        vectorised encoder (``Bound.encode_many``) or, for a type without one or values it
        does not take, by its scalar encoder; the pieces are scattered into one buffer at
        offsets from prefix sums. Any error: the rows are encoded one by one by
        :meth:`encode`, which raises it (the same error, for the same row and column);
        ``ValueEncodeError.row`` is then the index in ``rows``."""
        self._check_width("present flags", len(present))
        n = len(rows)
        if any(len(r) != self._n for r in rows):
            return self._one_by_one(present, rows, null_pad)
        idx = [i for i in range(self._n) if present[i]]
        k = len(idx)
        try:
            built = self._columns(idx, rows, n)
        except (ValueEncodeError, ValueError, TypeError, OverflowError):
            built = None
        if built is None:
            return self._one_by_one(present, rows, null_pad)
        nullmat, pieces = built
        out, row_len = self._assemble(nullmat, pieces, k, n, null_pad)
        return out.tobytes(), row_len

    def encode_columns(self, present: Sequence[bool], columns: Sequence[Any], n: int,
                       null_pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The row images of ``n`` rows given column by column (``columns[i]``: a
        :class:`ColumnArray` or a list of Python values, None = NULL; only present columns
        are read): (the images back to back as uint8, each image's length). Same bytes as
        :meth:`encode` on each row: ints through the vectorised integer encoder, ASCII text
        through :func:`~binlogwriter.values.strings.encode_ascii_many`, anything else through
        its type's vectorised encoder or its scalar one. Raises ValueEncodeError (the row
        index is the position in this call) through :meth:`encode` when a value does not fit."""
        nullmat, pieces, k = self._column_pieces(present, columns, n, null_pad)
        return self._assemble(nullmat, pieces, k, n, null_pad)

    def image_lengths(self, present: Sequence[bool], columns: Sequence[Any], n: int) -> np.ndarray:
        """The length of each image :meth:`encode_columns` would write, without writing them:
        the null bitmap's bytes plus each present non-NULL value's bytes, from the same
        per-column pieces (no image is assembled). Raises what :meth:`encode_columns` raises."""
        nullmat, pieces, k = self._column_pieces(present, columns, n, 0)
        return self._piece_lengths(pieces, k, n).sum(axis=1)

    def _column_pieces(self, present: Sequence[bool], columns: Sequence[Any], n: int, null_pad: int):
        """(null matrix n × present, [(rows with a value, piece)…], present count) of
        :meth:`encode_columns`."""
        self._check_width("present flags", len(present))
        idx = [i for i in range(self._n) if present[i]]
        k = len(idx)
        from binlogwriter.values.strings import encode_ascii_many

        nullmat = np.zeros((n, k), dtype=bool)
        pieces: list = []
        for j, i in enumerate(idx):
            col = columns[i]
            got = None
            if isinstance(col, ColumnArray):
                nn = None
                if col.nulls is not None:
                    if not self._nullable[i]:
                        got = None
                    nullmat[:, j] = col.nulls
                    nn = np.flatnonzero(~col.nulls)
                rows_nn = np.arange(n) if nn is None else nn
                data = col.data if nn is None else col.data[nn]
                if col.nulls is not None and not self._nullable[i]:
                    got = None
                elif not len(data):
                    continue
                elif col.kind == "int":
                    many = self._many[i]
                    got = many(data) if many is not None else None
                elif col.kind == "pool":
                    got = self._pool_pieces(i, col.pool, data)
                elif col.kind == "ascii":
                    got = encode_ascii_many(self.cols[i], data)
                else:
                    arr = self._arr[i]
                    got = arr(col.kind, data, col.meta) if arr is not None else None
                if got is None:
                    vals = col.tolist()
                else:
                    vals = None
            else:
                vals = col
            if got is None:
                nulls = [v is None for v in vals]
                if any(nulls):
                    if not self._nullable[i]:
                        self._raise_first(present, columns, n, null_pad)
                    nullmat[:, j] = nulls
                    rows_nn = np.flatnonzero(~nullmat[:, j])
                    vals = [v for v in vals if v is not None]
                else:
                    rows_nn = np.arange(n)
                if not vals:
                    continue
                many = self._many[i]
                try:
                    got = many(vals) if many is not None else None
                except (ValueError, TypeError, OverflowError):
                    got = None
                if got is None:
                    enc = self._enc[i]
                    try:
                        datas = [enc(v) for v in vals]
                    except ValueEncodeError:
                        self._raise_first(present, columns, n, null_pad)
                    got = [Var(b"".join(datas), np.fromiter(map(len, datas), dtype=np.int64, count=len(datas)))]
            for piece in got:
                pieces.append((rows_nn, piece))
        return nullmat, pieces, k

    def _pool_pieces(self, i: int, pool: tuple, idx: np.ndarray) -> list | None:
        """Values drawn from a few distinct ones (``pool[idx]``): each distinct value encoded
        once by the column's scalar codec, then gathered. None when one does not fit (the
        scalar path then raises for the row that holds it)."""
        hit = self._pools.get((i, id(pool)))
        if hit is not None and hit[0] is pool:
            plen, flat_p = hit[1], hit[2]
        else:
            enc = self._enc[i]
            try:
                datas = [enc(v) for v in pool]
            except ValueEncodeError:
                return None
            plen = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
            flat_p = np.frombuffer(b"".join(datas), dtype=np.uint8)
            if len(self._pools) >= 64:
                self._pools.clear()
            self._pools[(i, id(pool))] = (pool, plen, flat_p)  # keeps the pool alive: its id is not reused
        lens = plen[idx]
        m = int(lens.sum())
        if not m:
            return [Var(b"", lens)]
        c = np.cumsum(lens) - lens
        src = (np.cumsum(plen) - plen)[idx]
        return [Var(flat_p[np.repeat(src - c, lens) + np.arange(m)], lens)]

    def _raise_first(self, present, columns, n, null_pad) -> None:
        cols = [c.tolist() if isinstance(c, ColumnArray) else c for c in columns]
        for r in range(n):
            try:
                self.encode(present, [c[r] if c is not None else None for c in cols], null_pad)
            except ValueEncodeError as exc:
                raise exc.located(row=r) from None
        raise ValueEncodeError("a value does not fit its column")  # pragma: no cover - encode raised

    @staticmethod
    def _piece_lengths(pieces, k: int, n: int) -> np.ndarray:
        """Bytes per image (rows) and part (columns: the null bitmap, then each piece)."""
        lens = np.zeros((n, len(pieces) + 1), dtype=np.int64)
        lens[:, 0] = (k + 7) >> 3
        for p, (rows_nn, piece) in enumerate(pieces, start=1):
            if isinstance(piece, Fixed):
                lens[rows_nn, p] = piece.data.shape[1]
            else:
                lens[rows_nn, p] = piece.lengths
        return lens

    def _assemble(self, nullmat, pieces, k: int, n: int, null_pad: int) -> tuple[np.ndarray, np.ndarray]:
        nb = (k + 7) >> 3
        bitmap = np.packbits(nullmat, axis=1, bitorder="little") if k else np.zeros((n, 0), np.uint8)
        rem = k & 7
        if rem and null_pad:
            mask = (0xFF << rem) & 0xFF
            bitmap[:, nb - 1] |= mask if null_pad == -1 else (null_pad & mask)
        lens = self._piece_lengths(pieces, k, n)
        row_len = lens.sum(axis=1)
        if n and all(isinstance(pc, Fixed) and len(rows_nn) == n for rows_nn, pc in pieces):
            # every image the same width: columns side by side in an (n, width) array
            width = int(row_len[0])
            out2 = np.empty((n, width), dtype=np.uint8)
            out2[:, :nb] = bitmap
            o = nb
            for _, piece in pieces:
                w = piece.data.shape[1]
                out2[:, o:o + w] = piece.data
                o += w
            return out2.ravel(), row_len
        at = np.cumsum(lens, axis=1) - lens
        row_start = np.cumsum(row_len) - row_len
        out = np.empty(int(row_len.sum()), dtype=np.uint8)
        if nb:
            out[(row_start[:, None] + np.arange(nb)).ravel()] = bitmap.ravel()
        for p, (rows_nn, piece) in enumerate(pieces, start=1):
            dest = row_start[rows_nn] + at[rows_nn, p]
            if isinstance(piece, Fixed):
                w = piece.data.shape[1]
                if w:
                    out[(dest[:, None] + np.arange(w)).ravel()] = piece.data.ravel()
            else:
                ln = piece.lengths
                m = int(ln.sum())
                if m:
                    src = np.cumsum(ln) - ln
                    flat = piece.flat if isinstance(piece.flat, np.ndarray) else np.frombuffer(piece.flat, np.uint8)
                    out[np.repeat(dest - src, ln) + np.arange(m)] = flat
        return out, row_len

    def _columns(self, idx: list[int], rows: Sequence[Sequence[Any]], n: int):
        """(null matrix n × present, [(rows with a value, piece)…]) or None (ABSENT, bad width)."""
        nullmat = np.zeros((n, len(idx)), dtype=bool)
        pieces: list = []
        for j, i in enumerate(idx):
            vals = [r[i] for r in rows]
            if any(v is ABSENT for v in vals):
                return None
            nulls = [v is None for v in vals]
            if any(nulls):
                if not self._nullable[i]:
                    return None
                nullmat[:, j] = nulls
                rows_nn = np.flatnonzero(~nullmat[:, j])
                vals = [v for v in vals if v is not None]
            else:
                rows_nn = np.arange(n)
            if not vals:
                continue
            many = self._many[i]
            got = many(vals) if many is not None else None
            if got is None:  # scalar fallback for this column only
                enc = self._enc[i]
                datas = [enc(v) for v in vals]
                got = [Var(b"".join(datas), np.fromiter(map(len, datas), dtype=np.int64, count=len(datas)))]
            for piece in got:
                pieces.append((rows_nn, piece))
        return nullmat, pieces

    def _one_by_one(self, present, rows, null_pad) -> tuple[bytes, np.ndarray]:
        parts = []
        for r, row in enumerate(rows):
            if len(row) != self._n:
                self._check_width("values", len(row))
            try:
                parts.append(self.encode(present, row, null_pad))
            except ValueEncodeError as exc:
                raise exc.located(row=r) from None
        return b"".join(parts), np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))

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
