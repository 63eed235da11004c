"""Helpers shared by the integer, bit and year families (values.md §2, §6)."""

from __future__ import annotations

from typing import Any

import numpy as np


def is_int(value: Any) -> bool:
    if isinstance(value, int):
        return True
    return hasattr(value, "__index__") and not isinstance(value, float)


def int_array(values: Any) -> np.ndarray | None:
    """A non-empty 1-d integer array of ``values`` (an int array, or a list of plain ints),
    else None (bools, floats, bytes, ints beyond 64 bits: the scalar encoder decides)."""
    if isinstance(values, np.ndarray):
        a = values
    else:
        if any(type(v) is not int for v in values):
            return None
        try:
            a = np.asarray(values)
        except (OverflowError, ValueError, TypeError):
            return None
    if a.ndim != 1 or a.dtype.kind not in "iu" or not len(a):
        return None
    return a
