"""Length faces: a column's encoded value length without making its values.

Spark's pass 1 (spark_gen/partition.py ``sizes``) needs every row image's length, not its
bytes. For most columns of the built-in workloads that length is the same for every row,
and it is known without drawing a value:

* a type whose binlog value has a size that does not depend on the value — integers,
  FLOAT/DOUBLE, DECIMAL(M,D), the temporal types, YEAR, ENUM, SET, BIT (the codec says so:
  ``Bound.fixed_size`` of ``binlogwriter.values.registry.bind_column``, docs/format.md's
  row-image rules per type);
* a string column filled by a generator whose values all have the same characters count in
  one byte per character: the ``digits`` generator (``groups`` groups of 11 decimal digits
  joined by ``-``) on CHAR/VARCHAR, and the ``const`` generator (one value) — a string
  value is its length prefix (whose width depends on the column's maximum byte length
  only) followed by its bytes, so equal byte lengths give equal encoded lengths;

and in both cases only when the column cannot be NULL (a NULL costs a bit of the null
bitmap, not a value: which rows are NULL depends on the row's hash) and is not a column
added by ``--ddl-every`` (NULL for rows inserted before the ALTER).

Nothing here repeats a codec rule: the length itself is measured once per table and
present-column set by encoding one real row (:func:`column_image_lengths` of the row at key
0, version 0), and a column whose sample value does not encode (a spec that asks for a
value too long for its column) has no face, so the path that makes the values raises the
error as it always did. ``tests/generators/test_length_faces.py`` checks the faces against
the lengths of the real values on every column type, generator and image shape.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import column_image_lengths

__all__ = ["ConstantImages", "constant_images", "has_constant_length"]

_CONSTANT_TEXT = ("CHAR", "VARCHAR")


def _generator_spec(rt: Any, ci: int) -> Any:
    """The spec-file / workload override that fills column ``ci`` (None: the type's own)."""
    name = rt.table.columns[ci].name
    return rt.user_overrides.get(name) or rt.tdef.overrides.get(name)


def has_constant_length(rt: Any, ci: int, desc: Any) -> bool:
    """Whether every value of column ``ci`` of table rows ``rt`` (a
    :class:`generators.rows.TableRows`) is non-NULL and encodes to the same number of bytes
    (see module docstring). ``desc``: the column's ``ColumnDesc`` in the run's flavor."""
    col = rt.table.columns[ci]
    if col.nullable or ci in rt.ddl_idx:
        return False
    if bind_column(desc).fixed_size is not None:
        return True
    if ci in rt.key_cols:
        return False  # string keys carry the key's digits: their length grows with the key
    ov = _generator_spec(rt, ci)
    if ov is None:
        return False
    if ov.gen == "const":
        return True
    if ov.gen == "digits" and col.type in _CONSTANT_TEXT:
        groups = ov.param("groups", 10)
        return isinstance(groups, int) and not isinstance(groups, bool)
    return False


class ConstantImages:
    """The image lengths of one table's rows whose present columns all have a constant
    length (:meth:`length`), measured on one real row."""

    def __init__(self, rt: Any, flavor: str) -> None:
        self.table = rt.table
        self.descs = tuple(rt.table.column_descs(flavor))
        z = np.zeros(1, dtype=np.int64)
        self._sample = rt.compute_columns(z, z, z)
        constant = []
        for ci, d in enumerate(self.descs):
            ok = has_constant_length(rt, ci, d)
            if ok:
                try:  # a sample that does not encode: no face (the values' path raises)
                    column_image_lengths(self.descs, [j == ci for j in range(len(self.descs))], self._sample, 1)
                except Exception:  # noqa: BLE001 - ValueEncodeError and what a bad value raises
                    ok = False
            constant.append(ok)
        self.constant = tuple(constant)
        self._lengths: dict[tuple[bool, ...], int] = {}

    def covers(self, present: Sequence[bool]) -> bool:
        """Whether every present column has a constant length."""
        return all(c for p, c in zip(present, self.constant, strict=True) if p)

    def length(self, present: Sequence[bool]) -> int:
        """The length of every image with these present columns (:meth:`covers` must hold):
        the codec's length of the sample row's image."""
        key = tuple(bool(p) for p in present)
        v = self._lengths.get(key)
        if v is None:
            v = self._lengths[key] = int(column_image_lengths(self.descs, key, self._sample, 1)[0])
        return v


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def constant_images(rt: Any) -> ConstantImages:
    """The :class:`ConstantImages` of table rows ``rt``'s current definition, made once per
    ``rt`` (and again when its table changes, after a DDL)."""
    got = _CACHE.get(rt)
    if got is None or got.table is not rt.table:
        got = _CACHE[rt] = ConstantImages(rt, rt.flavor)
    return got
