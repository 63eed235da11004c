"""Many row images at once: the vectorised half of :class:`~binlogwriter.values.row.RowImageCodec`.

Same bytes as encoding each row by :meth:`RowImageCodec.encode` (format.md §13; property-tested
in tests/values/test_row_images_vectorised.py): the null bitmaps come from ``np.packbits``, each
present column from its type's vectorised encoder (``Bound.encode_many`` / ``encode_array``) or
its scalar one, and the pieces are scattered into one buffer at offsets from prefix sums.
:class:`~binlogwriter.values.column_array.ColumnArray` (re-exported here) is the
column-by-column input the generators build.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from binlogwriter.errors import ValueEncodeError
from binlogwriter.values._common import Fixed, Var
from binlogwriter.values.base import ABSENT
from binlogwriter.values.column_array import ColumnArray

__all__ = ["ColumnArray", "ManyRowImages"]


_DEDUP_TYPES = ({str}, {bytes}, {frozenset})


def _encode_each(enc: Any, vals: list) -> list:
    """``[Var]`` of ``enc(v)`` for every value (the scalar encoder; raises its
    ValueEncodeError). Values of one type whose equal values encode alike (``str``,
    ``bytes``, ``frozenset`` — SET members) and that repeat are encoded once per distinct
    value and gathered by index."""
    if len(vals) >= 16 and set(map(type, vals)) in _DEDUP_TYPES:
        uniq = list(dict.fromkeys(vals))
        if 2 * len(uniq) <= len(vals):
            pos = {v: p for p, v in enumerate(uniq)}
            idx = np.fromiter(map(pos.__getitem__, vals), dtype=np.int64, count=len(vals))
            datas = [enc(v) for v in uniq]
            plen = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
            from binlogwriter.batch.scatter import take_runs

            lens = plen[idx]
            if not int(lens.sum()):
                return [Var(b"", lens)]
            return [Var(take_runs(np.frombuffer(b"".join(datas), dtype=np.uint8), plen, idx), lens)]
    datas = [enc(v) for v in vals]
    return [Var(b"".join(datas), np.fromiter(map(len, datas), dtype=np.int64, count=len(datas)))]


SCATTER_BYTES = 8 << 20
"""Bytes of runs :func:`_scatter_runs` places per index array: its temporaries (an index per
byte) stay a few tens of MB however many images a call assembles."""


def _scatter_runs(out: np.ndarray, dest: np.ndarray, lens: np.ndarray, flat: np.ndarray) -> None:
    """``out[dest[i]:dest[i] + lens[i]]`` = run ``i`` of ``flat`` (runs back to back), every
    variable-length piece of the images at once: one index per byte, int32 when ``out`` is
    under 2 GiB (half the index bytes to build and read), about :data:`SCATTER_BYTES` of runs
    at a time (a run is never split)."""
    it = np.int32 if len(out) < (1 << 31) else np.int64
    ends = np.cumsum(lens)
    src = ends - lens
    total = int(ends[-1]) if len(lens) else 0
    # run boundaries: after the run that reaches each multiple of SCATTER_BYTES
    cuts = [0, *(np.searchsorted(ends, np.arange(SCATTER_BYTES, total, SCATTER_BYTES)) + 1).tolist(), len(lens)]
    for a, b in zip(cuts, cuts[1:]):  # noqa: B905 - cuts[1:] is one shorter by construction
        if a >= b:
            continue
        lo, hi = int(src[a]), int(ends[b - 1])
        idx = np.repeat((dest[a:b] - src[a:b] + lo).astype(it), lens[a:b])
        idx += np.arange(hi - lo, dtype=it)
        out[idx] = flat[lo:hi]


class ManyRowImages:
    """The many-row encoders :class:`~binlogwriter.values.row.RowImageCodec` inherits; they use
    its per-column closures (``_enc``, ``_many``, ``_arr``), ``_nullable``, ``_n`` and
    ``_pools``, and fall back to its scalar :meth:`encode` to raise the first error.

    Size: one concept (rows → images, vectorised), two entry points (:meth:`encode_many` by
    rows, :meth:`encode_columns` by columns) sharing the bitmap/scatter step :meth:`_assemble`.
    """

    __slots__ = ()

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
        through :func:`~binlogwriter.values.char.encode_ascii_many`, anything else through
        its type's vectorised encoder or its scalar one (ASCII runs through
        :func:`~binlogwriter.values.char.encode_runs_many`). Raises ValueEncodeError (the row
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
        from binlogwriter.values.char import encode_ascii_many, encode_runs_many

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
                elif col.kind == "runs":
                    got = encode_runs_many(self.cols[i], data, col.meta)
                elif col.kind == "edged":
                    split = self._edged_pieces(i, col, rows_nn)
                    if split is not None:
                        pieces += split
                        continue
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
                    try:
                        got = _encode_each(self._enc[i], vals)
                    except ValueEncodeError:
                        self._raise_first(present, columns, n, null_pad)
            for piece in got:
                pieces.append((rows_nn, piece))
        return nullmat, pieces, k

    def _edged_pieces(self, i: int, col: ColumnArray, rows: np.ndarray) -> list | None:
        """An "edged" column's pieces for its non-NULL ``rows``: the rows holding a base value
        through the base kind's array encoder, the rows holding an edge through
        :meth:`_pool_pieces` (each edge encoded once) — two sets of pieces over disjoint rows,
        which :meth:`_assemble` places by row. None when either encoder does not take them
        (the caller then encodes the Python values)."""
        edges, base = col.meta
        which = col.data[rows]
        at_base = which < 0
        out: list = []
        rb, re_ = rows[at_base], rows[~at_base]
        if len(rb):
            data = base.data[rb]
            if base.kind == "int":
                many = self._many[i]
                got = many(data) if many is not None else None
            elif base.kind == "runs":
                from binlogwriter.values.char import encode_runs_many

                got = encode_runs_many(self.cols[i], data, base.meta)
            else:
                arr = self._arr[i]
                got = arr(base.kind, data, base.meta) if arr is not None else None
            if got is None:
                return None
            out += [(rb, piece) for piece in got]
        if len(re_):
            got = self._pool_pieces(i, edges, which[~at_base])
            if got is None:
                return None
            out += [(re_, piece) for piece in got]
        return out

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
            if len(self._pools) >= max(64, 2 * self._n):  # every pooled column of a wide table kept
                self._pools.clear()
            self._pools[(i, id(pool))] = (pool, plen, flat_p)  # keeps the pool alive: its id is not reused
        from binlogwriter.batch.scatter import take_runs

        lens = plen[idx]
        if not int(lens.sum()):
            return [Var(b"", lens)]
        return [Var(take_runs(flat_p, plen, idx), lens)]

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
        if n and all(isinstance(pc, Fixed) and len(rows_nn) == n for rows_nn, pc in pieces):
            # every image the same width: columns side by side in an (n, width) array
            width = nb + sum(int(pc.data.shape[1]) for _, pc in pieces)
            row_len = np.full(n, width, dtype=np.int64)
            out2 = np.empty((n, width), dtype=np.uint8)
            out2[:, :nb] = bitmap
            o = nb
            for _, piece in pieces:
                w = piece.data.shape[1]
                out2[:, o:o + w] = piece.data
                o += w
            return out2.ravel(), row_len
        lens = self._piece_lengths(pieces, k, n)
        row_len = lens[:, 0].copy()
        for p in range(1, lens.shape[1]):  # column by column: a row sum over a few columns is slow
            row_len += lens[:, p]
        at = np.cumsum(lens, axis=1) - lens
        row_start = np.cumsum(row_len) - row_len
        from binlogwriter.batch.scatter import place_rows

        out = np.empty(int(row_len.sum()), dtype=np.uint8)
        place_rows(out, row_start, bitmap)
        var_dest, var_len, var_flat = [], [], []
        for p, (rows_nn, piece) in enumerate(pieces, start=1):
            dest = row_start[rows_nn] + at[rows_nn, p]
            if isinstance(piece, Fixed):
                place_rows(out, dest, piece.data)
            elif int(piece.lengths.sum()):
                var_dest.append(dest)
                var_len.append(piece.lengths)
                var_flat.append(piece.flat if isinstance(piece.flat, np.ndarray) else np.frombuffer(piece.flat, np.uint8))
        if var_dest:
            _scatter_runs(out, np.concatenate(var_dest), np.concatenate(var_len), np.concatenate(var_flat))
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
