"""TABLE_MAP_EVENT (type 19) post-header + body, declared once for build and parse.

Layout: ``docs/format.md`` §12 (post-header: table id, flags; body: schema
and table names as u8 length + bytes + NUL, packed column count, one type byte per
column, packed-length metadata block, null bitmap, optional-metadata TLVs to the end).
The TLVs (§12.1) are kept raw and in order here — ``{"type": u8, "value": bytes}`` —
so that a re-encode is byte-exact whatever a server wrote; their values have their
own declarations in :mod:`binlogwriter.table_map.metadata`. The null bitmap keeps its padding
bits (:class:`~binlogwriter.layouts.primitives.BitmapValue`).
"""

from __future__ import annotations

from functools import cache

import construct as cs
from construct import this

from binlogwriter.layouts.primitives import Bitmap, Int48ul, PackedBytes, PackedInt

__all__ = ["table_map_layout", "OptionalMetadataField", "Name"]

Name = cs.Struct(
    "length" / cs.Rebuild(cs.Int8ul, cs.len_(this.name)),
    "name" / cs.Bytes(this.length),
    cs.Const(b"\x00"),
)
"""Schema or table name: u8 length, the bytes, a terminating NUL (format.md §12)."""


class _NameAdapter(cs.Adapter):
    """A :data:`Name` seen as ``str`` (identifiers are utf8mb3, format.md §12)."""

    def _decode(self, obj, context, path):
        return obj.name.decode("utf-8", "surrogateescape")

    def _encode(self, obj, context, path):
        raw = obj if isinstance(obj, bytes) else str(obj).encode("utf-8", "surrogateescape")
        if len(raw) > 255:
            raise cs.ExplicitError(f"name longer than 255 bytes: {obj!r}", path=path)
        return {"name": raw}


OptionalMetadataField = cs.Struct(
    "type" / cs.Int8ul,
    "value" / PackedBytes,
)
"""One optional-metadata TLV: ``u8 type · packed length · value`` (format.md §12.1)."""


@cache
def table_map_layout(table_id_size: int = 6) -> cs.Construct:
    """The TABLE_MAP post-header + body construct (format.md §12).

    ``table_id_size`` is 6 (every server since 5.1.4) or 4 (a 6-byte post-header from
    older masters). ``column_count`` is rebuilt from ``column_types``; ``null_bits`` is a
    sequence of bools (True = nullable) or a parsed ``BitmapValue`` keeping its padding.
    """
    if table_id_size not in (4, 6):
        raise ValueError(f"table id size must be 4 or 6, got {table_id_size}")
    return cs.Struct(
        "table_id" / (Int48ul if table_id_size == 6 else cs.Int32ul),
        "flags" / cs.Int16ul,
        "schema" / _NameAdapter(Name),
        "table" / _NameAdapter(Name),
        "column_count" / cs.Rebuild(PackedInt, cs.len_(this.column_types)),
        "column_types" / cs.Array(this.column_count, cs.Int8ul),
        "metadata" / PackedBytes,
        "null_bits" / Bitmap(this.column_count),
        "optional_metadata" / cs.GreedyRange(OptionalMetadataField),
        cs.Terminated,
    )
