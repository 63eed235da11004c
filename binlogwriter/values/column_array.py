"""Values of one column for many rows as arrays (:class:`ColumnArray`): what the generators
build column by column and the many-row encoders (:mod:`binlogwriter.values.row_many`) take
without making a Python value per row; :meth:`ColumnArray.tolist` gives the Python values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ColumnArray"]


class ColumnArray:
    """Values of one column for many rows, as arrays: ``kind`` "int" (``data`` an int64
    array), "ascii" (``data`` an (n, width) uint8 array of ASCII text, one value per row),
    "pool" (``data`` int64 indexes into the tuple ``pool`` of Python values), "dec" (int64
    units of ``10^-meta``: ``Decimal`` with exponent ``-meta``), "dt" (int64 microseconds
    since 1970-01-01: naive ``datetime``), "ts" (the same, as an aware UTC ``datetime``),
    "date" (int64 days since 1970-01-01: ``date``), "time" (signed int64 microseconds:
    ``timedelta``), "float" (float64), "runs" (text of any length as UTF-8 byte runs — the
    generators make ASCII ones: ``data`` an (n, 2) int64 array of each value's start and
    length in ``meta``, a uint8 array of the texts' bytes), "json" (``data`` a
    :class:`~binlogwriter.values.json_columns.JCol` tree: JSON documents by columns) or
    "edged" (values of another kind with a few others among them — edge values it cannot
    hold: ``meta`` is ``(edges, base)``, ``base`` a ColumnArray of every row without NULLs,
    ``edges`` a tuple of Python values, ``data`` per row -1 for the base value, else the
    index of its edge); ``nulls`` a bool array (True = SQL NULL) or None.
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
        elif kind == "edged":
            edges, base = self.meta
            vals = base.tolist()
            at = np.flatnonzero(self.data >= 0)
            for r, w in zip(at.tolist(), self.data[at].tolist(), strict=True):
                vals[r] = edges[w]
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
        meta = self.meta if self.kind != "edged" else (self.meta[0], self.meta[1].take(idx))
        return ColumnArray(self.kind, self.data[idx], None if self.nulls is None else self.nulls[idx], self.pool,
                           meta)


def _array_values(kind: str, data: np.ndarray, meta: Any) -> list:
    """Python values of a "dec" / "dt" / "ts" / "date" / "time" / "runs" / "json" array (see ColumnArray)."""
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
    if kind == "runs":
        raw = np.asarray(meta, dtype=np.uint8).tobytes()
        try:  # ASCII (what the generators make): a byte is a character, the starts are string offsets
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            return [raw[a:a + n].decode("utf-8") for a, n in data.tolist()]
        return [text[a:a + n] for a, n in data.tolist()]
    if kind == "json":  # documents as columns (binlogwriter/values/json_columns.py)
        return data.values()
    raise ValueError(f"unknown ColumnArray kind {kind!r}")
