"""File names of a table's ground truth (``truth/final/<db>.<table>.jsonl``,
``truth/final/parquet/<db>.<table>.parquet``, ``truth/changes/<db>.<table>.parquet``,
``truth/replica/final/<db>.<table>.jsonl``): the one place that makes them from a
(database, table) pair, and reads the pair back (docs/output.md "Truth file names").

A quoted identifier may hold any character but NUL (``a/b``, ``a.b``, ``..``, spaces,
non-ASCII), and on Linux with ``lower_case_table_names=0`` ``users`` and ``Users`` are two
tables. The name of a table's file is

    <encoded database>.<encoded table><suffix>

where each name is encoded as the server encodes identifiers into its data directory's file
names (MySQL / MariaDB's ``filename`` character set: ``a/b`` is ``a@002fb``), simplified:

* ASCII letters, digits, ``_``, ``$`` and ``-`` stay as they are (the server encodes ``$``
  and ``-`` as ``@0024`` / ``@002d``; kept here so that every name the truth had before
  this rule keeps its bytes); case is kept (``test.users`` and ``test.Users`` are two
  files);
* every other character of the Basic Multilingual Plane is ``@`` + its code point as four
  lower-case hex digits (``/`` → ``@002f``, ``.`` → ``@002e``, ``@`` → ``@0040``,
  ``é`` → ``@00e9``; the server writes letters such as ``é`` in a shorter form, ``@0n``,
  not used here);
* a character above U+FFFF (no server identifier holds one: identifiers are utf8mb3) is
  ``@@`` + six hex digits.

The encoded name holds exactly one ``.`` (the separator: ``.`` in a name is ``@002e``), so
a database whose name holds a dot stays apart from a table whose name does. Distinct pairs
get distinct names (the encoding is injective) and :func:`truth_table` gives the pair back.
A file name over :data:`NAME_MAX` bytes (names of many encoded characters: each is five
bytes) cannot be created on Linux: :func:`truth_file` raises ValueError, and ``generate``
refuses such a schema up front (:func:`too_long`).
"""

from __future__ import annotations

import re

__all__ = ["encode_identifier", "decode_identifier", "truth_stem", "truth_file", "truth_table", "too_long",
           "NAME_MAX", "LONGEST_SUFFIX"]

NAME_MAX = 255
"""Longest file name (bytes) of Linux file systems (ext4, xfs, btrfs, tmpfs)."""

LONGEST_SUFFIX = ".parquet"
"""The longest suffix a truth file of a table has (``.jsonl`` is shorter)."""

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$-")
_UNIT = re.compile(r"[A-Za-z0-9_$-]|@([0-9a-f]{4})|@@([0-9a-f]{6})")


def encode_identifier(name: str) -> str:
    """One database or table name as it appears in a truth file name (module docstring)."""
    if all(c in _SAFE for c in name):
        return name
    return "".join(c if c in _SAFE else f"@{ord(c):04x}" if ord(c) <= 0xFFFF else f"@@{ord(c):06x}"
                   for c in name)


def decode_identifier(text: str) -> str:
    """The name :func:`encode_identifier` encoded to ``text``; ValueError for text it does
    not produce."""
    out, at = [], 0
    while at < len(text):
        m = _UNIT.match(text, at)
        if m is None:
            raise ValueError(f"{text!r} is not an encoded name (at {at})")
        out.append(chr(int(m.group(1) or m.group(2), 16)) if m.group(1) or m.group(2) else m.group(0))
        at = m.end()
    name = "".join(out)
    if encode_identifier(name) != text:  # @0041 for "A": never written, so never read
        raise ValueError(f"{text!r} is not an encoded name (not the shortest form)")
    return name


def truth_stem(database: str, table: str) -> str:
    """``<encoded database>.<encoded table>``: the file name without its suffix."""
    return f"{encode_identifier(database)}.{encode_identifier(table)}"


def truth_file(database: str, table: str, suffix: str) -> str:
    """The file name of a table's truth with ``suffix`` (``.jsonl``, ``.parquet``);
    ValueError when it is longer than :data:`NAME_MAX` bytes."""
    name = truth_stem(database, table) + suffix
    if len(name.encode("utf-8")) > NAME_MAX:
        raise ValueError(f"the truth file name of table {database}.{table} would be {len(name)} bytes, "
                         f"over the {NAME_MAX} a file name may have (docs/output.md \"Truth file names\")")
    return name


def too_long(database: str, table: str) -> bool:
    """Whether a table's truth files cannot be named (:func:`truth_file` would refuse)."""
    return len(truth_stem(database, table)) + len(LONGEST_SUFFIX) > NAME_MAX


def truth_table(file_name: str, suffix: str) -> tuple[str, str]:
    """``(database, table)`` of a truth file name :func:`truth_file` made with ``suffix``
    (a base name, not a path); ValueError for a name it does not make."""
    if not file_name.endswith(suffix):
        raise ValueError(f"{file_name!r} does not end with {suffix!r}")
    stem = file_name[:len(file_name) - len(suffix)]
    if stem.count(".") != 1:
        raise ValueError(f"{file_name!r} is not a truth file name (<database>.<table>{suffix})")
    db, table = stem.split(".")
    return decode_identifier(db), decode_identifier(table)
