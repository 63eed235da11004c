"""How a transaction's row changes group into statements, as a server logs them: one rows
event group per statement (a multi-row statement stays one), a statement's rows in the
order the server changes them (issue #29 §1; checked against MariaDB 10.11 by
tests/conformance/test_app_workload_shape.py and test_sysbench_shape.py). The batch engine,
the per-transaction reference and the Rows_query texts all split with these rules."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["own_statements", "statement_starts", "key_number_order", "rows_query_texts"]

_OP_NAMES = ("insert", "update", "delete")


def statement_starts(run: Any, txn: np.ndarray, table: np.ndarray, kind: np.ndarray, key: np.ndarray,
                     ver_before: np.ndarray, ver_after: np.ndarray) -> np.ndarray:
    """Per applied op (in order) whether it starts a statement: a run of changes of one
    transaction, table and kind is one statement (each op its own under oltp_write_only:
    :func:`own_statements`), as a server logs one multi-row statement — except where the
    server would log the rows otherwise (seen on a real MariaDB 10.11,
    tests/conformance/test_app_workload_shape.py): an UPDATE / DELETE finding its rows by
    key (``WHERE id IN (…)``) changes them in key order, once each — so such a statement
    holds its rows in ascending key order, a row at most once (a key at or below the
    previous one starts the next statement); an UPDATE statement assigns the same columns in
    every row (the server logs every assigned column in each row's after image, changed or
    not, under ``binlog_row_image=MINIMAL``: rows assigning other columns start the next
    statement); on a table without a key (found by every column, in the table's scan order),
    or whose key values do not sort as its key numbers (:func:`key_number_order`), each
    UPDATE / DELETE row is a statement of its own. ``ver_before`` / ``ver_after``: the ops' versions (an
    UPDATE's assigned columns, ``TableRows.update_sets``)."""
    n = len(txn)
    new = np.ones(n, dtype=bool)
    if n > 1 and not own_statements(run.spec):
        keyless = np.array([not key_number_order(rt) for rt in run.rows], dtype=bool)
        t = np.asarray(table)
        kind = np.asarray(kind)
        same = (txn[1:] == txn[:-1]) & (t[1:] == t[:-1]) & (kind[1:] == kind[:-1])
        ordered = (kind[1:] == 0) | ((key[1:] > key[:-1]) & ~keyless[t[1:]])
        pair = np.flatnonzero(same & ordered & (kind[1:] == 1))  # UPDATE pairs: compare their column sets
        if len(pair):
            set_id = np.full(n, -1, dtype=np.int64)
            ops = np.unique(np.concatenate((pair, pair + 1)))
            for tidx in np.unique(t[ops]).tolist():
                o = ops[t[ops] == tidx]
                _, inv = run.rows[tidx].update_sets(np.asarray(key)[o], np.asarray(ver_after)[o],
                                                    np.asarray(ver_before)[o])
                set_id[o] = inv
            ordered[pair] &= set_id[pair + 1] == set_id[pair]
        new[1:] = ~(same & ordered)
    return new


def own_statements(spec: Any) -> bool:
    """Whether every row change of a run is a statement of its own: the oltp_write_only
    template (sysbench sends UPDATE, UPDATE, DELETE, INSERT each as one statement of one
    row, oltp_write_only.lua); else consecutive changes of one table and kind in a
    transaction form one statement."""
    return spec.template == "oltp_write_only"


def key_number_order(rt: Any) -> bool:
    """Whether a table's rows sort in the server's key order when sorted by key number: its
    key is one whole integer column (generated as ``key + 1``, or a workload's increasing key
    function). A composite key, a prefix, or a text / temporal / DECIMAL key sorts otherwise
    (``"10" < "9"``; the index order the server scans an ``IN (…)`` list in), so its multi-row
    UPDATE / DELETE statements cannot be ordered by key number."""
    pk = rt.table.effective_primary_key()
    if len(pk) != 1 or pk[0][1]:
        return False
    return rt.table.columns[pk[0][0]].is_integer


def rows_query_texts(run: Any, ab: Any, values: dict[int, Any]) -> list[str]:
    """Rows-query texts of the statements of an applied batch ``ab`` (generators/batch.py
    ``AppliedBatch``; ``values``: its rows per table as ``rows_batch`` computed them), from
    the engine's one statement-text function (``Run._statement_sql``) given the statement's
    rows as the per-transaction path gives them (INSERT: the row; DELETE: the row; UPDATE:
    (before row, {column: new value}))."""
    n = len(ab.txn)
    if not n:
        return []
    rowlists: dict[int, tuple] = {}
    for tidx, (cols, need_b, need_a, src) in values.items():
        py = [c if isinstance(c, list) else c.tolist() for c in cols]
        rows = list(zip(*py, strict=True)) if py else [() for _ in range(len(need_b) + len(need_a))]
        if src is not None:
            rows = [rows[r] for r in src.tolist()]
        before = dict(zip(need_b.tolist(), rows[:len(need_b)], strict=True))
        after = dict(zip(need_a.tolist(), rows[len(need_b):], strict=True))
        rowlists[tidx] = (before, after)
    new = statement_starts(run, ab.txn, ab.table, ab.kind, ab.key, ab.ver_before, ab.ver_after)
    firsts = np.flatnonzero(new).tolist() + [n]
    out = []
    tab, kind = ab.table.tolist(), ab.kind.tolist()
    for f, e in zip(firsts[:-1], firsts[1:], strict=True):
        tidx, k = tab[f], kind[f]
        rt = run.rows[tidx]
        before, after = rowlists[tidx]
        if k == 0:
            rows = [after[o] for o in range(f, e)]
        elif k == 2:
            rows = [before[o] for o in range(f, e)]
        else:
            rows = []
            for o in range(f, e):
                cols = rt.assigned_columns(int(ab.key[o]), int(ab.ver_after[o]), int(ab.ver_before[o]))
                rows.append((before[o], {i: after[o][i] for i in cols}))
        out.append(run._statement_sql(rt, _OP_NAMES[k], rows))
    return out
