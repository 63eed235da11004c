"""Folder names of the Parquet export: a database and table name from a binlog are data,
never a path (issue 27).

A Table_map's names are whatever bytes the file holds: MariaDB accepts a database called
``/tmp/abs`` and a table called ``../../y`` (quoted identifiers take any character but NUL;
the server itself turns them into file names with its own encoding, ``@002f`` for ``/``,
so that they stay inside its data directory), and a damaged or hostile file may hold NUL, bytes
that are not UTF-8, or empty names. The export puts each table in one folder directly under
the output directory, named

    <encoded database>.<encoded table>

where a name is encoded from its bytes (its text as UTF-8, the reader's undecodable bytes
as themselves) as:

* ``A``–``Z``, ``a``–``z``, ``0``–``9``, ``_`` and ``-`` stay as they are; every other byte,
  ``.`` ``/`` ``\\`` ``%`` NUL and non-ASCII included, is ``%XX`` (two upper-case hex digits,
  RFC 3986 percent-encoding): the folder name is plain ASCII, holds exactly one ``.`` (the
  separator), no separator of any file system, and never starts with ``.`` — except:
* a name that Windows reserves for a device whatever its case (``CON``, ``PRN``, ``AUX``,
  ``NUL``, ``COM0``–``COM9``, ``LPT0``–``LPT9``) has its first letter percent-encoded
  (``CON`` → ``%43ON``);
* an empty name is a lone ``%`` (no percent-encoding produces it).

``urllib.parse.unquote_to_bytes`` of each side of the ``.`` gives the name's bytes back
(:func:`table_of_dir` does it). Distinct tables get distinct names. A folder name longer
than :data:`MAX_DIR_NAME` characters (two 64-character names of non-ASCII letters encode to
about 1,150) is cut at a ``%XX`` boundary and ends ``~`` + 32 hex digits of the SHA-256 of
the whole encoded name (``~`` is never produced by the encoding); such a name is not
reversible, and every part of the export records both names in its Parquet key-value
metadata (:data:`DATABASE_KEY`, :data:`TABLE_KEY`, percent-encoded as above).
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import unquote_to_bytes

__all__ = [
    "name_bytes",
    "encode_name",
    "table_dir",
    "table_of_dir",
    "MAX_DIR_NAME",
    "DATABASE_KEY",
    "TABLE_KEY",
]

MAX_DIR_NAME = 240
"""Longest folder name written in full: under the 255 bytes a file name may have on Linux,
macOS and Windows (the encoded name is ASCII: a byte per character)."""

_KEEP = 200
"""Characters of an over-long encoded name kept before its ``~`` + hash suffix."""

DATABASE_KEY = b"binlogwriter.database"
TABLE_KEY = b"binlogwriter.table"
"""Parquet key-value metadata of every part: the table's names, encoded by :func:`encode_name`."""

_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
)
_ENCODED = re.compile(r"(?:[A-Za-z0-9_-]|%[0-9A-F]{2})+")


def name_bytes(name: str | bytes) -> bytes:
    """The bytes of a name as the file holds them (the reader keeps bytes that are not
    UTF-8 as surrogate escapes)."""
    return name if isinstance(name, bytes) else name.encode("utf-8", "surrogateescape")


def encode_name(name: str | bytes) -> str:
    """One name as it appears in a folder name (module docstring)."""
    raw = name_bytes(name)
    if not raw:
        return "%"
    text = "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in raw)
    if text.upper() in _RESERVED:
        text = f"%{raw[0]:02X}{text[1:]}"
    return text


def table_dir(database: str | bytes, table: str | bytes) -> str:
    """The folder name of a table under the output directory (module docstring)."""
    name = f"{encode_name(database)}.{encode_name(table)}"
    if len(name) <= MAX_DIR_NAME:
        return name
    head = name[:_KEEP]
    if "%" in head[-2:]:  # never end inside a %XX triple
        head = head[: head.rindex("%")]
    return f"{head}~{hashlib.sha256(name.encode('ascii')).hexdigest()[:32]}"


def table_of_dir(name: str) -> tuple[bytes, bytes]:
    """``(database, table)`` bytes of a folder name :func:`table_dir` wrote in full;
    ValueError for a shortened one (``~``: its names are in the parts' metadata) or a name
    it does not write."""
    if "~" in name or name.count(".") != 1:
        raise ValueError(f"{name!r} is not a folder name written in full by the export")
    return _decode(name.split(".")[0]), _decode(name.split(".")[1])


def _decode(part: str) -> bytes:
    if part == "%":
        return b""
    if not part or _ENCODED.fullmatch(part) is None:
        raise ValueError(f"{part!r} is not an encoded name")
    return unquote_to_bytes(part)
