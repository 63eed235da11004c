"""Stable, partition-independent randomness (docs/design.md principle 7).

Every random choice of a run is ``hash64(seed, identifiers...)``: identifiers are strings
(table, column, purpose) and integers (key, version, transaction number). Strings are
folded in through blake2b (cached: the same few names recur), integers through the
splitmix64 finaliser. Nothing depends on Python's ``hash()``, a global RNG, the order of
execution or the process: the same identifiers give the same number on any machine.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np

__all__ = ["M64", "mix64", "salt", "hash64", "unit", "Stream", "ReplayStream", "mix64_array", "hash64_array",
           "draw_array", "draws_matrix", "unit_array"]

M64 = (1 << 64) - 1
_INV53 = 1.0 / (1 << 53)


def mix64(z: int) -> int:
    """splitmix64's finaliser: a bijection of 64-bit integers with full avalanche."""
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


@lru_cache(maxsize=65536)
def salt(*parts: str | int) -> int:
    """64-bit digest of a tuple of names/numbers (blake2b; stable across runs and machines)."""
    text = "\x1f".join(f"{type(p).__name__[0]}{p}" for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def hash64(base: int, *ints: int) -> int:
    """Fold integers into a salt: ``hash64(salt(seed, "t", "c"), key, version)``."""
    z = base
    for i in ints:
        z = mix64(z ^ (i & M64))
    return z


def unit(h: int) -> float:
    """A uniform float in [0, 1) from a 64-bit hash."""
    return (h >> 11) * _INV53


class Stream:
    """A counter-based stream of hashes: ``Stream(h)`` yields ``hash64(h, 0)``, ``hash64(h, 1)``…

    It has no state shared with anything else: a transaction's choices come from
    ``Stream(hash64(salt(seed, "txn"), i))`` and do not depend on other transactions.
    """

    __slots__ = ("base", "i")

    def __init__(self, base: int) -> None:
        self.base = base
        self.i = 0

    def next(self) -> int:
        self.i += 1
        return mix64(self.base ^ self.i)

    def u(self) -> float:
        return unit(self.next())

    def below(self, n: int) -> int:
        return self.next() % n if n > 0 else 0

    def between(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def chance(self, p: float) -> bool:
        return self.u() < p

    def exp(self, mean: float) -> float:
        return -math.log(1.0 - self.u()) * mean


class ReplayStream(Stream):
    """A :class:`Stream` whose first draws were computed beforehand (``pre[t]`` is draw
    ``t + 1``, e.g. a row of :func:`draws_matrix`); later draws are computed as Stream
    computes them. So any generator run on it gives exactly what it gives on
    ``Stream(base)`` advanced to draw ``i``, without the per-draw Python hashing."""

    __slots__ = ("pre",)

    def __init__(self, base: int, pre: list[int], i: int = 0) -> None:
        self.base = base
        self.i = i
        self.pre = pre

    def next(self) -> int:
        i = self.i + 1
        self.i = i
        pre = self.pre
        return pre[i - 1] if i <= len(pre) else mix64(self.base ^ i)


# -- the same numbers for many identifiers at once (numpy uint64 wraps like ``& M64``) ------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


def mix64_array(z: np.ndarray) -> np.ndarray:
    """:func:`mix64` of every element of a uint64 array (bit-identical), in a new array
    (:func:`mix64_into` on a copy)."""
    z = np.array(z, dtype=np.uint64)
    return mix64_into(z, np.empty_like(z))


def mix64_into(z: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """:func:`mix64_array` of ``z`` computed in ``z`` itself (``scratch``: a uint64 array of
    its shape, overwritten): no temporaries. Returns ``z``."""
    z += _GOLDEN
    np.right_shift(z, _S30, out=scratch)
    z ^= scratch
    z *= _C1
    np.right_shift(z, _S27, out=scratch)
    z ^= scratch
    z *= _C2
    np.right_shift(z, _S31, out=scratch)
    z ^= scratch
    return z


def hash64_array(base: int, *ints: np.ndarray) -> np.ndarray:
    """:func:`hash64` elementwise: ``hash64(base, a[i], b[i], ...)`` for arrays of
    non-negative integers (int64 or uint64) of one length (one result array and one
    scratch array, mixed in place)."""
    z = np.full(len(ints[0]), base, dtype=np.uint64)
    scratch = np.empty_like(z)
    for a in ints:
        z ^= np.asarray(a).astype(np.uint64, copy=False)
        mix64_into(z, scratch)
    return z


def draw_array(h: np.ndarray, j: int | np.ndarray) -> np.ndarray:
    """The ``j``-th ``Stream(h).next()`` (1-based) for every base in ``h`` (``j``: one draw
    number, or one per base)."""
    z = np.bitwise_xor(h, np.asarray(j, dtype=np.uint64), dtype=np.uint64)
    return mix64_into(z, np.empty_like(z))


def unit_array(h: np.ndarray) -> np.ndarray:
    """:func:`unit` elementwise (exact: 53-bit integers times 2^-53)."""
    return (h >> _S11).astype(np.float64) * _INV53


def draws_matrix(h: np.ndarray, k: int) -> np.ndarray:
    """Draws ``1..k`` of ``Stream(h[i])`` for every base: an (n, k) uint64 array, element
    ``[i, t]`` = :func:`draw_array` ``(h, t + 1)[i]`` — every draw mixed at once (one
    :func:`mix64_into` over the matrix: the same elementwise arithmetic, a few numpy calls
    whatever ``k``)."""
    out = np.empty((len(h), k), dtype=np.uint64)
    out[:] = np.asarray(h, dtype=np.uint64)[:, None]
    out ^= np.arange(1, k + 1, dtype=np.uint64)
    return mix64_into(out, np.empty_like(out))
