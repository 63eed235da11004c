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
* a PRIMARY / UNIQUE key of the child holding FOREIGN KEY columns (a link table's
  ``(film_id, actor_id)``, a 1:1 table's key, ``(post_id, kind TINYINT)``) stays unique:
  unless its other columns tell every row apart alone, the child key picks the parents'
  initial keys as the digits of one number (:func:`_key_places`), and the table holds at
  most as many rows as the key tells apart (its later INSERTs are skipped);
* tables are created, and their initial rows inserted, parents first. A cycle between
  different tables (a store's manager is staff, staff work in a store) is followed in the
  snapshot, which loads the tables with ``foreign_key_checks = 0`` — every reference is to
  an initial row, all loaded by then; it is a SchemaError with ``--ddl-in-binlog`` (tables
  created and filled in the binlog one after the other), and whenever a FOREIGN KEY in it
  refers to columns that are themselves a FOREIGN KEY. A self-referencing key points at an
  earlier initial key (so initial rows insert in key order), the first row at itself;
* a FOREIGN KEY to a table not in the file (a dump made with ``foreign_key_checks = 0``) of
  nullable columns is NULL in every row (not with ``--ddl-in-binlog``);
* a table has at most the initial rows its keys tell apart (a TINYINT key: 255;
  generators/workloads/custom.py), and a child references only those.

Limits (SchemaError naming table.column): the referenced columns must be the parent's
PRIMARY KEY or a UNIQUE key of whole columns; a key made unique by its FOREIGN KEY digits
must hold all the columns of the FOREIGN KEYs it meets, none of them a self-reference, and
several such keys must nest. A key holding part of a FOREIGN KEY (or a self-reference) beside
columns of its own (TPC-C's orders: ``(o_w_id, o_d_id, o_id)`` with a FOREIGN KEY ``(o_w_id,
o_d_id, o_c_id)``) is kept unique by those columns: the table is capped at what they tell
apart, the references drawn at random.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from binlogwriter.errors import SchemaError, first_line
from binlogwriter.schema import Table
from generators.fk_references import coprime, null_reference, place_reference, reference
from generators.hashing import salt
from generators.key_space import column_capacity, counts_up, key_parts, key_wraps
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
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:  # one line, never a traceback
        raise SchemaError(f"cannot parse the FOREIGN KEY clauses of {_where(table)}: {first_line(exc)}") from None
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


def _order(defs: Sequence[Any], fks: dict[tuple[str, str], list[ForeignKey]],
           in_binlog: bool) -> list[Any]:
    """Parents before children (stable: schema order otherwise). A cycle between tables is
    followed when no FOREIGN KEY in it refers to columns that are themselves a FOREIGN KEY of
    the parent (its values would need the child's, made later): the snapshot loads every
    table with ``foreign_key_checks = 0`` and the references point at initial rows, which all
    exist by then (its tables come in the order met, a back edge left out). With ``in_binlog``
    (``--ddl-in-binlog``: tables created and filled in the binlog one after the other) a
    cycle is a SchemaError, and so is the other kind always."""
    by = {(d.table.database, d.table.name): d for d in defs}
    done: dict[tuple[str, str], int] = {}  # 1 = visiting, 2 = placed
    out: list[Any] = []

    def derived(fk: ForeignKey) -> bool:  # the referenced columns are a FOREIGN KEY of the parent
        own = {c.lower() for f in fks.get(fk.parent, []) for c in f.columns}
        return any(c.lower() in own for c in fk.parent_columns)

    def visit(key: tuple[str, str], path: list[tuple[str, ForeignKey]]) -> None:
        if done.get(key) == 2:
            return
        if done.get(key) == 1:
            names = [n for n, _ in path]
            ring = path[names.index(".".join(key)):]
            if in_binlog or any(derived(fk) for _, fk in ring):
                why = ("; with --ddl-in-binlog the tables are created and filled one after the other"
                       if in_binlog and not any(derived(fk) for _, fk in ring) else "")
                raise SchemaError("FOREIGN KEYs form a cycle between tables: "
                                  + " -> ".join(names + [".".join(key)]) + why)
            return
        done[key] = 1
        for fk in fks.get(key, []):
            if fk.parent != key:
                visit(fk.parent, path + [(".".join(key), fk)])
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


def apply_foreign_keys(defs: list[Any], parsed: Sequence[list[ForeignKey]], *, seed: int, flavor: str,
                       in_binlog: bool = False) -> list[Any]:
    """Give the children of ``defs`` (custom-schema TableDefs with their ``initial_count``, each
    at most what its keys hold; ``parsed``: each one's :func:`parse_foreign_keys`) key-derived
    FOREIGN KEY columns, mark referenced tables ``keep_initial`` and return the TableDefs
    parents first (module docstring). A child whose FOREIGN-KEY-only keys tell fewer rows
    apart gets fewer initial rows."""
    fks: dict[tuple[str, str], list[ForeignKey]] = {}
    for d, found in zip(defs, parsed, strict=True):
        found = list(found)  # the caller's list stays as parsed
        if found:
            fks[(d.table.database, d.table.name)] = found
    if not fks:
        return list(defs)
    by = {(d.table.database, d.table.name): d for d in defs}
    for key, found in fks.items():
        child = by[key].table
        for fk in list(found):
            parent = by.get(fk.parent)
            if parent is None:
                if in_binlog or not all(child.column(c).nullable for c in fk.columns):
                    raise SchemaError(f"{_where(child, fk.columns[0])}: FOREIGN KEY {fk.name} references "
                                      f"{'.'.join(fk.parent)}, which is not in the schema (one of nullable "
                                      f"columns would be kept NULL, but not with --ddl-in-binlog)")
                found.remove(fk)  # a dump made with foreign_key_checks=0: NULL in every row
                for c in fk.columns:
                    by[key].key_fns[child.column(c).name] = null_reference()
                continue
            pcols = tuple(parent.table.column(c).name for c in fk.parent_columns)
            if not any(set(pcols) == set(ks) for ks in _key_sets(parent.table)):
                raise SchemaError(f"{_where(child, fk.columns[0])}: FOREIGN KEY {fk.name} references "
                                  f"{_where(parent.table)} ({', '.join(pcols)}), which is not its PRIMARY KEY "
                                  f"or a UNIQUE key; the generator supports only those")
    ordered = _order(defs, fks, in_binlog)
    for d in ordered:  # parents first: a parent's key_fns are final before its children read them
        found = fks.get((d.table.database, d.table.name), [])
        places, span, caps, nulled = _key_places(d.table, found,
                                                 {fk.name: by[fk.parent].initial_count for fk in found},
                                                 flavor, d.key_caps, d.key_fns)
        d.key_caps.update(caps)  # the child keys its keys with FOREIGN KEY columns tell apart
        if caps:
            d.initial_count = min(d.initial_count, *caps.values())
        mult = coprime(span) if places else 1
        for fk in found:
            parent = by[fk.parent]
            parent.keep_initial = True
            self_ref = fk.parent == fk.child
            initial = parent.initial_count
            fns = [_value_fn(parent, c, flavor) for c in fk.parent_columns]
            vecs = [_value_vec(parent, c, flavor) for c in fk.parent_columns]
            nullable = all(d.table.column(c).nullable for c in fk.columns)
            if initial < 1 and not self_ref and not nullable:
                raise SchemaError(f"{_where(d.table, fk.columns[0])}: FOREIGN KEY {fk.name} needs initial "
                                  f"rows in {'.'.join(fk.parent)} to reference (--initial-rows >= 1), "
                                  f"or nullable columns")
            h = salt(seed, d.table.name, "foreign-key", fk.name)
            for j, c in enumerate(fk.columns):
                if fk.name in nulled:
                    ref = null_reference()
                elif fk.name in places:
                    ref = place_reference(h, fns[j], initial, places[fk.name], span, mult, vecs[j])
                else:
                    ref = reference(h, fns[j], initial, self_ref, vecs[j])
                d.key_fns[d.table.column(c).name] = ref
    return ordered


def _key_places(child: Table, found: list[ForeignKey], initial: dict[str, int], flavor: str,
                bounded: dict[str, int], own_fns: Any) -> tuple[dict[str, int], int, dict[str, int], set[str]]:
    """A PRIMARY / UNIQUE key holding FOREIGN KEY columns must stay unique, which references
    drawn at random would not keep unless the key's other columns tell every row apart alone:
    a link table's ``(film_id, actor_id)``, a 1:1 table's key, ``(post_id, kind TINYINT)``.
    There, the FOREIGN KEYs are digits: child key ``k`` is taken modulo ``span`` (the product
    of the parents' initial row counts, ``initial`` by FOREIGN KEY name, over the FOREIGN KEYs
    of the smallest such key), scrambled below it (a bijection) and written in mixed radix,
    one digit per FOREIGN KEY, each digit (plus an offset) the parent's initial key. The
    key's own columns take ``k`` modulo their capacity ``r`` (generators/key_space.py, the
    widest of them; 1 when there are none), so the key tells ``lcm(r, span)`` child keys
    apart: the table's rows are capped there (``caps``: that count for the key's FOREIGN KEY
    columns). A key whose own columns hold every generated row (``r`` unbounded) needs none
    of this. Returns each digit FOREIGN KEY's place value (the product of the bases before
    it, the smallest key's first), ``span`` and ``caps``. The keys must nest (each one's
    FOREIGN KEYs include the smaller one's) and hold every column of the FOREIGN KEYs they
    meet, none a self-reference; a key that does not nest but holds a FOREIGN KEY of nullable
    columns keeps that FOREIGN KEY NULL (returned in ``nulled``: a UNIQUE key never repeats
    a NULL); else a SchemaError. Nothing when a parent has no initial rows (the columns are
    then NULL, or refused)."""
    fk_cols = {c for fk in found for c in fk.columns}
    keyed: list[tuple[tuple[str, ...], list[ForeignKey], int]] = []
    caps: dict[str, int] = {}  # rows each FOREIGN KEY column's keys tell apart (own columns first)
    for parts in key_parts(child):
        ks = tuple(child.columns[ci].name for ci, _ in parts)
        meets = [fk for fk in found if set(fk.columns) & set(ks)]
        if not meets:
            continue
        own = [(ci, prefix) for ci, prefix in parts
               if child.columns[ci].name not in fk_cols and child.columns[ci].name not in own_fns]
        radix = max((column_capacity(child, ci, prefix, flavor, bounded) for ci, prefix in own), default=1)
        if radix >= 1 << 62:
            continue
        bad = next((fk for fk in meets if not set(fk.columns) <= set(ks) or fk.parent == fk.child), None)
        if bad is not None and radix > 1:  # its own columns tell ``radix`` rows apart: the table holds no more
            for c in ks:
                if c in fk_cols:
                    caps[c] = min(caps.get(c, radix), radix)
            continue
        if bad is not None:
            raise SchemaError(f"{_where(child, bad.columns[0])}: the FOREIGN KEY {bad.name} columns are part of "
                              f"a PRIMARY/UNIQUE key ({', '.join(ks)}) whose other columns cannot tell its rows "
                              f"apart alone, "
                              + ("and the FOREIGN KEY refers to the table itself" if bad.parent == bad.child
                                 else "but not all inside it")
                              + "; the generator cannot keep it unique (docs/generate.md, foreign keys)")
        keyed.append((ks, meets, radix))
    nulled: set[str] = set()
    if not keyed or min(initial[fk.name] for _, meets, _ in keyed for fk in meets) < 1:
        return {}, 0, caps, nulled
    keyed.sort(key=lambda x: len(x[1]))
    order: list[str] = []
    kept = []
    for key in keyed:
        names = [fk.name for fk in key[1]]
        if not set(order) <= set(names):
            spare = [fk for fk in key[1] if fk.name not in order and all(child.column(c).nullable for c in fk.columns)]
            if not spare:
                raise SchemaError(f"{_where(child)}: its PRIMARY/UNIQUE keys holding FOREIGN KEY columns do not "
                                  f"nest (each one's FOREIGN KEYs among the next one's); the generator cannot keep "
                                  f"them all unique (docs/generate.md, foreign keys)")
            nulled.add(spare[0].name)  # NULL in every row: a UNIQUE key never repeats a NULL
            continue
        order += [n for n in names if n not in order]
        kept.append(key)
    keyed = kept
    places, place = {}, 1
    for name in order:
        places[name] = place
        place = min(place * initial[name], 1 << 62)
    span = min(math.prod(initial[fk.name] for fk in keyed[0][1]), 1 << 62)
    for _, meets, radix in keyed:
        told = min(math.lcm(radix, span), 1 << 62)
        for c in (c for fk in meets for c in fk.columns):
            caps[c] = min(caps.get(c, told), told)
    return places, span, caps, nulled
