"""Type code -> codec registry and the cached column binding (values.md §1).

Importing this module imports every type family (values/families.py), whose codec modules
register their codecs.
"""

from __future__ import annotations

from functools import lru_cache

from binlogwriter.errors import SchemaError
from binlogwriter.values import families  # noqa: F401 - registers every family's codecs
from binlogwriter.values._common import REGISTRY, Bound, Codec, type_name
from binlogwriter.values._strings import string_real_type
from binlogwriter.values.base import ColumnDesc

__all__ = ["codec_for", "bind_column", "REGISTRY"]


def codec_for(col: ColumnDesc) -> Codec:
    """The codec of ``col``: by type code, and for 254/253 by the real type in ``meta[0]`` (§5).

    Raises SchemaError for a type code no codec handles (0 DECIMAL, 244 TYPED_ARRAY, …).
    """
    code = col.type_code
    if code in (253, 254):
        real = string_real_type(col)
        if real in (247, 248):
            return REGISTRY[real]
        return REGISTRY[254]
    codec = REGISTRY.get(code)
    if codec is None:
        where = ".".join(p for p in (col.table, col.name) if p)
        raise SchemaError(f"column type {code} ({type_name(code)}) is not supported in row images"
                          + (f" - at {where}" if where else ""))
    return codec


@lru_cache(maxsize=8192)
def _bind_cached(col: ColumnDesc) -> Bound:
    return codec_for(col).bind(col)


def bind_column(col: ColumnDesc) -> Bound:
    """The column's :class:`~binlogwriter.values._common.Bound` codec (cached per ColumnDesc)."""
    try:
        hash(col)
    except TypeError:  # unhashable field values (a bytearray meta, a list of members)
        return codec_for(col).bind(col)
    return _bind_cached(col)
