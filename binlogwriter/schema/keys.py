"""Keys of a table (part of the model, binlogwriter/schema/model.py re-exports them): a
:class:`Key` (PRIMARY / UNIQUE / INDEX) of :class:`KeyPart` s, each a column name and an
optional prefix length. Kept apart so that the parsers (which produce keys) need not import
the model (which calls the parser for :meth:`Table.from_sql`)."""

from __future__ import annotations

from dataclasses import dataclass

from binlogwriter.errors import SchemaError

__all__ = ["Key", "KeyPart", "Check"]


@dataclass(frozen=True)
class KeyPart:
    """One key part: a column and an optional prefix length in characters (bytes for binary)."""

    column: str
    prefix: int | None = None


@dataclass(frozen=True)
class Key:
    """PRIMARY KEY / UNIQUE / other index (format.md §12.1 primary key choice). FULLTEXT and
    SPATIAL indexes are neither unique nor PKE candidates; they need no prefix length on
    TEXT / GEOMETRY columns (MySQL 8.0 reference "CREATE INDEX": "prefixes are not supported
    for FULLTEXT indexes"; a SPATIAL index indexes the whole value)."""

    kind: str  # "PRIMARY" | "UNIQUE" | "INDEX" | "FULLTEXT" | "SPATIAL"
    parts: tuple[KeyPart, ...]
    name: str | None = None
    period: str | None = None
    """MariaDB's ``period WITHOUT OVERLAPS`` last part (an application-time period's name):
    rows equal in the other parts must have periods that do not overlap; ``parts`` end with
    the period's end and start columns, as the server's index does."""

    def __post_init__(self) -> None:
        parts = tuple(p if isinstance(p, KeyPart) else
                      (KeyPart(*p) if isinstance(p, tuple) else KeyPart(p)) for p in self.parts)
        object.__setattr__(self, "parts", parts)
        object.__setattr__(self, "kind", self.kind.upper())
        if self.kind not in ("PRIMARY", "UNIQUE", "INDEX", "FULLTEXT", "SPATIAL"):
            raise SchemaError(f"unknown key kind {self.kind!r}")

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(p.column for p in self.parts)


@dataclass(frozen=True)
class Check:
    """A CHECK constraint as declared: column-level (``a INT CHECK (a > 0)``: ``column`` set)
    or table-level (``[CONSTRAINT name] CHECK (expr)``). ``sql`` is the expression's text
    without its outer parentheses. MySQL 8.0.16+ and MariaDB 10.2+ refuse a row that makes
    it FALSE (ERROR 3819 / 4025); ``NOT ENFORCED`` ones (MySQL) are not kept. Nothing of it
    reaches a binlog: the generator reads it to make rows the server accepts."""

    name: str | None
    sql: str
    column: str | None = None
