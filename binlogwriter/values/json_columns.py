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

Size: the column tree (:class:`JCol` kinds) and the matrix encoder of its binary form are one
rule — the encoder dispatches on the node kinds declared here — so they are kept together.
"""

from __future__ import annotations

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
from binlogwriter.values.json_binary_fast import Unplain, key_layout

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
    inlined in its entry (then ``inl`` holds the entry's two bytes as a u16), and where
    each row's data lies: ``lens[r]`` bytes (0 when inlined) at ``starts[r]`` in ``src``
    (data are referred to, not copied, until the top document is gathered)."""

    __slots__ = ("etype", "inline", "inl", "src", "starts", "lens")

    def __init__(self, etype: np.ndarray, inline: np.ndarray, inl: np.ndarray, src: np.ndarray,
                 starts: np.ndarray, lens: np.ndarray) -> None:
        self.etype, self.inline, self.inl = etype, inline, inl
        self.src, self.starts, self.lens = src, starts, lens

    def spread(self, held: np.ndarray, n: int) -> _Enc:
        """This encoding (made for rows ``held``) as one of ``n`` rows: the rows not held
        get an empty inlined entry (never read)."""
        etype = np.zeros(n, np.uint8)
        etype[held] = self.etype
        inline = np.ones(n, bool)
        inline[held] = self.inline
        inl = np.zeros(n, np.int64)
        inl[held] = self.inl
        starts = np.zeros(n, np.int64)
        starts[held] = self.starts
        lens = np.zeros(n, np.int64)
        lens[held] = self.lens
        return _Enc(etype, inline, inl, self.src, starts, lens)


class _Gather:
    """Byte runs of many rows, each row's runs in order, gathered at the end in one pass:
    source arrays side by side, and per row its (start, length) runs in them."""

    def __init__(self) -> None:
        self.srcs: list[np.ndarray] = []
        self.at: dict[int, int] = {}
        self.base = 0
        self.rows: list[np.ndarray] = []
        self.starts: list[np.ndarray] = []
        self.lens: list[np.ndarray] = []

    def source(self, arr: np.ndarray) -> int:
        """The offset of ``arr`` among the sources (added once per array object)."""
        off = self.at.get(id(arr))
        if off is None:
            off = self.at[id(arr)] = self.base
            self.srcs.append(arr)
            self.base += len(arr)
        return off

    def add(self, rows: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> None:
        """Runs of rows ``rows``: (g, k) start and length matrices, row by row in order."""
        self.rows.append(np.repeat(rows, starts.shape[1]))
        self.starts.append(starts.reshape(-1))
        self.lens.append(lens.reshape(-1))

    def build(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        from binlogwriter.batch.scatter import run_indices

        rows = np.concatenate(self.rows) if self.rows else np.zeros(0, np.int64)
        order = np.argsort(rows, kind="stable")  # a row's runs keep their order
        starts = np.concatenate(self.starts)[order] if self.rows else rows
        lens = np.concatenate(self.lens)[order] if self.rows else rows
        row_len = np.bincount(rows[order], weights=lens, minlength=n).astype(np.int64)
        src = np.concatenate(self.srcs) if self.srcs else np.zeros(0, np.uint8)
        return src[run_indices(starts, lens)], row_len


def _u16_bytes(a: np.ndarray) -> np.ndarray:
    """(n, 2) little-endian bytes of values 0..0xFFFF."""
    return a.astype("<u2").view(np.uint8).reshape(-1, 2)


_POOLS: dict[int, tuple[tuple, np.ndarray, np.ndarray, np.ndarray]] = {}


def _pool_runs(pool: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pool string as binary JSON string data (varlen length, UTF-8 bytes), back to
    back, with their starts and lengths (memoised by pool object). Unplain when one is not
    a ``str`` or not UTF-8."""
    hit = _POOLS.get(id(pool))
    if hit is not None and hit[0] is pool:
        return hit[1], hit[2], hit[3]
    from binlogwriter.values.json_binary_encode import varlen

    datas = []
    for s in pool:
        if type(s) is not str:
            raise Unplain
        try:
            b = s.encode("utf-8")
        except UnicodeEncodeError:
            raise Unplain from None
        datas.append(varlen(len(b)) + b)
    lens = np.fromiter(map(len, datas), dtype=np.int64, count=len(datas))
    got = (np.frombuffer(b"".join(datas), dtype=np.uint8), np.cumsum(lens) - lens, lens)
    if len(_POOLS) >= 64:
        _POOLS.clear()
    _POOLS[id(pool)] = (pool, *got)  # keeps the pool alive: its id is not reused
    return got


def _encode(node: JCol) -> _Enc:
    n = len(node)
    zeros = np.zeros(n, dtype=np.int64)
    empty = np.zeros(0, np.uint8)
    if isinstance(node, JInt):
        x = node.data
        small = (x >= -32768) & (x <= 32767)
        mid = ~small & (x >= -(1 << 31)) & (x < (1 << 31))
        etype = np.where(small, INT16, np.where(mid, INT32, INT64)).astype(np.uint8)
        lens = np.where(small, 0, np.where(mid, 4, 8)).astype(np.int64)
        b8 = x.astype("<i8").view(np.uint8).reshape(-1)  # int32 LE = the low 4 of int64 LE
        return _Enc(etype, small, (x & 0xFFFF).astype(np.int64), b8, 8 * np.arange(n, dtype=np.int64), lens)
    if isinstance(node, JBool):
        return _Enc(np.full(n, LITERAL, np.uint8), np.ones(n, bool), np.where(node.data, 1, 2).astype(np.int64),
                    empty, zeros, zeros)
    if isinstance(node, JNull):
        return _Enc(np.full(n, LITERAL, np.uint8), np.ones(n, bool), zeros, empty, zeros, zeros)
    if isinstance(node, JStr):
        pflat, pstart, plen = _pool_runs(node.pool)
        return _Enc(np.full(n, STRING, np.uint8), np.zeros(n, bool), zeros, pflat, pstart[node.idx],
                    plen[node.idx])
    if isinstance(node, JStrList):
        flat, lens = _str_arrays(node, None)
        return _Enc(np.full(n, SMALL_ARRAY, np.uint8), np.zeros(n, bool), zeros, flat, np.cumsum(lens) - lens, lens)
    if isinstance(node, JObj):
        flat, lens = _objects(node, None)
        return _Enc(np.full(n, SMALL_OBJECT, np.uint8), np.zeros(n, bool), zeros, flat, np.cumsum(lens) - lens,
                    lens)
    raise Unplain


def _entries(kids: list[tuple[_Enc, np.ndarray]], off0: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    """(g, 3 × kids) value entries of a small container whose first data byte is at
    ``off0`` (kids in stored order, each an encoding and the rows of it this container
    holds), and each row's container size. Unplain when an offset or the size passes u16."""
    ent = np.empty((g, 3 * len(kids)), dtype=np.uint8)
    off = np.full(g, off0, dtype=np.int64)
    for c, (e, rows) in enumerate(kids):
        ent[:, 3 * c] = e.etype[rows]
        word = np.where(e.inline[rows], e.inl[rows], off)
        if int(word.max(initial=0)) > _U16_MAX:
            raise Unplain
        ent[:, 3 * c + 1:3 * c + 3] = _u16_bytes(word)
        off = off + e.lens[rows]
    if int(off.max(initial=0)) > _U16_MAX:
        raise Unplain
    return ent, off


def _container(gat: _Gather, rows: np.ndarray, type_byte: int | None, cnt: int, keys: bytes,
               kids: list[tuple[_Enc, np.ndarray]]) -> None:
    """Adds to ``gat`` the small containers of rows ``rows``: [type byte], count and size
    (u16 each), key entries (objects), value entries, key bytes, the kids' data."""
    g = len(rows)
    kb = np.frombuffer(keys, dtype=np.uint8)
    blen = len(kb)
    ent, size = _entries(kids, 4 + 3 * cnt + blen, g)
    head = np.concatenate([_u16_bytes(np.full(g, cnt)), _u16_bytes(size)], axis=1)
    if type_byte is not None:
        head = np.concatenate([np.full((g, 1), type_byte, np.uint8), head], axis=1)
    hw, ew = head.shape[1], ent.shape[1]
    k = 4 + len(kids)
    starts = np.empty((g, k), dtype=np.int64)
    lens = np.empty((g, k), dtype=np.int64)
    r = np.arange(g, dtype=np.int64)
    starts[:, 0], lens[:, 0] = gat.source(head.reshape(-1)) + hw * r, hw
    starts[:, 1], lens[:, 1] = gat.source(kb), 4 * cnt if blen else 0
    starts[:, 2], lens[:, 2] = gat.source(ent.reshape(-1)) + ew * r, ew
    starts[:, 3], lens[:, 3] = gat.source(kb) + 4 * cnt, blen - 4 * cnt if blen else 0
    for c, (e, kr) in enumerate(kids):
        starts[:, 4 + c] = gat.source(e.src) + e.starts[kr]
        lens[:, 4 + c] = e.lens[kr]
    gat.add(rows, starts, lens)


def _str_arrays(node: JStrList, type_byte: int | None) -> tuple[np.ndarray, np.ndarray]:
    pflat, pstart, plen = _pool_runs(node.pool)
    n = len(node)
    gat = _Gather()
    for c in np.unique(node.counts).tolist():
        rows = np.flatnonzero(node.counts == c)
        m = len(rows)
        idx = node.idx[rows, :c]
        every = np.arange(m)
        kids = [(_Enc(np.full(m, STRING, np.uint8), np.zeros(m, bool), np.zeros(m, np.int64), pflat,
                      pstart[idx[:, t]], plen[idx[:, t]]), every) for t in range(c)]
        _container(gat, rows, type_byte, c, b"", kids)
    return gat.build(n)


def _objects(node: JObj, type_byte: int | None) -> tuple[np.ndarray, np.ndarray]:
    n = node.n
    members = node.members
    pattern = np.zeros(n, dtype=np.int64)
    for m, (_, _, p) in enumerate(members):
        pattern |= (np.ones(n, dtype=np.int64) if p is None else p.astype(np.int64)) << m
    pats = np.unique(pattern).tolist()
    enc: list[_Enc | None] = []
    for m, (_, v, _) in enumerate(members):  # each member encoded once, for the rows that hold it
        held = np.flatnonzero(pattern >> m & 1)
        if len(held) == n:
            enc.append(_encode(v))
        else:
            enc.append(_encode(v[held]).spread(held, n) if len(held) else None)
    gat = _Gather()
    for pat in pats:
        rows = np.flatnonzero(pattern == pat)
        here = [(m, k) for m, (k, _, _) in enumerate(members) if pat >> m & 1]
        keys = tuple(k for _, k in here)
        try:
            order, block, _ = key_layout(keys)
        except Exception:  # noqa: BLE001 - a key offset beyond u16 (struct.error): the large form
            raise Unplain from None
        kids = [(enc[here[i][0]], rows) for i in order]
        _container(gat, rows, type_byte, len(keys), block, kids)
    return gat.build(n)


def encode_documents(docs: JCol) -> tuple[np.ndarray, np.ndarray] | None:
    """The binary JSON of every row's document (type byte included) as (flat bytes,
    length per row): the bytes ``encode_plain`` writes for ``docs.values()``; None when a
    document needs what this does not write (a large container, a string not UTF-8)."""
    try:
        if isinstance(docs, JObj):
            return _objects(docs, SMALL_OBJECT)
        if isinstance(docs, JStrList):
            return _str_arrays(docs, SMALL_ARRAY)
    except Unplain:
        return None
    return None
