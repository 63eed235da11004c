"""FOREIGN KEY constraints of a custom schema (``--schema FILE.sql``): child rows that reference
live parent rows, in every replay with ``foreign_key_checks=1`` (docs/generate.md).

The rule keeps the generator's purity (a row is a function of its key; generators/rows.py):

* a child's FOREIGN KEY columns are derived from the child's key alone: child key ``k``
  references the parent's *initial* key ``p = hash(seed, child, constraint, k) % initial``,
  and holds the parent's key-column values of ``p`` (the same functions the parent's rows use);
  being key-derived, they are never updated;
* a table that any FOREIGN KEY references never DELETEs its initial rows (those DELETEs are
  skipped; rows it INSERTs later may be deleted — no child references them), and its key
  columns never change, so no child is ever left dangling — under ``ON DELETE RESTRICT`` /
  ``NO ACTION`` as well as ``CASCADE`` / ``SET NULL``, which then never fire;
* tables are created, and their initial rows inserted, parents first (a cycle between
  different tables is a SchemaError). A self-referencing key points at an earlier initial
  key (so initial rows insert in key order), the first row at itself.

Limits (SchemaError naming table.column): the referenced columns must be the parent's
PRIMARY KEY or a UNIQUE key of whole columns, and the child's FOREIGN KEY columns may not
make up a whole PRIMARY/UNIQUE key of the child on their own (a 1:1 child table), since
referencing initial parents only would then run out of distinct values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table
from generators.hashing import hash64, hash64_array, salt
from generators.key_space import counts_up, key_wraps
from generators.values import key_generator, key_vector_generator

__all__ = ["ForeignKey", "parse_foreign_keys", "apply_foreign_keys"]


@dataclass(frozen=True)
class ForeignKey:
    """``child(columns) REFERENCES parent(parent_columns)``; tables as (database, name)."""

    child: tuple[str, str]
    columns: tuple[str, ...]
    parent: tuple[str, str]
    parent_columns: tuple[str, ...]
    name: str


def _where(t: Table, column: str | None = None) -> str:
    return f"{t.database}.{t.name}" + (f".{column}" if column else "")


def parse_foreign_keys(create_sql: str, table: Table) -> list[ForeignKey]:
    """The FOREIGN KEY constraints of one CREATE TABLE (table-level ``FOREIGN KEY`` clauses and
    column-level ``REFERENCES``, which MariaDB enforces too), parsed with sqlglot."""
    if "REFERENCES" not in create_sql.upper():
        return []
    try:
        tree = sqlglot.parse_one(create_sql, read="mysql")
    except sqlglot.errors.ParseError as exc:
        raise SchemaError(f"cannot parse the FOREIGN KEY clauses of {_where(table)}: {exc}") from None
    out: list[ForeignKey] = []
    for n, ref in enumerate(tree.find_all(exp.Reference)):
        owner = ref.parent
        if isinstance(owner, exp.ForeignKey):
            cols = tuple(e.name for e in owner.expressions)
            cons = owner.parent if isinstance(owner.parent, exp.Constraint) else None
            name = cons.name if cons is not None and cons.name else f"fk{n}"
        elif isinstance(owner, exp.ColumnConstraint) and isinstance(owner.parent, exp.ColumnDef):
            cols = (owner.parent.name,)
            name = f"{owner.parent.name}_ref"
        else:
            continue
        target = ref.this
        schema_cols = tuple(e.name for e in target.expressions) if isinstance(target, exp.Schema) else ()
        tab = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(tab, exp.Table) or not schema_cols:
            raise SchemaError(f"{_where(table)}: FOREIGN KEY {name} needs REFERENCES table (columns)")
        parent = (tab.db or table.database, tab.name)
        if len(cols) != len(schema_cols):
            raise SchemaError(f"{_where(table)}: FOREIGN KEY {name} has {len(cols)} columns but references "
                              f"{len(schema_cols)}")
        for c in cols:
            table.column(c)  # SchemaError naming the column when it does not exist
        out.append(ForeignKey((table.database, table.name), tuple(table.column(c).name for c in cols),
                              parent, schema_cols, name))
    return out


def _key_sets(t: Table) -> list[tuple[str, ...]]:
    """Column-name sets of the table's PRIMARY KEY and UNIQUE keys of whole columns."""
    out = []
    pk = t.primary_key
    for k in ([pk] if pk is not None else []) + list(t.unique_keys):
        if all(not p.prefix for p in k.parts):
            out.append(tuple(t.column(p.column).name for p in k.parts))
    return out


def _order(defs: Sequence[Any], fks: dict[tuple[str, str], list[ForeignKey]]) -> list[Any]:
    """Parents before children (stable: schema order otherwise); SchemaError on a cycle."""
    by = {(d.table.database, d.table.name): d for d in defs}
    done: dict[tuple[str, str], int] = {}  # 1 = visiting, 2 = placed
    out: list[Any] = []

    def visit(key: tuple[str, str], path: list[str]) -> None:
        if done.get(key) == 2:
            return
        if done.get(key) == 1:
            raise SchemaError("FOREIGN KEYs form a cycle between tables: " + " -> ".join(path + [".".join(key)]))
        done[key] = 1
        for fk in fks.get(key, []):
            if fk.parent != key:
                visit(fk.parent, path + [".".join(key)])
        done[key] = 2
        out.append(by[key])

    for d in defs:
        visit((d.table.database, d.table.name), [])
    return out


def _value_fn(tdef: Any, column: str, flavor: str) -> Callable[[int], Any]:
    """The function ``key -> value`` the parent's rows use for one of its key columns
    (generators/rows.py: the workload's key_fns, else values.key_generator)."""
    t = tdef.table
    name = t.column(column).name
    if name in tdef.key_fns:
        return tdef.key_fns[name]
    ci = t.index_of(name)
    primary = counts_up(t, ci, tdef.key_caps)
    fn = key_generator(t.columns[ci], flavor, t.name, primary)
    cap = key_wraps(t, flavor, tdef.key_fns, tdef.key_caps)[1].get(ci)  # as the parent's rows wrap it
    return fn if cap is None else (lambda k: fn(k % cap))


def _value_vec(tdef: Any, column: str, flavor: str) -> Callable[[np.ndarray], Any] | None:
    """:func:`_value_fn` for many keys at once (``keys -> Vec | list``, the twin
    generators/rows.py takes for a key column), or None when the parent's column has none."""
    t = tdef.table
    name = t.column(column).name
    if name in tdef.key_fns:
        return getattr(tdef.key_fns[name], "vec", None)
    ci = t.index_of(name)
    primary = counts_up(t, ci, tdef.key_caps)
    col = t.columns[ci]
    vec = key_vector_generator(col, primary) or getattr(key_generator(col, flavor, t.name, primary), "vec", None)
    cap = key_wraps(t, flavor, tdef.key_fns, tdef.key_caps)[1].get(ci)  # as the parent's rows wrap it
    return vec if vec is None or cap is None else (lambda keys: vec(keys % cap))


def apply_foreign_keys(defs: list[Any], create_sqls: Sequence[str], *, seed: int, flavor: str,
                       initial_rows: int) -> list[Any]:
    """Give the children of ``defs`` (custom-schema TableDefs, with their CREATE TABLE texts)
    key-derived FOREIGN KEY columns, mark referenced tables ``keep_initial`` and return the
    TableDefs parents first (module docstring)."""
    fks: dict[tuple[str, str], list[ForeignKey]] = {}
    for d, sql in zip(defs, create_sqls, strict=True):
        found = parse_foreign_keys(sql, d.table)
        if found:
            fks[(d.table.database, d.table.name)] = found
    if not fks:
        return list(defs)
    by = {(d.table.database, d.table.name): d for d in defs}
    for key, found in fks.items():
        child = by[key].table
        for fk in found:
            parent = by.get(fk.parent)
            if parent is None:
                raise SchemaError(f"{_where(child, fk.columns[0])}: FOREIGN KEY {fk.name} references "
                                  f"{'.'.join(fk.parent)}, which is not in the schema")
            pcols = tuple(parent.table.column(c).name for c in fk.parent_columns)
            if not any(set(pcols) == set(ks) for ks in _key_sets(parent.table)):
                raise SchemaError(f"{_where(child, fk.columns[0])}: FOREIGN KEY {fk.name} references "
                                  f"{_where(parent.table)} ({', '.join(pcols)}), which is not its PRIMARY KEY "
                                  f"or a UNIQUE key; the generator supports only those")
            for ks in _key_sets(child):
                if set(ks) <= set(fk.columns):
                    raise SchemaError(f"{_where(child, fk.columns[0])}: the FOREIGN KEY {fk.name} columns make up "
                                      f"a whole PRIMARY/UNIQUE key of the table; the generator cannot keep "
                                      f"them unique (docs/generate.md, foreign keys)")
    ordered = _order(defs, fks)
    for d in ordered:  # parents first: a parent's key_fns are final before its children read them
        for fk in fks.get((d.table.database, d.table.name), []):
            parent = by[fk.parent]
            parent.keep_initial = True
            self_ref = fk.parent == fk.child
            fns = [_value_fn(parent, c, flavor) for c in fk.parent_columns]
            vecs = [_value_vec(parent, c, flavor) for c in fk.parent_columns]
            nullable = all(d.table.column(c).nullable for c in fk.columns)
            if initial_rows < 1 and not self_ref and not nullable:
                raise SchemaError(f"{_where(d.table, fk.columns[0])}: FOREIGN KEY {fk.name} needs initial "
                                  f"rows in {'.'.join(fk.parent)} to reference (--initial-rows >= 1), "
                                  f"or nullable columns")
            h = salt(seed, d.table.name, "foreign-key", fk.name)
            for j, c in enumerate(fk.columns):
                d.key_fns[d.table.column(c).name] = _reference(h, fns[j], initial_rows, self_ref, vecs[j])
    return ordered


def _reference(h: int, value: Callable[[int], Any], initial: int, self_ref: bool,
               value_vec: Callable[[np.ndarray], Any] | None = None) -> Callable[[int], Any]:
    """``child key -> referenced column value`` (None = NULL, only without initial parents, the
    columns being nullable). A self-reference points at an earlier initial key, or at the row
    itself when there is none (InnoDB checks a row's own key after inserting it). With the
    parent value's twin ``value_vec``, ``fn.vec(keys)`` gives the values of many child keys:
    the parent keys by ``hash64_array`` (``hash64`` elementwise), their values by the twin
    (tests/generators/test_foreign_keys.py holds it to ``fn``)."""
    def fn(k: int) -> Any:
        n = min(k, initial) if self_ref else initial
        if n < 1:
            return value(k) if self_ref else None
        return value(hash64(h, k) % n)

    def vec(keys: np.ndarray) -> Any:
        keys = np.asarray(keys, dtype=np.int64)
        n = np.minimum(keys, initial) if self_ref else np.full(len(keys), initial, dtype=np.int64)
        if len(n) and int(n.min()) < 1:  # a row of its own, or NULL: the scalar rule
            return [fn(k) for k in keys.tolist()]
        return value_vec((hash64_array(h, keys) % n.astype(np.uint64)).astype(np.int64))

    if value_vec is not None:
        fn.vec = vec  # type: ignore[attr-defined]
    return fn
