"""A table's generated key space: how many rows its PRIMARY and UNIQUE keys tell apart, and which
narrow key columns wrap around their own range (generators/values.py ``key_capacity`` per column).
The one rule for the rows of a table (generators/rows.py) and for the FOREIGN KEY references to
them (generators/foreign_keys.py): a reference must take the value the parent's row has."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from binlogwriter.schema import Table
from generators.values import key_capacity

__all__ = ["key_parts", "key_wraps", "counts_up", "column_capacity"]


def key_parts(t: Table) -> list[list[tuple[int, int]]]:
    """The table's PRIMARY key then each UNIQUE key, as ``(column index, prefix length or 0)``."""
    pk = t.effective_primary_key()
    return ([list(pk)] if pk else []) + [[(t.index_of(p.column), p.prefix or 0) for p in k.parts]
                                         for k in t.unique_keys]


def counts_up(t: Table, ci: int, bounded: Collection[str] = ()) -> bool:
    """Whether key column ``ci`` takes its family's counting key values (the ``primary`` form
    of generators/values.py ``key_generator``: ``key + 1`` for an integer) instead of values
    spread over its range: the one-column PRIMARY KEY, and a column held below a bound
    (``bounded``: a RANGE partitioning without MAXVALUE, TableDef.key_caps), whose first
    values must be the smallest. The one rule for a table's rows (generators/rows.py), the
    foreign keys referring to them (generators/foreign_keys.py) and the bound's key count
    (generators/workloads/custom.py)."""
    pk = t.effective_primary_key()
    return (len(pk) == 1 and pk[0][0] == ci) or t.columns[ci].name in bounded


def column_capacity(t: Table, ci: int, prefix: int, flavor: str, bounded: Mapping[str, int] | None = None) -> int:
    """How many keys key column ``ci`` (its key part's ``prefix``, 0 for the whole column)
    tells apart: its family's :func:`key_capacity`, at most ``bounded``'s count for it."""
    col = t.columns[ci]
    cap = key_capacity(col, flavor, prefix or None)
    return min(cap, bounded[col.name]) if bounded and col.name in bounded else cap


def key_wraps(t: Table, flavor: str, own_fns: Collection[str],
              bounded: Mapping[str, int] | None = None) -> tuple[int, dict[int, int]]:
    """``(capacity, wraps)`` of a table's generated keys: ``capacity`` is how many rows its
    PRIMARY and UNIQUE keys tell apart (the narrowest key, each key as wide as its widest part);
    ``wraps`` maps each key column whose own :func:`key_capacity` is below that to it: the column's
    values are made of the keys modulo it (a SMALLINT next to a BIGINT in one key wraps around its
    own range instead of leaving it). Columns named in ``own_fns`` (a workload's own key
    functions, foreign-key columns) never wrap and count as unbounded unless ``bounded`` names
    them (a key of FOREIGN KEY columns only, generators/foreign_keys.py ``_key_places``: the
    key tells that many rows apart); another column in ``bounded`` has at most that capacity
    (values below a RANGE partitioning's bound) and wraps there. The one rule for a table's
    rows (generators/rows.py) and for the foreign keys referring to them
    (generators/foreign_keys.py)."""
    caps: list[int] = []
    own: dict[int, int] = {}
    for parts in key_parts(t):
        cap_k = 0
        for ci, prefix in parts:
            col = t.columns[ci]
            if col.name in own_fns:  # never wraps; a cap bounds the key (a FOREIGN-KEY-only key)
                cap_k = max(cap_k, bounded.get(col.name, 1 << 62) if bounded else 1 << 62)
                continue
            cap_c = column_capacity(t, ci, prefix, flavor, bounded)
            own[ci] = min(own.get(ci, cap_c), cap_c)
            cap_k = max(cap_k, cap_c)
        caps.append(cap_k)
    capacity = min(caps) if caps else 1 << 62
    return capacity, {ci: cap for ci, cap in own.items() if cap < capacity}
