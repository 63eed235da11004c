"""Text helpers shared by several families' mysqlbinlog renderers (values/render.py):
``my_b_write_quoted`` and ``my_b_write_bit`` of sql/log_event_client.cc, and fsp fractions."""

from __future__ import annotations

import re

__all__ = ["quote_bytes", "bit_string"]

SPECIAL_MARIADB = re.compile(r"[\x00-\x1f]")
SPECIAL_MYSQL = re.compile(r"[\x00-\x1f'\\]")
_TABLE_MARIADB = {c: f"\\x{c:02x}" for c in range(0x20)}
_TABLE_MYSQL = {**_TABLE_MARIADB, 0x27: "\\x27", 0x5C: "\\x5c"}
ESCAPED_MARIADB = bytes(range(0x20))
ESCAPED_MYSQL = ESCAPED_MARIADB + b"'\\"
"""The bytes each family escapes (a C pass deleting them tells whether there is one)."""
BYTES_MARIADB = [_TABLE_MARIADB.get(c, chr(c)) for c in range(256)]
BYTES_MYSQL = [_TABLE_MYSQL.get(c, chr(c)) for c in range(256)]
UTF8_CODECS = frozenset(("utf_8", "utf-8", "utf8", "ascii"))


def quote_bytes(data: bytes | memoryview, family: str = "mariadb") -> str:
    """``my_b_write_quoted``: ``'…'`` with bytes < 0x20 as ``\\xNN``; MariaDB writes ``'`` and
    ``\\`` raw (its escape branches are unreachable), MySQL 8 hex-escapes them (UNVERIFIED).
    Non-UTF-8 bytes come back as surrogate escapes.

    Escaping is one ``str.translate`` of the bytes read as Latin-1, before decoding: a byte
    below 0x80 is one character in UTF-8 and never part of a multi-byte sequence, so escaping
    it before or after decoding gives the same text."""
    raw = bytes(data)
    if len(raw.translate(None, ESCAPED_MARIADB if family == "mariadb" else ESCAPED_MYSQL)) != len(raw):
        # bytes as Latin-1 characters (one each, both ways): a table lookup per byte in C
        raw = raw.decode("latin-1").translate(BYTES_MARIADB if family == "mariadb" else BYTES_MYSQL) \
            .encode("latin-1")
    return "'" + raw.decode("utf-8", "surrogateescape") + "'"


def bit_string(data: bytes | memoryview, nbits: int) -> str:
    """``my_b_write_bit``: the last ``nbits`` bits of the first ``ceil(nbits / 8)`` bytes,
    most significant first."""
    if nbits <= 0:
        return "b''"
    value = int.from_bytes(bytes(data[:(nbits + 7) // 8]), "big") & ((1 << nbits) - 1)
    return f"b'{value:0{nbits}b}'"


def frac(usec: int, dec: int) -> str:
    return "." + str(usec // 10 ** (6 - dec)).zfill(dec) if dec else ""
