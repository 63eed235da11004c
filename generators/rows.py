"""Rows of one table: key state and the pure row function.

A row is identified by an integer *key* (0, 1, 2 …) and a *version* ``gen << 32 | n``:
``gen`` counts the key's incarnations (DELETE then INSERT again gives gen + 1), ``n``
its UPDATEs since the INSERT. Column values are pure functions of (seed, table, column,
key, version) (generators/values.py):

* key columns (primary key and UNIQUE parts, workload-derived columns such as foreign
  keys) depend on the key only, so they never change and stay unique;
* an UPDATE to version ``n`` assigns the column group ``update_columns(key, version)``
  (a pure choice among the table's update groups) with values made at that version;
* the value of a mutable column at version ``n`` is therefore the one made at the last
  version ``m <= n`` whose group contained it (``m = 0``: the INSERT) — found by walking
  back from ``n`` (the expected walk is short: every group is drawn often);
* a column added by ``--ddl-every`` is NULL for rows inserted before the ALTER and is
  never updated;
* ``ON UPDATE`` / ``DEFAULT CURRENT_TIMESTAMP`` columns are never assigned by the groups:
  they hold the times of the row's INSERT and last changing UPDATE (generators/stamps.py),
  kept per key beside the version (``t_ins``, ``t_upd``) and passed with it.

:class:`TableRows` holds the only state the engine needs per table: for every key whether
it is live, its version and the DDL epoch of its INSERT (numpy arrays, 13 bytes per key;
29 with the two times, kept for tables with stamped columns only), plus a bounded cache of recently computed
rows (a memo of the pure function; clearing it changes nothing).

Size (about 720 lines): one class, TableRows (see its reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from binlogwriter.batch.unique import lexsort_ints, unique_rows
from binlogwriter.schema import Column, Table
from binlogwriter.values import Geometry
from generators.hashing import hash64, hash64_array, salt
from generators.key_space import counts_up, key_parts, key_wraps
from generators.keys import COUNT_SHIFT, NEVER, TableInfo, step
from generators.spec import ColumnGen, Spec, SpecError, charset_stress_of
from generators.stamps import assigned, fill, fill_row, stamp_value, stamps_of
from generators.values import (
    Vec,
    column_generator,
    column_vector_generator,
    key_generator,
    key_vector_generator,
)
from generators.workloads import TableDef

__all__ = ["TableRows", "DDL_TYPES"]

_CACHE_MAX = 20_000
_BLOCK = 512  # rows computed at once for calls in key order
_LOW = (1 << COUNT_SHIFT) - 1  # a counted table's first update statement's count (keys.COUNT_SHIFT)
DDL_TYPES = ("INT NULL", "VARCHAR(40) NULL", "DATETIME(3) NULL", "DECIMAL(10,2) NULL")
_DDL_COLS = {
    "INT NULL": dict(type="INT"),
    "VARCHAR(40) NULL": dict(type="VARCHAR", length=40),
    "DATETIME(3) NULL": dict(type="DATETIME", fsp=3),
    "DECIMAL(10,2) NULL": dict(type="DECIMAL", precision=10, scale=2),
}


def _wrap(fn: Callable[[Any], Any], cap: int) -> Callable[[Any], Any]:
    """``fn`` of keys taken modulo ``cap`` (an int, or a numpy array of them)."""
    return lambda keys: fn(keys % cap)


def _with_srid(fn: Callable[[int, int], Any], srid: int) -> Callable[[int, int], Any]:
    """A spatial column's generator whose values carry ``srid`` (workloads.TableDef.srids)."""
    def gen(key: int, version: int) -> Any:
        v = fn(key, version)
        return v if v is None else Geometry(srid, v.wkb)
    return gen


def _with_srid_many(fn: Any, srid: int) -> Any:
    """:func:`_with_srid` of a column's many-row generator (its values as a list)."""
    def gen(keys: np.ndarray, versions: np.ndarray) -> list:
        got = fn(keys, versions)
        vals = got if isinstance(got, list) else got.tolist()
        return [v if v is None else Geometry(srid, v.wkb) for v in vals]
    return gen


_ONCE_SHARE = 8
"""``TableRows._column_once`` makes each distinct (key, version) once when at least 1 row in
this many repeats one (below that the gather costs more than the values it saves)."""


def _key_runs(keys: np.ndarray, versions: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows in key order (a key's rows in the order given: ``compute_rows`` gives before
    rows then after rows, each in op order, so a key's versions mostly ascend) and, per
    adjacent pair there, whether the key repeats; None when no key repeats (each row is made:
    nothing to share). One integer sort (``lexsort_ints``), not a two-key lexsort."""
    if len(keys) < 2:
        return None
    order = lexsort_ints((keys,))
    ks = keys[order]
    same_key = ks[1:] == ks[:-1]
    if np.count_nonzero(same_key) * _ONCE_SHARE < len(keys):
        return None
    return order, same_key


def ver_of(gen: int, n: int) -> int:
    return (gen << 32) | n


class TableRows:
    """State and row function of one table (see module docstring).

    Size: the key-state arrays and the pure row function are one concept here: a row's values
    depend on its version, which is the state, and nearly every method reads both; the engine
    holds one object per table.
    """

    def __init__(self, tdef: TableDef, spec: Spec, overrides: dict[str, ColumnGen]) -> None:
        self.tdef = tdef
        self.spec = spec
        self.flavor = spec.flavor
        self.seed = spec.seed
        self.table: Table = tdef.table
        self.user_overrides = overrides
        self.ddl_epoch: dict[str, int] = {}  # added column -> DDL epoch that added it
        self.usalt = salt(spec.seed, self.table.name, "update-columns")
        cap = 1024
        self.live = np.zeros(cap, dtype=bool)
        self.ver = np.zeros(cap, dtype=np.int64)
        self.born = np.full(cap, -1, dtype=np.int32)  # DDL epoch of the INSERT; -1 = never inserted
        # times of the INSERT and of the last UPDATE that changed the row (-1: none; tables
        # with stamped columns only, generators/stamps.py; empty for the others)
        self.t_ins = np.zeros(0, dtype=np.int64)
        self.t_upd = np.zeros(0, dtype=np.int64)
        self.next_key = 0
        self.live_count = 0
        self.cache: dict[int, tuple[int, tuple]] = {}
        self._initial: dict[int, tuple] = {}  # a block of rows at version 0, epoch 0 (compute)
        self._last_initial = -2
        self._last_row = -(1 << 62)
        self.build()
        if self.stamps:
            self.t_ins = np.full(cap, -1, dtype=np.int64)
            self.t_upd = np.full(cap, -1, dtype=np.int64)

    # -- compile the row function for the current table definition -------------------
    def build(self) -> None:
        t = self.table
        fl = self.flavor
        tname = t.name
        idx = {c.name: i for i, c in enumerate(t.columns)}
        key_cols: dict[int, Callable[[int], Any]] = {}
        vkey: dict[int, Any] = {}
        for parts in key_parts(t):
            for ci, _prefix in parts:
                col = t.columns[ci]
                if col.name not in self.tdef.key_fns and ci not in key_cols:
                    up = counts_up(t, ci, self.tdef.key_caps)
                    key_cols[ci] = key_generator(col, fl, tname, up)
                    vkey[ci] = key_vector_generator(col, up) or getattr(key_cols[ci], "vec", None)
        for name, fn in self.tdef.key_fns.items():
            if name in idx:
                key_cols[idx[name]] = fn
                vkey[idx[name]] = getattr(fn, "vec", None)  # a workload's twin: fn(keys) -> Vec | list
        self.vkey = vkey
        self.capacity, wraps = key_wraps(t, fl, self.tdef.key_fns, self.tdef.key_caps)
        if self.capacity < 1:
            raise SpecError(f"table {t.database}.{tname}: its keys cannot hold any generated row")
        # a composite key is unique by its widest part: a narrower part (TINYINT next to an
        # INT) wraps around its own key space instead of going out of its type's range
        for ci, cap_c in wraps.items():
            if ci in key_cols:
                key_cols[ci] = _wrap(key_cols[ci], cap_c)
                if vkey.get(ci) is not None:
                    vkey[ci] = _wrap(vkey[ci], cap_c)
        self.key_cols = key_cols
        gens: dict[int, Callable[[int, int], Any]] = {}
        vgens: dict[int, Any] = {}
        for i, col in enumerate(t.columns):
            if i in key_cols:
                continue
            ov = self.user_overrides.get(col.name) or self.tdef.overrides.get(col.name)
            cs = charset_stress_of(self.spec)  # multilingual text (generators/columns/_stress.py)
            gens[i] = column_generator(t, col, fl, self.seed, override=ov, edge=self.tdef.edge,
                                       start_time=self.spec.start_time, charset_stress=cs)
            vgens[i] = column_vector_generator(t, col, fl, self.seed, override=ov, edge=self.tdef.edge,
                                               start_time=self.spec.start_time, charset_stress=cs)
        for name, srid in self.tdef.srids.items():  # spatial columns with an SRID: their values carry it
            i = idx.get(name)
            if i is not None and i in gens and srid:
                gens[i], vgens[i] = _with_srid(gens[i], srid), _with_srid_many(vgens[i], srid)
        self.gens = gens
        self.vgens = vgens
        ddl = {idx[n]: e for n, e in self.ddl_epoch.items() if n in idx}
        self.ddl_idx = ddl
        fixed_names = set(self.tdef.immutable)
        self.stamps = stamps_of(t)  # ON UPDATE / DEFAULT CURRENT_TIMESTAMP, created_at: never drawn by an UPDATE
        candidates = [i for i in gens if i not in ddl and t.columns[i].name not in fixed_names
                      and i not in self.stamps.fixed]
        groups = None
        if self.tdef.update_groups:
            groups = []
            for g in self.tdef.update_groups:
                gi = tuple(sorted(idx[n] for n in g if n in idx and idx[n] in candidates))
                if gi:
                    groups.append(gi)
            groups = groups or None
        cu = self.tdef.counted_updates if self.spec.template == "oltp_write_only" else None
        self.counted: tuple[int, int] | None = None
        if cu is not None and all(n in idx and idx[n] in candidates for n in cu):
            self.counted = (idx[cu[0]], idx[cu[1]])
            groups = [(idx[cu[0]],), (idx[cu[1]],)]
        self.groups = groups
        self._gpos: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._descs: tuple[Any, str, tuple] | None = None
        if groups is not None:
            self.mutable = sorted({i for g in groups for i in g})
        else:
            self.mutable = candidates
        mut = set(self.mutable)
        self.mpos = {c: p for p, c in enumerate(self.mutable)}
        self.fixed = [i for i in gens if i not in mut and i not in ddl]
        self.ncols = len(t.columns)
        self.cache.clear()
        self._initial = {}

    # -- the pure row function -------------------------------------------------------
    def update_columns(self, key: int, version: int, before: int | None = None) -> tuple[int, ...]:
        """Columns an UPDATE to ``version`` assigns (pure); on a counted table (see
        :meth:`compute_counted`) the statement's column, from what the UPDATE added to the
        version (``version - before``)."""
        if self.counted is not None:
            if before is None:
                raise ValueError(f"table {self.table.name}: a counted table's update needs the version before")
            return (self.counted[0],) if (version - before) & _LOW else (self.counted[1],)
        h = hash64(self.usalt, key, version)
        if self.groups is not None:
            return self.groups[h % len(self.groups)]
        m = len(self.mutable)
        if m == 0:
            return ()
        cnt = 1 + (h >> 48) % min(3, m)
        return tuple(sorted({self.mutable[(h >> (16 * j)) % m] for j in range(cnt)}))

    def compute(self, key: int, version: int, born: int, ti: int = -1, tu: int = -1) -> tuple:
        """The row of ``key`` at ``version`` (inserted at DDL epoch ``born``; ``ti``/``tu``: the
        times of its INSERT and last changing UPDATE, generators/stamps.py). Calls for
        consecutive keys at version 0, epoch 0 (the initial rows, in key order) are served
        from blocks computed at once by :meth:`compute_columns` (same values; tested)."""
        return fill_row(self.stamps, self.table, self._compute(key, version, born), ti, tu)

    def _compute(self, key: int, version: int, born: int) -> tuple:
        if version == 0 and born == 0:
            last, self._last_initial = self._last_initial, key
            r = self._initial.get(key)
            if r is not None:
                return r
            if key == last + 1:
                keys = np.arange(key, key + _BLOCK, dtype=np.int64)
                zeros = np.zeros(_BLOCK, dtype=np.int64)
                rows = self.rows_of(keys, zeros, zeros)
                self._initial = dict(zip(keys.tolist(), rows, strict=True))
                return rows[0]
        return self.compute_scalar(key, version, born)

    def rows_of(self, keys: np.ndarray, versions: np.ndarray, borns: np.ndarray,
                ti: np.ndarray | None = None, tu: np.ndarray | None = None) -> list[tuple]:
        """:meth:`compute` of many rows, as row tuples (through :meth:`compute_columns`)."""
        cols = self.compute_columns(keys, versions, borns, ti=ti, tu=tu)
        lists = [c if isinstance(c, list) else c.tolist() for c in cols]
        return list(zip(*lists, strict=True)) if lists else [() for _ in range(len(keys))]

    def compute_scalar(self, key: int, version: int, born: int) -> tuple:
        """The row function value by value (the reference of :meth:`compute_columns`)."""
        gen0 = version & ~0xFFFFFFFF
        n = version & 0xFFFFFFFF
        vals: list[Any] = [None] * self.ncols
        if self.counted is not None:
            return self.compute_counted(key, gen0, n, born, vals)
        self._fill_unchanging(key, gen0, born, vals)
        gens = self.gens
        needed = set(self.mutable)
        m = n
        while needed and m > 0:
            for i in self.update_columns(key, gen0 | m):
                if i in needed:
                    vals[i] = gens[i](key, gen0 | m)
                    needed.discard(i)
            m -= 1
        for i in needed:
            vals[i] = gens[i](key, gen0)
        return tuple(vals)

    def _fill_unchanging(self, key: int, gen0: int, born: int, vals: list) -> None:
        """Into ``vals``: the columns no update changes — the key's, the fixed ones and the
        ``--ddl-every`` columns (NULL for a row born before its column was added)."""
        for i, fn in self.key_cols.items():
            vals[i] = fn(key)
        gens = self.gens
        for i in self.fixed:
            vals[i] = gens[i](key, gen0)
        for i, e in self.ddl_idx.items():
            vals[i] = gens[i](key, gen0) if born >= e else None

    def compute_counted(self, key: int, gen0: int, n: int, born: int, vals: list) -> tuple:
        """The row of a counted table (sysbench's oltp_write_only, oltp_write_only.lua): its
        first update statement is ``SET k=k+1``, its second ``SET c=?``; version ``n`` holds
        their counts (keys.COUNT_SHIFT: ``k`` updates in bits 0-15, ``c`` updates above), so
        ``k`` is its inserted value plus its count and ``c`` the value drawn at its own
        count (``gen0 | count << 16``; the inserted one at count 0). Every update changes
        the row: ``k`` by one, ``c`` by a new draw of ten groups of 11 digits."""
        self._fill_unchanging(key, gen0, born, vals)
        gens = self.gens
        ki, ci = self.counted
        vals[ki] = gens[ki](key, gen0) + (n & _LOW)
        vals[ci] = gens[ci](key, gen0 | (n & ~_LOW))
        return tuple(vals)

    # -- the same rows for many (key, version) pairs at once -----------------------------
    def update_masks(self, keys: np.ndarray, versions: np.ndarray, before: np.ndarray | None = None) -> np.ndarray:
        """:meth:`update_columns` of many rows as a boolean matrix, one row per (key, version)
        and one column per ``self.mutable`` position (a table may have thousands of mutable
        columns: no per-row integer mask)."""
        n = len(keys)
        m = len(self.mutable)
        if not n or not m:
            return np.zeros((n, m), dtype=np.bool_)
        if self.counted is not None:
            if before is None:
                raise ValueError(f"table {self.table.name}: a counted table's updates need the versions before")
            first = ((np.asarray(versions) - np.asarray(before)) & _LOW) != 0
            out = np.zeros((n, m), dtype=np.bool_)
            out[:, self.mpos[self.counted[0]]] = first
            out[:, self.mpos[self.counted[1]]] = ~first
            return out
        r, p = self.assigned_pairs(keys, versions)
        out = np.zeros((n, m), dtype=np.bool_)
        out[r, p] = True
        return out

    def assigned_pairs(self, keys: np.ndarray, versions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`update_columns` of many rows of a table that is not counted, as distinct
        (row index, ``self.mutable`` position) pairs: the sparse form of :meth:`update_masks`
        (an UPDATE assigns one to three columns, or one update group: no row × column matrix)."""
        n, m = len(keys), len(self.mutable)
        if not n or not m:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        h = hash64_array(self.usalt, keys, versions)
        if self.groups is not None:
            flat, starts, lens = self._group_positions()
            g = (h % np.uint64(len(self.groups))).astype(np.int64)
            per = lens[g]
            r = np.repeat(np.arange(n, dtype=np.int64), per)
            first = np.cumsum(per) - per
            p = flat[np.repeat(starts[g] - first, per) + np.arange(len(r), dtype=np.int64)]
            return r, p
        cnt = 1 + ((h >> np.uint64(48)) % np.uint64(min(3, m))).astype(np.int64)
        pos = [((h >> np.uint64(16 * j)) % np.uint64(m)).astype(np.int64) for j in range(3)]
        rows = np.arange(n, dtype=np.int64)
        on = [np.ones(n, dtype=np.bool_), (cnt > 1) & (pos[1] != pos[0]),
              (cnt > 2) & (pos[2] != pos[0]) & (pos[2] != pos[1])]
        return (np.concatenate([rows[o] for o in on]), np.concatenate([q[o] for q, o in zip(pos, on, strict=True)]))

    def _group_positions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The update groups' distinct ``self.mutable`` positions, concatenated, with each
        group's start and length."""
        gp = self._gpos
        if gp is None:
            per = [sorted({self.mpos[c] for c in cols}) for cols in self.groups or ()]
            lens = np.asarray([len(x) for x in per], dtype=np.int64)
            gp = (np.asarray([q for x in per for q in x], dtype=np.int64), np.cumsum(lens) - lens, lens)
            self._gpos = gp
        return gp

    def sources(self, keys: np.ndarray, versions: np.ndarray, need: np.ndarray) -> np.ndarray:
        """For rows at ``versions`` (not a counted table): per row and ``self.mutable``
        position where ``need`` holds, the update number its value was made at — the last
        update at or below the version that assigned it (:meth:`update_columns`), 0 (the
        inserted value) when none did; the rule of :meth:`compute_scalar`. Walks the rows'
        updates downward, all rows at once, only rows with values still to find. The matrix
        is column-major (a column is read at a time: contiguous)."""
        n, mcount = need.shape
        src = np.zeros((n, mcount), dtype=np.int64, order="F")  # column-major: callers take a column at a time
        need = need.copy()
        left = need.sum(axis=1)
        gen0 = versions & ~np.int64(0xFFFFFFFF)
        m = versions & np.int64(0xFFFFFFFF)
        act = np.flatnonzero((m > 0) & (left > 0))
        while len(act):
            r, p = self.assigned_pairs(keys[act], gen0[act] | m[act])
            rows = act[r]
            found = need[rows, p]
            rows, p = rows[found], p[found]
            src[rows, p] = m[rows]
            need[rows, p] = False
            la = left[act] - np.bincount(r[found], minlength=len(act))
            left[act] = la
            m[act] -= 1
            act = act[(m[act] > 0) & (la > 0)]
        return src

    def update_sets(self, keys: np.ndarray, versions: np.ndarray,
                    before: np.ndarray | None = None) -> tuple[list[list[int]], np.ndarray]:
        """:meth:`update_columns` of many rows as (the distinct column sets, as lists of
        column indexes; each row's index in that list)."""
        sets, inv = unique_rows(self.update_masks(keys, versions, before))
        mut = np.asarray(self.mutable, dtype=np.int64)
        return [list(assigned(self.stamps, tuple(mut[s].tolist()))) for s in sets], inv

    def assigned_columns(self, key: int, version: int, before: int) -> tuple[int, ...]:
        """The columns an UPDATE's after image changes: :meth:`update_columns` and the
        ``ON UPDATE CURRENT_TIMESTAMP`` ones (generators/stamps.py)."""
        return assigned(self.stamps, self.update_columns(key, version, before))

    def column_descs(self, flavor: str) -> tuple:
        """``tuple(self.table.column_descs(flavor))``, one tuple object while the table's
        definition stays (an ``--ddl-every`` ALTER makes a new table): row codecs are cached
        by that object (binlogwriter/values/row.py ``row_codec``), and with a codec what it
        derived from the value pools it encoded (row_many ``_pool_pieces``), so a batch does
        not encode every pool entry again."""
        d = self._descs
        if d is None or d[0] is not self.table or d[1] != flavor:
            d = self._descs = (self.table, flavor, tuple(self.table.column_descs(flavor)))
        return d[2]

    def column_at(self, i: int, keys: np.ndarray, versions: np.ndarray):
        """Column ``i``'s values made at exactly ``versions`` (a :class:`~generators.values.Vec`
        or a list): no walk, no stamps, no ``--ddl-every`` NULLs."""
        return self._column(i, keys, versions)

    def _column(self, i: int, keys: np.ndarray, versions: np.ndarray):
        vg = self.vgens.get(i)
        if vg is not None:
            return vg(keys, versions)
        g = self.gens[i]
        return [g(k, v) for k, v in zip(keys.tolist(), versions.tolist(), strict=True)]

    def compute_columns(self, keys: np.ndarray, versions: np.ndarray, borns: np.ndarray,
                        only: tuple[int, ...] | None = None, ti: np.ndarray | None = None,
                        tu: np.ndarray | None = None) -> list:
        """:meth:`compute` of many rows, column by column: per column a
        :class:`~generators.values.Vec` or a list of Python values (same values). ``only``:
        compute those columns alone (the others None; generators/noop.py); ``ti``/``tu``: the
        rows' times for their stamped columns (generators/stamps.py)."""
        return fill(self.stamps, self.table, self._columns(keys, versions, borns, only), ti, tu)

    def _columns(self, keys: np.ndarray, versions: np.ndarray, borns: np.ndarray,
                 only: tuple[int, ...] | None) -> list:
        n = len(keys)
        want = set(range(self.ncols)) if only is None else set(only)
        keys = keys.astype(np.int64, copy=False)
        versions = versions.astype(np.int64, copy=False)
        gen0 = versions & ~np.int64(0xFFFFFFFF)
        cols: list[Any] = [None] * self.ncols
        # only _column_once shares values along runs: the fixed, --ddl-every and (not counted) updatable columns
        shared = not want.isdisjoint(self.fixed) or not want.isdisjoint(self.ddl_idx) or (
            self.counted is None and not want.isdisjoint(self.mutable))
        runs = _key_runs(keys, versions) if shared else None
        for i, fn in self.key_cols.items():
            if i not in want:
                continue
            vk = self.vkey.get(i)
            cols[i] = vk(keys) if vk is not None else [fn(k) for k in keys.tolist()]
        plan = self._once_plan(gen0, runs)  # every fixed column is made at gen0: one plan for all
        for i in self.fixed:
            if i in want:
                cols[i] = self._column_once(i, keys, gen0, runs, plan)
        for i, e in self.ddl_idx.items():
            if i not in want:
                continue
            old = np.asarray(borns) < e
            c = self._column_once(i, keys, gen0, runs, plan)
            if isinstance(c, Vec):
                c = Vec(c.kind, c.data, old if c.nulls is None else (c.nulls | old), c.pool, c.meta)
            else:
                c = [None if o else v for v, o in zip(c, old.tolist(), strict=True)]
            cols[i] = c
        if self.counted is not None:
            ki, ci = self.counted
            n_lo = versions & np.int64(_LOW)
            kc = self._column(ki, keys, gen0) if ki in want else None
            if kc is None:
                pass
            elif isinstance(kc, Vec) and kc.kind == "int":
                kc = Vec("int", kc.data + n_lo, kc.nulls, kc.pool, kc.meta)
            else:
                kc = [v + d for v, d in zip(kc if isinstance(kc, list) else kc.tolist(), n_lo.tolist(), strict=True)]
            cols[ki] = kc
            if ci in want:
                cols[ci] = self._column(ci, keys, gen0 | (versions & np.int64(0xFFFFFFFF & ~_LOW)))
        elif want.intersection(self.mutable):
            need = np.zeros((n, len(self.mutable)), dtype=np.bool_)  # values to find, by mutable position
            need[:, [p for p, i in enumerate(self.mutable) if i in want]] = True
            src = self.sources(keys, versions, need)
            for p, i in enumerate(self.mutable):
                if i in want:
                    cols[i] = self._column_once(i, keys, gen0 | src[:, p], runs)
        return cols

    @staticmethod
    def _once_plan(versions: np.ndarray, runs: tuple | None) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`_column_once`'s (rows made, each row's index among them) for ``versions``, or
        None when every row is made (no runs, or too few repeats)."""
        if runs is None:
            return None
        order, same_key = runs
        n = len(order)
        vs = versions[order]
        first = np.ones(n, dtype=bool)
        first[1:] = ~(same_key & (vs[1:] == vs[:-1]))
        if int(np.count_nonzero(first)) * _ONCE_SHARE > n * (_ONCE_SHARE - 1):
            return None
        idx = np.empty(n, dtype=np.int64)
        idx[order] = np.cumsum(first) - 1
        return order[first], idx

    def _column_once(self, i: int, keys: np.ndarray, versions: np.ndarray, runs: tuple | None,
                     plan: tuple | None | bool = False):
        """:meth:`_column` with each distinct (key, version) made once: a value is a pure
        function of them, and rows repeat them — an UPDATE's before and after rows hold the
        same value in every column the UPDATE does not assign (made at the same version,
        :meth:`sources`), a row computed twice in a batch all of them. ``runs``
        (:func:`_key_runs`): the rows in key order; adjacent rows of one key with the same
        version for this column form a run, whose first row is made and the others take its
        value (rows that repeat a pair apart from each other are made again: the same
        values); with few repeats every row is made. ``plan``: :meth:`_once_plan` of these
        versions when the caller has it (False: made here)."""
        plan = self._once_plan(versions, runs) if plan is False else plan
        if plan is None:
            return self._column(i, keys, versions)
        pick, idx = plan
        got = self._column(i, keys[pick], versions[pick])
        if isinstance(got, Vec):
            return got.take(idx)
        return [got[j] for j in idx.tolist()]

    def row(self, key: int) -> tuple:
        """The current row of live ``key``. Calls in ascending key order (the final state,
        key by key) are served from blocks of the next live keys computed at once."""
        v = int(self.ver[key])
        c = self.cache.get(key)
        if c is not None and c[0] == v:
            return c[1]
        last, self._last_row = self._last_row, key
        if 0 < key - last <= 16:
            keys = key + np.flatnonzero(self.live[key:key + _BLOCK]).astype(np.int64)
            if len(keys) > 1 and keys[0] == key:
                if len(self.cache) + len(keys) > _CACHE_MAX:
                    self.cache.clear()
                vers = self.ver[keys]
                rows = self.rows_of(keys, vers, self.born[keys].astype(np.int64), *self.times(keys))
                for k, vv, r in zip(keys.tolist(), vers.tolist(), rows, strict=True):
                    self.cache[k] = (vv, r)
                return rows[0]
        r = self.compute(key, v, int(self.born[key]), *self.stamp(key))
        self._remember(key, v, r)
        return r

    def _remember(self, key: int, v: int, r: tuple) -> None:
        if len(self.cache) >= _CACHE_MAX:
            self.cache.clear()
        self.cache[key] = (v, r)

    # -- state -------------------------------------------------------------------------
    def _grow(self, key: int) -> None:
        cap = len(self.live)
        if key < cap:
            return
        new = max(cap * 2, key + 1)
        self.live = np.concatenate([self.live, np.zeros(new - cap, dtype=bool)])
        self.ver = np.concatenate([self.ver, np.zeros(new - cap, dtype=np.int64)])
        self.born = np.concatenate([self.born, np.full(new - cap, -1, dtype=np.int32)])
        if len(self.t_ins):
            self.t_ins = np.concatenate([self.t_ins, np.full(new - cap, -1, dtype=np.int64)])
            self.t_upd = np.concatenate([self.t_upd, np.full(new - cap, -1, dtype=np.int64)])

    def is_live(self, key: int) -> bool:
        return key < self.next_key and bool(self.live[key])

    def load_initial(self, keys) -> int:
        """Mark the initial keys live at version 0 (their rows are snapshot.sql's)."""
        count = 0
        for k in keys:
            self._grow(k)
            self.live[k] = True
            self.ver[k] = 0
            self.born[k] = 0
            self.next_key = max(self.next_key, k + 1)
            count += 1
        self.live_count = count
        return count

    # -- key state (generators/keys.py: the engine applies keys.step over these arrays) ------
    def info(self) -> TableInfo:
        """What key resolution needs (pure: from the workload, not from the state)."""
        return TableInfo(self.first_fresh, self.capacity, bool(self.mutable), self.tdef.keep_initial,
                         self.counted is not None)

    @property
    def first_fresh(self) -> int:
        """One past the highest initial key."""
        td = self.tdef
        if td.initial_next is not None:
            return td.initial_next
        return td.initial_count if td.initial_keys is None else max(td.initial_keys(), default=-1) + 1

    def is_initial(self, key: int) -> bool:
        """Whether ``key`` is one of the initial rows (pure)."""
        td = self.tdef
        if td.is_initial is not None:
            return td.is_initial(key)
        if td.initial_keys is None:
            return 0 <= key < td.initial_count
        raise SpecError(f"table {self.table.name}: initial_keys without is_initial")

    def state(self, key: int) -> tuple[bool, int, int]:
        if key >= len(self.live):
            return NEVER
        return bool(self.live[key]), int(self.ver[key]), int(self.born[key])

    def set_state(self, key: int, st: tuple[bool, int, int]) -> None:
        self._grow(key)
        live, ver, born = st
        if bool(self.live[key]) != live:
            self.live_count += 1 if live else -1
        self.live[key] = live
        self.ver[key] = ver
        self.born[key] = born
        self.next_key = max(self.next_key, key + 1)

    def set_states(self, keys: np.ndarray, live: np.ndarray, ver: np.ndarray, born: np.ndarray) -> None:
        """:meth:`set_state` of many distinct keys at once."""
        if not len(keys):
            return
        self._grow(int(keys.max()))
        was = self.live[keys]
        self.live_count += int(np.count_nonzero(live)) - int(np.count_nonzero(was))
        self.live[keys] = live
        self.ver[keys] = ver
        self.born[keys] = born
        self.next_key = max(self.next_key, int(keys.max()) + 1)

    def stamp(self, key: int) -> tuple[int, int]:
        """The times of ``key``'s INSERT and last changing UPDATE (generators/stamps.py)."""
        if key >= len(self.t_ins):
            return -1, -1
        return int(self.t_ins[key]), int(self.t_upd[key])

    def times(self, keys: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``compute_columns``' ``ti`` / ``tu`` of live keys (None, None without stamped columns)."""
        if not len(self.t_ins):
            return None, None
        return self.t_ins[keys], self.t_upd[keys]

    def set_stamps(self, keys: np.ndarray, ti: np.ndarray, tu: np.ndarray) -> None:
        """Set the times of many distinct keys (tables with stamped columns only)."""
        if len(keys) and len(self.t_ins):
            self._grow(int(keys.max()))
            self.t_ins[keys] = ti
            self.t_upd[keys] = tu

    def row_at(self, key: int, version: int, born: int, ti: int = -1, tu: int = -1) -> tuple:
        """The row of ``key`` at ``version`` (memoised compute; a version has one pair of times)."""
        c = self.cache.get(key)
        if c is not None and c[0] == version:
            return c[1]
        r = self.compute(key, version, born, ti, tu)
        self._remember(key, version, r)
        return r

    def change(self, kind: str, key: int, ver_before: int, ver_after: int, born: int,
               ti: int = -1, tu_b: int = -1, tu_a: int = -1) -> Any:
        """The statement row of an applied op: the inserted row, the deleted row, or an
        UPDATE's (before row, {column index: new value}); ``ti``, ``tu_b``, ``tu_a``: the
        row's times (generators/stamps.py)."""
        if kind == "insert":
            return self.row_at(key, ver_after, born, ti, tu_a)
        before = self.row_at(key, ver_before, born, ti, tu_b)
        if kind == "delete":
            self.cache.pop(key, None)
            return before
        cols = self.update_columns(key, ver_after, ver_before)
        if self.counted is not None:
            new = self.row_at(key, ver_after, born, ti, tu_a)
            given = {i: new[i] for i in cols}
        else:
            given = {i: self.gens[i](key, ver_after) for i in cols}
        for i in self.stamps.on_update:  # ON UPDATE CURRENT_TIMESTAMP: the transaction's time
            given[i] = stamp_value(self.table.columns[i], tu_a)
        given = dict(sorted(given.items()))
        after = list(before)
        for i, x in given.items():
            after[i] = x
        self._remember(key, ver_after, tuple(after))
        return before, given

    def insert(self, key: int, epoch: int) -> tuple:
        if key >= self.capacity:
            raise SpecError(f"table {self.table.name}: key {key} beyond what its key columns can hold")
        res = step(self.state(key), "insert", epoch)
        assert res is not None, "insert of a live key"
        st, vb, va = res
        self.set_state(key, st)
        return self.change("insert", key, vb, va, epoch)

    def update(self, key: int) -> tuple[tuple, dict[int, Any]]:
        """(before row, {column index: new value}) and the key moves to its next version."""
        st, vb, va = step(self.state(key), "update", 0)
        self.set_state(key, st)
        return self.change("update", key, vb, va, st[2])

    def delete(self, key: int) -> tuple:
        st, vb, va = step(self.state(key), "delete", 0)
        self.set_state(key, st)
        return self.change("delete", key, vb, va, st[2])

    # -- DDL ----------------------------------------------------------------------------
    def add_column(self, name: str, typedef: str, epoch: int) -> None:
        col = Column(name=name, nullable=True, **_DDL_COLS[typedef])
        self.table = replace(self.table, columns=self.table.columns + (col,))
        self.ddl_epoch[name] = epoch
        self.build()

    def drop_column(self, name: str) -> None:
        self.table = replace(self.table, columns=tuple(c for c in self.table.columns if c.name != name))
        self.ddl_epoch.pop(name, None)
        self.build()

    def live_keys(self):
        """Live keys in ascending order."""
        return (int(k) for k in np.flatnonzero(self.live[:self.next_key]))
