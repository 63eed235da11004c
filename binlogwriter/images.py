"""Which columns go in a rows event's before and after images (WL#5092 binlog_row_image).

PKE ("primary key equivalent"): the PRIMARY KEY, else the first UNIQUE key whose columns
are all NOT NULL, else none — format.md §12.1 promotion rule, mariadb.md "Row images"
table, docs/edge-cases.md 6–8.

| image   | INSERT (after)                       | UPDATE before / after                  | DELETE (before) |
| FULL    | all                                  | all / all                              | all             |
| MINIMAL | given columns + generated auto-inc   | PKE / assigned columns                 | PKE             |
| NOBLOB  | non-blob columns + given blobs       | non-blob + PKE / same + assigned blobs | non-blob + PKE  |

Without a PKE the before image holds every column. MariaDB then also writes every column
as the after image of MINIMAL and NOBLOB UPDATEs and INSERTs (mariadb.md: "MINIMAL, no PKE:
all / all"; "NOBLOB, no PKE: all"; a MariaDB 10.11 server logs ``INSERT INTO t (a) VALUES
(1)`` on a table without a key with every column, defaults included); MySQL keeps its after-image rule
(``TABLE::mark_columns_per_binlog_row_image`` widens only the read set). "Blob" is binlog
type 252 — TEXT/BLOB, and MariaDB's JSON (a LONGTEXT); MySQL's JSON (245) reports
MYSQL_TYPE_JSON and is kept, like GEOMETRY.

An image may hold no column at all: under MINIMAL, an INSERT that gives no value into a
table whose key columns all take their defaults (``INSERT INTO t () VALUES ()``, no
auto-increment). MariaDB 10.11 logs it as a rows event whose columns-present bitmap has no
bit set and no row bytes after it (docs/edge-cases.md 24); the
writer writes the same. Such a row is zero bytes long, so a rows event holds at most one
(the server can insert only one such row: its key is the default).
"""

from __future__ import annotations

from collections.abc import Iterable

from binlogwriter.errors import BinlogError

__all__ = ["ROW_IMAGES", "pke_columns", "insert_columns", "update_columns", "delete_columns", "is_blob"]

ROW_IMAGES = ("FULL", "MINIMAL", "NOBLOB")


def _check(image: str) -> str:
    im = image.upper()
    if im not in ROW_IMAGES:
        raise BinlogError(f"unknown binlog_row_image {image!r}; expected FULL, MINIMAL or NOBLOB")
    return im


def pke_columns(table) -> list[int] | None:
    """Column indexes of the primary key equivalent, or None when the table has none."""
    pk = table.effective_primary_key()
    return sorted(i for i, _ in pk) if pk else None


def is_blob(table, index: int, flavor: str) -> bool:
    """A BLOB/TEXT column for NOBLOB purposes: binlog type 252 (MySQL's JSON 245 is kept)."""
    return table.columns[index].binlog_type(flavor) == 252


def _mask(n: int, idx: Iterable[int]) -> tuple[bool, ...]:
    s = set(idx)
    return tuple(i in s for i in range(n))


def insert_columns(table, image: str, given: Iterable[int], flavor: str) -> tuple[bool, ...]:
    """After-image columns of an INSERT; ``given`` = columns the statement gives values to
    (plus any auto-increment value it generated)."""
    im = _check(image)
    n = len(table.columns)
    given = set(given)
    if im == "FULL":
        return (True,) * n
    if pke_columns(table) is None and flavor.startswith("mariadb"):
        return (True,) * n
    auto = {i for i, c in enumerate(table.columns) if c.auto_increment}
    if im == "MINIMAL":
        return _mask(n, given | auto)
    return _mask(n, {i for i in range(n) if not is_blob(table, i, flavor)} | given)


def update_columns(table, image: str, assigned: Iterable[int],
                   flavor: str) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """(before, after) image columns of an UPDATE assigning ``assigned`` columns."""
    im = _check(image)
    n = len(table.columns)
    assigned = set(assigned)
    if im == "FULL":
        return (True,) * n, (True,) * n
    pke = pke_columns(table)
    mariadb = flavor.startswith("mariadb")
    if pke is None:
        if mariadb:
            return (True,) * n, (True,) * n
        if im == "MINIMAL":
            return (True,) * n, _mask(n, assigned)
        return (True,) * n, _mask(n, {i for i in range(n) if not is_blob(table, i, flavor)} | assigned)
    if im == "MINIMAL":
        return _mask(n, pke), _mask(n, assigned)
    base = {i for i in range(n) if not is_blob(table, i, flavor)} | set(pke)
    return _mask(n, base), _mask(n, base | assigned)


def delete_columns(table, image: str, flavor: str) -> tuple[bool, ...]:
    """Before-image columns of a DELETE."""
    im = _check(image)
    n = len(table.columns)
    pke = pke_columns(table)
    if im == "FULL" or pke is None:
        return (True,) * n
    if im == "MINIMAL":
        return _mask(n, pke)
    return _mask(n, {i for i in range(n) if not is_blob(table, i, flavor)} | set(pke))
