"""The replica's rows of one table: WL#5092 row lookup and unique-key checks (MariaDB 10.11).

Row lookup of an UPDATE / DELETE (``Rows_log_event::find_row`` and ``find_key``,
sql/log_event_server.cc), on the before image mapped and converted onto the replica's
columns (columns the image does not carry hold their defaults, as the record the server
unpacks into does):

1. the replica has a PRIMARY KEY: the row with that key value. Under ``binlog_row_image``
   MINIMAL / NOBLOB the image holds the *primary's* key, so a replica keyed differently does
   not find it: error 1032, ``HA_ERR_KEY_NOT_FOUND``;
2. else a UNIQUE key of NOT NULL columns all in the image: the row with that value;
3. else a scan for a row equal to the unpacked record in *every* column: a MINIMAL image
   (the key alone) of a table without a key on the replica matches no row whose other
   columns are not NULL: error 1032, ``HA_ERR_END_OF_FILE``.

Writes (``handler::ha_write_row`` / ``ha_update_row``): a row whose PRIMARY or UNIQUE key value
(NULLs never collide; strings compared as their collation does, ``_ci`` case-insensitively
and trailing spaces ignored) is already another row's stops with error 1062 — converted keys
collide, e.g. two BIGINT values clamped to an INT's 2147483647.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from binlogwriter.schema import Column, Key, Table
from generators.replica.columns import FLAVOR


def _norm(col: Column, v: Any) -> Any:
    if isinstance(v, dict):
        return ("hex", v["hex"])
    if isinstance(v, str):
        coll = col.collation_obj(FLAVOR)
        v = v.rstrip(" ")
        if coll is not None and coll.name.endswith("_ci"):
            return v.casefold()
    return v


def _key_name(table: Table, key: Key) -> str:
    if key.kind == "PRIMARY":
        return "PRIMARY"
    if key.name:
        return key.name
    first = key.parts[0].column
    names = [k.name for k in table.keys if k.name]
    name, n = first, 2
    while name in names:
        name, n = f"{first}_{n}", n + 1
    return name


def _entry(v: Any) -> str:
    if isinstance(v, dict):
        return bytes.fromhex(v["hex"]).decode("utf-8", "replace")
    return str(v)


class Missing(Exception):
    """Row not found: ``handler`` is the handler error the server names."""

    def __init__(self, handler: str) -> None:
        super().__init__(handler)
        self.handler = handler


class Duplicate(Exception):
    """A unique key's value is another row's: ``entry`` and ``key`` as error 1062 names them."""

    def __init__(self, entry: str, key: str) -> None:
        super().__init__(entry, key)
        self.entry, self.key = entry, key


class ReplicaTable:
    """The rows (dicts by replica column name, canonical values) of one replica table."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.cols = {c.name: c for c in table.columns}
        self.rows: dict[int, dict[str, Any]] = {}
        self._next = 0
        self.undo: list[tuple[str, int, dict[str, Any] | None]] = []  # (add | remove, row id, row removed)
        self.unique = [k for k in table.keys if k.kind in ("PRIMARY", "UNIQUE")]
        self.index: list[dict[tuple, int]] = [{} for _ in self.unique]

    def redefine(self, table: Table, fill: dict[str, Any]) -> None:
        """The table after an ALTER: every row keeps the columns that remain, takes ``fill``
        for the added ones (their default); keys are rebuilt."""
        names = [c.name for c in table.columns]
        rows = {rid: {n: row.get(n, fill.get(n)) for n in names} for rid, row in self.rows.items()}
        nxt = self._next
        self.__init__(table)  # type: ignore[misc]
        self._next = nxt
        for rid, row in rows.items():
            self._add(rid, row, log=False)

    def _kv(self, key: Key, row: dict[str, Any]) -> tuple | None:
        vals = tuple(_norm(self.cols[p.column], row[p.column]) for p in key.parts)
        return None if any(v is None for v in vals) else vals

    def _check(self, row: dict[str, Any], rid: int | None) -> None:
        for key, idx in zip(self.unique, self.index, strict=True):
            kv = self._kv(key, row)
            if kv is not None and idx.get(kv, rid) != rid:
                raise Duplicate("-".join(_entry(row[p.column]) for p in key.parts), _key_name(self.table, key))

    def rollback(self, mark: int) -> None:
        """Undo every row change since :attr:`undo` had ``mark`` entries (a transaction the
        replica rolls back when it stops: InnoDB applies none of it)."""
        while len(self.undo) > mark:
            op, rid, row = self.undo.pop()
            if op == "add":
                self._remove(rid, log=False)
            else:
                self._add(rid, row, log=False)

    def _add(self, rid: int, row: dict[str, Any], log: bool = True) -> None:
        if log:
            self.undo.append(("add", rid, None))
        self.rows[rid] = row
        for key, idx in zip(self.unique, self.index, strict=True):
            kv = self._kv(key, row)
            if kv is not None:
                idx[kv] = rid

    def _remove(self, rid: int, log: bool = True) -> dict[str, Any]:
        row = self.rows.pop(rid)
        if log:
            self.undo.append(("remove", rid, row))
        for key, idx in zip(self.unique, self.index, strict=True):
            kv = self._kv(key, row)
            if kv is not None and idx.get(kv) == rid:
                del idx[kv]
        return row

    def insert(self, row: dict[str, Any]) -> None:
        self._check(row, None)
        self._add(self._next, row)
        self._next += 1

    def find(self, record: dict[str, Any], image: set[str]) -> int:
        """The row id the server finds for the unpacked before ``record`` (image columns in ``image``)."""
        for n, key in enumerate(self.unique):
            cols = [p.column for p in key.parts]
            if key.kind == "PRIMARY" or (all(c in image for c in cols)
                                         and all(not self.cols[c].nullable for c in cols)):
                kv = self._kv(key, record)
                rid = None if kv is None else self.index[n].get(kv)
                if rid is None:
                    raise Missing("HA_ERR_KEY_NOT_FOUND")
                return rid
        want = {c: _norm(self.cols[c], v) for c, v in record.items()}
        for rid, row in self.rows.items():
            if all(_norm(self.cols[c], row[c]) == v for c, v in want.items()):
                return rid
        raise Missing("HA_ERR_END_OF_FILE")

    def update(self, rid: int, changes: dict[str, Any]) -> None:
        new = {**self.rows[rid], **changes}
        self._check(new, rid)
        self._remove(rid)
        self._add(rid, new)

    def delete(self, rid: int) -> None:
        self._remove(rid)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows.values())
