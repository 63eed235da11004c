"""Byte placement and CRC32s for the batch encoders (format.md §3).

:func:`place_runs` writes runs of bytes at ascending offsets of one buffer with one masked
numpy assignment; :func:`crc_by_difference` gives the CRC32 of many events that differ from
one another only in a few bytes from one zlib call and a term per differing byte (CRC32 is
affine over GF(2)). Used by :mod:`binlogwriter.batch.columnar_encode` and generators/batch.py;
tests/batch/test_place_runs.py and tests/batch/test_crc_by_difference.py check them against
plain slicing and zlib.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import as_strided

from binlogwriter.crc import crc32

__all__ = ["place_runs", "place_rows", "crc_by_difference", "run_indices", "take_runs"]

CRC_TERMS_MAX = 48  # differing bytes past which one zlib call per event is cheaper


def crc_by_difference(buf: memoryview, start: int, length: int, heads: np.ndarray) -> np.ndarray:
    """CRC32 (zlib's) of ``k`` messages of ``length`` bytes that are equal except in their
    first ``heads.shape[1]`` bytes (``heads[i]``: message ``i``'s; message 0 is
    ``buf[start:start + length]``). CRC32 is affine over GF(2): ``crc(a ^ b) = crc(a) ^
    crc(b) ^ crc(0…0)`` for equal lengths, so ``crc(m_i) = crc(m_0) ^`` the XOR, over the
    bytes where ``m_i`` differs from ``m_0``, of that difference's CRC term: one zlib call
    for the group plus a table lookup per differing byte (:func:`_crc_terms`)."""
    acc = np.full(len(heads), crc32(buf[start:start + length]), dtype=np.uint32)
    diff = heads ^ heads[0]
    for p in np.flatnonzero(diff.any(axis=0)).tolist():
        acc ^= _crc_terms(length - p)[diff[:, p]]
    return acc


@lru_cache(maxsize=4096)
def _crc_terms(d: int) -> np.ndarray:
    """CRC term of a byte ``b`` followed by ``d - 1`` bytes, for every ``b``: ``crc(b 0…0)
    ^ crc(0…0)`` (leading zeros do not change it), built from the eight single-bit terms."""
    zeros = bytes(d)
    base = crc32(zeros)
    bits = np.array([crc32(bytes([1 << k]) + zeros[1:]) ^ base for k in range(8)], dtype=np.uint32)
    b = np.arange(256)
    out = np.zeros(256, dtype=np.uint32)
    for k in range(8):
        out ^= np.where(b >> k & 1, bits[k], np.uint32(0)).astype(np.uint32)
    return out


def run_indices(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The indices ``starts[i] .. starts[i] + lens[i] - 1`` of every run ``i``, concatenated
    (int64): a gather or scatter of many byte runs in one fancy index."""
    ends = np.cumsum(lens)
    return np.repeat(starts - (ends - lens), lens) + np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64)


LONG_RUN = 256
"""Mean run length (bytes) from which :func:`take_runs` joins slices of the buffer instead of
gathering through an index per byte: a slice costs about 0.5 us whatever its length, a byte
index about 5 ns a byte (row images of 270-450 bytes: 2-7x faster by slices)."""
LONG_PLACE = 512
"""Mean run length from which :func:`place_runs` assigns a slice per run instead of one
masked assignment over the runs' span (about 1.5 ns a byte)."""


def take_runs(buf: np.ndarray, lens: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Runs ``idx`` of ``buf`` (runs back to back, ``lens[i]`` bytes each), concatenated in
    that order: one :func:`run_indices` gather, or — runs of :data:`LONG_RUN` bytes or more
    on average, from a contiguous uint8 ``buf`` — one join of the runs' slices."""
    ln = lens[idx]
    starts = (np.cumsum(lens) - lens)[idx]
    k = len(ln)
    if k and buf.ndim == 1 and buf.dtype == np.uint8 and buf.flags.c_contiguous \
            and int(ln.sum()) >= LONG_RUN * k:
        mv = memoryview(buf)
        return np.frombuffer(bytearray().join([mv[a:b] for a, b in zip(starts.tolist(), (starts + ln).tolist(),
                                                                          strict=True)]), dtype=np.uint8)
    return buf[run_indices(starts, ln)]


def place_runs(out: np.ndarray, dest: np.ndarray, lens: np.ndarray, src: np.ndarray) -> None:
    """``out[dest[i]:dest[i]+lens[i]]`` = the next ``lens[i]`` bytes of ``src``, for ascending,
    non-overlapping ``dest``: one boolean mask over the runs' span (``np.repeat`` of
    alternating gap/run lengths) and one masked assignment, or — for runs sparse in their
    span — one index array over the runs' bytes; runs of one width ``w`` that all start at
    multiples of ``w`` (e.g. row images of a fixed-width table in slots of that width) are
    rows of ``out`` seen as a ``(len // w, w)`` matrix: one row assignment."""
    k = len(dest)
    if not k:
        return
    m = len(src)
    w = int(lens[0])
    if w > 1 and out.flags.c_contiguous and (lens == w).all() and not (dest % w).any():
        rows = out[:len(out) // w * w].reshape(-1, w)  # contiguous: always a view of ``out``
        rows[dest // w] = src.reshape(k, w)
        return
    if m >= LONG_PLACE * k and out.ndim == 1 and out.flags.c_contiguous and out.dtype == np.uint8 \
            and getattr(src, "dtype", None) == np.uint8:
        _place_slices(out, dest, lens, src)  # long runs: a slice each
        return
    if m * 8 < int(dest[-1] + lens[-1] - dest[0]):
        # sparse runs (a few image groups among many): index arithmetic over the runs' own
        # bytes, not a mask over the whole span
        if m:
            out[run_indices(dest, lens)] = src
        return
    base = int(dest[0])
    out = out[base:int(dest[-1] + lens[-1])]
    dest = dest - base
    ends = dest + lens
    gaps = dest - np.concatenate(([0], ends[:-1]))
    runs = np.empty(2 * k + 1, dtype=np.int64)
    runs[0:-1:2] = gaps
    runs[1::2] = lens
    runs[-1] = len(out) - int(ends[-1])
    vals = np.zeros(2 * k + 1, dtype=bool)
    vals[1::2] = True
    out[np.repeat(vals, runs)] = src


def _place_slices(out: np.ndarray, dest: np.ndarray, lens: np.ndarray, src: np.ndarray) -> None:
    """:func:`place_runs` by one slice assignment per run (long runs)."""
    mo = memoryview(out)
    ms = memoryview(np.ascontiguousarray(src).reshape(-1))
    ends = np.cumsum(lens)
    for d, e, a, b in zip(dest.tolist(), (dest + lens).tolist(), (ends - lens).tolist(), ends.tolist(), strict=True):
        mo[d:e] = ms[a:b]


def place_rows(out: np.ndarray, dest: np.ndarray, rows: np.ndarray) -> None:
    """``out[dest[i]:dest[i]+w] = rows[i]`` for a ``(k, w)`` matrix ``rows`` (a broadcast
    one too) and non-overlapping ``dest`` (any order) in a contiguous uint8 ``out``: one row
    assignment into the view of ``out`` whose row ``j`` is ``out[j:j+w]`` — numpy copies
    ``w`` bytes per row instead of building and following an index per byte."""
    k, w = rows.shape
    if not k or not w:
        return
    if out.ndim != 1 or out.strides[0] != 1 or out.dtype != np.uint8:
        raise ValueError("place_rows writes into a contiguous uint8 buffer")
    windows = as_strided(out, shape=(len(out) - w + 1, w), strides=(1, 1), writeable=True)
    windows[dest] = rows
