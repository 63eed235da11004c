"""Rows events whose rows the reader left as bytes, made ready for the ``###`` listing.

The listing prints values, not bytes (text/rows.py); an event read without its column
definitions (rows not decoded) has its row images walked here with the columns the
Table_map alone gives (format.md §13: the images follow the column bitmaps, a null bitmap
and the present columns' values each; an UPDATE carries a before and an after image per
row). The walk is the row codec's own (values/row.py ``decode_row_image``): this module
only finds the row bytes (a MariaDB compressed rows event is inflated first, mariadb.md)
and counts the rows.
"""

from __future__ import annotations

import struct
from typing import Any

from binlogwriter.compression import mariadb_decompress
from binlogwriter.errors import BinlogError
from binlogwriter.layouts.rows import COMPRESSED_TYPES, UPDATE_TYPES, no_image_columns
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.row import decode_row_image

__all__ = ["rows_bytes", "decode_raw"]


def rows_bytes(e: Any) -> bytes:
    """The rows part of a rows event (after the column bitmaps), uncompressed.

    A decoded event keeps values, not bytes: they are re-encoded (the value codecs are
    byte-exact both ways, values.md); an event whose rows stayed raw gives its bytes.
    """
    if e.rows_raw is not None:
        raw = bytes(e.rows_raw)
        return mariadb_decompress(raw) if e.type_code in COMPRESSED_TYPES else raw
    from binlogwriter.values.row import encode_row_image

    cols = e.columns
    if cols is None:
        raise ValueError("rows event has decoded rows but no columns")
    pads = e.null_pads or [None] * len(e.rows or [])
    dflt = e.default_null_pad
    out = bytearray()
    for row, pad in zip(e.rows or [], pads, strict=True):
        if e.type_code in UPDATE_TYPES:
            before, after = row
            pb, pa = pad if pad is not None else (dflt, dflt)
            out += encode_row_image(cols, e.columns_present, before, pb)
            out += encode_row_image(cols, e.columns_after, after, pa)
        else:
            out += encode_row_image(cols, e.columns_present, row, dflt if pad is None else pad)
    return bytes(out)


def decode_raw(e: Any, cols: list[ColumnDesc]) -> list:
    """The rows of an event the reader left raw, decoded by the row codec."""
    buf = rows_bytes(e)
    rows: list = []
    pos, n = 0, 0
    if buf and not any(e.columns_present) and not (e.columns_after is not None and any(e.columns_after)):
        raise ValueError("rows event has row images of 0 bytes (no column in its images)")
    once = not buf and no_image_columns(e.columns_present, e.columns_after)  # one row of 0-byte images
    try:
        while pos < len(buf) or once:
            once = False
            n += 1
            values, _, pos = decode_row_image(cols, e.columns_present, buf, pos)
            if e.type_code in UPDATE_TYPES:
                after, _, pos = decode_row_image(cols, e.columns_after, buf, pos)
                rows.append((values, after))
            else:
                rows.append(values)
    except (BinlogError, IndexError, struct.error) as exc:
        raise ValueError(f"row {n} runs past the end of the event ({exc})") from None
    return rows
