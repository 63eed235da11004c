"""The contract between column descriptions and value codecs (values.md §1).

A value codec turns one Python value into the bytes of one column in a row image and back.
What it needs to know about the column is a :class:`ColumnDesc`: the binlog type code and
raw metadata bytes exactly as the Table_map carries them, plus what only the schema (or the
Table_map's optional metadata) knows: signedness, collation, ENUM/SET members, and for
MariaDB's old "hires" temporals the fsp that the binlog does not carry.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ColumnDesc", "ABSENT"]


class _Absent:
    """Marker for a column that is not in a (partial) row image — not the same as NULL."""

    _inst = None

    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self):
        return (_Absent, ())


ABSENT = _Absent()


@dataclass(frozen=True, slots=True)
class ColumnDesc:
    """One column as a value codec sees it.

    ``type_code`` and ``meta`` are the Table_map's column type byte and that column's
    metadata bytes (0–2 bytes, values.md §1). ``collation`` None means "unknown" (strings
    then decode to bytes). ``enum_values``/``set_values`` None means "unknown" (ENUM/SET
    then decode to their index / bitmask integers). ``fsp`` is only used for MariaDB old
    temporal types 7/11/12 whose fractional size is not in the binlog (values.md §4.1).
    ``table``/``name`` are used in error messages only.
    """

    type_code: int
    meta: bytes = b""
    unsigned: bool = False
    collation: int | None = None
    enum_values: tuple[str, ...] | None = None
    set_values: tuple[str, ...] | None = None
    fsp: int | None = None
    nullable: bool = True
    name: str | None = None
    table: str | None = None
    flavor: str = "mysql80"
    json_text: bool = False
    """MariaDB JSON: a LONGTEXT utf8mb4_bin column (mariadb.md); Python JSON values (dict,
    list, numbers, bools) are accepted and stored as JSON text."""
