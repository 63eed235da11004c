"""The post-header and column bitmaps of a rows event, read without construct (format.md §13):
table id, flags, v2 extra info, column count, the columns-present bitmap(s); what
:func:`binlogwriter.read.rowdecode.decode_rows_body` and the fast readers (changes, the
``-vv`` listing, fastdecode) need before the row images. Property-tested against the
declarative layout in tests/test_rowdecode_props.py.
"""

from __future__ import annotations

from binlogwriter.compression import mariadb_decompress
from binlogwriter.errors import DecodeError
from binlogwriter.layouts.primitives import decode_bitmap
from binlogwriter.layouts.rows import COMPRESSED_TYPES, UPDATE_TYPES, V2_TYPES, ZERO_WIDTH

__all__ = ["RowsBody", "parse_rows_header"]

class RowsBody:
    """A rows event's post-header fields and its (uncompressed) rows bytes."""

    __slots__ = ("table_id", "rows_flags", "width", "present", "after", "rows", "extra_info")

    def __init__(self, table_id: int, rows_flags: int, width: int, present: tuple, after: tuple | None,
                 rows: bytes, extra_info: bytes) -> None:
        self.table_id = table_id
        self.rows_flags = rows_flags
        self.width = width
        self.present = present
        self.after = after
        self.rows = rows
        self.extra_info = extra_info


def _bitmap(data: bytes, pos: int, n: int) -> tuple[tuple[bool, ...], int]:
    """A column bitmap as the declarative layout parses it (a BitmapValue keeping its
    padding bits, format.md §13)."""
    nb = (n + 7) >> 3
    if pos + nb > len(data):
        raise DecodeError(f"column bitmap needs {nb} bytes at {pos}, {max(0, len(data) - pos)} left")
    return decode_bitmap(data[pos:pos + nb], n), pos + nb


_BITMAPS: dict[tuple[bytes, int], tuple] = {}

def parse_rows_header(type_code: int, body: bytes, table_id_size: int = 6) -> RowsBody:
    """Post-header and column bitmaps of a rows event body (format.md §13); rows bytes after
    them, decompressed for MariaDB's compressed types."""
    n = len(body)
    p = table_id_size + 2
    if n < p:
        raise DecodeError(f"rows event body of {n} bytes has no post-header")
    table_id = int.from_bytes(body[:table_id_size], "little")
    flags = body[table_id_size] | body[table_id_size + 1] << 8
    extra = b""
    if type_code in V2_TYPES:
        vlen = body[p] | body[p + 1] << 8
        if vlen < 2 or p + vlen > n:
            raise DecodeError(f"rows event var_header_len {vlen} does not fit the body")
        extra = body[p + 2:p + vlen]
        p += vlen
    b = body[p]
    if b < 251:
        width = b
        p += 1
    elif b == 0xFC:
        width = int.from_bytes(body[p + 1:p + 3], "little")
        p += 3
    elif b == 0xFD:
        width = int.from_bytes(body[p + 1:p + 4], "little")
        p += 4
    elif b == 0xFE:
        width = int.from_bytes(body[p + 1:p + 9], "little")
        p += 9
    else:
        raise DecodeError(f"invalid packed integer prefix 0x{b:02x}")
    if b >= 0xFC and width < (251, 1 << 16, 1 << 24)[b - 0xFC]:
        raise DecodeError(f"column count {width} not in its shortest form")  # kept raw by the declarative path
    nb = (width + 7) >> 3
    key = (body[p:p + nb], width)
    present = _BITMAPS.get(key)
    if present is None:
        present, _ = _bitmap(body, p, width)
        if len(_BITMAPS) < 4096:
            _BITMAPS[key] = present
    p += nb
    after = None
    if type_code in UPDATE_TYPES:
        key = (body[p:p + nb], width)
        after = _BITMAPS.get(key)
        if after is None:
            after, _ = _bitmap(body, p, width)
            if len(_BITMAPS) < 4096:
                _BITMAPS[key] = after
        p += nb
    if p > n:
        raise DecodeError("rows event body ends inside its column bitmaps")
    rows = body[p:]
    if rows and not any(present) and not (after is not None and any(after)):
        raise DecodeError(ZERO_WIDTH.format(len(rows)))
    if type_code in COMPRESSED_TYPES:
        rows = mariadb_decompress(rows, exact=True)
    return RowsBody(table_id, flags, width, present, after, rows, extra)
