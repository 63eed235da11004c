"""Machinery shared by every codec module: bound column codecs, errors, the registry.

A codec (one per type family) declares its metadata layout with construct (``meta_layout``)
and, given a :class:`~binlogwriter.values.base.ColumnDesc`, builds a :class:`Bound`: two plain
closures ``encode(value) -> bytes`` and ``decode(buf, pos) -> (value, pos)`` with the
metadata already parsed, so that per-value work is plain ``struct``/``int`` code
(values.md §1; docs/design.md principle 5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import construct as cs
import numpy as np

from binlogwriter.errors import DecodeError, SchemaError, ValueEncodeError
from binlogwriter.values.base import ColumnDesc

__all__ = ["Bound", "Fixed", "Var", "Codec", "REGISTRY", "register", "value_error", "decode_error", "describe",
           "type_name", "int_text", "be_bytes"]

Encoder = Callable[[Any], bytes]
Decoder = Callable[[Any, int], tuple[Any, int]]

#: MySQL type names by binlog type code, for messages.
TYPE_NAMES: dict[int, str] = {
    0: "DECIMAL", 1: "TINYINT", 2: "SMALLINT", 3: "INT", 4: "FLOAT", 5: "DOUBLE", 6: "NULL",
    7: "TIMESTAMP", 8: "BIGINT", 9: "MEDIUMINT", 10: "DATE", 11: "TIME", 12: "DATETIME",
    13: "YEAR", 14: "NEWDATE", 15: "VARCHAR", 16: "BIT", 17: "TIMESTAMP", 18: "DATETIME",
    19: "TIME", 242: "VECTOR", 243: "BOOL", 244: "TYPED_ARRAY", 245: "JSON", 246: "DECIMAL",
    247: "ENUM", 248: "SET", 249: "TINYBLOB", 250: "MEDIUMBLOB", 251: "LONGBLOB", 252: "BLOB",
    253: "VAR_STRING", 254: "STRING", 255: "GEOMETRY",
}


def type_name(code: int) -> str:
    return TYPE_NAMES.get(code, f"type {code}")


@dataclass(frozen=True, slots=True)
class Bound:
    """A codec bound to one column: metadata parsed, closures ready.

    ``sql_type`` is the column's SQL spelling used in messages (``VARCHAR(10) utf8mb4``);
    ``fixed_size`` is the value's byte size when it does not depend on the value, else None.
    """

    col: ColumnDesc
    sql_type: str
    encode: Encoder
    decode: Decoder
    fixed_size: int | None = None
    python_type: str = ""
    encode_many: Callable[[list], list | None] | None = None
    """Vectorised encoder of many non-NULL values (same bytes as ``encode`` on each):
    returns pieces — ``Fixed(array (n, width) uint8)`` or ``Var(flat bytes, lengths)`` — laid
    out one after the other in each value, or None when it does not take these values (then
    the scalar ``encode`` runs for this column; it raises the error). None: no vectorised
    encoder for this type."""
    encode_array: Callable[[str, Any, Any], list | None] | None = None
    """Vectorised encoder of non-NULL values given as an array (``ColumnArray`` kinds:
    ``encode_array(kind, data, meta)``, e.g. "dec" scaled int64 units with ``meta`` the
    scale, "dt"/"ts" int64 microseconds since the epoch, "date" int64 days since the epoch,
    "time" signed int64 microseconds, "float" float64): same pieces and bytes as
    ``encode_many`` on the Python values, or None when it does not take them (the caller
    then encodes the Python values)."""


@dataclass(frozen=True, slots=True)
class Fixed:
    """Vectorised value bytes of one width: row i's bytes are ``data[i]`` (n × width uint8)."""

    data: Any


@dataclass(frozen=True, slots=True)
class Var:
    """Vectorised value bytes of varying width: ``flat`` holds them back to back, ``lengths``
    (int64 array) says how many bytes each value has."""

    flat: bytes
    lengths: Any


def be_bytes(v: Any, width: int) -> Any:
    """The low ``width`` bytes of every element of an int64/uint64 array, big-endian, as an
    (n, width) uint8 array (``int.to_bytes(width, "big")`` elementwise, two's complement)."""
    return v.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - width:]


def value_error(col: ColumnDesc, sql_type: str, rule: str) -> ValueEncodeError:
    """``ValueEncodeError`` naming table.column, the SQL type and the rule broken."""
    return ValueEncodeError(f"{sql_type}: {rule}", table=col.table, column=col.name)


def decode_error(col: ColumnDesc, message: str) -> DecodeError:
    path = ".".join(p for p in (col.table, col.name) if p) or None
    return DecodeError(message, path=path)


def describe(value: Any) -> str:
    """Short description of a value for messages: its type and a clipped repr."""
    if isinstance(value, int) and not isinstance(value, bool):
        r = int_text(value)  # repr of a 10**5000 raises ValueError
    else:
        try:
            r = repr(value)
        except Exception:  # noqa: BLE001 - a message must not fail on a hostile __repr__
            r = "<unprintable>"
    if len(r) > 40:
        r = r[:37] + "..."
    return f"{type(value).__name__} {r}"


def int_text(value: int) -> str:
    """An int for a message, clipped when huge (``str`` of a 10**5000 refuses, and a
    message must not be megabytes long): ``a 16610-bit integer`` beyond 30 digits."""
    if -10 ** 30 < value < 10 ** 30:
        return str(value)
    return f"{'-' if value < 0 else ''}a {abs(value).bit_length()}-bit integer"


class Codec:
    """Base of all codecs; subclasses set ``type_codes``, ``meta_layout`` and implement ``bind``.

    ``encode(col, value)`` / ``decode(col, buf, pos)`` go through a cached :meth:`bind`, so
    repeated calls for the same column are cheap.
    """

    type_codes: ClassVar[tuple[int, ...]] = ()
    meta_layout: ClassVar[cs.Construct] = cs.Struct()

    def parse_meta(self, col: ColumnDesc) -> Any:
        """Parse ``col.meta`` with ``meta_layout``; wrong size -> SchemaError naming the column."""
        meta = bytes(col.meta)
        size = self.meta_layout.sizeof()
        if len(meta) != size:
            where = ".".join(p for p in (col.table, col.name) if p)
            raise SchemaError(f"{type_name(col.type_code)} column metadata must be {size} bytes, "
                              f"got {meta.hex() or 'none'}" + (f" - at {where}" if where else ""))
        return self.meta_layout.parse(meta)

    def bind(self, col: ColumnDesc) -> Bound:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, col: ColumnDesc, value: Any) -> bytes:
        """``value`` as ``col``'s bytes, through this codec bound to ``col`` (cached)."""
        return _bound(self, col).encode(value)

    def decode(self, col: ColumnDesc, buf: bytes | memoryview, pos: int) -> tuple[Any, int]:
        """(value, position after it) of ``col`` at ``pos``, through this codec bound to ``col``."""
        return _bound(self, col).decode(buf, pos)


@lru_cache(maxsize=4096)
def _bound_cached(codec: Codec, col: ColumnDesc) -> Bound:
    return codec.bind(col)


def _bound(codec: Codec, col: ColumnDesc) -> Bound:
    """``codec.bind(col)``, cached per (codec, column) when the column is hashable."""
    try:
        hash(col)
    except TypeError:  # unhashable field values (a bytearray meta, a list of members)
        return codec.bind(col)
    return _bound_cached(codec, col)


REGISTRY: dict[int, Codec] = {}


def register(codec_cls: type[Codec]) -> type[Codec]:
    """Class decorator: one instance of the codec registered for each of its type codes."""
    inst = codec_cls()
    for code in codec_cls.type_codes:
        if code in REGISTRY:
            raise RuntimeError(f"type code {code} registered twice")
        REGISTRY[code] = inst
    return codec_cls
