"""Tables made from Python rather than from SQL: :func:`build_table` (columns and key column
names) and :func:`column_from_info` (a column description back to a Column)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from binlogwriter.schema.keys import Key, KeyPart
from binlogwriter.schema.model import Column, Table

__all__ = ["build_table", "column_from_info"]


def build_table(database: str, name: str, columns: Iterable[Column],
                primary_key: Sequence[str | tuple[str, int | None]] = (),
                unique_keys: Sequence[Sequence[str | tuple[str, int | None]]] = (),
                keys: Sequence[Sequence[str | tuple[str, int | None]]] = (),
                charset: str | None = None, collation: str | None = None,
                flavor: str = "mysql80") -> Table:
    """Convenience constructor: keys as column names or (name, prefix) tuples."""
    def mk(kind: str, parts: Sequence[str | tuple[str, int | None]]) -> Key:
        return Key(kind, tuple(KeyPart(p) if isinstance(p, str) else KeyPart(*p) for p in parts))

    ks = ([mk("PRIMARY", primary_key)] if primary_key else []) + \
        [mk("UNIQUE", u) for u in unique_keys] + [mk("INDEX", k) for k in keys]
    return Table(database, name, tuple(columns), tuple(ks), charset, collation, flavor=flavor)


def column_from_info(info: Mapping[str, Any]) -> Column:
    """A column description (``manifest.json`` ``column_types``, the truth Parquet metadata:
    generators/changes_arrow.py ``column_info``) back to a Column (for comparing values in
    canonical form)."""
    names = {f.name for f in dataclasses.fields(Column)}
    return Column(**{k: (tuple(v) if k == "members" else v) for k, v in info.items() if k in names})
