"""The inet_uuid family: MariaDB's INET4 INET6 UUID. The server logs them as BINARY(4) /
BINARY(16) (type 254, values.md §5), so their codec and mysqlbinlog text are the char
family's (values/char.py): this module says so and maps the schema types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from binlogwriter.values._strings import text_renderer
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.char import StringCodec

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "StringCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "inet_uuid"
SQL_TYPES = ("INET4", "INET6", "UUID")
TYPE_CODES: tuple[int, ...] = ()  # logged as type 254, whose codec (StringCodec) is the char family's
# no vectorised encoder: BINARY(4)/(16) values go through the char family's scalar encoder


def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """STRING 254: a BINARY(4) / BINARY(16) (values.md §5)."""
    return 254


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """``[254 ^ ((len & 0x300) >> 4), len & 0xff]`` with 4 or 16 bytes (values.md §5)."""
    n = col.byte_length(flavor) or 0
    return bytes((254 ^ ((n & 0x300) >> 4), n & 0xFF))


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """Quoted from the stored bytes, as a BINARY(n)."""
    return text_renderer(col, family)


def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """``0x`` hex of the stored bytes."""
    return lambda v: "0x" + bytes(v).hex()


def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: the char family's (binary)."""
    from binlogwriter.values.char import arrow_type as char_arrow_type

    return char_arrow_type(col)


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """No ``-vv`` type of its own: the values are logged as type 254, named by the char family."""
    return None
