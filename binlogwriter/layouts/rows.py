"""WRITE/UPDATE/DELETE rows events: v1 (23–25), v2 (30–32), PARTIAL_UPDATE (39) and
MariaDB's compressed variants (166–171) — format.md §13, §13.1, §14; mariadb.md.

Post-header: table_id (6 bytes; 4 for a 6-byte Table_map post-header), flags, and for v2
``var_header_len`` (counting itself) + extra row info. Body: width (packed), the columns
bitmap(s), then the row images (values/row.py). Row images need the table's columns: the
layout takes them from the build/parse context key ``columns`` (a list of ColumnDesc) —
without it, rows stay raw bytes. MariaDB's compressed events compress only the rows part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import construct as cs
from construct import this

from binlogwriter.compression import mariadb_compress, mariadb_decompress
from binlogwriter.format import (
    DELETE_ROWS_COMPRESSED_EVENT,
    DELETE_ROWS_COMPRESSED_EVENT_V1,
    DELETE_ROWS_EVENT,
    DELETE_ROWS_EVENT_V1,
    PARTIAL_UPDATE_ROWS_EVENT,
    UPDATE_ROWS_COMPRESSED_EVENT,
    UPDATE_ROWS_COMPRESSED_EVENT_V1,
    UPDATE_ROWS_EVENT,
    UPDATE_ROWS_EVENT_V1,
    WRITE_ROWS_COMPRESSED_EVENT,
    WRITE_ROWS_COMPRESSED_EVENT_V1,
    WRITE_ROWS_EVENT,
    WRITE_ROWS_EVENT_V1,
)
from binlogwriter.layouts.primitives import Bitmap, Int48ul, PackedInt
from binlogwriter.schema.types import T_DATETIME, T_TIME, T_TIMESTAMP

__all__ = ["RowsPayload", "rows_fields", "ROWS_TYPES", "UPDATE_TYPES", "V2_TYPES", "COMPRESSED_TYPES", "unsized_column",
           "OLD_TEMPORAL_CODES"]

WRITE_TYPES = (WRITE_ROWS_EVENT_V1, WRITE_ROWS_EVENT, WRITE_ROWS_COMPRESSED_EVENT_V1, WRITE_ROWS_COMPRESSED_EVENT)
UPDATE_TYPES = (UPDATE_ROWS_EVENT_V1, UPDATE_ROWS_EVENT, PARTIAL_UPDATE_ROWS_EVENT, UPDATE_ROWS_COMPRESSED_EVENT_V1,
                UPDATE_ROWS_COMPRESSED_EVENT)
DELETE_TYPES = (DELETE_ROWS_EVENT_V1, DELETE_ROWS_EVENT, DELETE_ROWS_COMPRESSED_EVENT_V1, DELETE_ROWS_COMPRESSED_EVENT)
V2_TYPES = (WRITE_ROWS_EVENT, UPDATE_ROWS_EVENT, DELETE_ROWS_EVENT, PARTIAL_UPDATE_ROWS_EVENT, WRITE_ROWS_COMPRESSED_EVENT,
            UPDATE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT)
"""The version 2 rows events: an ``extra_info`` block after the flags (format.md §13)."""
COMPRESSED_TYPES = (WRITE_ROWS_COMPRESSED_EVENT_V1, UPDATE_ROWS_COMPRESSED_EVENT_V1, DELETE_ROWS_COMPRESSED_EVENT_V1,
                    WRITE_ROWS_COMPRESSED_EVENT, UPDATE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT)
ROWS_TYPES = WRITE_TYPES + UPDATE_TYPES + DELETE_TYPES

STMT_END_F = 0x1
NO_FOREIGN_KEY_CHECKS_F = 0x2
RELAXED_UNIQUE_CHECKS_F = 0x4
COMPLETE_ROWS_F = 0x8

ZERO_WIDTH = ("rows event has {} bytes of row images but no column in its image(s): each image "
              "would be 0 bytes and the rows could not be counted (no server writes that)")
"""The DecodeError of a rows event whose images would all be 0 bytes (format.md §13); also
raised by binlogwriter/read/rowdecode.py."""


def no_image_columns(present, after) -> bool:
    """No column in any image of a rows event: every row image is 0 bytes. A server writes
    such an event with no row bytes for ONE row: MariaDB 10.11 under MINIMAL logs
    ``INSERT INTO t () VALUES ()`` on a table whose key takes its default that way
    (tests/data/row_images), ``mariadb-binlog`` prints it with "Number of rows: 1" and the
    applier runs its row loop once (format.md §13). Readers give that event one row; an
    event with row bytes but no column is refused (:data:`ZERO_WIDTH`)."""
    return not any(present) and not (after is not None and any(after))


@dataclass
class RowsPayload:
    """The rows part of a rows event.

    ``rows``: for WRITE/DELETE a list of full-width value tuples (``ABSENT`` for columns not
    in the image, None for SQL NULL); for UPDATE a list of (before, after) tuples.
    ``null_pads``: per row the raw padding bits of its null bitmap(s) as read (None: the
    flavor's default — ones for MariaDB/5.x, zeros for MySQL 8). ``raw``: the undecoded
    rows bytes when no column information was available (then ``rows`` is None).
    """

    rows: list[Any] | None = None
    null_pads: list[Any] | None = None
    raw: bytes | None = None
    default_pad: int = field(default=0, repr=False)


OLD_TEMPORAL_CODES = frozenset((T_TIMESTAMP, T_TIME, T_DATETIME))
"""TIMESTAMP / TIME / DATETIME before MySQL 5.6.4: no fsp in their metadata (MariaDB's hires ones too)."""


def unsized_column(col) -> bool:
    """Old TIME/DATETIME/TIMESTAMP (11/12/7) carry no fsp in the binlog; MariaDB's hires
    variants (fsp 1–6) have other sizes (values.md §4.1). Without the fsp from a schema the
    rows cannot be sized: they stay raw bytes (nothing lost, nothing guessed). MySQL's old
    types have no fractional variant: always fsp 0. The one home of this rule (the readers,
    the fast decoders and the listing ask it)."""
    return col.type_code in OLD_TEMPORAL_CODES and col.fsp is None and col.flavor.startswith("mariadb")


class _RowsData(cs.Construct):
    def __init__(self, update: bool, compressed: bool, partial: bool):
        super().__init__()
        self.update = update
        self.compressed = compressed
        self.partial = partial

    def _parse(self, stream, context, path):
        data = cs.stream_read_entire(stream, path)
        blob = data
        if self.compressed:
            blob = mariadb_decompress(data, exact=True)
        cols = context._.get("columns") if "_" in context else None
        if cols is None or any(unsized_column(c) for c in cols):
            return RowsPayload(raw=data)
        from binlogwriter.values.row import decode_row_image

        decode_after = decode_row_image
        if self.partial:  # PARTIAL_UPDATE_ROWS: value_options, partial_bits, JSON diffs (format.md §14)
            from binlogwriter.values.json_diff import decode_partial_image as decode_after
        before = context.columns_present
        after = context.get("columns_after")
        once = no_image_columns(before, after)  # one row of 0-byte images (format.md §13)
        if blob and once:
            # every image would be 0 bytes: the loop below would never advance (format.md §13)
            from binlogwriter.errors import DecodeError

            raise DecodeError(ZERO_WIDTH.format(len(blob)), path="rows")
        rows, pads = [], []
        pos = 0
        n = len(blob)
        while pos < n or once:
            once = False
            vals, pad, pos = decode_row_image(cols, before, blob, pos)
            if self.update:
                avals, apad, pos = decode_after(cols, after, blob, pos)
                rows.append((vals, avals))
                pads.append((pad, apad))
            else:
                rows.append(vals)
                pads.append(pad)
        return RowsPayload(rows=rows, null_pads=pads)

    def _build(self, obj, stream, context, path):
        if obj.rows is None:
            data = obj.raw or b""
        else:
            cols = context._.get("columns")
            if cols is None:
                raise cs.ExplicitError("rows need the table's columns (context 'columns')", path=path)
            from binlogwriter.values.row import encode_row_image

            before = context.columns_present
            after = context.get("columns_after")
            encode_after = encode_row_image
            if self.partial:
                from binlogwriter.values.json_diff import encode_partial_image

                def encode_after(cols, present, values, pad):
                    p, vo, bits = pad if isinstance(pad, tuple) else (pad, None, None)
                    return encode_partial_image(cols, present, values, p, vo, bits)
            out = bytearray()
            pads = obj.null_pads or [None] * len(obj.rows)
            dflt = obj.default_pad
            for i, (row, pad) in enumerate(zip(obj.rows, pads, strict=True)):
                try:
                    if self.update:
                        b, a = row
                        pb, pa = pad if pad is not None else (dflt, dflt)
                        out += encode_row_image(cols, before, b, pb)
                        out += encode_after(cols, after, a, pa)
                    else:
                        out += encode_row_image(cols, before, row, dflt if pad is None else pad)
                except Exception as exc:  # ValueEncodeError: add the row index
                    located = getattr(exc, "located", None)
                    if located is not None:
                        raise located(row=i) from None
                    raise
            data = bytes(out)
            if self.compressed:
                data = mariadb_compress(data)
        cs.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context, path):
        raise cs.SizeofError("rows have variable size", path=path)


class _Width(cs.Construct):
    """The column count (packed integer, format.md §13), in its shortest form only: a longer
    one parses but would encode shorter, so the event is kept raw (events.decode_body)."""

    def _parse(self, stream, context, path):
        from binlogwriter.layouts.control import NonCanonical

        start = stream.tell()
        v = PackedInt._parsereport(stream, context, path)
        if stream.tell() - start != len(PackedInt.build(v)):
            raise NonCanonical(f"column count {v} in {stream.tell() - start} bytes", path=path)
        return v

    def _build(self, obj, stream, context, path):
        return PackedInt._build(obj, stream, context, path)

    def _sizeof(self, context, path):
        raise cs.SizeofError("packed integer", path=path)


def rows_fields(type_code: int, table_id_size: int = 6) -> list:
    """Fields of a rows event of ``type_code`` (format.md §13)."""
    v2 = type_code in V2_TYPES
    update = type_code in UPDATE_TYPES
    fields = [
        "table_id" / (Int48ul if table_id_size == 6 else cs.Int32ul),
        "rows_flags" / cs.Int16ul,
    ]
    if v2:
        fields += [
            "_var_header_len" / cs.Rebuild(cs.Int16ul, lambda c: len(c.extra_info) + 2),
            "extra_info" / cs.Bytes(this._var_header_len - 2),
        ]
    fields += [
        "width" / _Width(),
        "columns_present" / Bitmap(this.width),
    ]
    if update:
        fields.append("columns_after" / Bitmap(this.width))
    fields.append("rows" / _RowsData(update, type_code in COMPRESSED_TYPES, type_code == PARTIAL_UPDATE_ROWS_EVENT))
    return fields
