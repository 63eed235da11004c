"""Each column value's mysqlbinlog rendering, from the value its codec decoded (values.md).

``inspect -v/-vv`` prints row images as mariadb-binlog / mysqlbinlog do
(``log_event_print_value``, sql/log_event_client.cc). Their text is a function of the stored
bytes; since every codec decodes those bytes to a value that re-encodes to them exactly
(values.md: lossless both ways), the same text is a function of the decoded value and the
column's metadata, which is what :func:`render_value` computes. Each type family's module
(values/families.py) has its ``renderer``; this module picks it by the column's type code:

* integers print their stored bits as signed, with the unsigned reading in parentheses when
  negative (``-1 (65535)``); FLOAT ``%-20g`` of the float32, DOUBLE ``%-.20g``;
* DECIMAL every scale digit (``format(d, "f")``); BIT and SET as bit strings ``b'…'`` (SET
  bytes in storage order, least significant byte first); ENUM as its index; YEAR as
  ``byte + 1900`` (so YEAR 0 prints 1900);
* DATE ``'YYYY:MM:DD'``; old DATETIME/TIME quoted; DATETIME2/TIME2 quoted with ``fsp``
  fraction digits; TIMESTAMP/TIMESTAMP2 as Unix seconds (``1.01``), unquoted;
* strings, BLOB/TEXT and GEOMETRY quoted from their stored bytes (text re-encoded in its
  charset; BINARY(n) without the 0x00 pad the server does not log), bytes < 0x20 as ``\\xNN``
  (MySQL also ``'`` and ``\\``).

``render_value`` raises ValueError for a type the printers do not know.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from binlogwriter.values._text import bit_string, quote_bytes
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.families import family_of_column

__all__ = ["render_value", "renderer", "quote_bytes", "bit_string"]


@lru_cache(maxsize=4096)
def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """``text(value)`` for the non-NULL values of ``col``: its type family's renderer."""
    fam = family_of_column(col)
    if fam is None:
        raise ValueError(f"Don't know how to handle column type: {col.type_code} meta: {bytes(col.meta).hex()}")
    return fam.renderer(col, family)


def render_value(col: ColumnDesc, value: Any, family: str = "mariadb") -> str:
    """mysqlbinlog's text of one decoded value of ``col`` (``NULL`` for None)."""
    if value is None:
        return "NULL"
    return renderer(col, family)(value)
