"""Reference functions of a custom schema's FOREIGN KEY columns (generators/foreign_keys.py):
``child key -> referenced column value``, each with its many-key twin ``fn.vec`` and
``fn.parent_keys`` (the parent's initial keys, which the writeset dependencies hash;
generators/writeset.py). A reference is a function of the child key alone, so a child row
stays a function of its key (generators/rows.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from generators.hashing import hash64, hash64_array

__all__ = ["coprime", "null_reference", "place_reference", "reference"]


def coprime(n: int) -> int:
    """A multiplier near ``n`` times the golden ratio and prime to ``n``: ``k -> k * m mod n`` is
    a bijection of ``0 … n - 1`` that spreads neighbouring keys."""
    m = int(n * 0.6180339887498949) | 1
    while math.gcd(m, n) != 1:
        m += 2
    return m


def place_reference(h: int, value: Callable[[int], Any], initial: int, place: int, span: int, mult: int,
                     value_vec: Callable[[np.ndarray], Any] | None = None) -> Callable[[int], Any]:
    """``child key -> referenced column value`` of a FOREIGN KEY in a FOREIGN-KEY-only key
    (the key places of generators/foreign_keys.py): parent key
    ``((k * mult + h) mod span) // place + offset``, modulo ``initial`` (the parent's initial
    rows). Child keys below ``span`` get distinct digit tuples, so that key stays unique.
    ``fn.vec`` gives the values of many child keys (tests/generators/test_foreign_keys.py
    holds it to ``fn``)."""
    add, off = h % span, (h >> 20) % initial

    def fn(k: int) -> Any:
        return value(((k * mult + add) % span // place + off) % initial)

    def parent_keys(keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64) % span
        if span < 1 << 31:
            scrambled = (keys * mult + add) % span
        else:
            scrambled = np.array([(k * mult + add) % span for k in keys.tolist()], dtype=np.int64)
        return (scrambled // place + off) % initial

    def vec(keys: np.ndarray) -> Any:
        return value_vec(parent_keys(keys))

    if value_vec is not None:
        fn.vec = vec  # type: ignore[attr-defined]
    fn.parent_keys = parent_keys  # type: ignore[attr-defined]
    return fn


def _no_value(_: Any) -> None:
    """The parent value of a FOREIGN KEY whose rows are all NULL (never asked for)."""
    return None


def null_reference() -> Callable[[int], Any]:
    """A FOREIGN KEY column NULL in every row (no parent row to draw from): :func:`reference`
    with no initial parents, its many-key twin and parent keys (-1) included."""
    return reference(0, _no_value, 0, False, _no_value)


def reference(h: int, value: Callable[[int], Any], initial: int, self_ref: bool,
               value_vec: Callable[[np.ndarray], Any] | None = None) -> Callable[[int], Any]:
    """``child key -> referenced column value`` (None = NULL, only without initial parents, the
    columns being nullable). A self-reference points at an earlier initial key, or at the row
    itself when there is none (InnoDB checks a row's own key after inserting it). With the
    parent value's twin ``value_vec``, ``fn.vec(keys)`` gives the values of many child keys:
    the parent keys by ``hash64_array`` (``hash64`` elementwise), their values by the twin
    (tests/generators/test_foreign_keys.py holds it to ``fn``); ``fn.parent_keys(keys)`` the
    parent keys themselves (-1 for NULL; the row itself for a self-reference without an
    earlier one), which the writeset dependencies hash (generators/writeset.py)."""
    def fn(k: int) -> Any:
        n = min(k, initial) if self_ref else initial
        if n < 1:
            return value(k) if self_ref else None
        return value(hash64(h, k) % n)

    def vec(keys: np.ndarray) -> Any:
        keys = np.asarray(keys, dtype=np.int64)
        n = np.minimum(keys, initial) if self_ref else np.full(len(keys), initial, dtype=np.int64)
        if len(n) and int(n.min()) < 1:  # a row of its own, or NULL: the scalar rule
            return [fn(k) for k in keys.tolist()]
        return value_vec((hash64_array(h, keys) % n.astype(np.uint64)).astype(np.int64))

    def parent_keys(keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64)
        n = np.minimum(keys, initial) if self_ref else np.full(len(keys), initial, dtype=np.int64)
        out = np.full(len(keys), -1, dtype=np.int64)
        ok = n >= 1
        out[ok] = (hash64_array(h, keys[ok]) % n[ok].astype(np.uint64)).astype(np.int64)
        if self_ref:
            out[~ok] = keys[~ok]  # the row itself
        return out

    if value_vec is not None:
        fn.vec = vec  # type: ignore[attr-defined]
    fn.parent_keys = parent_keys  # type: ignore[attr-defined]
    return fn
