"""JSON documents of many rows given by columns, and their binary JSON encoded as arrays
(values.md §7, ``sql-common/json_binary.cc``).

A column of documents is a tree of per-row columns (:class:`JObj` at the top): objects
whose members are present per row (a bool mask), integers (int64), booleans, nulls,
strings drawn from a pool (indexes) and arrays of pool strings (an index matrix and a
count per row). :meth:`JCol.values` gives the Python documents (``dict`` in member order,
``list``, ``str``, ``int``, ``bool``, ``None``); :func:`encode_documents` gives their binary
JSON — the bytes :func:`~binlogwriter.values.json_binary_fast.encode_plain` writes for each
document, type byte included — built by numpy over whole columns: rows are grouped by the
set of members they hold (an object's key entries and key bytes depend on its keys only,
``_key_layout``) and by array length, each group's header, key and value entries are
written as matrices, and the members' data are gathered by byte runs. Only the small
(u16 offsets) container form is written: a document that would need the large form gives
None (the caller then encodes the documents one by one, which writes the large form).

``tests/batch/test_json_columns.py`` checks the bytes against the scalar encoder.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from binlogwriter.values.json_binary_encode import (
    INT16,
    INT32,
    INT64,
    LITERAL,
    SMALL_ARRAY,
    SMALL_OBJECT,
    STRING,
)
from binlogwriter.values.json_binary_fast import Unplain, _key_layout

__all__ = ["JCol", "JInt", "JBool", "JNull", "JStr", "JStrList", "JObj", "encode_documents"]

_U16_MAX = 0xFFFF


class JCol:
    """One node of the document tree, for ``n`` rows."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, idx: np.ndarray) -> JCol:
        """The rows ``idx`` (an int array or a bool mask)."""
        raise NotImplementedError

    def take(self, idx: np.ndarray) -> JCol:
        return self[idx]

    def values(self) -> list:
        """The Python value of each row."""
        raise NotImplementedError


class JInt(JCol):
    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = np.asarray(data, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, idx: np.ndarray) -> JInt:
        return JInt(self.data[idx])

    def values(self) -> list:
        return self.data.tolist()


class JBool(JCol):
    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = np.asarray(data, dtype=bool)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, idx: np.ndarray) -> JBool:
        return JBool(self.data[idx])

    def values(self) -> list:
        return self.data.tolist()


class JNull(JCol):
    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, idx: np.ndarray) -> JNull:
        return JNull(len(np.arange(self.n)[idx]))

    def values(self) -> list:
        return [None] * self.n


class JStr(JCol):
    """``pool[idx[r]]`` per row."""

    __slots__ = ("pool", "idx")

    def __init__(self, pool: tuple, idx: np.ndarray) -> None:
        self.pool, self.idx = pool, np.asarray(idx, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, idx: np.ndarray) -> JStr:
        return JStr(self.pool, self.idx[idx])

    def values(self) -> list:
        pool = self.pool
        return [pool[i] for i in self.idx.tolist()]


class JStrList(JCol):
    """``[pool[x] for x in idx[r, :counts[r]]]`` per row."""

    __slots__ = ("pool", "idx", "counts")

    def __init__(self, pool: tuple, idx: np.ndarray, counts: np.ndarray) -> None:
        self.pool = pool
        self.idx = np.asarray(idx, dtype=np.int64)
        self.counts = np.asarray(counts, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.counts)

    def __getitem__(self, idx: np.ndarray) -> JStrList:
        return JStrList(self.pool, self.idx[idx], self.counts[idx])

    def values(self) -> list:
        pool = self.pool
        return [[pool[x] for x in row[:c]] for row, c in zip(self.idx.tolist(), self.counts.tolist(), strict=True)]


class JObj(JCol):
    """An object per row: ``members`` are (key, node, present mask or None = always), in
    the Python dict's member order."""

    __slots__ = ("members", "n")

    def __init__(self, members: tuple, n: int) -> None:
        self.members, self.n = tuple(members), n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, idx: np.ndarray) -> JObj:
        m = len(np.arange(self.n)[idx])
        return JObj(tuple((k, v[idx], None if p is None else p[idx]) for k, v, p in self.members), m)

    def values(self) -> list:
        keys = [k for k, _, _ in self.members]
        cols = [v.values() for _, v, _ in self.members]
        pres = [None if p is None else p.tolist() for _, _, p in self.members]
        if all(p is None for p in pres):
            return [dict(zip(keys, row, strict=True)) for row in zip(*cols, strict=True)] if cols else \
                [{} for _ in range(self.n)]
        out = []
        for r in range(self.n):
            out.append({k: c[r] for k, c, p in zip(keys, cols, pres, strict=True) if p is None or p[r]})
        return out


# -- encoding --------------------------------------------------------------------------------

class _Enc:
    """A node's value entries and data for its rows: entry type byte, whether the value is
    inlined in its entry (then ``inl`` holds the entry's two bytes as a u16), and the
    data of the rows not inlined (``flat`` bytes, ``lens`` per row, 0 when inlined)."""

    __slots__ = ("etype", "inline", "inl", "flat", "lens")

    def __init__(self, etype: np.ndarray, inline: np.ndarray, inl: np.ndarray, flat: np.ndarray,
                 lens: np.ndarray) -> None:
        self.etype, self.inline, self.inl, self.flat, self.lens = etype, inline, inl, flat, lens

    @staticmethod
    def spread(e: _Enc, held: np.ndarray, n: int) -> _Enc:
        """``e`` (made for rows ``held``) as an encoding of ``n`` rows: the rows not held
        get an empty inlined entry (never read)."""
        etype = np.zeros(n, np.uint8)
        etype[held] = e.etype
        inline = np.ones(n, bool)
        inline[held] = e.inline
        inl = np.zeros(n, np.int64)
        inl[held] = e.inl
        lens = np.zeros(n, np.int64)
        lens[held] = e.lens
        return _Enc(etype, inline, inl, e.flat, lens)


def _take_enc(e: _Enc, rows: np.ndarray) -> _Enc:
    """The encoding of rows ``rows`` of ``e`` (their data gathered by byte runs)."""
    from binlogwriter.batch.scatter import take_runs

    n = len(e.lens)
    if len(rows) == n and (n == 0 or (rows[0] == 0 and rows[-1] == n - 1)):
        return e
    lens = e.lens[rows]
    flat = take_runs(e.flat, e.lens, rows) if int(lens.sum()) else np.zeros(0, np.uint8)
    return _Enc(e.etype[rows], e.inline[rows], e.inl[rows], flat, lens)


def _u16_bytes(a: np.ndarray) -> np.ndarray:
    """(n, 2) little-endian bytes of values 0..0xFFFF."""
    return a.astype("<u2").view(np.uint8).reshape(-1, 2)


def _rows_concat(parts: list, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise concatenation of ``parts`` — each an (n, w) uint8 matrix, a 1-d uint8 array
    (the same bytes in every row) or a (flat, lens) pair of per-row byte runs — as (flat
    bytes, length per row): the parts' bytes side by side in one source array, then one
    gather of every (row, part) run in row-major order."""
    from binlogwriter.batch.scatter import run_indices

    k = len(parts)
    starts = np.empty((n, k), dtype=np.int64)
    lens = np.empty((n, k), dtype=np.int64)
    srcs = []
    base = 0
    for p, part in enumerate(parts):
        if isinstance(part, tuple):
            flat, ln = part
            lens[:, p] = ln
            starts[:, p] = base + np.cumsum(ln) - ln
            srcs.append(np.asarray(flat, dtype=np.uint8))
            base += int(ln.sum())
        elif part.ndim == 1:
            lens[:, p] = len(part)
            starts[:, p] = base
            srcs.append(part)
            base += len(part)
        else:
            w = part.shape[1]
            lens[:, p] = w
            starts[:, p] = base + w * np.arange(n)
            srcs.append(part.reshape(-1))
            base += n * w
    src = np.concatenate(srcs) if srcs else np.zeros(0, np.uint8)
    row_len = lens.sum(axis=1)
    if not base:
        return np.zeros(0, np.uint8), row_len
    return src[run_indices(starts.reshape(-1), lens.reshape(-1))], row_len


def _in_order(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-row byte runs made group by group ((rows, flat, lens) each, the groups a
    partition of ``range(n)``) back in row order: (flat, lens)."""
    from binlogwriter.batch.scatter import take_runs

    if len(groups) == 1 and len(groups[0][0]) == n:
        rows, flat, lens = groups[0]
        if (rows == np.arange(n)).all():
            return flat, lens
    rows = np.concatenate([g[0] for g in groups])
    flat = np.concatenate([g[1] for g in groups])
    lens = np.concatenate([g[2] for g in groups])
    pos = np.empty(n, dtype=np.int64)
    pos[rows] = np.arange(n)  # row r's run is run pos[r] of the group-order layout
    return take_runs(flat, lens, pos), lens[pos]


_POOLS: dict[int, tuple[tuple, np.ndarray, np.ndarray]] = {}


def _pool_runs(pool: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Each pool string as binary JSON string data (varlen length, UTF-8 bytes), back to
    back, and their lengths (memoised by pool object). Unplain when one is not a ``str`` or
    not UTF-8."""
    hit = _POOLS.get(id(pool))
    if hit is not None and hit[0] is pool:
        return hit[1], hit[2]
    got = _pool_runs_of(pool)
    if len(_POOLS) >= 64:
        _POOLS.clear()
    _POOLS[id(pool)] = (pool, *got)  # keeps the pool alive: its id is not reused
    return got


def _pool_runs_of(pool: tuple) -> tuple[np.ndarray, np.ndarray]:
    from binlogwriter.values.json_binary_encode import _varlen

    datas = []
    for s in pool:
        if type(s) is not str:
            raise Unplain
        try:
            b = s.encode("utf-8")
        except UnicodeEncodeError:
            raise Unplain from None
        datas.append(_varlen(len(b)) + b)
    return (np.frombuffer(b"".join(datas), dtype=np.uint8),
            np.fromiter(map(len, datas), dtype=np.int64, count=len(datas)))


def _encode(node: JCol) -> _Enc:
    from binlogwriter.batch.scatter import take_runs

    n = len(node)
    zeros = np.zeros(n, dtype=np.int64)
    if isinstance(node, JInt):
        x = node.data
        small = (x >= -32768) & (x <= 32767)
        mid = ~small & (x >= -(1 << 31)) & (x < (1 << 31))
        etype = np.where(small, INT16, np.where(mid, INT32, INT64)).astype(np.uint8)
        lens = np.where(small, 0, np.where(mid, 4, 8)).astype(np.int64)
        b8 = x.astype("<i8").view(np.uint8).reshape(n, 8)  # int32 LE = the low 4 of int64 LE
        flat = b8[np.arange(8)[None, :] < lens[:, None]]
        return _Enc(etype, small, (x & 0xFFFF).astype(np.int64), flat, lens)
    if isinstance(node, JBool):
        return _Enc(np.full(n, LITERAL, np.uint8), np.ones(n, bool), np.where(node.data, 1, 2).astype(np.int64),
                    np.zeros(0, np.uint8), zeros)
    if isinstance(node, JNull):
        return _Enc(np.full(n, LITERAL, np.uint8), np.ones(n, bool), zeros, np.zeros(0, np.uint8), zeros)
    if isinstance(node, JStr):
        pflat, plen = _pool_runs(node.pool)
        return _Enc(np.full(n, STRING, np.uint8), np.zeros(n, bool), zeros, take_runs(pflat, plen, node.idx),
                    plen[node.idx])
    if isinstance(node, JStrList):
        flat, lens = _str_arrays(node)
        return _Enc(np.full(n, SMALL_ARRAY, np.uint8), np.zeros(n, bool), zeros, flat, lens)
    if isinstance(node, JObj):
        flat, lens = _objects(node)
        return _Enc(np.full(n, SMALL_OBJECT, np.uint8), np.zeros(n, bool), zeros, flat, lens)
    raise Unplain


def _entries(children: list[_Enc], off0: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3 × children) value entries of a small container whose first data byte is at
    ``off0`` (children in stored order), and each row's container size. Unplain when an
    offset or the size passes u16."""
    ent = np.empty((n, 3 * len(children)), dtype=np.uint8)
    off = np.full(n, off0, dtype=np.int64)
    for c, ch in enumerate(children):
        ent[:, 3 * c] = ch.etype
        word = np.where(ch.inline, ch.inl, off)
        if int(word.max(initial=0)) > _U16_MAX:
            raise Unplain
        ent[:, 3 * c + 1:3 * c + 3] = _u16_bytes(word)
        off = off + ch.lens
    if int(off.max(initial=0)) > _U16_MAX:
        raise Unplain
    return ent, off


def _str_arrays(node: JStrList) -> tuple[np.ndarray, np.ndarray]:
    from binlogwriter.batch.scatter import take_runs

    pflat, plen = _pool_runs(node.pool)
    n = len(node)
    groups = []
    for c in np.unique(node.counts).tolist():
        rows = np.flatnonzero(node.counts == c)
        m = len(rows)
        idx = node.idx[rows, :c]
        slen = plen[idx]
        kids = [_Enc(np.full(m, STRING, np.uint8), np.zeros(m, bool), np.zeros(m, np.int64), np.zeros(0, np.uint8),
                     slen[:, t]) for t in range(c)]
        ent, size = _entries(kids, 4 + 3 * c, m)
        head = np.concatenate([_u16_bytes(np.full(m, c)), _u16_bytes(size)], axis=1)
        data = take_runs(pflat, plen, idx.ravel()) if c else np.zeros(0, np.uint8)
        flat, lens = _rows_concat([head, ent, (data, slen.sum(axis=1))], m)
        groups.append((rows, flat, lens))
    return _in_order(groups, n)


def _objects(node: JObj) -> tuple[np.ndarray, np.ndarray]:
    n = node.n
    members = node.members
    pattern = np.zeros(n, dtype=np.int64)
    for m, (_, _, p) in enumerate(members):
        pattern |= (np.ones(n, dtype=np.int64) if p is None else p.astype(np.int64)) << m
    pats = np.unique(pattern).tolist()
    if len(pats) == 1:
        enc = [_encode(v) for _, v, _ in members]
    else:  # each member encoded once, for the rows that hold it
        enc = []
        for m, (_, v, _) in enumerate(members):
            held = np.flatnonzero(pattern >> m & 1)
            enc.append(_Enc.spread(_encode(v[held]), held, n) if len(held) else None)
    groups = []
    for pat in pats:
        rows = np.flatnonzero(pattern == pat)
        g = len(rows)
        here = [(m, k) for m, (k, _, _) in enumerate(members) if pat >> m & 1]
        keys = tuple(k for _, k in here)
        try:
            order, block, blen = _key_layout(keys)
        except Exception:  # noqa: BLE001 - a key offset beyond u16 (struct.error): the large form
            raise Unplain from None
        cnt = len(keys)
        kids = [_take_enc(enc[here[i][0]], rows) for i in order]
        ent, size = _entries(kids, 4 + 3 * cnt + blen, g)
        head = np.concatenate([_u16_bytes(np.full(g, cnt)), _u16_bytes(size)], axis=1)
        kb = np.frombuffer(block, dtype=np.uint8)
        parts: list[Any] = [head, kb[:cnt * 4], ent, kb[cnt * 4:]]
        parts += [(ch.flat, ch.lens) for ch in kids]
        flat, lens = _rows_concat(parts, g)
        groups.append((rows, flat, lens))
    return _in_order(groups, n)


def encode_documents(docs: JCol) -> tuple[np.ndarray, np.ndarray] | None:
    """The binary JSON of every row's document (type byte included) as (flat bytes,
    length per row): the bytes ``encode_plain`` writes for ``docs.values()``; None when a
    document needs what this does not write (a large container, a string not UTF-8)."""
    if not isinstance(docs, (JObj, JStrList)):
        return None
    try:
        flat, lens = _objects(docs) if isinstance(docs, JObj) else _str_arrays(docs)
    except Unplain:
        return None
    n = len(docs)
    tb = np.full((n, 1), SMALL_OBJECT if isinstance(docs, JObj) else SMALL_ARRAY, dtype=np.uint8)
    return _rows_concat([tb, (flat, lens)], n)
