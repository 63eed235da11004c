"""One column of a ``###`` line (``inspect -vv``): its ``-vv`` type name and ``meta=`` integer,
and the text of one value (mariadb-binlog ``log_event_print_value``, ``sql/log_event_client.cc``;
MySQL 8 ``sql/log_event.cc``). The rows, images and statements around them are
:mod:`binlogwriter.text.rows`; the values are decoded by their
column codecs and printed by :mod:`binlogwriter.values.render`.
"""

from __future__ import annotations

from typing import Any

from binlogwriter.errors import BinlogError
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.families import META_SIZE, family_of_code
from binlogwriter.values.registry import bind_column
from binlogwriter.values.render import quote_bytes, render_value

# -- metadata --------------------------------------------------------------------------
_BIG_ENDIAN_META = frozenset((254, 247, 248, 246))
"""The two-byte metadata ``table_def`` reads high byte first: STRING/ENUM/SET (real type,
then length) and NEWDECIMAL (precision, then scale); every other two-byte metadata (VARCHAR,
VAR_STRING, BIT, MariaDB's compressed VARCHAR) is little-endian (rpl_utility.cc)."""


def field_metadata(type_code: int, meta: bytes) -> int:
    """The ``meta=N`` integer of ``-vv``: ``table_def``'s per-column metadata (rpl_utility.cc
    ``read_field_metadata``), the type's :data:`~binlogwriter.values.families.META_SIZE` bytes
    as one integer (0 for a type without metadata)."""
    n = META_SIZE.get(type_code, 0)
    if type_code in _BIG_ENDIAN_META:
        return int.from_bytes(meta[:2], "big") if len(meta) >= 2 else 0
    return int.from_bytes(meta[:n], "little")


# -- value printing ------------------------------------------------------------------
# Values are decoded by their column codecs (binlogwriter.values) and printed by
# binlogwriter.values.render; this module only knows the ``-vv`` type names.


def meta_bytes(type_code: int, meta: int) -> bytes:
    """The Table_map metadata bytes of a ``field_metadata`` integer (its inverse)."""
    n = META_SIZE.get(type_code, 0)
    return (meta & ((1 << (8 * n)) - 1)).to_bytes(n, "big" if type_code in _BIG_ENDIAN_META else "little")


def column_of(type_code: int, meta: int, flavor: str = "mariadb1011") -> ColumnDesc:
    """A ColumnDesc for a ``table_def::type`` and ``field_metadata`` pair (ENUM/SET as 254)."""
    code = 254 if type_code in (247, 248) else type_code
    return ColumnDesc(code, meta_bytes(type_code, meta), flavor=flavor)


def decimal_text(buf: bytes | memoryview, pos: int, precision: int, scale: int) -> tuple[str, int]:
    """(text, size) of a DECIMAL value: every scale digit, no leading integer zeros."""
    col = ColumnDesc(246, bytes((precision, scale)))
    return _render(col, buf, pos, "mariadb")


def _render(col: ColumnDesc, buf: bytes | memoryview, pos: int, family: str) -> tuple[str, int]:
    """(text, size) of the value of ``col`` at ``buf[pos]``: its codec decodes it (ValueError,
    the printer's stop, for bytes it refuses), values/render.py prints it."""
    try:
        value, end = bind_column(col).decode(buf, pos)
    except BinlogError as exc:
        raise ValueError(str(exc)) from None
    return render_value(col, value, family), end - pos


def type_string(type_code: int, meta: int, family: str = "mariadb") -> str:
    """The ``TYPE`` of ``-vv`` comments (``typestr`` of log_event_print_value): the type
    family's ``type_text`` (binlogwriter/values/<family>.py) after two rules of the listing
    itself: a STRING (254) whose metadata hides a long CHAR's length keeps 254 as its type only
    when the real-type bits say so (values.md §5), and MariaDB's compressed BLOB/VARCHAR
    (140/141) are named as their plain type with `` COMPRESSED``."""
    t = type_code
    if t == 254 and meta >= 256 and ((meta >> 8) & 0x30) != 0x30:
        t = (meta >> 8) | 0x30
    plain = {140: 252, 141: 15}.get(t, t)
    fam = family_of_code(plain)
    text = fam.type_text(plain, meta, family) if fam is not None else None
    if text is None:
        raise ValueError(f"Don't know how to handle column type: {type_code} meta: {meta} ({meta:04x})")
    return text + (" COMPRESSED" if plain != t else "")


def _compressed_column(t: int, meta: int, buf: bytes | memoryview, pos: int, family: str) -> tuple[str, int]:
    """MariaDB's compressed BLOB/VARCHAR (140/141): no codec decodes them; printed as stored."""
    nlen = meta if t == 140 else (1 if meta < 256 else 2)
    n = int.from_bytes(buf[pos:pos + nlen], "little")
    if pos + nlen + n > len(buf):
        raise ValueError(f"string of {n} bytes runs past the rows data")
    return quote_bytes(buf[pos + nlen:pos + nlen + n], family), nlen + n


def format_value(type_code: int, meta: int, buf: bytes | memoryview | None, pos: int,
                 family: str = "mariadb", json_text: Any = None) -> tuple[str, str, int]:
    """(value text, type text, bytes used) of one value, ``log_event_print_value``: the
    column codec decodes it, :func:`binlogwriter.values.render.render_value` prints it.

    ``type_code`` is ``table_def::type`` (ENUM/SET already taken out of STRING's metadata),
    ``meta`` the ``field_metadata`` integer; ``buf`` None prints ``NULL`` (size 0).
    Raises ValueError for a type the printer does not know (it prints an error and stops).
    """
    typestr = type_string(type_code, meta, family)
    if buf is None:
        return "NULL", typestr, 0
    if type_code in (140, 141):
        text, size = _compressed_column(type_code, meta, buf, pos, family)
        return text, typestr, size
    text, size = _render(column_of(type_code, meta), buf, pos, family)
    return text, typestr, size


# -- table_def::type ------------------------------------------------------------------
def table_def_type(t: int, meta: int) -> int:
    """``table_def::type``: ENUM/SET hide behind STRING with their type in meta's high byte."""
    if t == 254 and (meta >> 8) in (247, 248):
        return meta >> 8
    return t
