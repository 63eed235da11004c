"""Vectorised twins shared by several generator families: ``fn(h, j) -> (kind, data, extra)``
(ColumnArray kinds of binlogwriter/values/row.py, "list" for Python values) computing, for
the stream hashes ``h``, what the scalar generator computes from draw ``j + 1`` on.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import numpy as np

from binlogwriter.values.row import ColumnArray
from generators.hashing import draw_array, hash64_array, mix64_into, unit_array

SAFE = 1 << 52


def between_vec(lo: int, hi: int):
    n = hi - lo + 1
    if not (-SAFE < lo <= hi < SAFE) or n <= 0:
        return None
    return lambda h, j: lo + (draw_array(h, j + 1) % np.uint64(n)).astype(np.int64)


_DIGIT_ROWS = 2048  # rows per block of the digits twin: its scratch stays in cache


def digits_vec(groups: int):
    """Vectorised twin of ``digits``: ``groups`` draws, each ``%011d`` of ``below(10**11)``,
    joined by ``-``. Per group, ``v = mix64(h ^ (j + g)) % 10**11`` (``z - z // 10**11 *
    10**11``: numpy's division by a scalar is a multiply, its remainder a division per
    element) is written as three little-endian u4 words of a 12-byte slot: ``%04d`` of
    ``v // 10**7`` and of ``(v // 1000) % 10**4`` (one 40 KB table), ``%03d`` of ``v % 1000``
    and ``-`` (a 4 KB one); the rows' slots minus the last ``-`` are the values. Blocks of
    rows on scratch arrays shaped (groups, rows) allocated once per call: no temporaries,
    long inner loops (tests/generators/test_digits_blocks.py: equal to the scalar one)."""
    if groups < 1:
        return None
    width = groups * 12 - 1
    js = np.arange(1, groups + 1, dtype=np.uint64)[:, None]
    k11, k7, k3 = np.uint64(10 ** 11), np.uint64(10 ** 7), np.uint64(1000)

    def gen(h, j):
        n = len(h)
        b = max(1, min(n, _DIGIT_ROWS))
        four, three = _four_digits(), _three_digits_dash()
        zs, ts = np.empty((groups, b), dtype=np.uint64), np.empty((groups, b), dtype=np.uint64)
        us = np.empty((groups, b), dtype=np.uint32)
        slots = np.empty((b, groups * 12), dtype=np.uint8)
        out = np.empty((n, width), dtype=np.uint8)
        jj = js + np.uint64(j)
        for s in range(0, n, b):
            e = min(n, s + b)
            m = e - s
            z, t, u = zs[:, :m], ts[:, :m], us[:, :m]
            w = slots[:m].view("<u4").reshape(m, groups, 3).transpose(1, 0, 2)
            np.bitwise_xor(jj, h[None, s:e], out=z)
            mix64_into(z, t)
            np.floor_divide(z, k11, out=t)
            t *= k11
            z -= t  # v
            np.floor_divide(z, k7, out=t)
            np.take(four, t.view(np.int64), mode="clip", out=u)  # in range: no bounds check
            w[:, :, 0] = u
            t *= k7
            z -= t  # v % 10**7
            np.floor_divide(z, k3, out=t)
            np.take(four, t.view(np.int64), mode="clip", out=u)
            w[:, :, 1] = u
            t *= k3
            z -= t  # v % 1000
            np.take(three, z.view(np.int64), mode="clip", out=u)
            w[:, :, 2] = u
            out[s:e] = slots[:m, :width]
        return out
    return gen


@lru_cache(maxsize=1)
def _four_digits() -> np.ndarray:
    """ASCII ``%04d`` of 0..9999 as little-endian uint32 words."""
    v = np.arange(10_000, dtype=np.uint32)
    out = np.zeros(10_000, dtype=np.uint32)
    for p in range(4):
        out |= ((v // np.uint32(10 ** (3 - p))) % np.uint32(10) + np.uint32(ord("0"))) << np.uint32(8 * p)
    return out


@lru_cache(maxsize=1)
def _three_digits_dash() -> np.ndarray:
    """ASCII ``%03d`` of 0..999 then ``-`` as little-endian uint32 words."""
    return _four_digits()[:1000] >> np.uint32(8) | np.uint32(ord("-") << 24)


def int_twin(g):
    return None if g is None else (lambda h, j: ("int", g(h, j), None))


def pool_vec(entries: tuple):
    """Vectorised twin of ``entries[stream.below(len(entries))]`` (None if an entry is NULL)."""
    if not entries or any(e is None for e in entries):
        return None
    n = np.uint64(len(entries))
    return lambda h, j: ("pool", (draw_array(h, j + 1) % n).astype(np.int64), entries)


def weighted_vec(vals: tuple, cum: list, tot: float):
    """Vectorised twin of a weighted choice: the first ``i`` with ``u * tot < cum[i]``."""
    if any(v is None for v in vals):
        return None
    c = np.asarray(cum, dtype=np.float64)

    def f(h, j):
        u = unit_array(draw_array(h, j + 1)) * tot
        return "pool", np.minimum(np.searchsorted(c, u, side="right"), len(vals) - 1), vals
    return f


_EDGED = frozenset({"int", "float", "dec", "dt", "ts", "date", "time", "runs"})
"""Base kinds :func:`_edge_twin` keeps as arrays under edge values they cannot hold (a zero
date, a DECIMAL beyond int64 units): ColumnArray kind "edged"."""


def edge_twin(scalar):
    """Vectorised twin of ``_with_edges(gen, edges)`` from gen's twin, or None: draw ``j+1``
    decides (``chance(p)``, ``p`` the share given to ``_with_edges``), draw ``j+2`` picks the edge, gen draws from ``j+2`` on.
    Edges the base kind holds stay in its array; others: kind "edged" (base kinds of
    ``_EDGED``: the base array and the edges as a pool, binlogwriter/values/column_array.py), else
    a list of Python values."""
    edges, p = scalar.edges, scalar.edge_p
    base = getattr(scalar.base, "vec", None)
    if base is None:
        return None
    m = np.uint64(len(edges))
    edges_t = tuple(edges)  # one pool object: its encoded edges are kept between calls
    null_edge = any(x is None for x in edges)
    joined: dict[int, tuple[tuple, tuple]] = {}

    def with_edges_pool(pool: tuple) -> tuple:
        """``pool + edges`` as one tuple object per base pool object: the encoders and the
        unchanged-row check keep what they derive from a pool by its object (the encoded
        entries, their classes), so a new tuple per call would redo that work every batch."""
        hit = joined.get(id(pool))
        if hit is not None and hit[0] is pool:
            return hit[1]
        out = tuple(pool) + edges_t
        if len(joined) >= 8:
            joined.clear()
        joined[id(pool)] = (pool, out)  # keeps the pool alive: its id is not reused
        return out

    def f(h, j):
        kind, data, extra = base(h, j + 1)
        e = unit_array(draw_array(h, j + 1)) < p
        ei = (draw_array(h, j + 2) % m).astype(np.int64)
        if kind == "pool":
            if null_edge:
                return None
            return "pool", np.where(e, len(extra) + ei, data), with_edges_pool(extra)
        if kind == "int" and all(type(x) is int and -(1 << 63) <= x < 1 << 63 for x in edges):
            return "int", np.where(e, np.array(edges, dtype=np.int64)[ei], data), None
        if kind == "dec" and all(isinstance(x, Decimal) and x.as_tuple().exponent == -extra for x in edges):
            eu = np.array([int(x.scaleb(extra)) for x in edges], dtype=object)
            if all(-(1 << 63) < int(u) < 1 << 63 for u in eu):
                return "dec", np.where(e, eu.astype(np.int64)[ei], data), extra
        if kind in _EDGED and not null_edge:
            # the base values as they are, the edges as a pool over them (ColumnArray "edged")
            return "edged", np.where(e, ei, -1), (edges_t, ColumnArray(kind, data, None, None, extra))
        if kind == "edged" and not null_edge:
            # edges over an edged column (charset-stress values over edge values): one pool of
            # the inner edges then these, over the same base array
            inner, arr = extra
            return "edged", np.where(e, len(inner) + ei, data), (with_edges_pool(inner), arr)
        vals = list(data) if kind == "list" else ColumnArray(kind, data, None, None, extra).tolist()
        for r in np.flatnonzero(e).tolist():
            vals[r] = edges[int(ei[r])]
        return "list", vals, None
    return f


def draw_bytes(h: np.ndarray, j: int, m: int) -> np.ndarray:
    """Draws ``j+1 .. j+m`` of every stream as little-endian bytes: an (n, 8m) uint8 array
    (``b"".join(st.next().to_bytes(8, "little") for _ in range(m))`` per row)."""
    d = np.empty((len(h), m), dtype="<u8")
    for t in range(m):
        d[:, t] = draw_array(h, j + 1 + t)
    return d.view(np.uint8).reshape(len(h), 8 * m)


def drawn_bytes(h: np.ndarray, j: int, lens: np.ndarray) -> list[bytes]:
    """Per row ``r``: the first ``lens[r]`` bytes of draws ``j+1, j+2, ...`` of stream
    ``h[r]`` as little-endian bytes (``b"".join(st.next().to_bytes(8, "little") for _ in
    range((n + 7) // 8))[:n]``), as ``bytes`` objects: only the ``(n + 7) // 8`` draws a row
    reads are mixed (one ragged array of every row's draws back to back, not a matrix as wide
    as the longest row), then each row is one slice of their bytes."""
    lens = np.asarray(lens, dtype=np.int64)
    words = (lens + 7) // 8
    ends = np.cumsum(words)
    total = int(ends[-1]) if len(ends) else 0
    if not total:
        return [b""] * len(lens)
    starts = ends - words
    t = np.arange(total, dtype=np.int64) - np.repeat(starts, words) + (j + 1)  # each draw's number in its row
    raw = draw_array(np.repeat(np.asarray(h, dtype=np.uint64), words), t).astype("<u8", copy=False).tobytes()
    return [raw[a:a + n] for a, n in zip((starts * 8).tolist(), lens.tolist(), strict=True)]


def fixed_bytes(h: np.ndarray, j: int, n: int) -> list[bytes]:
    """:func:`drawn_bytes` with every row ``n`` bytes long: one matrix of draws, its first
    ``n`` bytes of each row copied out at once and sliced per row."""
    raw = np.ascontiguousarray(draw_bytes(h, j, (n + 7) // 8)[:, :n]).tobytes()
    return [raw[a:a + n] for a in range(0, n * len(h), n)] if n else [b""] * len(h)


def key_text_vec(fn, base: int):
    """``[fn(k) for k in keys]`` with the per-key hashes made by numpy."""
    def vec(keys: np.ndarray) -> list:
        return [fn(k, h) for k, h in zip(keys.tolist(), hash64_array(base, keys).tolist(), strict=True)]
    return vec


def twin_of(scalar):
    """The vectorised twin of a scalar generator: its own ``vec``, else the twin of its
    edge wrapper (:func:`_edge_twin`), else None."""
    pv = getattr(scalar, "vec", None)
    if pv is not None:
        return pv
    if getattr(scalar, "edges", None) is not None:
        return edge_twin(scalar)
    return None


_LONG_RUNS = 24
"""Mean entry length (characters) from which :func:`_joined_runs` joins a row's entries as
Python strings instead of gathering their bytes: a per-byte index costs about 7 ns a byte
(paragraphs of ~170 characters: 3.7 us a row by the gather, 0.6 us by ``str.join``), a
per-row join about 1 us whatever the entries (words of ~6 characters: 0.45 us by the
gather)."""


class _AsciiRuns:
    """A pool of ASCII entries laid out for :func:`_joined_runs`: each entry followed by one
    space, back to back (``flat``), and those runs' lengths; ``entries`` the pool itself and
    ``long`` whether its entries are long enough to be joined as strings (``_LONG_RUNS``)."""

    __slots__ = ("flat", "lens", "entries", "long", "objects")

    def __init__(self, entries: tuple) -> None:
        self.entries = entries
        self.flat = np.frombuffer("".join(e + " " for e in entries).encode("ascii"), dtype=np.uint8)
        self.lens = np.fromiter((len(e) + 1 for e in entries), dtype=np.int64, count=len(entries))
        self.long = bool(len(entries)) and float(self.lens.mean()) - 1 >= _LONG_RUNS
        self.objects = np.empty(len(entries), dtype=object)  # the entries, gathered by index arrays
        self.objects[:] = entries


_RUNS: dict[int, tuple[tuple, _AsciiRuns]] = {}


def ascii_runs(entries: tuple) -> _AsciiRuns | None:
    """:class:`_AsciiRuns` of a pool (memoised by the pool object), None when an entry is
    not an ASCII ``str``."""
    hit = _RUNS.get(id(entries))
    if hit is not None and hit[0] is entries:
        return hit[1]
    if not all(type(e) is str and e.isascii() for e in entries):
        return None
    runs = _AsciiRuns(entries)
    if len(_RUNS) > 64:
        _RUNS.clear()
    _RUNS[id(entries)] = (entries, runs)  # keeps the pool alive: its id is not reused
    return runs


def joined_runs(runs: _AsciiRuns, picks: np.ndarray, cut: np.ndarray) -> list[str]:
    """Per row ``r``: ``" ".join(entries[x] for x in picks[r] if x >= 0)[:cut[r]]`` (the
    picks of a row left-aligned, -1 after them), built as one byte gather over the pool's
    runs (:func:`~binlogwriter.batch.scatter.take_runs`), one ASCII decode and one slice
    per row; pools of long entries (``_AsciiRuns.long``: paragraphs) by one ``str.join`` per
    row, which copies each character once instead of indexing each byte."""
    if runs.long:  # rows grouped by how many entries they pick: each row's entries by one gather
        sp, ent = " ".join, runs.objects
        count = np.count_nonzero(picks >= 0, axis=1)
        out = np.empty(len(picks), dtype=object)  # each group's texts scattered by one index
        for c in np.unique(count).tolist():
            sel = np.flatnonzero(count == c)
            texts = np.empty(len(sel), dtype=object)
            texts[:] = [sp(row)[:k] for row, k in zip(ent[picks[sel, :c]].tolist(), cut[sel].tolist(), strict=True)]
            out[sel] = texts
        return out.tolist()
    at, flat = joined_runs_array(runs, picks, cut)
    text = flat.tobytes().decode("ascii")
    return [text[a:a + n] for a, n in at.tolist()]


def joined_runs_array(runs: _AsciiRuns, picks: np.ndarray, cut: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`joined_runs`' texts as ASCII bytes, never as Python strings: ``(at, flat)``, row
    ``r``'s text being ``flat[at[r, 0]:at[r, 0] + at[r, 1]]`` (an (n, 2) int64 array of start
    and length; ColumnArray kind "runs"). One gather of the picked entries' runs (each entry
    and the space after it) back to back; a row's text is its runs without the last space,
    cut to ``cut[r]`` bytes (one byte a character: ASCII)."""
    from binlogwriter.batch.scatter import take_runs

    mask = picks >= 0
    safe = np.where(mask, picks, 0)
    rl = np.where(mask, runs.lens[safe], 0).sum(axis=1)
    sel = picks[mask]
    flat = take_runs(runs.flat, runs.lens, sel) if len(sel) else np.zeros(0, dtype=np.uint8)
    at = np.empty((len(picks), 2), dtype=np.int64)
    at[:, 0] = np.cumsum(rl) - rl
    at[:, 1] = np.minimum(np.maximum(rl - 1, 0), cut)
    return at, flat


def strip_runs(at: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """ASCII byte runs (ColumnArray "runs": ``(at, flat)``) without their trailing spaces —
    ``rstrip(" ")`` of each text, as a CHAR value is stored: the lengths of ``at`` shortened
    in place while a run ends in a space, one pass per space removed. Returns ``at``."""
    rows = np.flatnonzero(at[:, 1] > 0)
    while len(rows):
        rows = rows[flat[at[rows, 0] + at[rows, 1] - 1] == 0x20]
        at[rows, 1] -= 1
        rows = rows[at[rows, 1] > 0]
    return at
