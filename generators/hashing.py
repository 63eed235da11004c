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

__all__ = ["M64", "mix64", "salt", "hash64", "unit", "Stream"]

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
