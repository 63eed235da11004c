"""File names of a table's ground truth (``truth/final/<db>.<table>.jsonl``,
``truth/final/parquet/<db>.<table>.parquet``, ``truth/changes/<db>.<table>.parquet``,
``truth/replica/final/<db>.<table>.jsonl``): the one place that makes them from a
(database, table) pair, and reads the pair back (docs/output.md "Truth file names").

A quoted identifier may hold any character but NUL (``a/b``, ``a.b``, ``..``, spaces,
non-ASCII), and on Linux with ``lower_case_table_names=0`` ``users`` and ``Users`` are two
tables. The name of a table's file is

    <encoded database>.<encoded table><suffix>

where each name keeps its characters but for the few a file name cannot hold or our rule
needs (MySQL / MariaDB's data directory encodes identifiers in a like way, ``a/b`` as
``a@002fb``): ``/``, ``\\``, ``.``, ``@``, the control characters (U+0000 to U+001F, U+007F)
are ``@`` + the code point as four lower-case hex digits (``/`` → ``@002f``, ``.`` →
``@002e``, ``@`` → ``@0040``). Everything else stays as it is — letters of any script, digits,
``_``, ``$``, ``-``, spaces (``test.café``, ``test.用户``), so every name the truth had before
this rule keeps its bytes unless it held one of those characters; case is kept (``test.users``
and ``test.Users`` are two files).

The encoded name holds exactly one ``.`` (the separator: ``.`` in a name is ``@002e``), so
a database whose name holds a dot stays apart from a table whose name does. Distinct pairs
get distinct names (the encoding is injective) and :func:`truth_table` gives the pair back.
A file name over :data:`NAME_MAX` bytes (UTF-8; long names of escaped or non-ASCII
characters) cannot be created on Linux: :func:`truth_file` raises ValueError, and
``generate`` refuses such a schema up front (:func:`too_long`).
"""

from __future__ import annotations

import re

__all__ = ["encode_identifier", "decode_identifier", "truth_stem", "truth_file", "truth_table", "too_long",
           "NAME_MAX", "LONGEST_SUFFIX"]

NAME_MAX = 255
"""Longest file name (bytes) of Linux file systems (ext4, xfs, btrfs, tmpfs)."""

LONGEST_SUFFIX = ".parquet"
"""The longest suffix a truth file of a table has (``.jsonl`` is shorter)."""

_ESCAPED = frozenset("/\\.@\x7f" + "".join(map(chr, range(0x20))))
_UNIT = re.compile(r"[^/\\.@\x00-\x1f\x7f]|@([0-9a-f]{4})")


def encode_identifier(name: str) -> str:
    """One database or table name as it appears in a truth file name (module docstring)."""
    if _ESCAPED.isdisjoint(name):
        return name
    return "".join(f"@{ord(c):04x}" if c in _ESCAPED else c for c in name)


def decode_identifier(text: str) -> str:
    """The name :func:`encode_identifier` encoded to ``text``; ValueError for text it does
    not produce."""
    out, at = [], 0
    while at < len(text):
        m = _UNIT.match(text, at)
        if m is None:
            raise ValueError(f"{text!r} is not an encoded name (at {at})")
        out.append(chr(int(m.group(1), 16)) if m.group(1) else m.group(0))
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
    return len(truth_stem(database, table).encode("utf-8")) + len(LONGEST_SUFFIX) > NAME_MAX


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
