"""``--schema FILE.sql``: any CREATE TABLE statements (other statements are ignored).

The statements are kept as written for ``truth/snapshot.sql``; a ``USE db`` or a
qualified name places a table in another database. Values follow the column types and
names (generators/values.py) and the spec's per-column generators. FOREIGN KEY
constraints are followed: children reference live parent rows and tables come parents
first (generators/foreign_keys.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Table
from binlogwriter.schema.alter import fold_alters
from binlogwriter.schema.lexer import split_commas, statement_spans, tokenize
from binlogwriter.truth_names import NAME_MAX, too_long
from generators.checks import check_overrides
from generators.errors import SpecError
from generators.foreign_keys import apply_foreign_keys, parse_foreign_keys
from generators.key_space import key_parts, key_wraps
from generators.partitions import partition_checks
from generators.spec import Spec
from generators.values import coerce, key_capacity, key_generator
from generators.workloads._ddl import parsed_tables
from generators.workloads.base import TableDef, WorkloadDef


def split_statements(sql: str) -> list[str]:
    """The statements of a script as the client sends them (binlogwriter/schema/lexer.py
    ``statement_spans``: quotes, comments and ``DELIMITER`` lines respected), each with its
    comments blanked and its ends stripped."""
    comments: list[tuple[int, int]] = []
    spans = statement_spans(sql, comments)
    out = []
    c = 0
    for a, b in spans:
        parts, at = [], a
        while c < len(comments) and comments[c][0] < b:
            s, e = comments[c]
            if s >= a:
                parts += [sql[at:s], " "]
                at = e
            c += 1
        parts.append(sql[at:b])
        text = "".join(parts).strip()
        if text:
            out.append(text)
    return out


_SPATIAL = frozenset("GEOMETRY POINT LINESTRING POLYGON MULTIPOINT MULTILINESTRING MULTIPOLYGON "
                     "GEOMETRYCOLLECTION GEOMCOLLECTION".split())


def column_srids(table: Table, sql: str) -> dict[str, int]:
    """The SRID of every spatial column of ``table`` whose definition in its CREATE TABLE
    ``sql`` declares one (MySQL's ``SRID n`` attribute), as a server stores it in every
    value (a MySQL 8 column with an SRID refuses a value of another). The table model does
    not keep the attribute, so it is read from the column's definition text: the column
    name (quoted or not) after ``(`` or ``,``, then its attributes up to the next ``,``."""
    out: dict[str, int] = {}
    for c in table.columns:
        if c.type not in _SPATIAL:
            continue
        name = re.escape(c.name)
        m = re.search(rf"[(,]\s*(?:`{name}`|{name})\s+[A-Za-z]+\b[^,]*?\bSRID\s+(\d+)",
                      sql, re.IGNORECASE)
        if m:
            out[c.name] = int(m.group(1))
    return out


def _refuse_without_overlaps(t: Table) -> None:
    """A MariaDB ``WITHOUT OVERLAPS`` key: rows equal in its other parts must have periods
    ``[start, end)`` that do not overlap, and every row start < end (MariaDB "Application-Time
    Periods"). The generator does not make such periods: refused, naming the clause."""
    for k in t.keys:
        if k.period is not None:
            others = [p.column for p in k.parts[:-2]]
            raise SchemaError(f"{k.kind} KEY ({', '.join([*others, k.period])} WITHOUT OVERLAPS) of table "
                              f"{t.database}.{t.name} cannot be followed by the generator: rows with the same "
                              f"{', '.join(others) or 'key'} would need periods that do not overlap (MariaDB "
                              f"application-time period, PERIOD FOR {k.period})")


def _refuse_fts_doc_id(t: Table) -> None:
    """InnoDB's own ``FTS_DOC_ID`` column beside a FULLTEXT index: every UPDATE of an indexed
    column must give the row a new, larger FTS_DOC_ID (else MariaDB ERROR 182 "Invalid InnoDB
    FTS Doc ID", MySQL the same rule, "InnoDB Full-Text Indexes"). The generator keeps a key
    column as it is: refused, naming the column."""
    if any(k.kind == "FULLTEXT" for k in t.keys):
        doc = next((c for c in t.columns if c.name.upper() == "FTS_DOC_ID"), None)
        if doc is not None:
            raise SchemaError(f"column {t.database}.{t.name}.{doc.name} beside a FULLTEXT index cannot be "
                              f"followed by the generator: InnoDB needs a new, larger FTS_DOC_ID on every UPDATE "
                              f"of the indexed columns")


def custom(spec: Spec) -> WorkloadDef:
    assert spec.schema_sql is not None
    tables = list(parsed_tables(spec.schema_sql, spec.database, spec.flavor, source=spec.schema_file or "--schema"))
    if not tables:
        raise SchemaError(f"--schema {spec.schema_file or ''}: no CREATE TABLE statement found".replace("  ", " "))
    defs = []
    final, sequences = _final_tables(tables, split_statements(fold_alters(spec.schema_sql, spec.database)),
                                     spec.database)
    for t, sql in final:
        if too_long(t.database, t.name):
            raise SchemaError(f"the names of table {t.database}.{t.name} are too long for its truth file name "
                              f"(over {NAME_MAX} bytes once encoded, docs/output.md \"Truth file names\") - at "
                              f"{t.database}.{t.name}")
        if any(c.generated for c in t.columns):
            col = next(c for c in t.columns if c.generated)
            raise SchemaError(f"generated columns (GENERATED ALWAYS AS …, AS (…) VIRTUAL / STORED, MariaDB's "
                              f"system-versioning row start / end) are not supported by the generator: the "
                              f"server computes their values - at {t.database}.{t.name}.{col.name}")
        _refuse_without_overlaps(t)
        _refuse_fts_doc_id(t)
        defs.append(TableDef(t, sql, initial_count=spec.initial_rows, srids=column_srids(t, sql)))
    parsed = [parse_foreign_keys(d.create_sql, d.table) for d in defs]
    for d, found in zip(defs, parsed, strict=True):  # before the foreign keys: a parent's key columns are final
        parts = partition_checks(d.table, d.create_sql)  # when its children read them
        if d.table.checks or parts:
            fk_cols = frozenset(c.lower() for fk in found for c in fk.columns)
            keyed = _key_columns(d, fk_cols)
            own = frozenset(c for c in keyed if c not in fk_cols)  # derived from this table's own key
            limits: dict[str, tuple[str, Any]] = {}
            gens = check_overrides(d.table, keyed, parts, _listable(d, fk_cols), limits, own)
            d.overrides.update(gens)
            d.checked = frozenset(gens)
            for cname, (kind, arg) in limits.items():  # e.g. a partitioned table's partitioning column in its key
                col = d.table.column(cname)
                if kind == "list":
                    d.key_fns[col.name] = listed_key([coerce(col, v, f"{d.table.name}.{col.name}") for v in arg])
                else:
                    d.key_caps[col.name] = _keys_below(d.table, col, *arg, spec.flavor)
            _listed_keys_apart(d, fk_cols)
    for d, found in zip(defs, parsed, strict=True):  # no more initial rows than the table's own keys tell
        fk_cols = {c for fk in found for c in fk.columns}  # apart (a TINYINT key: 255)
        d.initial_count = min(d.initial_count, key_wraps(d.table, spec.flavor, fk_cols | set(d.key_fns), d.key_caps)[0])
    defs = apply_foreign_keys(defs, parsed, seed=spec.seed, flavor=spec.flavor, in_binlog=spec.ddl_in_binlog)
    return WorkloadDef("custom", spec.database, defs, preamble=sequences)


def _final_tables(tables: list[Table], stmts: list[str],
                  database: str) -> tuple[list[tuple[Table, str]], list[tuple[str, str]]]:
    """The tables a script leaves (with their CREATE TABLE texts), as a server runs it: a
    ``CREATE TABLE IF NOT EXISTS`` of a table already made does nothing, ``CREATE OR REPLACE
    TABLE`` (MariaDB) and a CREATE after ``DROP TABLE`` make it anew, a table dropped and not
    made again is gone; a second plain CREATE of a table is the server's error ("Table
    already exists"), a SchemaError. Database and table names compare case-sensitively, as on
    a server with ``lower_case_table_names=0`` (Linux's default): ``users`` and ``Users`` are
    two tables. And its ``CREATE SEQUENCE`` statements (MariaDB), each
    with the database it runs in: ``snapshot.sql`` runs them before the tables, whose
    ``DEFAULT nextval(s)`` needs them. ``tables`` are the script's CREATE TABLEs in order
    (parse_tables), ``stmts`` its statements' texts."""
    live: dict[tuple[str, str], tuple[Table, str]] = {}
    sequences: list[tuple[str, str]] = []
    made = iter(tables)
    db = database
    for text in stmts:
        toks = tokenize(text)
        words = [t.upper for t in toks[:8]]
        if words[:1] == ["USE"] and len(toks) > 1:
            db = toks[1].text
        elif words[:1] == ["CREATE"] and "SEQUENCE" in words[1:4]:
            sequences.append((db, text))
        elif words[:1] == ["CREATE"] and "TABLE" in words[:4]:
            t = next(made, None)
            if t is None:
                raise SchemaError("--schema: could not match CREATE TABLE statements to the parsed tables")
            key = (t.database, t.name)
            if key in live:
                at = words.index("TABLE") + 1
                if words[at:at + 3] == ["IF", "NOT", "EXISTS"]:
                    continue
                if words[1:3] != ["OR", "REPLACE"]:
                    raise SchemaError(f"table {t.database}.{t.name} is defined twice (a second CREATE TABLE "
                                      f"without DROP TABLE, IF NOT EXISTS or OR REPLACE) - at {t.database}.{t.name}")
                del live[key]
            live[key] = (t, text)
        elif words[:1] == ["DROP"] and "TABLE" in words[:3]:
            i = words.index("TABLE") + 1
            i += 2 if words[i:i + 2] == ["IF", "EXISTS"] else 0
            for name in split_commas(toks[i:]):
                parts = [x.text for x in name if x.kind in ("word", "qident")]
                if parts and parts[-1].upper() not in ("RESTRICT", "CASCADE"):
                    live.pop((parts[0] if len(parts) > 1 else db, parts[-1]), None)
    if next(made, None) is not None:
        raise SchemaError("--schema: could not match CREATE TABLE statements to the parsed tables")
    if not live:
        raise SchemaError("--schema: the script drops every table it creates")
    return list(live.values()), sequences


def _listable(d: TableDef, fk: frozenset[str]) -> frozenset[str]:
    """Key columns (lower-case) that may take a short list of values: every PRIMARY / UNIQUE
    key holding one has another column, generated from the row key, that keeps its rows apart
    (not one of the FOREIGN KEY columns ``fk``: their values are the parent's)."""
    t = d.table
    keys = [[t.columns[ci].name.lower() for ci, _ in parts] for parts in key_parts(t)]
    cols = {c for k in keys for c in k} - fk
    return frozenset(c for c in cols if all(c not in k or any(o != c and o not in fk for o in k) for k in keys))


def _listed_keys_apart(d: TableDef, fk: frozenset[str]) -> None:
    """SchemaError unless every PRIMARY / UNIQUE key holding a listed column (``key_fns`` set
    by :func:`custom`) keeps its rows apart by a column that is neither listed, held below a
    bound (``key_caps``: it repeats after N keys) nor a FOREIGN KEY column (``fk``)."""
    t = d.table
    listed = {n.lower() for n in d.key_fns}
    held = listed | {n.lower() for n in d.key_caps} | fk
    for parts in key_parts(t):
        names = [t.columns[ci].name.lower() for ci, _ in parts]
        if listed & set(names) and all(n in held for n in names):
            raise SchemaError(f"the CHECK constraints and partitioning of table {t.database}.{t.name} cannot be "
                              f"followed by the generator: they restrict every column of its key "
                              f"({', '.join(t.columns[ci].name for ci, _ in parts)}) to a few values")


def _keys_below(t: Table, col: Any, bound: Any, included: bool, flavor: str) -> int:
    """How many keys give a DATE / DATETIME or integer key column a value below ``bound``
    (``included``: up to it): its counting key values (from 2000-01-01, or 1;
    generators/columns/date.py, datetime.py, integer.py) grow with the key, so the first N
    keys do; the column wraps at N (generators/key_space.py)."""
    where = f"{t.name}.{col.name}"
    try:
        limit = coerce(col, bound, where)
    except SpecError:
        raise SchemaError(f"the partitioning of table {t.database}.{where}: bound {bound!r} is not a "
                          f"{col.type} value") from None
    fn = key_generator(col, flavor, t.name, True)  # counting values (generators/key_space.py counts_up)
    lo, hi = 0, key_capacity(col, flavor)
    while lo < hi:  # the first key whose value is past the bound
        mid = (lo + hi) // 2
        v = fn(mid)
        if v < limit or (included and v == limit):
            lo = mid + 1
        else:
            hi = mid
    if lo < 1:
        raise SchemaError(f"the partitioning of table {t.database}.{where} cannot be followed by the generator: "
                          f"its key values start at {fn(0)}, past the last bound {bound!r}")
    return lo


def listed_key(values: list) -> Callable[[int], Any]:
    """``key -> values[key % len(values)]``, with its many-key twin (``.vec``, a list): a key
    column restricted to a list of values (:func:`_listable`), its rows kept apart by the
    key's other columns."""
    n = len(values)

    def fn(key: int) -> Any:
        return values[key % n]

    def vec(keys: Any) -> list:
        return [values[k] for k in (np.asarray(keys, dtype=np.int64) % n).tolist()]

    fn.vec = vec  # type: ignore[attr-defined]
    return fn


def _key_columns(d: TableDef, fk: frozenset[str]) -> dict[str, bool]:
    """The columns derived from the row key (PRIMARY / UNIQUE parts, the FOREIGN KEY columns
    ``fk``), lower-case, each with whether its values are 1 or more: an integer column of this
    table's own key (generators/columns/integer.py ``key_generator``: ``key + 1``, or spread
    over 1 … its maximum)."""
    t = d.table
    out = {p.column.lower(): False for k in t.keys if k.kind in ("PRIMARY", "UNIQUE") for p in k.parts}
    for c in out:
        out[c] = c not in fk and t.column(c).type in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT")
    out.update(dict.fromkeys(fk, False))
    return out
