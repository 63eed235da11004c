"""The post-header and column bitmaps of a rows event, read without construct (format.md §13):
table id, flags, v2 extra info, column count, the columns-present bitmap(s); what
:func:`binlogwriter.read.rowdecode.decode_rows_body` and the fast readers (changes, the
``-vv`` listing, fastdecode) need before the row images. Property-tested against the
declarative layout in tests/read/test_rowdecode_props.py.
"""

from __future__ import annotations

from binlogwriter.compression import mariadb_decompress
from binlogwriter.errors import DecodeError
from binlogwriter.layouts.primitives import PACKED_FORMS, decode_bitmap, read_packed
from binlogwriter.layouts.rows import COMPRESSED_TYPES, UPDATE_TYPES, ZERO_WIDTH
from binlogwriter.read.places import rows_places_of

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

def parse_rows_header(type_code: int, body: bytes, table_id_size: int = 6, *, exact: bool = True) -> RowsBody:
    """Post-header and column bitmaps of a rows event body (format.md §13), field places from
    the declared layout (read/places.py); rows bytes after them, decompressed for MariaDB's
    compressed types. ``exact``: a compressed stream other than the one the server's
    ``compress()`` writes raises NonCanonical (the declarative reader keeps such an event
    raw); ``exact=False`` inflates any valid zlib stream (the export reads its rows)."""
    n = len(body)
    pl = rows_places_of(type_code, table_id_size)
    p = pl.post
    if n < p:
        raise DecodeError(f"rows event body of {n} bytes has no post-header")
    table_id = int.from_bytes(body[:pl.table_id_size], "little")
    flags = body[pl.flags] | body[pl.flags + 1] << 8
    extra = b""
    vh = pl.var_header
    if vh is not None:
        vlen = body[vh] | body[vh + 1] << 8
        if vlen < pl.var_header_size or vh + vlen > n:
            raise DecodeError(f"rows event var_header_len {vlen} does not fit the body")
        extra = body[vh + pl.var_header_size:vh + vlen]
        p = vh + vlen
    packed = read_packed(body, p, n)
    if packed is None:
        if p < n and body[p] not in PACKED_FORMS and body[p] >= 251:
            raise DecodeError(f"invalid packed integer prefix 0x{body[p]:02x}")
        raise DecodeError("rows event body ends inside its column count")
    width, p, shortest = packed
    if not shortest:
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
        rows = mariadb_decompress(rows, exact=exact)
    return RowsBody(table_id, flags, width, present, after, rows, extra)
